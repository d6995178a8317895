package align

import (
	"testing"
	"time"
)

// TestGoldenLoopCalls is the golden test of loops that make calls
// (testdata/loopcalls): base.c -O0 against -O3 with both compilers, under
// the default UB model, and its mutants, never equivalent. The loop engines
// prove them in the calling convention's model of callees, pairing the
// calls one iteration at a time. Checks run two at a time, each with its
// own solver.
func TestGoldenLoopCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves loops: minutes")
	}
	objs, mutated := compileAll(t, "testdata/loopcalls", []string{"O0", "O3"})
	got := runGoldenCases(t, objs, mutated, []string{"O0"}, []string{"all"}, time.Minute)
	compareGolden(t, "testdata/loopcalls.golden", got)
}
