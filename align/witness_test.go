package align

import (
	"context"
	"strings"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
)

// TestSanitizerWitness: with the source's sanitizer build as the witness
// (Request.Witness), gcc-12 and clang-16, -O0 against -O2:
//
//   - a mutant of unsigned hashing code, whose every multiplication
//     wraps, is not-equivalent (the UB monitor alone takes each wrap for
//     signed overflow and drops every input);
//   - a mutant of signed code is not-equivalent on an input on which the
//     witness returns (no overflow);
//   - a compilation that rests on signed overflow being undefined is never
//     not-equivalent, and when a difference is found the witness's trap is
//     the reason.
func TestSanitizerWitness(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs real binaries")
	}
	const base = `
unsigned hash(const unsigned char *s, int n) {
	unsigned h = 2166136261u;
	for (int i = 0; i < n; i++) h = (h ^ s[i]) * 16777619u;
	return h;
}
int add1(int x) { return x + 1; }
int gt(int x) { return x + 1 > x; }
`
	mutant := strings.NewReplacer("* 16777619u", "* 16777618u", "return x + 1;", "return x + 2;").Replace(base)
	for _, cc := range compilers {
		t.Run(cc, func(t *testing.T) {
			t.Parallel()
			objs := aligntest.CompileC(t, cc, "witness", base, "O0", "O0+ubsan", "O2")
			mut := aligntest.CompileC(t, cc, "witness-mutant", mutant, "O2")
			s := aligntest.NewSolver(t)
			check := func(fn, dst string) Result {
				req := Request{SrcPath: objs["O0"], SrcFunc: fn, DstPath: dst, DstFunc: fn, UB: "all", Witness: objs["O0+ubsan"], Timeout: time.Minute}
				res, err := Check(context.Background(), req, s)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s %s: %s (%s)", cc, fn, res.Verdict, res.Reason)
				return res
			}
			for _, fn := range []string{"hash", "add1"} {
				if res := check(fn, mut["O2"]); res.Verdict != NotEquivalent {
					t.Errorf("%s mutant %s: %s (%s), want not-equivalent", cc, fn, res.Verdict, res.Reason)
				}
			}
			res := check("gt", objs["O2"])
			if res.Verdict == NotEquivalent {
				t.Errorf("%s gt: not-equivalent on an input with signed overflow", cc)
			}
			if res.Verdict == Unknown && !strings.Contains(res.Reason, "sanitizer check traps") {
				t.Errorf("%s gt: unknown (%s), want the witness's trap as the reason", cc, res.Reason)
			}
		})
	}
}
