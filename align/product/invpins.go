package product

import (
	"cmp"
	"slices"

	"eqc/ir"
)

// Pins from invariants. The two sides of an edge compute the same values
// from variables that the node's invariants say are equal but that are not
// the same variable: the target multiplies by r8, the source by its stack
// slot a, under r8 = zext(a). The solver bit-blasts both products and
// must prove two multipliers equal whose inputs it does not know to be
// one: gcc's saxpy's scalar tail (two passes, two 64-bit products a side)
// ran past 55 s, and 20 ms once the two sides' terms were one term. So the
// invariant equalities that define a variable by a term of others pin it,
// as the runs' proposals do (pin.go): first every variable an equality
// gives a term of the entry state alone (either side), then every target
// variable one gives a term of no other target variable — so the target's
// terms are rebuilt over the source's variables, and the simplifier's
// hash-consing makes the two sides' computations one where they are. Each
// equality is an invariant of the from-node, so the replaced terms equal
// the originals in every state the edge's obligations consider.

// invariantPins returns the pins node n's invariants define, leaving out
// the variables in taken.
func (pr *Product) invariantPins(n *PNode, taken map[ir.Term]bool) []pin {
	invs := n.Invariants
	b := pr.p.B
	chosen := map[ir.Term]ir.Term{}
	var order []ir.Term
	live := func(v ir.Term) (comp, bool) {
		c, ok := n.varComp[v]
		return c, ok && c.fresh && !c.dead && !taken[v]
	}
	// freeOf reports whether t names no fresh variable of n that is not
	// already replaced, of any side (side < 0) or of side.
	freeOf := func(t ir.Term, side int) bool {
		for _, u := range b.PostOrder(t) {
			if c, ok := n.varComp[u]; ok && (side < 0 || c.side == side) {
				if _, done := chosen[u]; !done {
					return false
				}
			}
			if u == n.mem {
				return false
			}
		}
		return true
	}
	// define returns the variable eq defines and its term, if it is
	// v = t or ext(v) = t (either way round) with v unreplaced and live
	// and t free of v.
	define := func(eq ir.Term, side int) (ir.Term, ir.Term, bool) {
		if b.Op(eq) != ir.OpEq {
			return ir.NoTerm, ir.NoTerm, false
		}
		for k := 0; k < 2; k++ {
			l, r := b.Arg(eq, k), b.Arg(eq, 1-k)
			v := l
			if op := b.Op(l); op == ir.OpZeroExt || op == ir.OpSignExt {
				v = b.Arg(l, 0)
			}
			c, ok := live(v)
			if _, done := chosen[v]; !ok || done || (side >= 0 && c.side != side) {
				continue
			}
			if !b.Sort(v).IsBV() || b.Sort(v).Width > 64 || !freeOf(r, side) {
				continue
			}
			if v != l {
				r = b.Extract(r, b.Sort(v).Width-1, 0)
			}
			return v, r, true
		}
		return ir.NoTerm, ir.NoTerm, false
	}
	// A variable the invariants give whole, part by part, as terms of no
	// fresh variable (the zero register clang interleaves 16-bit elements
	// with, xmm1[63:0] = 0 and xmm1[127:64] = 0) is their concatenation:
	// its lanes' products by the elements are then zero, not products of
	// variables the solver must bit-blast.
	for _, v := range wholeByParts(b, invs, func(v ir.Term) bool { _, ok := live(v); return ok }, func(t ir.Term) bool { return freeOf(t, -1) }) {
		chosen[v.v], order = v.t, append(order, v.v)
	}
	for _, side := range []int{-1, 1} {
		for changed := true; changed; {
			changed = false
			for _, inv := range invs {
				if v, t, ok := define(inv, side); ok {
					chosen[v] = t
					order = append(order, v)
					changed = true
				}
			}
		}
	}
	if len(order) == 0 {
		return nil
	}
	// Replace the chosen variables inside the terms chosen later, until
	// none is left (a term names only variables chosen before it, so
	// this ends).
	sub := ir.NewSubstituter(b, chosen)
	out := make([]pin, 0, len(order))
	for _, v := range order {
		t := chosen[v]
		for u := sub.Apply(t); u != t; u = sub.Apply(t) {
			t = u
		}
		out = append(out, pin{v, pr.simp.Simplify(t)})
	}
	return out
}

// wholeByParts returns the pins of the variables v (live) that equalities
// extract[h:l](v) = t among invs, with t free (of fresh variables), cover
// bit by bit: v is the concatenation of those terms.
func wholeByParts(b *ir.Builder, invs []ir.Term, live, free func(ir.Term) bool) []pin {
	type part struct {
		hi, lo uint32
		t      ir.Term
	}
	parts := map[ir.Term][]part{}
	var vars []ir.Term
	for _, eq := range invs {
		if b.Op(eq) != ir.OpEq {
			continue
		}
		for k := 0; k < 2; k++ {
			l, r := b.Arg(eq, k), b.Arg(eq, 1-k)
			if b.Op(l) != ir.OpExtract || b.Op(b.Arg(l, 0)) != ir.OpVar {
				continue
			}
			v := b.Arg(l, 0)
			if !live(v) || !free(r) {
				continue
			}
			if parts[v] == nil {
				vars = append(vars, v)
			}
			hi, lo := b.Params(l)
			parts[v] = append(parts[v], part{hi, lo, r})
			break
		}
	}
	var out []pin
	for _, v := range vars {
		ps := parts[v]
		slices.SortFunc(ps, func(x, y part) int { return cmp.Compare(x.lo, y.lo) })
		var t ir.Term
		next := uint32(0) // the lowest bit not covered yet
		for _, p := range ps {
			if p.lo != next {
				continue // a range seen already, or a gap (then next stays short)
			}
			if next == 0 {
				t = p.t
			} else {
				t = b.Concat(p.t, t)
			}
			next = p.hi + 1
		}
		if next == b.Width(v) {
			out = append(out, pin{v, t})
		}
	}
	return out
}
