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
	// runs, best first. With them it returns tried, the alignments its
	// search counts as tried (the data-driven engine's predicate
	// assignments; 0 for an engine that counts none), and, when it found
	// none, why: the reason of an unknown verdict.
	Alignments(ctx context.Context, p *pair.Pair, runs []*pair.CoRun, limit int) (aligns []pair.Alignment, tried int, reason string)
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

// maxAlignments bounds the alignments an engine is asked for.
const maxAlignments = 4

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
// them all (race.go).
func checkLoops(ctx context.Context, p *pair.Pair, engine string, s prove.Solver) *pair.Outcome {
	if engine == EngineAuto || engine == "" {
		return raceLoops(ctx, p, s)
	}
	return checkLoopsWith(ctx, p, engineNamed(engine), s, nil, &claimSet{})
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
	aligns, tried, reason := e.Alignments(ctx, p, runs, maxAlignments)
	out.PredicatesTried += tried
	if pair.Debug {
		fmt.Fprintf(os.Stderr, "eqc: %s engine after co-execution %v: %d alignments\n", e.Name(), time.Since(t0), len(aligns))
		for k, cr := range runs {
			fmt.Fprintf(os.Stderr, "eqc:   run %d: src %s; dst %s\n", k, cr.Src.Describe(p.Src.TFG), cr.Dst.Describe(p.Dst.TFG))
		}
	}
	if len(aligns) == 0 {
		noAlignment = reason
	}
	for _, a := range aligns {
		if !claims.claim(pair.SpecsKey(a.Specs)) {
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
			o.Assumptions = assumptions
			o.Proof = pr.ProofFile(assumptions, o.Obligations)
			o.Engine, o.PredicatesTried, o.CorrelationsTried = e.Name(), out.PredicatesTried, out.CorrelationsTried
			return o
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
	out.Reason = firstFail
	if out.Reason == "" {
		out.Reason = noAlignment
	}
	if out.Reason == "" {
		out.Reason = "no-correlation: every alignment found was tried by the other engine"
	}
	return out
}
