package ub

import (
	"fmt"

	"eqc/ir"
)

// The TBSA hypotheses (type-based strict aliasing, HVC 2017 §2: pointers
// of different types shall not alias, char aside). At the machine level
// an access has a width and no type; the C type comes from the source's
// DWARF, through the pointer parameter the access is made with. The rule
// the model states, for pointer parameters p and q whose pointees are
// scalars of different sizes, neither a character type: an access the
// source makes through p at p's pointee size and one through q at q's
// never overlap. Different sizes make the two lvalue types incompatible
// whatever a cast did to them (a cast to another type of the same size
// still has that size); a character access has width 1, which no pointee
// of the rule has. Scalars of one size that C also keeps apart (int and
// float, long and double) are left out: a cast between two types of one
// size keeps the width and changes what aliases what. So is a struct of
// that size, which may hold the other type; a source that casts a scalar
// pointer parameter to one is outside what the model can see.
//
// "Through p": the address is p's value plus integer offsets (constants,
// values scaled by a constant, values narrower than a pointer, extended),
// p read from the register it came in or reloaded from the frame slot the
// source spilled it to (the -O0 code's way). The hypotheses are stated
// like OBVA's, per prefix of each source path: when the run gets to a
// block without a fault, each access the block makes through one such
// parameter misses each access through the other made so far on the path,
// the block's own included. Every run without undefined behaviour under
// the model satisfies them; accesses on different product edges are not
// related (a loop's passes on one edge are).

// TBSAParam is a pointer parameter the model speaks of: the variable
// holding it at the entry and its pointee's size.
type TBSAParam struct {
	Var   ir.Term
	Size  uint32 // the pointee's size in bytes, above 1
	Label string // for the assumption's line: "d (*long)"
}

// TBSAApart reports whether the model keeps accesses through pointers to
// pointees of sizes m and n apart.
func TBSAApart(m, n uint32) bool { return m > 1 && n > 1 && m != n }

// maxTBSAHypotheses bounds the hypotheses of one path set: each pair of
// accesses is one, and a long unrolled path has many.
const maxTBSAHypotheses = 256

// TBSAInput is one path set of the source to state hypotheses for.
type TBSAInput struct {
	OBVAInput
	Params []TBSAParam
	// OBVA says the OBVA model holds too: a pointer reloaded from its
	// frame slot passes the stores whose address is not derived from rsp
	// (Taint); without it only the stores to other slots.
	OBVA bool
}

// tbsaAccess is one access through a parameter on a path: its address
// over the start state, width and parameter.
type tbsaAccess struct {
	addr  ir.Term
	n     uint32
	param int
}

// TBSAHypotheses returns in's hypotheses; none when the path set has more
// than MaxOBVAPaths paths or no two parameters the model keeps apart.
func TBSAHypotheses(in TBSAInput) []ir.Term {
	apart := false
	for i, p := range in.Params {
		for _, q := range in.Params[i+1:] {
			apart = apart || TBSAApart(p.Size, q.Size)
		}
	}
	if !apart || in.Paths == nil || in.Paths.Count() > MaxOBVAPaths {
		return nil
	}
	b, g := in.B, in.G
	from := in.From
	if from == nil {
		from = ir.NewSubstituter(b, nil)
	}
	var out []ir.Term
	done := map[string]bool{}
	for _, ids := range in.Paths.Paths(MaxOBVAPaths) {
		var prefix *ir.Edge
		var accs []tbsaAccess
		for k, id := range ids {
			next := g.Edges[id]
			var at *ir.Substituter
			if prefix != nil {
				at = g.StateSubst(prefix.Transfer)
			}
			reached := in.Simp.Simplify(from.Apply(reachedBlock(b, at, prefix, next)))
			mine := in.paramAccesses(from, at, next)
			key := fmt.Sprint(ids[:k+1])
			if !done[key] {
				done[key] = true
				for i, x := range mine {
					earlier := append(accs[:len(accs):len(accs)], mine[:i]...) // a copy: accs grows below
					for _, y := range earlier {
						if len(out) >= maxTBSAHypotheses {
							return out
						}
						if TBSAApart(in.Params[x.param].Size, in.Params[y.param].Size) {
							out = append(out, in.Simp.Simplify(b.Implies(reached, Disjoint(b, x.addr, x.n, y.addr, y.n))))
						}
					}
				}
			}
			accs = append(accs, mine...)
			if prefix == nil {
				prefix = next
			} else {
				prefix = g.Seq(prefix, next)
			}
		}
	}
	return out
}

