package product

import (
	"slices"

	"eqc/ir"
)

// Bounds weakened to the programs' constants. Houdini moves a bound the
// runs gave (x ≥u 1008: the smallest x the runs showed at a loop head)
// just far enough to admit a counterexample's value (prove.Houdini's
// Weaken, learn.WeakenBound), a few times at most. Which value the solver
// picks is arbitrary: 1000, and the loop's guard x > 999 makes the bound
// inductive at once; 1007, 1006, 1005, and it is dropped. A loop's bounds
// are mostly its conditions' constants (k or k ± 1: x > 999 is x ≥ 1000),
// so a weakened bound moves on to the nearest such constant that still
// admits the counterexample, when one lies between: weaker than the
// counterexample asks, never weaker than the width's extreme, and, like
// every candidate, kept only if proved preserved.

// maxSnap is how much further than the counterexample a snapped bound
// may move: a loop's guard is a few values from where its runs stopped
// (digits: 1000 against 1007), and a constant far off is another
// condition's (atoi_dec's x ≥ 48, the digit '0', is not x ≥ 2).
const maxSnap = 16

// snapBound returns bound t (k ≤ x or x ≤ k, unsigned or signed, as
// learn.WeakenBound makes them) with k moved to the nearest constant of
// the programs' conditions (or one next to it) that t's bound admits, at
// most maxSnap away: the largest at most k for a lower bound, the
// smallest at least k for an upper one. Any other term, or a bound no
// such constant lies beyond, is returned as it is.
func (pr *Product) snapBound(t ir.Term) ir.Term {
	b := pr.p.B
	op := b.Op(t)
	if op != ir.OpUle && op != ir.OpSle {
		return t
	}
	lo, hi := b.Arg(t, 0), b.Arg(t, 1)
	lower := b.IsConst(lo)
	x, c := hi, lo
	if !lower {
		x, c = lo, hi
	}
	if !b.IsConst(c) || b.IsConst(x) {
		return t
	}
	w := b.Width(x)
	if w > 64 || w < 2 {
		return t
	}
	key := func(v uint64) int64 { // the bound's order, as signed numbers
		if op == ir.OpSle {
			return int64(v<<(64-w)) >> (64 - w)
		}
		return int64(v ^ 1<<63) // unsigned order, shifted to signed
	}
	k := b.ConstValue(c).Uint64()
	lowest, highest := uint64(0), uint64(1)<<w-1
	if op == ir.OpSle {
		lowest, highest = 1<<(w-1), 1<<(w-1)-1
	}
	best, found := uint64(0), false
	for _, v := range pr.conditionConstants(w) {
		switch {
		case lower && key(v) <= key(k) && key(v) > key(lowest) && key(k)-key(v) <= maxSnap:
			if !found || key(v) > key(best) {
				best, found = v, true
			}
		case !lower && key(v) >= key(k) && key(v) < key(highest) && key(v)-key(k) <= maxSnap:
			if !found || key(v) < key(best) {
				best, found = v, true
			}
		}
	}
	if !found || best == k {
		return t
	}
	le := b.Ule
	if op == ir.OpSle {
		le = b.Sle
	}
	if lower {
		return le(b.Const(w, best), x)
	}
	return le(x, b.Const(w, best))
}

// conditionConstants are the constants of at most w bits in the two
// programs' branch conditions, each with its neighbours (x > 999 bounds x by 1000),
// computed once per width.
func (pr *Product) conditionConstants(w uint32) []uint64 {
	if cs, ok := pr.condConsts[w]; ok {
		return cs
	}
	b := pr.p.B
	var roots []ir.Term
	for _, g := range []*ir.TFG{pr.p.Src.TFG, pr.p.Dst.TFG} {
		for _, e := range g.Edges {
			roots = append(roots, e.Cond)
		}
	}
	m := uint64(1)<<w - 1
	seen := map[uint64]bool{}
	for _, u := range b.PostOrder(roots...) {
		// Any width up to w: a byte compared with '0' bounds the
		// register it was zero-extended into.
		if b.Op(u) != ir.OpConst || !b.Sort(u).IsBV() || b.Width(u) > w {
			continue
		}
		v := b.ConstValue(u).Uint64()
		seen[v], seen[(v+1)&m], seen[(v-1)&m] = true, true, true
	}
	out := make([]uint64, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	if pr.condConsts == nil {
		pr.condConsts = map[uint32][]uint64{}
	}
	pr.condConsts[w] = out
	return out
}
