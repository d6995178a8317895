package pair_test

import (
	"context"
	"testing"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/prove"
)

// TestLongRunWhereTheLoopIs: the loop runs only when k == 1, which the
// first seeded run's argument seldom is, and takes more steps than a short
// run's cap. The seeded runs go far until one has gone around a loop, so
// some run still goes around it to the end: the loop's exit is seen.
func TestLongRunWhereTheLoopIs(t *testing.T) {
	p := loadGuarded(t)
	g := p.Src.TFG
	for _, cr := range p.CoExecuteAll(context.Background()) {
		heads := 0
		for _, v := range cr.Src.Visits {
			if g.Nodes[v.Node].Kind == ir.NodeLoopHead {
				heads++
			}
		}
		if heads > 1000 && cr.Src.Ended && cr.Dst.Ended {
			return
		}
	}
	t.Errorf("no co-execution goes around the loop to the end")
}

// TestLongRunProbeStopsAtTheDeadline: the probe of a long run that ends
// says so, and says no once its context is done (a model's loop sent
// around for ever must not hold the check past its deadline).
func TestLongRunProbeStopsAtTheDeadline(t *testing.T) {
	p := loadGuarded(t)
	r := prove.ExtraRun{Seed: pair.ExtraRunSeed(0), Args: []prove.Addr{1}, Long: true}
	if !p.LongRunEnds(context.Background(), r) {
		t.Fatalf("the long run with k = 1 does not end")
	}
	if cr := p.CoExecuteExtra(r); cr.Cut() {
		t.Fatalf("the long run with k = 1 is cut")
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if p.LongRunEnds(done, r) {
		t.Errorf("a probe whose context is done says the run ends")
	}
}

// loadGuarded is the pair of the tests above: gcc-12 -O0 and -O3 of a loop
// that runs only when k == 1 and takes more steps than a short run's cap.
func loadGuarded(t *testing.T) *pair.Pair {
	const src = "int A[20000];\nint guarded(int k)\n{\n\tint s = 0;\n\tif (k == 1)\n\t\tfor (int i = 0; i < 10000; i++)\n\t\t\ts += A[i] ^ i;\n\treturn s;\n}\n"
	return aligntest.LoadPair(t, "gcc-12", "guarded", src, "O0", "O3")
}
