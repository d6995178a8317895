package correlate

import (
	"testing"

	"eqc/align/product/pair"
	"eqc/ir"
)

// TestTripRatio: around a loop the suggested unroll factor is the ratio of
// the two runs' arrivals, rounded; elsewhere, or on a run cut short, none.
func TestTripRatio(t *testing.T) {
	visits := func(node ir.NodeID, n int) []pair.Visit {
		out := make([]pair.Visit, n)
		for i := range out {
			out[i].Node = node
		}
		return out
	}
	const srcHead, dstHead, dstEntry = 3, 5, 0
	for _, tc := range []struct {
		name           string
		src, dst       int // arrivals at the loop heads
		ended          bool
		dstFrom, dstTo ir.NodeID
		want           int
	}{
		{"clang sum1d: 40 a pass", 32000, 800, true, dstHead, dstHead, 40},
		{"rounded", 32003, 800, true, dstHead, dstHead, 40},
		{"not around a loop", 32000, 800, true, dstEntry, dstHead, 0},
		{"cut short", 32000, 800, false, dstHead, dstHead, 0},
		{"one target arrival", 40, 1, true, dstHead, dstHead, 0},
	} {
		cr := &pair.CoRun{Src: pair.NewRun(visits(srcHead, tc.src), tc.ended), Dst: pair.NewRun(visits(dstHead, tc.dst), true)}
		if got := tripRatio(cr, srcHead, tc.dstFrom, tc.dstTo); got != tc.want {
			t.Errorf("%s: tripRatio = %d, want %d", tc.name, got, tc.want)
		}
	}
}
