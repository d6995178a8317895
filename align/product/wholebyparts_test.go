package product

import (
	"testing"

	"eqc/ir"
)

// TestWholeByParts: a variable whose parts the equalities give, every bit
// once in order, is pinned to their concatenation; one with a gap, a
// part over a variable that is not free, or one not live is not.
func TestWholeByParts(t *testing.T) {
	b := ir.NewBuilder()
	v, w, u := b.Var("v", ir.BVSort(128)), b.Var("w", ir.BVSort(128)), b.Var("u", ir.BVSort(64))
	dead := b.Var("dead", ir.BVSort(128))
	zero, c := b.Const(64, 0), b.Const(64, 7)
	lo, hi := func(x ir.Term) ir.Term { return b.Extract(x, 63, 0) }, func(x ir.Term) ir.Term { return b.Extract(x, 127, 64) }
	live := func(x ir.Term) bool { return x != dead }
	free := func(x ir.Term) bool {
		for _, s := range b.PostOrder(x) {
			if s == u {
				return false
			}
		}
		return true
	}
	cases := []struct {
		name string
		invs []ir.Term
		want map[ir.Term]ir.Term
	}{
		{"halves", []ir.Term{b.Eq(lo(v), zero), b.Eq(c, hi(v))}, map[ir.Term]ir.Term{v: b.Concat(c, zero)}},
		{"halves twice", []ir.Term{b.Eq(hi(v), c), b.Eq(lo(v), zero), b.Eq(lo(v), zero)}, map[ir.Term]ir.Term{v: b.Concat(c, zero)}},
		{"quarters", []ir.Term{b.Eq(b.Extract(v, 31, 0), b.Const(32, 1)), b.Eq(b.Extract(v, 63, 32), b.Const(32, 2)), b.Eq(hi(v), c)},
			map[ir.Term]ir.Term{v: b.Concat(c, b.Concat(b.Const(32, 2), b.Const(32, 1)))}},
		{"a gap", []ir.Term{b.Eq(lo(v), zero), b.Eq(b.Extract(v, 127, 65), b.Const(63, 0))}, nil},
		{"not free", []ir.Term{b.Eq(lo(w), u), b.Eq(hi(w), zero)}, nil},
		{"not live", []ir.Term{b.Eq(lo(dead), zero), b.Eq(hi(dead), zero)}, nil},
		{"two variables", []ir.Term{b.Eq(lo(v), zero), b.Eq(hi(v), zero), b.Eq(lo(w), c), b.Eq(hi(w), zero)},
			map[ir.Term]ir.Term{v: b.Concat(zero, zero), w: b.Concat(zero, c)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := wholeByParts(b, tc.invs, live, free)
			if len(got) != len(tc.want) {
				t.Fatalf("%d pins, want %d", len(got), len(tc.want))
			}
			for _, p := range got {
				if want, ok := tc.want[p.v]; !ok || want != p.t {
					t.Errorf("pin %s = %s, want %v", b.Short(p.v), b.Short(p.t), tc.want)
				}
			}
		})
	}
}
