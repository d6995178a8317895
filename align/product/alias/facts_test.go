package alias

import (
	"testing"

	"eqc/ir"
)

// TestSamplesCounterexampleReach: two arrays d and s the runs placed far
// apart, and a solver counterexample with s = d + 8 that breaks the guess
// d[0] apart from s[0..1]. On the runs alone every pair of accesses
// through the two is guessed apart; with the counterexample none is, not
// even d[1] against s[1], which the counterexample does not overlap
// (another model would, and every such model cost a rebuild of the edge).
// Bases far apart in the counterexample keep their guesses, and so do
// accesses at different offsets from two bases it makes equal.
func TestSamplesCounterexampleReach(t *testing.T) {
	b := ir.NewBuilder()
	bv := ir.BVSort(64)
	d, s, g := b.Var("src.rdi", bv), b.Var("src.rsi", bv), b.Var("&G", bv)
	at := func(base ir.Term, off uint64) ir.Term { return b.Add(base, b.Const(64, off)) }
	state := func(dv, sv uint64) *ir.Evaluator {
		return ir.NewEvaluator(b, &ir.MapEnv{Vars: map[ir.Term]ir.Value{
			d: ir.BVValue(ir.NewBV(64, dv)), s: ir.BVValue(ir.NewBV(64, sv)), g: ir.BVValue(ir.NewBV(64, 0x600000))}})
	}
	runs := []*ir.Evaluator{state(0x10000, 0x20000), state(0x30000, 0x10000)}
	cex := []*ir.Evaluator{state(0x50000, 0x50008)}
	same := []*ir.Evaluator{state(0x50000, 0x50000)}
	pairs := []struct {
		a1, a2 ir.Term
		cex    bool // still guessed apart with the counterexample
	}{
		{d, s, false},
		{at(d, 4), at(s, 4), false},
		{at(d, 4), at(s, 16), false},
		{d, g, true},
		{at(s, 8), g, true},
	}
	for _, tc := range pairs {
		if !NewSamples(b, runs, nil).disjoint(tc.a1, 4, tc.a2, 4) {
			t.Errorf("%s, %s: not apart on the runs", b.Short(tc.a1), b.Short(tc.a2))
		}
		if got := NewSamples(b, runs, cex).disjoint(tc.a1, 4, tc.a2, 4); got != tc.cex {
			t.Errorf("%s, %s with the counterexample: apart %v, want %v", b.Short(tc.a1), b.Short(tc.a2), got, tc.cex)
		}
		// With d == s only the accesses at equal offsets overlap.
		r1, o1 := b.BaseOffset(tc.a1)
		r2, o2 := b.BaseOffset(tc.a2)
		want := r1 == g || r2 == g || o1 != o2
		if got := NewSamples(b, runs, same).disjoint(tc.a1, 4, tc.a2, 4); got != want {
			t.Errorf("%s, %s with d == s: apart %v, want %v", b.Short(tc.a1), b.Short(tc.a2), got, want)
		}
	}
}
