package align

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"eqc/ir"
	"eqc/prove"
)

// --engine auto races the two loop engines, as DESIGN.md asks: the
// correlator and the alignment predicates each search on a pair of their
// own (an ir.Builder serves one goroutine), the first proof wins and the
// other engine is cancelled. An alignment both engines find is proved
// once: the engine that claims it first proves it and the other goes on
// with its next one, so a race costs its searches twice but not its
// proofs, which is where the time goes on a slow check. The solver is
// shared; its pool and cache serve both.

// claimSet is the set of alignments (by specsKey) already taken, shared
// between racing engines.
type claimSet struct {
	mu   sync.Mutex
	keys map[string]bool
}

// claim takes the alignment named key for p's engine: false when this or
// the racing engine has taken it already.
func (p *Pair) claim(key string) bool {
	if p.claims == nil {
		p.claims = &claimSet{}
	}
	c := p.claims
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys == nil {
		c.keys = map[string]bool{}
	}
	if c.keys[key] {
		return false
	}
	c.keys[key] = true
	return true
}

// raceLoops runs the static engine on p and the data-driven engine on a
// twin, a second load of the same two functions, at once (race). The
// co-executions are run once, on p, and shared: they are most of a
// check's memory, and only concrete values and the TFGs' node and edge
// numbers, which the twin has alike (sameShape; it runs its own if not).
func (p *Pair) raceLoops(ctx context.Context, s prove.Solver) *Outcome {
	if reason := p.loopGate(); reason != "" {
		return &Outcome{Verdict: Unknown, Reason: reason}
	}
	var contexts []string
	for _, f := range p.Context {
		contexts = append(contexts, f.Path)
	}
	twin, err := LoadPair(p.Src.Path, p.Src.Fn.Name, p.Dst.Path, p.Dst.Fn.Name, contexts...)
	if err != nil {
		return &Outcome{Verdict: Unknown, Reason: "internal-error: loading the pair again for the data engine: " + err.Error()}
	}
	p.Engine, twin.Engine = EngineStatic, EngineData
	twin.OBVA = p.OBVA
	p.claims = &claimSet{}
	twin.claims = p.claims
	runs := p.coExecuteAll(ctx)
	if runs == nil {
		return &Outcome{Verdict: Unknown, Reason: "timeout"}
	}
	twinRuns := runs
	if !sameShape(p.Src.TFG, twin.Src.TFG) || !sameShape(p.Dst.TFG, twin.Dst.TFG) {
		twinRuns = nil
	}
	return race(ctx, func(ctx context.Context, engine string) *Outcome {
		if engine == EngineStatic {
			return p.checkLoopsOn(ctx, s, runs)
		}
		return twin.checkLoopsOn(ctx, s, twinRuns)
	})
}

// sameShape says whether two lifts of one function number their nodes
// and edges alike, so that co-executions of one serve the other.
func sameShape(a, b *ir.TFG) bool {
	if len(a.Nodes) != len(b.Nodes) || len(a.Edges) != len(b.Edges) || a.Entry != b.Entry || a.Exit != b.Exit || a.Halt != b.Halt || len(a.State) != len(b.State) {
		return false
	}
	for i := range a.Nodes {
		if a.Nodes[i].PC != b.Nodes[i].PC || a.Nodes[i].Kind != b.Nodes[i].Kind {
			return false
		}
	}
	for i, e := range a.Edges {
		if f := b.Edges[i]; e.ID != f.ID || e.From != f.From || e.To != f.To {
			return false
		}
	}
	return true
}

// race runs check for the static and the data engine at once. The first
// equivalent answer cancels the other engine's context and waits for it
// to stop; without one, the two outcomes are merged (mergeOutcomes).
// Either engine's search is counted in the answer.
func race(ctx context.Context, check func(ctx context.Context, engine string) *Outcome) *Outcome {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		engine string
		out    *Outcome
	}
	answers := make(chan answer, 2)
	for _, engine := range []string{EngineStatic, EngineData} {
		go func() { answers <- answer{engine, check(rctx, engine)} }()
	}
	got := map[string]*Outcome{}
	for len(got) < 2 {
		a := <-answers
		got[a.engine] = a.out
		if a.out.Verdict != Equivalent {
			continue
		}
		other := EngineStatic
		if a.engine == EngineStatic {
			other = EngineData
		}
		if got[other] == nil {
			// Wait for the loser to stop: it must not go on taking CPU
			// and memory from the checks after this one.
			t0 := time.Now()
			cancel()
			got[other] = (<-answers).out
			if debug {
				fmt.Fprintf(os.Stderr, "eqc: race: %s engine won; the other stopped %v after cancel\n", a.engine, time.Since(t0))
			}
		}
		loser := got[other]
		a.out.SMTQueries += loser.SMTQueries
		a.out.CorrelationsTried += loser.CorrelationsTried
		a.out.PredicatesTried += loser.PredicatesTried
		return a.out
	}
	return mergeOutcomes(got[EngineStatic], got[EngineData])
}

// mergeOutcomes is the unknown answer of a race neither engine won: the
// reason of the engine that got furthest (a product that failed rather
// than no alignment; the static engine's on a tie), with both engines'
// search counted.
func mergeOutcomes(static, data *Outcome) *Outcome {
	out, other := static, data
	if !static.productFailed && data.productFailed {
		out, other = data, static
	}
	out.SMTQueries += other.SMTQueries
	out.CorrelationsTried += other.CorrelationsTried
	out.PredicatesTried += other.PredicatesTried
	return out
}
