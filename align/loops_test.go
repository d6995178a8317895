package align

import (
	"context"
	"sync"
	"testing"
	"time"

	"eqc/prove"
)

// The loop engine on testdata/loops/base.c (loops over fixed-length global
// arrays; gcc-12 and clang-16 vectorize them at -O3) and its mutants
// (testdata/loops/mutants.txt). Verdicts of the base pairs depend on how
// fast the solver is, so this test pins the soundness rules, not a golden
// file: a mutant is never equivalent, a base pair never not-equivalent,
// and one pair (add, gcc-12 -O0 vs -O3) is proved, with a generous budget.
func TestLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves loops: minutes")
	}
	objs, mutated := compileAll(t, "testdata/loops", []string{"O0", "O3"})
	s, _, err := prove.New(prove.Options{CacheSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check := func(c goldenCase, timeout time.Duration) Result {
		res, err := Check(context.Background(), Request{SrcPath: objs[c.cc+" O0 base.c"], SrcFunc: c.fn, DstPath: objs[c.cc+" O3 "+c.dstFile], DstFunc: c.fn, UB: "none", Timeout: timeout}, s)
		if err != nil {
			t.Fatalf("%s: %v", c.key(), err)
		}
		t.Logf("%s: %s (%s) %.1fs, %d queries, %d nodes, %d edges", c.key(), res.Verdict, res.Reason, res.WallS, res.SMTQueries, res.ProductNodes, res.ProductEdges)
		return res
	}
	if res := check(goldenCase{"gcc-12", "O0", "O3", "add", "base.c"}, 4*time.Minute); res.Verdict != Equivalent {
		t.Errorf("add (gcc-12 -O0 vs -O3) not proved: %s (%s)", res.Verdict, res.Reason)
	}
	// Mutants, two at a time (each solver call is one thread).
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan bool, 2)
	for _, cc := range compilers {
		for _, fn := range mutated {
			c := goldenCase{cc, "O0", "O3", fn, "mutant_" + fn + ".c"}
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- true
				defer func() { <-sem }()
				ps, _, err := prove.New(prove.Options{CacheSize: 64})
				if err != nil {
					t.Error(err)
					return
				}
				defer ps.Close()
				res, err := Check(context.Background(), Request{SrcPath: objs[c.cc+" O0 base.c"], SrcFunc: c.fn, DstPath: objs[c.cc+" O3 "+c.dstFile], DstFunc: c.fn, UB: "none", Timeout: 30 * time.Second}, ps)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.Errorf("%s: %v", c.key(), err)
					return
				}
				t.Logf("%s: %s (%s) %.1fs", c.key(), res.Verdict, res.Reason, res.WallS)
				if res.Verdict == Equivalent {
					t.Errorf("UNSOUND: %s is a mutant but was proved equivalent", c.key())
				}
			}()
		}
	}
	wg.Wait()
}
