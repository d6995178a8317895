package align

import (
	"context"
	"strings"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
	"eqc/align/product/learning"
	"eqc/align/verify"
)

// TestGoldenIdioms is the golden test of loops that compilers turn into
// calls of memset, memcpy and memmove (testdata/idioms): base.c -O0 against
// -O3 with both compilers, under the default UB model, and its mutants,
// never equivalent. Both lifts model those calls as the library's loops
// (x86/idioms.go), so the source's loop pairs with one pass of the
// library's per element.
func TestGoldenIdioms(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves loops: minutes")
	}
	objs, mutated := compileAll(t, "testdata/idioms", []string{"O0", "O3"})
	got := runGoldenCases(t, objs, mutated, []string{"O0"}, []string{"all"}, time.Minute)
	compareGolden(t, "testdata/idioms.golden", got)
}

// TestMemcpyOverlapModel: gcc-12 -O0 calls memcpy for a struct copy and
// -O3 inlines it; the two agree only where the regions do not overlap.
// Under the restrict model (memcpy's parameters are restrict) the proof
// assumes so and says it; without the model the check must not prove.
func TestMemcpyOverlapModel(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves")
	}
	objs, _ := compileAll(t, "testdata/idioms", []string{"O0", "O3"})
	s := aligntest.NewSolver(t)
	for _, c := range []struct {
		model string
		want  bool // equivalent
	}{{"all", true}, {"all,-restrict", false}, {"none", false}} {
		req := Request{SrcPath: objs["gcc-12 O0 base.c"], SrcFunc: "item_copy", DstPath: objs["gcc-12 O3 base.c"], DstFunc: "item_copy", UB: c.model, Timeout: time.Minute}
		res, err := Check(context.Background(), req, s)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Verdict == Equivalent; got != c.want {
			t.Errorf("--ub %s: %s (%s), want equivalent %v", c.model, res.Verdict, res.Reason, c.want)
			continue
		}
		if !c.want {
			continue
		}
		said := false
		for _, a := range res.Proof.Assumptions {
			said = said || strings.Contains(a, "memcpy calls copy between regions that do not overlap")
		}
		if !said {
			t.Errorf("--ub %s: the proof does not list the memcpy assumption: %q", c.model, res.Proof.Assumptions)
		}
		v, err := verify.Verify(context.Background(), verify.Request{Proof: res.Proof, SrcPath: req.SrcPath, DstPath: req.DstPath, Timeout: time.Minute, PinEqualities: learning.Equalities}, s)
		if err != nil || !v.Verified {
			t.Errorf("--ub %s: proof not verified: %v %s", c.model, err, v.Reason)
		}
	}
}
