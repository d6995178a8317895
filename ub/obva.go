package ub

import (
	"fmt"

	"eqc/ir"
)

// The OBVA hypotheses (obva.go): what the model lets a proof assume about
// the source's accesses, as Bool terms over the state the source paths
// start from. A block's accesses happen whenever a run enters it and
// nothing faults, so for each prefix of each source path, the prefix's
// condition, with no fault there or in the next edge, implies that the
// next edge's accesses through addresses not derived from the entry rsp
// (FrameTaint) miss the frame [rsp−StackLimit, rsp+8). Every run without
// undefined behaviour under the model satisfies each hypothesis, whatever
// the path's other conditions; the terms are the paths' own, before any
// rewriting. The loop-free engine states them over the entry state, the
// product program over each edge's from-node.
//
// The same hypotheses also keep each access made through pointer
// arithmetic on a global's address inside that global (objectOf): C
// (6.5.6p8) leaves a pointer outside its array, one past the end aside,
// undefined, and an access there with it. A loop bounded by a parameter
// (for (i = 0; i < n; i++) X[i] = Y[i] + val) needs it: nothing else
// keeps X[i] off val once n may exceed X's length.

// MaxOBVAPaths bounds the source paths of one path set that get
// hypotheses path by path, each composed on its own; a path set with more
// gets them by places (ir.TFG.Steps): a -O0 loop body with a branch
// unrolled seven times (gcc's vector loop and its remainder of up to
// three passes) has 128 paths, and without hypotheses its accesses were
// not known to miss the frame.
const MaxOBVAPaths = 16

// MaxOBVAPlaces bounds the places (an edge after the merged prefixes that
// lead to it) of a path set with more than MaxOBVAPaths paths that get
// hypotheses.
const MaxOBVAPlaces = 128

// OBVAInput is one path set of the source to state hypotheses for.
type OBVAInput struct {
	B    *ir.Builder
	Simp *ir.Simplifier
	// G holds the edges the paths name (by ID), over G's state variables.
	G     *ir.TFG
	Paths *ir.PathExpr
	// From maps G's state variables to the state the paths start from
	// (nil: G's own variables, the entry state).
	From  *ir.Substituter
	Taint *FrameTaint
	Rsp0  ir.Term // the entry rsp, in From's terms
	// Objects are the sizes of the objects whose address variables the
	// paths may name (globals, literals), where the binaries say them:
	// an access through pointer arithmetic on one stays inside it
	// (objectOf). Nil: no such hypotheses.
	Objects map[ir.Term]uint64
	// Pointers are the entry values of the source's pointer parameters
	// (the null model's UserSpaceEnd hypotheses); nil: none.
	Pointers []ir.Term
}

// OBVAHypotheses returns in's hypotheses, path by path up to
// MaxOBVAPaths paths, by merged prefixes past that (eachBlock).
func OBVAHypotheses(in OBVAInput) []ir.Term {
	return obvaHypotheses(in, Misses{})
}

// Misses are the accesses hypotheses place outside the frame: n bytes at
// base+off, by base (terms over the paths' start state).
type Misses map[ir.Term][][2]int64

// add records n bytes at a.
func (ms Misses) add(b *ir.Builder, a ir.Term, n uint32) {
	base, off := linear(b, a)
	ms[base] = append(ms[base], [2]int64{off, off + int64(n)})
}

// covers reports whether n bytes at a lie inside one recorded access.
func (ms Misses) covers(b *ir.Builder, a ir.Term, n uint32) bool {
	base, off := linear(b, a)
	return ms.coversSpan(base, off, off+int64(n))
}

func (ms Misses) coversSpan(base ir.Term, lo, hi int64) bool {
	for _, s := range ms[base] {
		if s[0] <= lo && hi <= s[1] {
			return true
		}
	}
	return false
}

// OBVAMisses is OBVAHypotheses with the accesses the hypotheses place
// outside the frame.
func OBVAMisses(in OBVAInput, misses Misses) []ir.Term {
	return obvaHypotheses(in, misses)
}

func obvaHypotheses(in OBVAInput, misses Misses) []ir.Term {
	lo := in.Simp.Simplify(in.B.Sub(in.Rsp0, in.B.Const(64, StackLimit)))
	return eachBlock(in, func(from, at *ir.Substituter, prefix, next *ir.Edge, merged bool) (ir.Term, bool) {
		return blockHypothesis(in, from, at, prefix, next, merged, lo, misses)
	})
}

