package align

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/prove"
)

// --engine auto races the loop engines, as docs/design.md asks: each searches
// on a pair of its own (an ir.Builder serves one goroutine), the first
// proof wins and the other engines are cancelled. An alignment two
// engines find is proved once: the engine that claims it first proves it
// and the other goes on with its next one, so a race costs its searches
// twice but not its proofs, which is where the time goes on a slow check.
// The solver is shared; its pool and cache serve every engine.

// claimSet is the set of alignments (by SpecsKey) already taken, shared
// between racing engines.
type claimSet struct {
	mu   sync.Mutex
	keys map[string]bool
}

// claim takes the alignment named key: false when it has been taken
// already, by this engine or a racing one.
func (c *claimSet) claim(key string) bool {
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

// raceLoops runs the first engine on p and each other one on a twin, a
// second load of the same two functions, at once (race). The
// co-executions are run once, on p, and shared: they are most of a
// check's memory, and only concrete values and the TFGs' node and edge
// numbers, which a twin has alike (sameShape; it runs its own if not).
func raceLoops(ctx context.Context, p *pair.Pair, correlator string, s prove.Solver) *pair.Outcome {
	if reason := p.LoopGate(); reason != "" {
		return &pair.Outcome{Verdict: Unknown, Reason: reason}
	}
	var contexts []string
	for _, f := range p.Context {
		contexts = append(contexts, f.Path)
	}
	pairs := map[string]*pair.Pair{engines[0].Name(): p}
	for _, e := range engines[1:] {
		twin, err := pair.Load(p.Src.Path, p.Src.Fn.Name, p.Dst.Path, p.Dst.Fn.Name, contexts...)
		if err != nil {
			return &pair.Outcome{Verdict: Unknown, Reason: "internal-error: loading the pair again for the " + e.Name() + " engine: " + err.Error()}
		}
		twin.SetModels(p.Models)
		pairs[e.Name()] = twin
	}
	claims := &claimSet{}
	runs := p.CoExecuteAll(ctx)
	if runs == nil {
		return &pair.Outcome{Verdict: Unknown, Reason: "timeout"}
	}
	pairRuns := map[string][]*pair.CoRun{}
	for name, q := range pairs {
		pairRuns[name] = runs
		if q != p && (!sameShape(p.Src.TFG, q.Src.TFG) || !sameShape(p.Dst.TFG, q.Dst.TFG)) {
			pairRuns[name] = nil
		}
	}
	return race(ctx, func(ctx context.Context, engine string) *pair.Outcome {
		return checkLoopsWith(ctx, pairs[engine], withCorrelator(engineNamed(engine), correlator), s, pairRuns[engine], claims)
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

// race runs check for every engine at once. The first equivalent answer
// cancels the other engines' context and waits for them to stop; without
// one, the outcomes are merged (mergeOutcomes). Every engine's search is
// counted in the answer.
func race(ctx context.Context, check func(ctx context.Context, engine string) *pair.Outcome) *pair.Outcome {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		engine string
		out    *pair.Outcome
	}
	answers := make(chan answer, len(engines))
	for _, e := range engines {
		engine := e.Name()
		go func() { answers <- answer{engine, check(rctx, engine)} }()
	}
	got := map[string]*pair.Outcome{}
	for len(got) < len(engines) {
		a := <-answers
		got[a.engine] = a.out
		if a.out.Verdict != Equivalent {
			continue
		}
		if len(got) < len(engines) {
			// Wait for the losers to stop: they must not go on taking CPU
			// and memory from the checks after this one.
			t0 := time.Now()
			cancel()
			for len(got) < len(engines) {
				b := <-answers
				got[b.engine] = b.out
			}
			if pair.Debug {
				fmt.Fprintf(os.Stderr, "eqc: race: %s engine won; the other stopped %v after cancel\n", a.engine, time.Since(t0))
			}
		}
		for _, e := range engines {
			if loser := got[e.Name()]; e.Name() != a.engine {
				a.out.SMTQueries += loser.SMTQueries
				a.out.Counterexamples += loser.Counterexamples
				a.out.CorrelationsTried += loser.CorrelationsTried
				a.out.PredicatesTried += loser.PredicatesTried
				a.out.CandidatesExpanded += loser.CandidatesExpanded
				a.out.CandidatesPruned += loser.CandidatesPruned
			}
		}
		return a.out
	}
	outs := make([]*pair.Outcome, len(engines))
	for i, e := range engines {
		outs[i] = got[e.Name()]
	}
	return mergeOutcomes(outs...)
}

// mergeOutcomes is the unknown answer of a race no engine won, given the
// engines' outcomes in their order: the reason of the engine that got
// furthest (a product that failed rather than no alignment; the first
// engine's on a tie), with every engine's search counted.
func mergeOutcomes(outs ...*pair.Outcome) *pair.Outcome {
	out := outs[0]
	for _, o := range outs {
		if o.ProductFailed {
			out = o
			break
		}
	}
	for _, o := range outs {
		if o != out {
			out.SMTQueries += o.SMTQueries
			out.Counterexamples += o.Counterexamples
			out.CorrelationsTried += o.CorrelationsTried
			out.PredicatesTried += o.PredicatesTried
			out.CandidatesExpanded += o.CandidatesExpanded
			out.CandidatesPruned += o.CandidatesPruned
			out.Inputs = append(out.Inputs, o.Inputs...)
		}
	}
	return out
}
