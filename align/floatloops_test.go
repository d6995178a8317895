package align

import (
	"context"
	"os"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
)

// TestFloatParamLoops: loops whose factor is a float or double
// parameter (testdata/floatloops.c, gcc-12 -O2 against -O0) prove under
// --ub all: the -O0 frame's copy of the parameter is related to the low
// lane of its entry xmm register, which the -O2 loop keeps. A mutant is
// not-equivalent. (clang-16 vectorizes these loops at -O2, which is issue
// 29's matter, not this one's.)
func TestFloatParamLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs real binaries")
	}
	src, err := os.ReadFile("testdata/floatloops.c")
	if err != nil {
		t.Fatal(err)
	}
	objs := aligntest.CompileC(t, "gcc-12", "floatloops", string(src), "O0", "O2")
	s := aligntest.NewSolver(t)
	checkUB := ubChecker(t, s)
	for _, fn := range []string{"fsaxpy", "dlerp"} {
		res := checkUB(objs["O0"], objs["O2"], fn, "all")
		if res.Verdict != Equivalent {
			t.Errorf("%s: %s (%s), want equivalent", fn, res.Verdict, res.Reason)
		} else {
			verifyProof(t, s, res, objs["O0"], objs["O2"], fn)
		}
	}
	res, err := Check(context.Background(), Request{SrcPath: objs["O0"], SrcFunc: "fsaxpy", DstPath: objs["O2"], DstFunc: "fsaxpy_m", UB: "all", Timeout: time.Minute}, s)
	if err != nil || res.Verdict != NotEquivalent || res.Input == nil {
		t.Errorf("fsaxpy against its mutant: %v %s (%s), want not-equivalent with an input", err, res.Verdict, res.Reason)
	}
}
