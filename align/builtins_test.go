package align

import (
	"os"
	"strings"
	"testing"

	"eqc/align/internal/aligntest"
)

// TestLibraryBuiltins: a call to a C library function one build makes and
// the other computes inline (abs, labs, sqrt, sqrtf, fabs; testdata/builtins)
// is never a difference, with gcc-12 and clang-16, -O0 against -O2, and
// each mutant of them still is one. Each proves: abs and labs (clang -O0
// calls them, the proof's model computes them: x86.CallConvention), sqrt
// and sqrtf (the model's sqrt is sqrtsd's, writing errno only below zero,
// where gcc's inline form calls it: the comparison is exact), fabs (clang
// masks the sign with an aligned constant from a pool: the alignment
// check is decided by the pool's section). gcc-12 -O3's vmul, which swaps the
// operands of a float multiplication, is never not-equivalent: the only
// difference is the NaN two NaNs give, which C leaves unspecified. With
// the CPU's exact choice of NaN (all,-nan) it is unknown; under all (the
// model nan) it may prove.
func TestLibraryBuiltins(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs real binaries")
	}
	base, err := os.ReadFile("testdata/builtins/builtins.c")
	if err != nil {
		t.Fatal(err)
	}
	mutants := readMutants(t, "testdata/builtins/mutants.txt", string(base))
	for _, cc := range compilers {
		t.Run(cc, func(t *testing.T) {
			t.Parallel()
			objs := aligntest.CompileC(t, cc, "builtins", string(base), "O0", "O2", "O3")
			s := aligntest.NewSolver(t)
			checkUB := ubChecker(t, s)
			for _, fn := range []string{"fa", "fl", "fs", "fsf", "ff"} {
				res := checkUB(objs["O0"], objs["O2"], fn, "all")
				t.Logf("%s %s: %s (%s)", cc, fn, res.Verdict, res.Reason)
				if res.Verdict == NotEquivalent {
					t.Errorf("%s O2 %s: not-equivalent on a correct compilation: %v", cc, fn, res.Observed)
				}
				if res.Verdict != Equivalent {
					t.Errorf("%s O2 %s: %s (%s), want equivalent", cc, fn, res.Verdict, res.Reason)
				}
			}
			// Exact NaN semantics (all,-nan): the swap is neither a proof nor
			// a difference. Under all, whose model nan lets a NaN be any, it
			// may prove; TestNaNModel checks such proofs.
			if res := checkUB(objs["O0"], objs["O3"], "vmul", "all,-nan"); res.Verdict == NotEquivalent || res.Verdict == Equivalent {
				t.Errorf("%s O3 vmul under all,-nan: %s (%s %v), want unknown", cc, res.Verdict, res.Reason, res.Observed)
			} else if res.Input != nil && !strings.HasPrefix(res.Reason, "nan-payload:") {
				t.Errorf("%s O3 vmul under all,-nan: an input shown (%v) with reason %q, want nan-payload", cc, res.Observed, res.Reason)
			}
			mutantsNotEquivalent(t, cc, "builtins_m", objs["O0"], mutants, checkUB)
		})
	}
}
