package align

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
	"eqc/align/verify"
)

// TestPunnedPointers: pointer arguments the tbsa model keeps apart (int*
// and long*, int* and short*, int* and double*, long* and int**) are
// punned when they point near each other, and not 16 KiB apart (the
// differential test's buffers); pointees that may alias (char, signed and
// unsigned int, a struct) never are.
func TestPunnedPointers(t *testing.T) {
	src := `struct s { int x; long y; };
int il(int *a, long *b) { *a = 1; *b = 2; return *a; }
int is(int *a, short *b) { *a = 1; *b = 2; return *a; }
int id(int *a, double *b) { *a = 1; *b = 2; return *a; }
long lp(long *a, int **b) { *a = 1; *b = 0; return *a; }
int iu(int *a, unsigned *b) { *a = 1; *b = 2; return *a; }
int ic(int *a, char *b) { *a = 1; *b = 2; return *a; }
int ist(int *a, struct s *b) { *a = 1; b->x = 2; return *a; }
`
	objs := aligntest.CompileC(t, "gcc-12", "tbsa", src, "O0")
	for _, tc := range []struct {
		fn     string
		punned bool
	}{{"il", true}, {"is", true}, {"id", true}, {"lp", true}, {"iu", false}, {"ic", false}, {"ist", false}} {
		p, err := pair.Load(objs["O0"], tc.fn, objs["O0"], tc.fn)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []uint64{0, 4, ^uint64(3), 1 << 63, 16 << 10} { // ^3: 4 bytes below
			a := uint64(0x10000000)
			why := punnedPointers(p, []uint64{a, a + d})
			want := tc.punned && (d == 0 || d == 4 || d == ^uint64(3))
			if (why != "") != want || why != "" && !strings.HasPrefix(why, "tbsa: a (") {
				t.Errorf("%s, pointers %d bytes apart: %q, want punned %v", tc.fn, d, why, want)
			}
		}
	}
}

// TestTBSAProofs pins the tbsa model's hypotheses in proofs
// (testdata/tbsa), gcc-12 and clang-16, -O0 against -O2 and -O3: each
// function proves under the default model, with a proof eqc proof verify
// accepts, and not without tbsa (the solver points the two parameters at
// the same bytes); each mutant is not-equivalent under the default model.
func TestTBSAProofs(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs real binaries")
	}
	base, err := os.ReadFile("testdata/tbsa/tbsa.c")
	if err != nil {
		t.Fatal(err)
	}
	mutants := readMutants(t, "testdata/tbsa/mutants.txt", string(base))
	for _, cc := range compilers {
		t.Run(cc, func(t *testing.T) {
			t.Parallel()
			objs := aligntest.CompileC(t, cc, "tbsa", string(base), "O0", "O2", "O3")
			s := aligntest.NewSolver(t)
			checkUB := ubChecker(t, s)
			for _, lvl := range []string{"O2", "O3"} {
				for _, fn := range []string{"pun", "reload", "widen3", "scale"} {
					res := checkUB(objs["O0"], objs[lvl], fn, "all")
					if res.Verdict != Equivalent {
						t.Errorf("%s %s %s --ub all: %s (%s), want equivalent", cc, lvl, fn, res.Verdict, res.Reason)
						continue
					}
					if !slices.ContainsFunc(res.Assumptions, func(a string) bool { return strings.HasPrefix(a, "tbsa: ") }) {
						t.Errorf("%s %s %s: the proof lists no tbsa assumption: %q", cc, lvl, fn, res.Assumptions)
					}
					v, err := verify.Verify(context.Background(), verify.Request{Proof: res.Proof, SrcPath: objs["O0"], DstPath: objs[lvl], Timeout: time.Minute}, s)
					if err != nil || !v.Verified {
						t.Errorf("%s %s %s: proof not verified: %v %s", cc, lvl, fn, err, v.Reason)
					}
					if res := checkUB(objs["O0"], objs[lvl], fn, "all,-tbsa"); res.Verdict == Equivalent {
						t.Errorf("%s %s %s --ub all,-tbsa: equivalent; without strict aliasing the two parameters may share bytes", cc, lvl, fn)
					}
				}
			}
			mutantsNotEquivalent(t, cc, "tbsa_m", objs["O0"], mutants, checkUB)
		})
	}
}

// mutantsNotEquivalent checks each mutant, compiled by cc at -O2, against
// the source object src under the default model: not-equivalent, with an
// input shown.
func mutantsNotEquivalent(t *testing.T, cc, name, src string, mutants []callMutant, checkUB func(src, dst, fn, models string) Result) {
	t.Helper()
	for i, m := range mutants {
		mobjs := aligntest.CompileC(t, cc, name, m.src, "O2")
		res := checkUB(src, mobjs["O2"], m.fn, "all")
		if res.Verdict != NotEquivalent || res.Input == nil {
			t.Errorf("%s mutant %d (%s: %q): %s (%s), want not-equivalent with an input", cc, i+1, m.fn, m.to, res.Verdict, res.Reason)
		}
	}
}
