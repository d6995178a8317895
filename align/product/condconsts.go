package product

import (
	"slices"

	"eqc/ir"
)

// conditionConstants are the constants of at most w bits in the two
// programs' branch conditions, each with its neighbours (x > 999 bounds x
// by 1000), computed once per width: a bound Houdini weakens moves on to
// one of them (learn.WeakenBound), as a loop's bounds mostly are.
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