// eachBlock collects hyp's hypotheses for each edge of in's paths after
// each prefix (EachPrefix): at takes the edge's from-state to the
// prefix's, from the paths' start state to in's terms.
func eachBlock(in OBVAInput, hyp func(from, at *ir.Substituter, prefix, next *ir.Edge, merged bool) (ir.Term, bool)) []ir.Term {
	b, g := in.B, in.G
	from := in.From
	if from == nil {
		from = ir.NewSubstituter(b, nil)
	}
	var out []ir.Term
	EachPrefix(g, in.Paths, func(prefix, next *ir.Edge, merged bool) {
		var at *ir.Substituter // next's from-state as the prefix leaves it
		if prefix != nil {
			at = g.StateSubst(prefix.Transfer)
		}
		if h, ok := hyp(from, at, prefix, next, merged); ok {
			out = append(out, h)
		}
	})
	return out
}

// EachPrefix calls visit for each edge next of the paths after each
// prefix of them that leads to it (nil: next starts the path), every
// such pair once: path by path up to MaxOBVAPaths paths; past that (a
// loop body with a branch, unrolled past four passes), with merged set,
// by places (ir.TFG.Steps), the prefixes that lead to one place merged
// into one edge whose states are ite terms of the branches, at most
// MaxOBVAPlaces of them. What the limit leaves out gets no hypothesis:
// fewer are still sound. The hypotheses of every model are stated over
// these prefixes (OBVA's, null's, the sanitizer checks').
func EachPrefix(g *ir.TFG, paths *ir.PathExpr, visit func(prefix, next *ir.Edge, merged bool)) {
	if paths.Count() > MaxOBVAPaths {
		g.Steps(paths, MaxOBVAPlaces, func(prefix, next *ir.Edge) { visit(prefix, next, true) })
		return
	}
	done := map[string]bool{} // prefixes already covered, by their edge IDs
	for _, ids := range paths.Paths(MaxOBVAPaths) {
		var prefix *ir.Edge
		for k, id := range ids {
			next := g.Edges[id]
			if key := fmt.Sprint(ids[:k+1]); !done[key] {
				done[key] = true
				visit(prefix, next, false)
			}
			if prefix == nil {
				prefix = next
			} else {
				prefix = g.Seq(prefix, next)
			}
		}
	}
}

// blockHypothesis is the hypothesis for edge next after prefix (nil: next
// is the path's first edge), if next makes any access the model speaks of.
func blockHypothesis(in OBVAInput, from, at *ir.Substituter, prefix, next *ir.Edge, merged bool, lo ir.Term, misses Misses) (ir.Term, bool) {
	b := in.B
	var miss []ir.Term
	seen := map[ir.Term]bool{}
	for _, acc := range blockAccesses(b, in.Simp, from, at, next, merged) {
		a, n := acc.addr, acc.n
		if seen[a] || in.Taint.Derived(a) {
			continue
		}
		seen[a] = true
		misses.add(b, a, n)
		miss = append(miss, MissesFrame(b, a, n, lo))
		if base, size, ok := objectOf(b, a, in.Objects, in.Taint); ok && size >= uint64(n) {
			miss = append(miss, b.Ule(b.Sub(a, base), b.Const(64, size-uint64(n))))
		}
	}
	if len(miss) == 0 {
		return ir.NoTerm, false
	}
	// An implication, not a disjunction the simplifier may reorder: the
	// splitter guards the facts of the accesses' addresses by their
	// context, and an address matters only where the path reaches it.
	return in.Simp.Simplify(b.Implies(from.Apply(reachedBlock(b, at, prefix, next)), b.And(miss...))), true
}

// access is one memory access of a block: n bytes at addr, a term over
// the paths' start state; store says it writes them.
type access struct {
	addr  ir.Term
	n     uint32
	store bool
}

