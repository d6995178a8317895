package align

import (
	"os"
	"slices"
	"strings"
	"testing"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
)

// TestOverlappingRestrict: a restrict pointer argument near another
// pointer argument is an input the restrict model excludes; two pointers
// neither of which is restrict, or 16 KiB apart (the differential test's
// buffers), are not.
func TestOverlappingRestrict(t *testing.T) {
	src := `int rr(int *restrict a, int *restrict b) { *a = 1; *b = 2; return *a; }
int rp(int *restrict a, char *b) { *a = 1; *b = 2; return *a; }
int pr(long *a, int *restrict b) { *a = 1; *b = 2; return *a; }
int pp(int *a, int *b) { *a = 1; *b = 2; return *a; }
`
	objs := aligntest.CompileC(t, "gcc-12", "restrict", src, "O0")
	for _, tc := range []struct {
		fn       string
		restrict bool
	}{{"rr", true}, {"rp", true}, {"pr", true}, {"pp", false}} {
		p, err := pair.Load(objs["O0"], tc.fn, objs["O0"], tc.fn)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []uint64{0, 4, ^uint64(3), 1 << 63, 16 << 10} {
			a := uint64(0x10000000)
			why := overlappingRestrict(p, []uint64{a, a + d})
			want := tc.restrict && (d == 0 || d == 4 || d == ^uint64(3))
			if (why != "") != want || why != "" && !strings.HasPrefix(why, "restrict: a (") {
				t.Errorf("%s, pointers %d bytes apart: %q, want overlapping %v", tc.fn, d, why, want)
			}
		}
	}
}

// TestRestrictProofs pins the restrict model's hypotheses in proofs
// (testdata/restrict), gcc-12 and clang-16, -O0 against -O2 and -O3: each
// function proves under the default model, with a proof eqc proof verify
// accepts; the loop-free ones not without restrict (the solver points the
// parameters at the same bytes; vadd then times out, which the test
// spares); each mutant is not-equivalent under the default model.
func TestRestrictProofs(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs real binaries")
	}
	base, err := os.ReadFile("testdata/restrict/restrict.c")
	if err != nil {
		t.Fatal(err)
	}
	mutants := readMutants(t, "testdata/restrict/mutants.txt", string(base))
	for _, cc := range compilers {
		t.Run(cc, func(t *testing.T) {
			t.Parallel()
			objs := aligntest.CompileC(t, cc, "restrict", string(base), "O0", "O2", "O3")
			s := aligntest.NewSolver(t)
			checkUB := ubChecker(t, s)
			for _, lvl := range []string{"O2", "O3"} {
				for _, fn := range []string{"reload", "twice", "vadd"} {
					res := checkUB(objs["O0"], objs[lvl], fn, "all")
					if res.Verdict != Equivalent {
						t.Errorf("%s %s %s --ub all: %s (%s), want equivalent", cc, lvl, fn, res.Verdict, res.Reason)
						continue
					}
					if !slices.ContainsFunc(res.Assumptions, func(a string) bool { return strings.HasPrefix(a, "restrict: ") }) {
						t.Errorf("%s %s %s: the proof lists no restrict assumption: %q", cc, lvl, fn, res.Assumptions)
					}
					verifyProof(t, s, res, objs["O0"], objs[lvl], cc+" "+lvl+" "+fn)
					if fn == "vadd" {
						continue
					}
					if res := checkUB(objs["O0"], objs[lvl], fn, "all,-restrict"); res.Verdict == Equivalent {
						t.Errorf("%s %s %s --ub all,-restrict: equivalent; without restrict the parameters may share bytes", cc, lvl, fn)
					}
				}
			}
			mutantsNotEquivalent(t, cc, "restrict_m", objs["O0"], mutants, checkUB)
		})
	}
}
