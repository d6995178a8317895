package align

import (
	"sync"
	"testing"
	"time"

	"eqc/prove"
)

// TestGoldenLoopCalls is the golden test of loops that make calls
// (testdata/loopcalls): base.c -O0 against -O3 with both compilers, under
// the default UB model, and its mutants, never equivalent. The loop engines
// prove them in the calling convention's model of callees, pairing the
// calls one iteration at a time. Checks run two at a time, each with its
// own solver.
func TestGoldenLoopCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves loops: minutes")
	}
	objs, mutated := compileAll(t, "testdata/loopcalls", []string{"O0", "O3"})
	funcs, err := commonNames(objs["gcc-12 O0 base.c"])
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, cc := range compilers {
		for _, fn := range funcs {
			cases = append(cases, goldenCase{cc, "O0", "O3", fn, "base.c"})
		}
		for _, fn := range mutated {
			cases = append(cases, goldenCase{cc, "O0", "O3", fn, "mutant_" + fn + ".c"})
		}
	}
	got := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan bool, 2)
	for _, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			defer func() { <-sem }()
			s, _, err := prove.New(prove.Options{CacheSize: 256})
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			one := map[string]string{}
			checkGoldenLoopFree(t, objs, c, "all", time.Minute, s, one)
			mu.Lock()
			for k, v := range one {
				got[k] = v
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	compareGolden(t, "testdata/loopcalls.golden", got)
}
