package align

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"eqc/align/correlate"
	"eqc/align/paa"
	"eqc/align/product"
	"eqc/align/product/learning"
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
)

// The loop engines. A pair whose functions have loops is checked by
// aligning them: each target step between anchors is paired with a source
// path set, guided by co-executions. An engine is one way of searching for
// such alignments; what an alignment then becomes (the product program, its
// invariants, its obligations, its proof) is the same for every engine, and
// is checkLoopsWith's.

// Engine is a loop engine: a search for alignments of a pair's
// co-executions.
type Engine interface {
	// Name is the engine's --engine name; an equivalent verdict names the
	// engine whose alignment its proof rests on.
	Name() string
	// Alignments searches for up to limit alignments of p's co-executions
	// runs, best first, and counts what it tried; when it finds none, it
	// says why: the reason of an unknown verdict.
	Alignments(ctx context.Context, p *pair.Pair, runs []*pair.CoRun, limit int) pair.Search
}

// engines are the loop engines, in the order --engine auto starts them;
// when none proves the pair, a tie between their reasons goes to the
// first (mergeOutcomes).
var engines = []Engine{correlate.Engine{}, paa.Engine{}}

// The loop engines' names (the CLI's --engine): one per engine, and auto,
// which races them all (race.go).
const (
	EngineStatic = correlate.Name
	EngineData   = paa.Name
	EngineAuto   = "auto"
)

// The static engine's correlators (the CLI's --correlator) and the one
// it uses when none is named.
const (
	CorrelatorBacktracking = correlate.Backtracking
	CorrelatorBestFirst    = correlate.BestFirst
	DefaultCorrelator      = correlate.DefaultCorrelator
)

// ValidateCorrelator says why name is not a --correlator ("" is the
// default).
func ValidateCorrelator(name string) error { return correlate.ValidateCorrelator(name) }

// maxAlignments bounds the alignments an engine is asked for.
const maxAlignments = 4

// A round of correlation whose products all fail adds co-executions from
// the counterexamples of up to maxCexRunsPerRound of them (each input from
// two seeds) and correlates again, at most maxCexRounds times; the
// outcome hands up to maxCexInputs of the models' inputs to a real run
// (pair/cexruns.go).
const (
	maxCexRounds       = 3
	maxCexRunsPerRound = 2
	maxCexInputs       = 8 // the inputs an outcome hands a real run
)

// extraRunsKey tells alignments apart by the counterexample runs their
// products learn from: the same alignment over more runs is another
// product.
func extraRunsKey(extra []prove.ExtraRun) string {
	if len(extra) == 0 {
		return ""
	}
	return fmt.Sprintf(" +%v", extra)
}

// engineNamed is the engine called name; nil for auto and for a name no
// engine has.
func engineNamed(name string) Engine {
	for _, e := range engines {
		if e.Name() == name {
			return e
		}
	}
	return nil
}

// withCorrelator is e, with the correlator named correlator when e is the
// static engine ("" keeps its default).
func withCorrelator(e Engine, correlator string) Engine {
	if _, ok := e.(correlate.Engine); ok && correlator != "" {
		return correlate.Engine{Correlator: correlator}
	}
	return e
}

// ValidateEngine says why name is not an --engine: nil when it is the name
// of an engine or auto.
func ValidateEngine(name string) error {
	if name == EngineAuto || engineNamed(name) != nil {
		return nil
	}
	var names []string
	for _, e := range engines {
		names = append(names, e.Name())
	}
	return fmt.Errorf("unknown engine %q (want %s or %s)", name, strings.Join(names, ", "), EngineAuto)
}

// checkLoops runs the loop engine named engine on p; auto ("" too) races
// them all (race.go). The static engine correlates with the correlator
// named correlator ("" for its default).
func checkLoops(ctx context.Context, p *pair.Pair, engine, correlator string, s prove.Solver) *pair.Outcome {
	if engine == EngineAuto || engine == "" {
		return raceLoops(ctx, p, correlator, s)
	}
	return checkLoopsWith(ctx, p, withCorrelator(engineNamed(engine), correlator), s, nil, &claimSet{})
}

