package align

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
	"eqc/align/product/learning"
	"eqc/align/verify"
)

// digitsC counts groups of three decimal digits: one loop pass per group,
// so the co-executions' arguments (at most 127, or just below a bound
// constant) never take the -O3 loop's back edge. (Counting single digits,
// the run of small elements with long counts, inputs.SmallLongRun, took
// it: arguments from 32 to 127 have three digits.)
const digitsC = `int digits(unsigned x)
{
	int n = 1;
	while (x >= 1000) {
		x /= 1000;
		n++;
	}
	return n;
}
`

// TestCounterexampleRuns: gcc-12 -O3's digits is proved only with the
// co-executions the solver's counterexamples start (pair/cexruns.go: the
// first products leave the target's back edge out, and a model takes it).
// The proof records those runs, and the checker verifies it; without them
// the rebuilt product is another one. A mutant (one group too many from
// 10^9 on) is not-equivalent on an input found once the products have
// failed, confirmed by real runs.
func TestCounterexampleRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves a loop")
	}
	t.Parallel() // one thread: beside the other one-thread tests
	objs := aligntest.CompileC(t, "gcc-12", "digits", digitsC, "O0", "O3")
	s := aligntest.NewSolver(t)
	req := Request{SrcPath: objs["O0"], SrcFunc: "digits", DstPath: objs["O3"], DstFunc: "digits", UB: "all", Timeout: 2 * time.Minute}
	res, err := Check(context.Background(), req, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Equivalent {
		t.Fatalf("digits: %s (%s), want equivalent", res.Verdict, res.Reason)
	}
	if len(res.Proof.Runs) == 0 || res.Counterexamples == 0 {
		t.Errorf("digits: proved with %d counterexample runs (%d counterexamples); the seeded runs alone leave the back edge out", len(res.Proof.Runs), res.Counterexamples)
	}
	vreq := verify.Request{Proof: res.Proof, SrcPath: req.SrcPath, DstPath: req.DstPath, Timeout: time.Minute, PinEqualities: learning.Equalities}
	if v, err := verify.Verify(context.Background(), vreq, s); err != nil || !v.Verified {
		t.Errorf("digits: proof not verified: %v %s", err, v.Reason)
	}
	stripped := *res.Proof
	stripped.Runs = nil
	vreq.Proof = &stripped
	if v, err := verify.Verify(context.Background(), vreq, s); err == nil && v.Verified {
		t.Errorf("digits: the proof verified without its counterexample runs")
	}

	// From 10^9 on, one group too many: no seeded run reaches it.
	mutant := aligntest.CompileC(t, "gcc-12", "digits", `int digits(unsigned x)
{
	int n = 1;
	while (x >= 1000) {
		x /= 1000;
		n++;
	}
	return n > 3 ? n + 1 : n;
}
`, "O3")
	req.DstPath = mutant["O3"]
	res, err = Check(context.Background(), req, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != NotEquivalent || res.Input == nil {
		t.Errorf("digits mutant (one group too many from 10^9 on): %s (%s), want not-equivalent on an input from the loop engine's counterexamples", res.Verdict, res.Reason)
	}
}

// TestStringLoops: testdata/strloops/base.c with both compilers, -O0
// against -O3, under the default model: every function proved and its
// proof verified, every mutant (mutants.txt) never equivalent.
func TestStringLoops(t *testing.T) {
	provedWithMutants(t, "strloops", "count_char", "to_upper", "fnv1a", "atoi_dec", "trim_right", "is_blank", "quote_depth")
}

// TestSearchLoops is the same test on loops that stop where two inputs
// differ or an array descends (testdata/searchloops): the co-executions'
// string pairs and sorted arrays take them around. str_same's mutants are
// checked, but its proof is not required here: it proves alone in about
// 30 s with each compiler (its source reads b only where the byte at a is
// not zero, a premise read through the frame's spills, ub.PassFrameStores,
// and sent without arrays, prove/ackermann.go), and ran past the 2 min
// budget beside the rest of make test.
func TestSearchLoops(t *testing.T) {
	provedWithMutants(t, "searchloops", "diff_at", "sorted_upto")
}

// TestListLoops is the same test on linked-list walks
// (testdata/listloops), whose optimized loops start behind the null test.
func TestListLoops(t *testing.T) {
	provedWithMutants(t, "listloops", "list_len", "list_sum", "list_find")
}

// TestXorLoops: XOR reductions (testdata/xorloops), whose vectorized
// accumulators the source's value is the XOR of, lane by lane or half by
// half (learn/xor.go).
func TestXorLoops(t *testing.T) {
	provedWithMutants(t, "xorloops", "xor_all", "xor_mixed")
}

// TestHoistedLoads: loops whose bound or pointers the optimized code
// loads once before the loop (testdata/hoisted). gcc -O2 only: at -O3 it
// vectorizes the loops, and clang vectorizes at -O2 (those stay unknown,
// within the tests' budget); the mutants are checked with both.
func TestHoistedLoads(t *testing.T) {
	provedWithMutantsAt(t, "hoisted", "O2", map[string][]string{
		"gcc-12":   {"sum_vec", "count_above", "dot_cfg", "parse_int"},
		"clang-16": nil,
	})
}

// provedWithMutants checks testdata/DIR/base.c with both compilers, -O0
// against -O3, under the default model: each of proved equivalent by the
// static engine with its proof verified, each mutant of mutants.txt never
// equivalent.
func provedWithMutants(t *testing.T, dir string, proved ...string) {
	provedWithMutantsAt(t, dir, "O3", map[string][]string{"gcc-12": proved, "clang-16": proved})
}

// provedWithMutantsAt is provedWithMutants against opt, with the
// functions each compiler's build must prove.
func provedWithMutantsAt(t *testing.T, dir, opt string, provedBy map[string][]string) {
	if testing.Short() {
		t.Skip("compiles and proves loops")
	}
	base, err := os.ReadFile("testdata/" + dir + "/base.c")
	if err != nil {
		t.Fatal(err)
	}
	mutants := readMutants(t, "testdata/"+dir+"/mutants.txt", string(base))
	for _, cc := range compilers {
		t.Run(cc, func(t *testing.T) {
			t.Parallel()
			objs := aligntest.CompileC(t, cc, dir, string(base), "O0", opt)
			s := aligntest.NewSolver(t)
			for _, fn := range provedBy[cc] {
				// The static engine alone: in the race, which engine's
				// failed products give the counterexample runs varies,
				// and clang's atoi_dec came out unknown in one CI run.
				// A solver of its own, as each function has in eqc
				// check's worker: the model a Z3 context and the query
				// cache give may depend on the queries before, and
				// atoi_dec's proof on the model its counterexample run
				// is made from (it failed after the other functions'
				// checks on one solver, and proves alone).
				fs := aligntest.NewSolver(t)
				req := Request{SrcPath: objs["O0"], SrcFunc: fn, DstPath: objs[opt], DstFunc: fn, UB: "all", Engine: EngineStatic, Timeout: 2 * time.Minute}
				res, err := Check(context.Background(), req, fs)
				if err != nil {
					t.Fatal(err)
				}
				if res.Verdict != Equivalent {
					t.Errorf("%s %s: %s (%s), want equivalent", cc, fn, res.Verdict, res.Reason)
					continue
				}
				v, err := verify.Verify(context.Background(), verify.Request{Proof: res.Proof, SrcPath: req.SrcPath, DstPath: req.DstPath, Timeout: time.Minute, PinEqualities: learning.Equalities}, s)
				if err != nil || !v.Verified {
					t.Errorf("%s %s: proof not verified: %v %s", cc, fn, err, v.Reason)
				}
			}
			for i, m := range mutants {
				dst := aligntest.CompileC(t, cc, fmt.Sprintf("%s-mutant%d", dir, i), m.src, opt)
				req := Request{SrcPath: objs["O0"], SrcFunc: m.fn, DstPath: dst[opt], DstFunc: m.fn, UB: "all", Timeout: time.Minute}
				res, err := Check(context.Background(), req, s)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s %s mutant %q: %s (%s)", cc, m.fn, m.to, res.Verdict, res.Reason)
				if res.Verdict == Equivalent {
					t.Errorf("%s %s mutant %q: equivalent", cc, m.fn, m.to)
				}
			}
		})
	}
}
