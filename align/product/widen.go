package product

import (
	"eqc/align/product/pair"
	"eqc/ir"
)

// Source path sets widened on a counterexample (widen.go)
//
// An edge's source path set goes around the source's loops at most Mu
// times, Mu being the most passes any co-execution showed for the step.
// A target step may cover more passes than any run did: gcc-12's maxv
// ends n = 2..4 in straight-line code after one compare, while the runs
// had n ≤ 3, so the exit edge's set held at most two passes and "source
// takes the paired paths" had a counterexample at n = 4. When that
// obligation fails, the set is widened to the fewest passes whose paths
// the counterexample takes (the solver's model evaluated on the wider
// set's condition, up to maxWidening more passes), the edge is rebuilt from its paths up, its
// hypotheses too, and checked again, with inductiveness, at most
// maxWidenings times. A wider set is still a set of real source paths
// whose condition the solver must show the target's implies, so a proof
// through it is as sound as any; only time is at stake. The fewest, not
// the most: OBVA's hypotheses stop at ub.MaxOBVAPaths paths a set, which
// a loop body with a branch passes at four passes.

const (
	maxWidenings = 3 // rebuilds of one edge with a wider source path set
	maxWidening  = 8 // passes one widening may add
)

// sourceTooNarrow names the obligation that widening answers.
const sourceTooNarrow = "source takes the paired paths"

// widenSource gives e's source path set the fewest passes on which model
// m takes one of its paths, and rebuilds e; false when no set within
// maxWidening more passes does so, or m does not settle their conditions
// (a counterexample that needs INT_MIN−1 to wrap runs 2^31 passes: no
// widening answers it).
func (pr *Product) widenSource(e *PEdge, m ir.Env) bool {
	if m == nil || e.Infeasible || e.Spec.Stays() {
		return false
	}
	sg := pr.p.Src.TFG
	from := pr.Nodes[e.From]
	sub := pr.stateSubst(sg, from.Src)
	ev := ir.NewEvaluator(pr.p.B, m)
	mu := 0
	for k := e.Spec.Mu + 1; k <= min(pair.MaxUnroll, e.Spec.Mu+maxWidening); k++ {
		ps := sg.PathSet(from.Key.Src, e.Spec.To, ir.PathOptions{Mu: k, Arrivals: e.Spec.Arrivals})
		if ps == nil {
			continue
		}
		v, err := ev.Eval(pr.simp.Simplify(sub.Apply(ps.Cond)))
		if err != nil {
			return false
		}
		if v.Bool() {
			mu = k
			break
		}
	}
	if mu == 0 {
		return false
	}
	e.Spec.Mu = mu
	// Everything built from the old paths: the path sets, the hypotheses
	// on their accesses, the pins settled on their terms.
	e.dst, e.src, e.obvaHyps, e.pins = nil, nil, nil, nil
	pr.buildEdge(e)
	return true
}