// checkLoopsWith runs engine e on p, on the co-executions runs, made here
// when nil (racing engines share them), and proves the alignments it finds
// in turn, each unless claims has it already (an alignment the racing
// engine found too), until one is proved.
func checkLoopsWith(ctx context.Context, p *pair.Pair, e Engine, s prove.Solver, runs []*pair.CoRun, claims *claimSet) *pair.Outcome {
	out := &pair.Outcome{Verdict: Unknown}
	if reason := p.LoopGate(); reason != "" {
		out.Reason = reason
		return out
	}
	pre, assumptions := p.ModelPrecondition()
	out.Assumptions = assumptions
	// The solver, not pair.Satisfiable: this precondition is small, and
	// the models Z3 gives later in the check depend on what it was asked
	// before (without this query, digits in TestCounterexampleRuns got
	// models whose runs covered nothing new, and stayed unknown).
	r := s.Check(ctx, prove.Query{B: p.B, Assertions: []ir.Term{pre}})
	out.SMTQueries++
	if r.Status != smtlib.Sat {
		out.Reason = "inconsistent-assumptions: the precondition is not satisfiable (" + r.Status.String() + " " + r.Reason + ")"
		return out
	}
	t0 := time.Now()
	if runs == nil {
		runs = p.CoExecuteAll(ctx)
	}
	if runs == nil {
		out.Reason = "timeout"
		return out
	}
	var firstFail, noAlignment string
	var extra []prove.ExtraRun // runs from counterexamples (pair/cexruns.go)
	seen := map[string]bool{}  // their arguments and pointees
	for round := 0; ; round++ {
		search := e.Alignments(ctx, p, runs, maxAlignments)
		aligns, reason := search.Alignments, search.Reason
		out.PredicatesTried += search.PredicatesTried
		out.CandidatesExpanded += search.Expanded
		out.CandidatesPruned += search.Pruned
		if pair.Debug {
			fmt.Fprintf(os.Stderr, "eqc: %s engine after co-execution %v (round %d): %d alignments\n", e.Name(), time.Since(t0), round, len(aligns))
			for k, cr := range runs {
				fmt.Fprintf(os.Stderr, "eqc:   run %d: src %s; dst %s\n", k, cr.Src.Describe(p.Src.TFG), cr.Dst.Describe(p.Dst.TFG))
			}
		}
		if len(aligns) == 0 && noAlignment == "" {
			noAlignment = reason
		}
		// The models of the products that failed Sat, and whether each
		// failed on a target edge no run took (its input may take it).
		var models []ir.Env
		var modelMems []ir.Term // each model's Outcome.ModelMem
		var uncovered []bool
		for _, a := range aligns {
			if !claims.claim(pair.SpecsKey(a.Specs) + extraRunsKey(extra)) {
				continue // tried already, or being tried by the racing engine
			}
			out.CorrelationsTried++
			pr, reason := product.Build(p, a, runs, learning.Search())
			if pr == nil && pair.Debug {
				fmt.Fprintf(os.Stderr, "eqc: alignment %v: no product: %s\n", a.Specs, reason)
			}
			if pr == nil {
				if firstFail == "" {
					firstFail = reason
					out.ProductFailed = true
				}
				continue
			}
			t0 := time.Now()
			o := pr.Prove(ctx, s, pre)
			if pair.Debug {
				fmt.Fprintf(os.Stderr, "eqc: alignment %v: %s (%d queries, %v)\n%s", a.Specs, o.Reason, o.SMTQueries, time.Since(t0), pr)
				for _, n := range pr.Nodes {
					fmt.Fprintf(os.Stderr, "  n%d: %d candidates\n", n.ID, len(n.Candidates))
					for _, c := range n.Candidates {
						fmt.Fprintf(os.Stderr, "    cand %s\n", c.Desc)
					}
				}
			}
			out.SMTQueries += o.SMTQueries
			out.Counterexamples += o.Counterexamples
			if o.Verdict == Equivalent {
				o.SMTQueries, o.Counterexamples = out.SMTQueries, out.Counterexamples
				// The product's own (escaped locals) after the pair's.
				o.Assumptions = append(append([]string(nil), assumptions...), pr.Assumptions()...)
				o.Proof = pr.ProofFile(o.Assumptions, o.Obligations)
				o.Proof.Runs = extra
				o.Engine, o.PredicatesTried, o.CorrelationsTried = e.Name(), out.PredicatesTried, out.CorrelationsTried
				o.CandidatesExpanded, o.CandidatesPruned = out.CandidatesExpanded, out.CandidatesPruned
				return o
			}
			if o.Model != nil {
				models, modelMems = append(models, o.Model), append(modelMems, o.ModelMem)
				uncovered = append(uncovered, o.ModelTakesNewEdge)
			}
			if firstFail == "" {
				firstFail = o.Reason
				out.ProductFailed = true
				out.ProductNodes, out.ProductEdges = o.ProductNodes, o.ProductEdges
				out.Candidates, out.Invariants = o.Candidates, o.Invariants
			}
			if ctx.Err() != nil {
				out.Reason = "timeout"
				return out
			}
		}
		// The products failed: their counterexamples' inputs are worth a
		// real run (check.go), and the first few join the co-executions
		// for another round of correlation (pair/cexruns.go). The first
		// round does so only for a model that takes a target edge, or a
		// path between two anchors, no run took (pair.TakesNewTargetPath:
		// clang's peeled remainder entered with an even count): the
		// seeded runs' other failures are not for want of runs, and
		// another round would mostly repeat them (on a pair that fails
		// anyway, at a cost). After that, a few runs are all that reach
		// the new paths, and any failure's model adds to what the next
		// round learns from (atoi_dec: one string of digits, then
		// another).
		added, long := 0, false
		for k, m := range models {
			r, ok := p.RunFromModel(m, modelMems[k], pair.ExtraRunSeed(len(extra)), runs)
			key := fmt.Sprint(r.Args, r.Pointees, r.Shared)
			if !ok || seen[key] {
				continue
			}
			seen[key] = true
			out.Counterexamples++
			if len(out.Inputs) < maxCexInputs {
				out.Inputs = append(out.Inputs, r)
			}
			if round == maxCexRounds || added == maxCexRunsPerRound {
				continue
			}
			r.Seed = pair.ExtraRunSeed(len(extra))
			cr := p.CoExecuteExtra(r)
			if cr.Cut() && !long {
				// The model's paths may lie past the step cap (a
				// vector loop's exit into its remainder, thousands of
				// steps in): once a round, the run goes as far as the
				// first seeded one, and replaces the short one if it
				// ends (one that does not only costs memory).
				long, r.Long = true, true
				if p.LongRunEnds(ctx, r) {
					cr = p.CoExecuteExtra(r)
				} else {
					r.Long = false
				}
			}
			if round == 0 && !uncovered[k] && !pair.TakesNewTargetPath(runs, cr) {
				continue
			}
			// Twice, from two seeds: the stack, the globals and the
			// arrays elsewhere, so that what is learned from the new
			// paths is not one run's coincidence (a loaded byte a fixed
			// distance from the stack pointer).
			runs = append(runs[:len(runs):len(runs)], cr)
			extra = append(extra, r)
			r.Seed, r.Long = pair.ExtraRunSeed(len(extra)), false
			runs = append(runs, p.CoExecuteExtra(r))
			extra = append(extra, r)
			added++
		}
		if added == 0 || ctx.Err() != nil {
			break
		}
	}
	out.Reason = firstFail
	if out.Reason == "" {
		out.Reason = noAlignment
	}
	if out.Reason == "" {
		out.Reason = "no-correlation: every alignment found was tried by the other engine"
	}
	return out
}
