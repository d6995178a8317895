package pair_test

import (
	"context"
	"testing"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
	"eqc/ir"
)

// TestLongRunWhereTheLoopIs: the loop runs only when k == 1, which the
// first seeded run's argument seldom is, and takes more steps than a short
// run's cap. The seeded runs go far until one has gone around a loop, so
// some run still goes around it to the end: the loop's exit is seen.
func TestLongRunWhereTheLoopIs(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with gcc-12")
	}
	const src = "int A[20000];\nint guarded(int k)\n{\n\tint s = 0;\n\tif (k == 1)\n\t\tfor (int i = 0; i < 10000; i++)\n\t\t\ts += A[i] ^ i;\n\treturn s;\n}\n"
	objs := aligntest.CompileC(t, "gcc-12", "guarded", src, "O0", "O3")
	p, err := pair.Load(objs["O0"], "guarded", objs["O3"], "guarded")
	if err != nil {
		t.Fatal(err)
	}
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
