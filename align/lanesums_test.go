package align

import (
	"context"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
)

// TestLaneSums: clang-16 -O3 counts zeros in eight 32-bit lanes of two
// registers, and the source's count is their sum mod 2^32. Zeros are rare
// in the runs (only the small-element run has them, for four passes of
// the vector loop), so the learned equalities tie most lanes to zero and
// the sum comes back only from Houdini's models, about one lane at a time
// (prove's maxRefinements: with 4, unknown); learned over 64 bits, it
// would also say that the sum never wraps, which Houdini cannot refute in
// time (learn's sumOfNarrow: gcc-12's count took 61 s). A mutant that
// counts ones is not-equivalent on a real run.
func TestLaneSums(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves a vector loop")
	}
	t.Parallel() // one thread: beside the other one-thread tests
	const countz = "int countz(const int *a, int n)\n{\n\tint c = 0;\n\tfor (int i = 0; i < n; i++)\n\t\tif (a[i] == 0)\n\t\t\tc++;\n\treturn c;\n}\n"
	objs := aligntest.CompileC(t, "clang-16", "countz", countz, "O0", "O3")
	s := aligntest.NewSolver(t)
	req := Request{SrcPath: objs["O0"], SrcFunc: "countz", DstPath: objs["O3"], DstFunc: "countz", UB: "all", Timeout: 2 * time.Minute}
	res, err := Check(context.Background(), req, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Equivalent {
		t.Errorf("countz: %s (%s), want equivalent", res.Verdict, res.Reason)
	}
	mutant := aligntest.CompileC(t, "clang-16", "countz", "int countz(const int *a, int n)\n{\n\tint c = 0;\n\tfor (int i = 0; i < n; i++)\n\t\tif (a[i] == 1)\n\t\t\tc++;\n\treturn c;\n}\n", "O3")
	req.DstPath = mutant["O3"]
	if res, err = Check(context.Background(), req, s); err != nil {
		t.Fatal(err)
	}
	if res.Verdict != NotEquivalent || res.Input == nil {
		t.Errorf("countz counting ones: %s (%s), want not-equivalent with an input", res.Verdict, res.Reason)
	}
}
