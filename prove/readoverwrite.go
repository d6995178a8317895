package prove

import (
	"eqc/ir"
)

// Reads through stores. An obligation that reads a memory a path wrote
// (the return address at the final rsp, after stores through a pointer
// argument) asks Z3's array theory to decide which store each byte read
// meets, with the addresses' relation in the premises (the pointer lies
// outside the frame); on a loop-free function that stores four longs
// through its argument that took 5.6 s, and 60 s and more on one that
// returns a 32-byte struct through its hidden pointer, where cvc5 took
// 2.5 s. Reading each byte through the stores by their definition,
//
//	select(store(M, w, v), a) = ite(a = w, v, select(M, a))
//
// byte by byte (a store of n bytes is n such cases, none where the two
// addresses are one base plus different constants, and the last one
// decided where they are the same), leaves only reads of memory
// variables, which reduceReads then makes bit-vector constants. The
// rewrite is the theory's own axiom, so the query it makes is
// equisatisfiable with the original, and a model of it is one of the
// original (whose memories' stores the evaluator applies).

// maxReadOverWrite bounds the cases (address comparisons) the rewrite
// may add: each byte read meets every store below it.
const maxReadOverWrite = 4096

// expandStores returns q with every read of a stored-to memory made the
// bytes it reads through the stores, or false when q is not of that kind
// (no such read; a memory that is neither a variable nor a store, or one
// used other than as what a select reads or a store writes) or the
// rewrite would exceed maxReadOverWrite cases.
func expandStores(q Query) (Query, bool) {
	b := q.B
	post := b.PostOrder(q.Assertions...)
	stores := false
	for _, t := range post {
		if b.Sort(t) == ir.MemSort {
			switch b.Op(t) {
			case ir.OpVar:
			case ir.OpStore:
				stores = true
			default:
				return q, false
			}
		}
		for i, a := range b.Args(t) {
			if b.Sort(a) == ir.MemSort && (i != 0 || b.Op(t) != ir.OpSelect && b.Op(t) != ir.OpStore) {
				return q, false
			}
		}
	}
	if !stores {
		return q, false
	}
	budget := maxReadOverWrite
	made := map[ir.Term]bool{} // the cases the rewrite adds
	repl := map[ir.Term]ir.Term{}
	sub := ir.NewSubstituter(b, repl)
	memo := map[[2]ir.Term]ir.Term{}
	// byteAt is the byte memory m holds at address a (a term of the
	// rewritten query): the stores from the last one down, each byte a
	// case unless its address is apart from a, or is one a later store
	// wrote (that store's case already decided it: leaving the shadowed
	// case in made Z3 take 11 s over a pair of chains its array theory
	// compares at once, after collapsing the same stores), down to the
	// first store to a itself or the memory variable.
	type storeCase struct{ w, v ir.Term }
	type baseOff struct {
		base ir.Term
		off  uint64
	}
	byteAt := func(m, a ir.Term) ir.Term {
		key := [2]ir.Term{m, a}
		if r, ok := memo[key]; ok {
			return r
		}
		var cases []storeCase
		written := map[baseOff]bool{}
		r := ir.NoTerm
		for r == ir.NoTerm {
			if b.Op(m) == ir.OpVar {
				r = b.Select(m, a, 1)
				break
			}
			n, _ := b.Params(m)
			w, v := sub.Apply(b.Arg(m, 1)), sub.Apply(b.Arg(m, 2))
			for j := uint32(0); j < n; j++ {
				wj := w
				if j > 0 {
					wj = b.Add(w, b.Const(64, uint64(j)))
				}
				vj := b.Extract(v, 8*j+7, 8*j)
				if apart(b, a, wj) {
					continue
				}
				if sameAddress(b, a, wj) {
					r = vj
					break
				}
				base, off := baseOffset(b, wj)
				if written[baseOff{base, off}] {
					continue
				}
				written[baseOff{base, off}] = true
				cases = append(cases, storeCase{wj, vj})
			}
			m = b.Arg(m, 0)
		}
		budget -= len(cases)
		for i := len(cases) - 1; i >= 0 && budget >= 0; i-- {
			r = b.Ite(addressEq(b, a, cases[i].w), cases[i].v, r)
			made[r] = true
		}
		memo[key] = r
		return r
	}
	for _, t := range post {
		if b.Op(t) != ir.OpSelect || b.Op(b.Arg(t, 0)) == ir.OpVar {
			continue
		}
		n, _ := b.Params(t)
		a := sub.Apply(b.Arg(t, 1))
		if hasCase(b, a, made) {
			return q, false
		}
		var val ir.Term
		for i := uint32(0); i < n; i++ {
			ai := a
			if i > 0 {
				ai = b.Add(a, b.Const(64, uint64(i)))
			}
			v := byteAt(b.Arg(t, 0), ai)
			if i == 0 {
				val = v
			} else {
				val = b.Concat(v, val)
			}
		}
		if budget < 0 {
			return q, false
		}
		repl[t] = val
		sub = ir.NewSubstituter(b, repl)
	}
	out := sub.ApplyAll(q.Assertions)
	for _, t := range b.PostOrder(out...) {
		if b.Op(t) == ir.OpSelect && hasCase(b, b.Arg(t, 1), made) {
			return q, false
		}
	}
	// The bytes read back as the stores wrote them, concatenated again
	// (a pointer the -O0 build saved in its frame and reloaded to store
	// through is its parameter again, so the cases compare one
	// difference of bases with constants).
	simp := ir.NewSimplifier(b)
	for i, t := range out {
		out[i] = simp.Simplify(t)
	}
	return Query{B: b, Assertions: out}, true
}

// hasCase reports whether t has one of the rewrite's cases in it (made).
// A read whose address does (a pointer loaded where the stores before it
// decide which bytes it is) puts one read's cases inside another's
// address, and Z3's simplifier then takes seconds over what the array
// theory decides at once (a witness bridge's reads through lua's loaded
// pointers: 3 s a query against milliseconds). A store's address may
// have cases (-O0 reloads the pointer it stores through from its slot,
// where the engine's frame split left an ite): they are only compared.
func hasCase(b *ir.Builder, t ir.Term, made map[ir.Term]bool) bool {
	if len(made) == 0 {
		return false
	}
	for _, u := range b.PostOrder(t) {
		if made[u] {
			return true
		}
	}
	return false
}

// sameAddress reports whether two address terms are one base plus one
// constant.
func sameAddress(b *ir.Builder, x, y ir.Term) bool {
	bx, ox := baseOffset(b, x)
	by, oy := baseOffset(b, y)
	return bx == by && ox == oy
}

// addressEq is x = y said as the difference of their bases against a
// constant: x = rx + ox and y = ry + oy are equal exactly when
// rx − ry = oy − ox (modulo 2^64). Every case between the same two bases
// then compares one difference, the one ub.Disjoint states a range of
// (the later term first), with constants: a read of the saved rbp
// through a 32-byte result block's stores took Z3 5 s as 256 equalities
// of sums, each bit-blasted on its own.
func addressEq(b *ir.Builder, x, y ir.Term) ir.Term {
	rx, ox := baseOffset(b, x)
	ry, oy := baseOffset(b, y)
	if rx == ir.NoTerm || ry == ir.NoTerm || rx == ry {
		return b.Eq(x, y)
	}
	if rx < ry {
		rx, ox, ry, oy = ry, oy, rx, ox
	}
	return b.Eq(b.Sub(rx, ry), b.Const(64, oy-ox))
}
