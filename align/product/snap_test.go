package product

import (
	"testing"

	"eqc/align/product/pair"
	"eqc/ir"
)

// TestSnapBound moves weakened bounds to the nearest condition constant
// that admits them, in the bound's own order (unsigned or signed), and
// leaves a bound no constant lies beyond, or one only the width's extreme
// would replace, as it is.
func TestSnapBound(t *testing.T) {
	b := ir.NewBuilder()
	x := b.Var("x", ir.BVSort(32))
	c := func(v int64) ir.Term { return b.Const(32, uint64(v)&0xffffffff) }
	for _, tc := range []struct {
		name   string
		consts []int64
		in     ir.Term
		want   ir.Term
	}{
		{"lower", []int64{998, 999, 1000, 2000}, b.Ule(c(1007), x), b.Ule(c(1000), x)},
		{"lower-high-half", []int64{0x7fffffff, 0x80000000, 0x80000001}, b.Ule(c(0x80000010), x), b.Ule(c(0x80000001), x)},
		{"upper", []int64{9, 15, 16, 17}, b.Ule(x, c(12)), b.Ule(x, c(15))},
		{"signed-lower", []int64{-11, -10, -9, 5}, b.Sle(c(-3), x), b.Sle(c(-9), x)},
		{"signed-upper", []int64{-11, 5, 7}, b.Sle(x, c(-3)), b.Sle(x, c(5))},
		{"none-beyond", []int64{2000}, b.Ule(c(1007), x), b.Ule(c(1007), x)},
		{"too-far", []int64{2, 900}, b.Ule(c(48), x), b.Ule(c(48), x)},
		{"extreme", []int64{0}, b.Ule(c(1007), x), b.Ule(c(1007), x)},
		{"not-a-bound", []int64{5}, b.Eq(x, c(3)), b.Eq(x, c(3))},
	} {
		consts := make([]uint64, len(tc.consts))
		for i, v := range tc.consts {
			consts[i] = uint64(v) & 0xffffffff
		}
		pr := &Product{p: &pair.Pair{B: b}, condConsts: map[uint32][]uint64{32: consts}}
		if got := pr.snapBound(tc.in); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, b.Short(got), b.Short(tc.want))
		}
	}
}