// blockAccesses lists the accesses edge next makes (its loads and stores,
// in its condition, fault and transfer), each once, with addresses over
// the paths' start state: at takes next's from-state to the prefix's
// (nil: next is the path's first edge), from the start state to terms.
//
// With merged, at is a merged prefix's (eachBlock) and an address that
// still holds an ite of its branches is left out: such an address is no
// base plus offset, and a hypothesis about it made the splitter's facts
// grow past any memory (clang's split_sign: 65536 paths, memout in 20 s).
func blockAccesses(b *ir.Builder, simp *ir.Simplifier, from, at *ir.Substituter, next *ir.Edge, merged bool) []access {
	var out []access
	seen := map[access]bool{}
	for _, t := range b.PostOrder(append([]ir.Term{next.Cond, next.Fault}, next.Transfer...)...) {
		op := b.Op(t)
		if op != ir.OpSelect && op != ir.OpStore {
			continue
		}
		n, _ := b.Params(t)
		a := b.Arg(t, 1)
		if at != nil {
			a = at.Apply(a)
		}
		acc := access{simp.Simplify(from.Apply(a)), n, op == ir.OpStore}
		if merged && hasIte(b, acc.addr) {
			continue
		}
		if !seen[acc] {
			seen[acc] = true
			out = append(out, acc)
		}
	}
	return out
}

// reachedBlock says when a run makes the accesses of edge next after
// prefix (nil: next is the path's first edge), over the paths' start
// state: it gets to the block and nothing faults on the way (a fault ends
// the run, perhaps before the access).
func reachedBlock(b *ir.Builder, at *ir.Substituter, prefix, next *ir.Edge) ir.Term {
	if prefix == nil {
		return b.Not(next.Fault)
	}
	return b.And(prefix.Cond, b.Not(prefix.Fault), b.Not(at.Apply(next.Fault)))
}

// objectOf finds the object an access at address a is made in: the
// object whose address variable is the one pointer among a's summands,
// every other summand an integer offset — a constant, a value scaled by a
// constant (an index times the element size), or a value narrower than a
// pointer, extended (an int index) — and not derived from the frame.
// Whatever such an offset holds, it is not the pointer operand of C's
// addition: the object's address is. An unscaled 64-bit summand might be
// a pointer cast to an integer, the object's address then the offset
// ((char *)p + (long)&G): such an address has no object here.
func objectOf(b *ir.Builder, a ir.Term, objects map[ir.Term]uint64, taint *FrameTaint) (ir.Term, uint64, bool) {
	if len(objects) == 0 {
		return ir.NoTerm, 0, false
	}
	base := ir.NoTerm
	offset := func(t ir.Term) bool {
		if taint != nil && taint.Derived(t) {
			return false
		}
		switch b.Op(t) {
		case ir.OpConst, ir.OpZeroExt, ir.OpSignExt:
			return true
		case ir.OpMul:
			x, y := b.Arg(t, 0), b.Arg(t, 1)
			return (b.Op(x) == ir.OpConst && b.ConstValue(x).Uint64() != 1) || (b.Op(y) == ir.OpConst && b.ConstValue(y).Uint64() != 1)
		case ir.OpShl:
			k := b.Arg(t, 1)
			return b.Op(k) == ir.OpConst && b.ConstValue(k).Uint64() != 0
		}
		return false
	}
	var walk func(t ir.Term) bool
	walk = func(t ir.Term) bool {
		switch b.Op(t) {
		case ir.OpAdd:
			return walk(b.Arg(t, 0)) && walk(b.Arg(t, 1))
		case ir.OpSub:
			return walk(b.Arg(t, 0)) && offset(b.Arg(t, 1))
		case ir.OpVar:
			if _, ok := objects[t]; ok {
				if base != ir.NoTerm {
					return false // two objects' addresses added: no pointer arithmetic of C
				}
				base = t
				return true
			}
		}
		return offset(t)
	}
	if !walk(a) || base == ir.NoTerm {
		return ir.NoTerm, 0, false
	}
	return base, objects[base], true
}

// MissesFrame says the n bytes at a and the frame [lo, lo+StackLimit+8)
// do not overlap, going up around the address space from each start.
func MissesFrame(b *ir.Builder, a ir.Term, n uint32, lo ir.Term) ir.Term {
	return Disjoint(b, a, n, lo, StackLimit+8)
}

// linear splits address a into a base and the constant the adds and subs
// around it put on it.
func linear(b *ir.Builder, a ir.Term) (ir.Term, int64) {
	var off int64
	for {
		switch op := b.Op(a); {
		case op == ir.OpAdd && len(b.Args(a)) == 2 && b.Op(b.Arg(a, 1)) == ir.OpConst:
			off += int64(b.ConstValue(b.Arg(a, 1)).Uint64())
			a = b.Arg(a, 0)
		case op == ir.OpAdd && len(b.Args(a)) == 2 && b.Op(b.Arg(a, 0)) == ir.OpConst:
			off += int64(b.ConstValue(b.Arg(a, 0)).Uint64())
			a = b.Arg(a, 1)
		case op == ir.OpSub && b.Op(b.Arg(a, 1)) == ir.OpConst:
			off -= int64(b.ConstValue(b.Arg(a, 1)).Uint64())
			a = b.Arg(a, 0)
		default:
			return a, off
		}
	}
}