// paramAccesses lists the accesses edge next makes through the
// parameters at their pointee's width, over the paths' start state.
func (in TBSAInput) paramAccesses(from, at *ir.Substituter, next *ir.Edge) []tbsaAccess {
	var out []tbsaAccess
	for _, acc := range blockAccesses(in.B, in.Simp, from, at, next, false) {
		if p, ok := in.through(acc.addr); ok && in.Params[p].Size == acc.n {
			out = append(out, tbsaAccess{addr: acc.addr, n: acc.n, param: p})
		}
	}
	return out
}

// through finds the parameter an access at address a is made through:
// the one summand of a that is not an integer offset must be the
// parameter's value.
func (in TBSAInput) through(a ir.Term) (int, bool) {
	b := in.B
	base := ir.NoTerm
	var walk func(t ir.Term) bool
	walk = func(t ir.Term) bool {
		switch b.Op(t) {
		case ir.OpAdd:
			for _, x := range b.Args(t) {
				if !walk(x) {
					return false
				}
			}
			return true
		case ir.OpSub:
			return len(b.Args(t)) == 2 && walk(b.Arg(t, 0)) && intOffset(b, b.Arg(t, 1))
		}
		if intOffset(b, t) {
			return true
		}
		if base != ir.NoTerm {
			return false // two pointers' worth of summands
		}
		base = t
		return true
	}
	if !walk(a) || base == ir.NoTerm {
		return 0, false
	}
	return in.paramOf(base, 0)
}

// paramOf finds the parameter whose value t is: its entry variable, or a
// reload of the frame slot it was stored to.
func (in TBSAInput) paramOf(t ir.Term, depth int) (int, bool) {
	b := in.B
	for i, p := range in.Params {
		if t == p.Var {
			return i, true
		}
	}
	if b.Op(t) != ir.OpSelect || depth > 4 {
		return 0, false
	}
	n, _ := b.Params(t)
	m, a := b.Arg(t, 0), b.Arg(t, 1)
	slotBase, off := linear(b, a)
	if slotBase != in.Rsp0 || n != 8 {
		return 0, false
	}
	for b.Op(m) == ir.OpStore {
		k, _ := b.Params(m)
		w := b.Arg(m, 1)
		wb, woff := linear(b, w)
		switch {
		case wb == in.Rsp0 && woff == off && k == n:
			return in.paramOf(b.Arg(m, 2), depth+1)
		case wb == in.Rsp0 && (woff+int64(k) <= off || off+int64(n) <= woff):
			// another slot
		case wb != in.Rsp0 && in.OBVA && in.Taint != nil && !in.Taint.Derived(w):
			// outside the frame, under the OBVA hypotheses
		default:
			return 0, false
		}
		m = b.Arg(m, 0)
	}
	return 0, false
}

// intOffset reports whether summand t of an address is an integer offset
// and not a pointer: a constant, a value scaled by a constant other than
// 1, or one narrower than a pointer, extended.
func intOffset(b *ir.Builder, t ir.Term) bool {
	switch b.Op(t) {
	case ir.OpConst:
		return true
	case ir.OpZeroExt, ir.OpSignExt:
		return b.Sort(b.Arg(t, 0)).Width <= 32
	case ir.OpMul:
		x, y := b.Arg(t, 0), b.Arg(t, 1)
		return len(b.Args(t)) == 2 && (b.Op(x) == ir.OpConst && b.ConstValue(x).Uint64() > 1 || b.Op(y) == ir.OpConst && b.ConstValue(y).Uint64() > 1)
	case ir.OpShl:
		k := b.Arg(t, 1)
		return b.Op(k) == ir.OpConst && b.ConstValue(k).Uint64() != 0
	}
	return false
}
