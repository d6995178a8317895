package product_test

import (
	"slices"
	"testing"

	"eqc/align/product"
)

// TestXmmLanesByRegister: gcc-12 -O3's sum of ints into a long keeps its
// partial sums in xmm0, which only paddq writes, and widens the elements
// with pcmpgtd into xmm2: the pair computes on both widths, but xmm0 is
// learned by 64-bit lanes alone and xmm2 by 32-bit ones; a register
// only moved keeps the pair's widths.
func TestXmmLanesByRegister(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with gcc-12")
	}
	_, pr := buildProduct(t, "gcc-12", "lsum", "long lsum(int *a, int n)\n{\n\tlong s = 0;\n\tfor (int i = 0; i < n; i++)\n\t\ts += a[i];\n\treturn s;\n}\n")
	if got := product.LaneWidths(pr); !slices.Equal(got, []uint32{64, 32}) {
		t.Errorf("the pair's lanes: %v, want [64 32]", got)
	}
	for _, c := range []struct {
		reg  int
		want []uint32
	}{{0, []uint32{64}}, {2, []uint32{32}}, {15, []uint32{64, 32}}} {
		if got := product.XmmLanes(pr, 1, c.reg); !slices.Equal(got, c.want) {
			t.Errorf("the target's xmm%d: lanes %v, want %v", c.reg, got, c.want)
		}
	}
}
