package align

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
	"eqc/align/product/learning"
	"eqc/align/verify"
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

// TestProofThroughWitness: compilations that rest on signed overflow being
// undefined prove from a plain -O0 source through its sanitizer build
// (witnessproof.go), with proofs the checker verifies against the plain
// source, and not without the witness; a mutant never proves. gcc-12 -O2
// runs sum1's i < n + 1 as i <= n; clang-16 -O2 folds gt's x + 1 > x to 1.
func TestProofThroughWitness(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves loops")
	}
	t.Parallel() // one thread: beside the other one-thread tests
	base, err := os.ReadFile("testdata/ub/sio_loops.c")
	if err != nil {
		t.Fatal(err)
	}
	src := string(base) + "\nint gt(int x) { return x + 1 > x; }\n"
	mutant := strings.Replace(src, "i < n + 1; i++)\n\t\ts += i;", "i < n + 2; i++)\n\t\ts += i;", 1)
	witness := aligntest.CompileC(t, "clang-16", "sio_loops", src, "O0+ubsan")["O0+ubsan"]
	s := aligntest.NewSolver(t)
	for _, c := range []struct{ cc, fn string }{{"gcc-12", "sum1"}, {"clang-16", "gt"}} {
		objs := aligntest.CompileC(t, c.cc, "sio_loops", src, "O0", "O2")
		req := Request{SrcPath: objs["O0"], SrcFunc: c.fn, DstPath: objs["O2"], DstFunc: c.fn, UB: "all", Timeout: 2 * time.Minute}
		res, err := Check(context.Background(), req, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict == Equivalent {
			t.Errorf("%s %s without the witness: equivalent, want unknown (the compilation rests on sio)", c.cc, c.fn)
		}
		req.Witness = witness
		res, err = Check(context.Background(), req, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Equivalent || res.Witness != witness || res.Proof == nil || res.Proof.Bridge == nil {
			t.Errorf("%s %s through the witness: %s (%s), witness %q, want equivalent with a bridged proof", c.cc, c.fn, res.Verdict, res.Reason, res.Witness)
			continue
		}
		v, err := verify.Verify(context.Background(), verify.Request{Proof: res.Proof, SrcPath: req.SrcPath, DstPath: req.DstPath, Timeout: 2 * time.Minute, PinEqualities: learning.Equalities}, s)
		if err != nil || !v.Verified {
			t.Errorf("%s %s: proof not verified: %v %s", c.cc, c.fn, err, v.Reason)
		}
		// The bridge is about this source: another file in its place fails.
		if v, err := verify.Verify(context.Background(), verify.Request{Proof: res.Proof, SrcPath: req.DstPath, DstPath: req.DstPath, Timeout: time.Minute}, s); err == nil && v.Verified {
			t.Errorf("%s %s: proof verified with the target as the source", c.cc, c.fn)
		}
	}
	mut := aligntest.CompileC(t, "gcc-12", "sio_loops_mutant", mutant, "O2")["O2"]
	objs := aligntest.CompileC(t, "gcc-12", "sio_loops", src, "O0")
	res, err := Check(context.Background(), Request{SrcPath: objs["O0"], SrcFunc: "sum1", DstPath: mut, DstFunc: "sum1", UB: "all", Witness: witness, Timeout: time.Minute}, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict == Equivalent {
		t.Errorf("sum1 mutant (i < n + 2) through the witness: equivalent")
	}
}

// TestWitnessBridgeRandomElements: the first half of a proof through the
// witness, the sanitizer build against the plain source, on a loop that
// subtracts array elements. The co-executions' random elements overflow
// at once in the witness, which traps; such a run is cut short, not
// ended (it said nothing of where the source goes on to, and no
// alignment fit), and a trapping source gets moderate elements
// (inputs.FillModerate), so the runs go around the loop. Either makes
// this one prove; with neither, it was no-correlation.
func TestWitnessBridgeRandomElements(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves a loop")
	}
	t.Parallel() // one thread: beside the other one-thread tests
	const src = "void diff(int *d, const int *s, int n)\n{\n\tfor (int i = 1; i < n; i++)\n\t\td[i - 1] = s[i] - s[i - 1];\n}\n"
	objs := aligntest.CompileC(t, "clang-16", "bridge", src, "O0", "O0+ubsan")
	req := Request{SrcPath: objs["O0+ubsan"], SrcFunc: "diff", DstPath: objs["O0"], DstFunc: "diff", UB: "all", Timeout: 2 * time.Minute}
	res, err := Check(context.Background(), req, aligntest.NewSolver(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Equivalent {
		t.Errorf("the witness against the source: %s (%s), want equivalent", res.Verdict, res.Reason)
	}
}

// TestWitnessBridgeLoadedPointers: the loop-free half of the same kind,
// on lua's getlocalvardesc shape: reads through pointers loaded from
// memory, past both -O0 builds' spills. The target's terms were not
// normalized after the entry state's substitution, so its spills were no
// stores at the entry rsp plus a constant to the frame-read split, and
// the bridge's return value ran past a minute in z3 and cvc5; it takes
// milliseconds now. Through the witness, the -O2 build (one 64-bit index
// where the source adds in int) is then proved under sio.
func TestWitnessBridgeLoadedPointers(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves")
	}
	t.Parallel() // one thread: beside the other one-thread tests
	const src = "struct D { long *arr; };\nstruct L { int pad; struct D *dyd; };\nstruct F { int first; struct L *ls; };\n" +
		"long *slot(struct F *fs, int v)\n{\n\treturn &fs->ls->dyd->arr[fs->first + v];\n}\n"
	objs := aligntest.CompileC(t, "clang-16", "loaded", src, "O0", "O0+ubsan", "O2")
	s := aligntest.NewSolver(t)
	bridge := Request{SrcPath: objs["O0+ubsan"], SrcFunc: "slot", DstPath: objs["O0"], DstFunc: "slot", UB: "all", Timeout: 20 * time.Second}
	res, err := Check(context.Background(), bridge, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Equivalent {
		t.Errorf("the witness against the source: %s (%s), want equivalent", res.Verdict, res.Reason)
	}
	req := Request{SrcPath: objs["O0"], SrcFunc: "slot", DstPath: objs["O2"], DstFunc: "slot", UB: "all", Witness: objs["O0+ubsan"], Timeout: time.Minute}
	res, err = Check(context.Background(), req, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Equivalent || res.Witness == "" {
		t.Errorf("the target through the witness: %s (%s), witness %q, want equivalent", res.Verdict, res.Reason, res.Witness)
	}
}