// SkipFrameStores rewrites ts for states in which every access of misses
// lies outside the frame [rsp0−StackLimit, rsp0+8) of the entry rsp rsp0:
// a read inside such an access passes every store at a constant frame
// offset (an -O0 function's spills of its arguments and locals), and a
// read at a constant frame offset passes every store inside such an
// access; each rebuilt term is simplified, so a pointer the source reloads
// from its frame becomes the argument it stored there. In a state where
// the source takes a path normally, each hypothesis of the path's blocks
// holds, so the rewrite is exact there (and an access's address, rewritten,
// is the same address): only obligations that assume the source returned
// normally may use it. misses gains the rewritten addresses.
func SkipFrameStores(b *ir.Builder, simp *ir.Simplifier, rsp0 ir.Term, misses Misses, ts []ir.Term) []ir.Term {
	if len(misses) == 0 || ts == nil {
		return ts
	}
	inFrame := func(a ir.Term, n uint32) bool {
		base, off := linear(b, a)
		return base == rsp0 && off >= -StackLimit && off+int64(n) <= 8
	}
	// Two frame accesses at constant offsets that do not overlap: a read
	// passes the other's store on the way down to the misses' stores.
	frameDisjoint := func(a ir.Term, n uint32, w ir.Term, k uint32) bool {
		if !inFrame(w, k) {
			return false
		}
		_, ra := linear(b, a)
		_, rw := linear(b, w)
		return ra+int64(n) <= rw || rw+int64(k) <= ra
	}
	var memo map[ir.Term]ir.Term
	var rw func(ir.Term) ir.Term
	rw = func(t ir.Term) ir.Term {
		if r, ok := memo[t]; ok {
			return r
		}
		args := b.Args(t)
		if len(args) == 0 {
			return t
		}
		changed := false
		nargs := make([]ir.Term, len(args))
		for i, a := range args {
			nargs[i] = rw(a)
			changed = changed || nargs[i] != a
		}
		r := t
		if changed {
			p0, p1 := b.Params(t)
			if nt, err := b.Make(b.Op(t), nargs, p0, p1); err == nil {
				r = simp.Simplify(nt)
			}
		}
		if b.Op(r) == ir.OpSelect {
			n, _ := b.Params(r)
			m, a := b.Arg(r, 0), b.Arg(r, 1)
			aFrame, aMiss := inFrame(a, n), misses.covers(b, a, n)
			for b.Op(m) == ir.OpStore && (aFrame || aMiss) {
				k, _ := b.Params(m)
				w := b.Arg(m, 1)
				if !(aMiss && inFrame(w, k)) && !(aFrame && misses.covers(b, w, k)) && !(aFrame && frameDisjoint(a, n, w, k)) {
					break
				}
				m = b.Arg(m, 0)
			}
			if m != b.Arg(r, 0) {
				r = simp.Simplify(b.Select(m, a, n))
			}
		}
		memo[t] = r
		return r
	}
	// The recorded addresses, rewritten, name the same bytes: record them
	// too, until no new base appears (a reload of a reloaded pointer takes
	// one more round).
	for round := 0; round < 4; round++ {
		memo = map[ir.Term]ir.Term{}
		grew := false
		for base, spans := range misses {
			nb, off := linear(b, rw(simp.Simplify(base)))
			if nb == base && off == 0 {
				continue
			}
			for _, s := range spans {
				if !misses.coversSpan(nb, s[0]+off, s[1]+off) {
					misses[nb] = append(misses[nb], [2]int64{s[0] + off, s[1] + off})
					grew = true
				}
			}
		}
		if !grew {
			break
		}
	}
	memo = map[ir.Term]ir.Term{}
	out := make([]ir.Term, len(ts))
	for i, t := range ts {
		out[i] = rw(simp.Simplify(t))
	}
	return out
}

// hasIte says whether term t has an ite among its subterms.
func hasIte(b *ir.Builder, t ir.Term) bool {
	for _, u := range b.PostOrder(t) {
		if b.Op(u) == ir.OpIte {
			return true
		}
	}
	return false
}
