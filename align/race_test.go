package align

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
	"eqc/bench"
)

// TestClaim: racing engines share their claims, and each alignment goes
// to exactly one of the goroutines claiming it.
func TestClaim(t *testing.T) {
	shared := &claimSet{}
	const keys, claimers = 50, 8
	var won [keys]int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range claimers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range keys {
				if shared.claim(fmt.Sprint(k)) {
					mu.Lock()
					won[k]++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for k, n := range won {
		if n != 1 {
			t.Errorf("alignment %d claimed %d times", k, n)
		}
	}
	var alone claimSet // an engine that races nobody claims for itself
	if !alone.claim("x") || alone.claim("x") {
		t.Error("an engine's own claims are not kept")
	}
}

// TestRaceOrder runs race with stand-in engines whose order of answers
// the test fixes: every order must end, with the proof when there is one,
// and a proof found while the other engine is still searching must cancel
// that search.
func TestRaceOrder(t *testing.T) {
	proof := func() *pair.Outcome {
		return &pair.Outcome{Verdict: Equivalent, SMTQueries: 5, CorrelationsTried: 1}
	}
	fail := func() *pair.Outcome {
		return &pair.Outcome{Verdict: Unknown, Reason: "invariants-too-weak: x", SMTQueries: 7, CorrelationsTried: 1, ProductFailed: true}
	}
	none := func() *pair.Outcome {
		return &pair.Outcome{Verdict: Unknown, Reason: "no-correlation: x", PredicatesTried: 2}
	}
	// An engine's script: its answer, and whether it answers only when
	// cancelled (it is still searching when the other one proves).
	type script struct {
		out       func() *pair.Outcome
		untilDone bool
	}
	for _, c := range []struct {
		name         string
		first        string // the engine that answers first
		static, data script
		want         string // verdict, or the unknown reason
		queries      int
	}{
		{"static proves, data was done", EngineData, script{proof, false}, script{none, false}, Equivalent, 5},
		{"static proves, data still searching", EngineStatic, script{proof, false}, script{none, true}, Equivalent, 5},
		{"data proves, static was done", EngineStatic, script{fail, false}, script{proof, false}, Equivalent, 12},
		{"data proves, static still searching", EngineData, script{fail, true}, script{proof, false}, Equivalent, 12},
		{"both prove", EngineStatic, script{proof, false}, script{proof, false}, Equivalent, 10},
		{"neither, static first", EngineStatic, script{none, false}, script{fail, false}, "invariants-too-weak: x", 7},
		{"neither, data first", EngineData, script{fail, false}, script{none, false}, "invariants-too-weak: x", 7},
	} {
		firstDone := make(chan bool)
		var cancelled sync.Map
		check := func(ctx context.Context, engine string) *pair.Outcome {
			sc := c.static
			if engine == EngineData {
				sc = c.data
			}
			if sc.untilDone {
				<-ctx.Done()
				cancelled.Store(engine, true)
				return sc.out()
			}
			if engine != c.first {
				<-firstDone
			} else {
				defer close(firstDone)
			}
			return sc.out()
		}
		done := make(chan *pair.Outcome)
		go func() { done <- race(context.Background(), check) }()
		var got *pair.Outcome
		select {
		case got = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the race did not end", c.name)
		}
		verdict := got.Verdict
		if verdict == Unknown {
			verdict = got.Reason
		}
		if verdict != c.want || got.SMTQueries != c.queries {
			t.Errorf("%s: %s with %d queries, want %s with %d", c.name, verdict, got.SMTQueries, c.want, c.queries)
		}
		for _, engine := range []string{EngineStatic, EngineData} {
			_, was := cancelled.Load(engine)
			searching := engine == EngineStatic && c.static.untilDone || engine == EngineData && c.data.untilDone
			if was != searching {
				t.Errorf("%s: %s engine cancelled %v, want %v", c.name, engine, was, searching)
			}
		}
	}
}

// TestMergeOutcomes: without a proof, the race reports the engine that
// got furthest, and counts both engines' search.
func TestMergeOutcomes(t *testing.T) {
	noAlign := func(reason string) *pair.Outcome {
		return &pair.Outcome{Verdict: Unknown, Reason: reason, SMTQueries: 1, CorrelationsTried: 0, PredicatesTried: 3}
	}
	failed := func(reason string) *pair.Outcome {
		return &pair.Outcome{Verdict: Unknown, Reason: reason, SMTQueries: 10, CorrelationsTried: 2, ProductNodes: 3, ProductFailed: true}
	}
	for _, c := range []struct {
		static, data *pair.Outcome
		want         string
	}{
		{failed("invariants-too-weak: s"), noAlign("no-alignment-predicate: d"), "invariants-too-weak: s"},
		{noAlign("no-correlation: s"), failed("invariants-too-weak: d"), "invariants-too-weak: d"},
		{failed("invariants-too-weak: s"), failed("no-correlation: d"), "invariants-too-weak: s"},
		{noAlign("no-correlation: s"), noAlign("no-alignment-predicate: d"), "no-correlation: s"},
	} {
		queries := c.static.SMTQueries + c.data.SMTQueries
		tried := c.static.CorrelationsTried + c.data.CorrelationsTried
		preds := c.static.PredicatesTried + c.data.PredicatesTried
		got := mergeOutcomes(c.static, c.data)
		if got.Reason != c.want || got.SMTQueries != queries || got.CorrelationsTried != tried || got.PredicatesTried != preds {
			t.Errorf("merged %q (%d queries, %d correlations, %d predicates), want %q (%d, %d, %d)", got.Reason, got.SMTQueries, got.CorrelationsTried, got.PredicatesTried, c.want, queries, tried, preds)
		}
	}
}

// TestRace: --engine auto proves what either engine proves alone, with
// a proof the checker accepts. gcc-12's word-at-a-time strlen needs the
// data engine (the static one alone cannot, as the first case pins, so
// the race's proof is the data engine's), gcc-12's sum is
// proved by whichever engine comes first, and the pair neither proves
// gets the reason of the engine that got furthest.
func TestRace(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves loops: a minute")
	}
	t.Parallel() // one thread: beside the other one-thread tests
	abs := func(name string) string {
		p, err := filepath.Abs(name)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ref, word, base := abs("testdata/handvec/strlen_ref.c"), abs("testdata/handvec/strlen_word.c"), abs("testdata/loops/base.c")
	objs := aligntest.CompileBuilds(t, []aligntest.Build{{CC: "gcc-12", Src: ref, Lvl: "O0"}, {CC: "gcc-12", Src: word, Lvl: "O2"}, {CC: "gcc-12", Src: base, Lvl: "O0"}, {CC: "gcc-12", Src: base, Lvl: "O3"}}, bench.DefaultVariant)
	strlen := func(ub, engine string) Request {
		return Request{SrcPath: objs[aligntest.Build{CC: "gcc-12", Src: ref, Lvl: "O0"}], SrcFunc: "str_len", DstPath: objs[aligntest.Build{CC: "gcc-12", Src: word, Lvl: "O2"}], DstFunc: "str_len", UB: ub, Engine: engine, Timeout: 3 * time.Minute}
	}
	sum := Request{SrcPath: objs[aligntest.Build{CC: "gcc-12", Src: base, Lvl: "O0"}], SrcFunc: "sum", DstPath: objs[aligntest.Build{CC: "gcc-12", Src: base, Lvl: "O3"}], DstFunc: "sum", UB: "none", Engine: EngineAuto, Timeout: 3 * time.Minute}
	var mu sync.Mutex
	for _, c := range []struct {
		key  string
		req  Request
		want string
	}{
		{"gcc-12 strlen --ub obva --engine static", strlen("obva", EngineStatic), Unknown + " invariants-too-weak"},
		{"gcc-12 strlen --ub obva --engine auto", strlen("obva", EngineAuto), Equivalent},
		{"gcc-12 strlen --ub none --engine auto", strlen("none", EngineAuto), Unknown + " invariants-too-weak"},
		{"gcc-12 base.c sum --engine auto", sum, Equivalent},
	} {
		checkGolden(t, &mu, c.key, c.req, c.want)
	}
}
