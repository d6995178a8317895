package product

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
	"eqc/x86"
)

// The loop engine: functions with loops (and without calls). It
// co-executes the two lifted functions, correlates their anchors, builds
// the product program, learns candidate invariants at every product node
// from the aligned states, keeps the inductive ones with Houdini, and
// discharges the product's obligations:
//
//   - correspondence: at every product edge, when the target takes its
//     path set the source takes the paired one, and faults on it exactly
//     when the target does;
//   - the target node's definitions hold and its memory form is kept (the
//     two memories agree outside its stack slots);
//   - at the exit, the observables agree (as in the loop-free engine);
//   - a target edge with no source partner is impossible at its node.
//
// Every target edge between anchors out of every product node is paired,
// so every target run is a sequence of product edges, each matched by a
// nonempty source run with the same observables at the end; a target that
// loops forever makes the source loop forever too.

// TargetEdgeImpossible ends the name of the obligation that a target edge
// no co-execution took is never taken: when it fails, the solver's model
// takes it, and the runs lacked a path (the loop engine may run the model,
// align/product/pair/cexruns.go).
const TargetEdgeImpossible = "target edge impossible"

// Prove runs Houdini over the product's candidates and discharges every
// obligation. Houdini has made the invariants inductive already, so the
// discharge does not ask that again (the proof checker does).
func (pr *Product) Prove(ctx context.Context, s prove.Solver, pre ir.Term) *pair.Outcome {
	queries, unknown := pr.houdini(ctx, s, pre)
	cands, invs := 0, 0
	for _, n := range pr.Nodes {
		cands += len(n.Candidates)
		invs += len(n.Invariants)
	}
	if unknown != "" {
		return &pair.Outcome{Verdict: pair.Unknown, Reason: "invariants: " + unknown, SMTQueries: queries, ProductNodes: len(pr.Nodes), ProductEdges: len(pr.Edges), Candidates: cands}
	}
	out := pr.Discharge(ctx, s, pre, false)
	out.SMTQueries += queries
	out.Candidates, out.Invariants = cands, invs
	return out
}

// houdini keeps the largest inductive subset of every node's candidates
// as its Invariants. It returns the queries it made and, when the fixpoint
// could not be reached, why.
func (pr *Product) houdini(ctx context.Context, s prove.Solver, pre ir.Term) (int, string) {
	pre = pr.withPremises(pre)
	cands := make([][]ir.Term, len(pr.Nodes))
	for _, n := range pr.Nodes {
		for _, c := range n.Candidates {
			cands[n.ID] = append(cands[n.ID], c.Term)
		}
	}
	var hedges []prove.HoudiniEdge
	for _, e := range pr.Edges {
		if e.Infeasible || len(cands[e.To]) == 0 {
			continue
		}
		hedges = append(hedges, prove.HoudiniEdge{From: e.From, To: e.To, Pre: pr.edgePre(e, pre), Post: pr.post(e)})
	}
	o := prove.HoudiniOptions{Split: true, QueryTimeout: houdiniQueryBudget(ctx)}
	if w := pr.learning.Weaken; w != nil {
		// A strict order between two terms is weakened at a loop's exit
		// only, where the runs that went on saw the counter below its
		// bound and a model leaves with the two equal; elsewhere keeping
		// such orders alive cost Houdini rounds (clang's s3251: 24 s →
		// 48 s) and gained nothing.
		atExit := map[ir.Term]bool{}
		for _, n := range pr.Nodes {
			if pr.p.Dst.TFG.Nodes[n.Key.Dst].Kind == ir.NodeLoopExit {
				for _, c := range n.Candidates {
					atExit[c.Term] = true
				}
			}
		}
		o.Weaken = func(c ir.Term, value func(ir.Term) (ir.Value, bool)) (ir.Term, bool) {
			if op := pr.p.B.Op(c); (op == ir.OpUlt || op == ir.OpSlt) && !atExit[c] {
				return c, false
			}
			return w(pr.p.B, c, value, pr.conditionConstants)
		}
	}
	o.Refine = func(site int, value func(ir.Term) (ir.Value, bool)) []ir.Term {
		return pr.refine(pr.Nodes[site], value)
	}
	h := prove.HoudiniWith(ctx, s, pr.p.B, cands, hedges, o)
	if h.Unknown != "" {
		return h.Queries, h.Unknown
	}
	for _, n := range pr.Nodes {
		n.Invariants = h.Invariants(cands, n.ID)
		if pair.Debug {
			for _, inv := range n.Invariants {
				fmt.Fprintf(os.Stderr, "eqc: invariant at n%d: %s\n", n.ID, pr.p.B.Short(inv))
			}
		}
	}
	return h.Queries, ""
}

// houdiniQueryBudget bounds one Houdini query: a quarter of the time left
// to the check, at least minHoudiniQuery. A query past it is asked again
// candidate by candidate and the undecided candidates are dropped
// (sound: what is kept is still proved inductive), where the whole
// fixpoint used to wait on it until the check timed out (gcd's bound
// a % b ≤ b₀ beside six candidates the solver settles at once).
func houdiniQueryBudget(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(minHoudiniQuery, time.Until(d)/4)
	}
	return 0
}

// minHoudiniQuery is the least time houdiniQueryBudget gives a query.
const minHoudiniQuery = 5 * time.Second

// edgePre are the assumptions of paired edge e besides its from-node's
// invariants: the precondition, both sides take their paths, the target
// does not fault, the UB models' hypotheses (rewritten like the paths:
// Discharge proves the facts that makes them the raw ones).
func (pr *Product) edgePre(e *PEdge, pre ir.Term) []ir.Term {
	b := pr.p.B
	return append([]ir.Term{pre, e.condD, b.Not(e.faultD), e.condS}, e.hyps...)
}

// post maps a term over e's to-node variables to what it says after e,
// over the from-node's state.
func (pr *Product) post(e *PEdge) func(ir.Term) ir.Term {
	sub := pr.postSubst(e)
	simp := pr.simp
	return func(t ir.Term) ir.Term { return simp.Simplify(sub.Apply(t)) }
}

// Discharge checks every obligation of the product given the nodes'
// Invariants. With inductive set it also proves the invariants: those of
// the entry node follow from the precondition, and along every paired edge
// the from-node's invariants imply the to-node's after the edge.
func (pr *Product) Discharge(ctx context.Context, s prove.Solver, pre ir.Term, inductive bool) *pair.Outcome {
	b := pr.p.B
	pre = pr.withPremises(pre)
	out := &pair.Outcome{Verdict: pair.Unknown, ProductNodes: len(pr.Nodes), ProductEdges: len(pr.Edges)}
	qctx := ctx      // the queries' context: shorter while a pinned edge is tried
	var model ir.Env // of the last Sat answer
	// fromMem is the memory of the from-node of the edge whose
	// obligations are being checked (Outcome.ModelMem).
	fromMem := ir.NoTerm
	newEdge := false // the edge is one no run took
	// attempt asks one query. Within a budget (positive), an unknown
	// answer while the check has time left is undecided: nothing is
	// recorded and the caller asks smaller queries instead (cases.go).
	attempt := func(budget time.Duration, name string, assertions ...ir.Term) (ok, undecided bool) {
		q := prove.Query{B: b, Assertions: append([]ir.Term{pre}, assertions...)}
		if prove.DumpQuery != nil {
			// Before the check: the query a check hangs on is the one
			// to look at.
			prove.DumpQuery(fmt.Sprintf("q%d", out.SMTQueries+1), q)
		}
		c := qctx
		if budget > 0 {
			var cancel context.CancelFunc
			c, cancel = context.WithTimeout(qctx, budget)
			defer cancel()
		}
		t0 := time.Now()
		r := s.Check(c, q)
		model = r.Model
		out.SMTQueries++
		if pair.Debug {
			fmt.Fprintf(os.Stderr, "eqc: %s: %v in %v\n", name, r.Status, time.Since(t0))
		}
		if budget > 0 && r.Status != smtlib.Unsat && r.Status != smtlib.Sat && qctx.Err() == nil {
			return false, true
		}
		out.Obligations = append(out.Obligations, pair.Obligation{Name: name, Status: r.Status, Reason: r.Reason})
		switch r.Status {
		case smtlib.Unsat:
			return true, false
		case smtlib.Sat:
			out.Reason = "invariants-too-weak: " + name
			out.Model, out.ModelMem, out.ModelTakesNewEdge = r.Model, fromMem, newEdge
			// The model's input may start a run (the engines' next
			// round): one with small arguments, when there is one
			// (pair/cexruns.go).
			for _, bound := range pair.SmallModelTiers {
				small, outside := pr.p.SmallModelBounds(r.Model, bound, pr.runs)
				if !outside || ctx.Err() != nil {
					break
				}
				q2 := q
				q2.Assertions = append(q.Assertions[:len(q.Assertions):len(q.Assertions)], small)
				out.SMTQueries++
				if r2 := s.Check(qctx, q2); r2.Status == smtlib.Sat {
					out.Model = r2.Model
					break
				}
			}
		default:
			out.Reason = "solver-unknown: " + name + ": " + r.Reason
			if ctx.Err() != nil {
				out.Reason = "timeout"
			}
		}
		return false, false
	}
	check := func(name string, assertions ...ir.Term) bool {
		ok, _ := attempt(0, name, assertions...)
		return ok
	}
	ck := checker{check: check, attempt: attempt, budget: func() time.Duration { return caseBudget(qctx) }}
	if len(pr.premises) > 0 {
		// The escaped locals' premises must hold in some state, or every
		// obligation would be discharged vacuously.
		r := pr.p.Satisfiable(ctx, s, pre)
		out.SMTQueries++
		if r.Status != smtlib.Sat {
			out.Reason = "inconsistent-assumptions: the precondition and the escaped locals' premises are not satisfiable (" + r.Status.String() + " " + r.Reason + ")"
			return out
		}
	}
	if entry := pr.Nodes[0]; inductive && len(entry.Invariants) > 0 {
		if !check("n0: invariants hold at the entry", b.Not(b.And(entry.Invariants...))) {
			return out
		}
	}
	// obligations checks e's, rebuilding it with the counterexample when
	// what failed was a guess of its splitter (refute.go).
	obligations := func(e *PEdge, rebuilt bool) bool {
		widenings := 0
		for tries := 0; ; tries++ {
			done := len(out.Obligations)
			model = nil
			if pr.edgeObligations(e, rebuilt, inductive, pre, ck) {
				return true
			}
			// A source path set with too few loop passes (widen.go).
			if last := out.Obligations[len(out.Obligations)-1]; last.Status == smtlib.Sat && strings.HasSuffix(last.Name, ": "+sourceTooNarrow) &&
				widenings < maxWidenings && ctx.Err() == nil && pr.widenSource(e, model) {
				if pair.Debug {
					fmt.Fprintf(os.Stderr, "eqc: n%d→n%d rebuilt with its source paths widened to %d loop passes\n", e.From, e.To, e.Spec.Mu)
				}
				out.Obligations, out.Reason, out.Model = out.Obligations[:done], "", nil
				widenings++
				tries--
				rebuilt = true
				continue
			}
			// Facts that need the source's next accesses (obva.go).
			if last := out.Obligations[len(out.Obligations)-1]; last.Status == smtlib.Sat && strings.HasSuffix(last.Name, ": "+slotsApart) &&
				!e.lookahead && pr.taint != nil && ctx.Err() == nil {
				if pair.Debug {
					fmt.Fprintf(os.Stderr, "eqc: n%d→n%d rebuilt with the next source paths' hypotheses\n", e.From, e.To)
				}
				out.Obligations, out.Reason, out.Model = out.Obligations[:done], "", nil
				e.lookahead, e.obvaHyps = true, nil
				pr.buildEdge(e)
				tries--
				rebuilt = true
				continue
			}
			if pair.Debug && model != nil {
				ev := ir.NewEvaluator(b, model)
				for _, f := range append(append([]ir.Term(nil), e.condFacts...), e.facts...) {
					if v, err := ev.Eval(f); err == nil && !v.Bool() {
						fmt.Fprintf(os.Stderr, "eqc: n%d→n%d: false in the model: %s\n", e.From, e.To, b.Short(f))
					}
				}
			}
			if tries == maxRefutations || ctx.Err() != nil || !pr.refutes(e, model) {
				return false
			}
			if pair.Debug {
				fmt.Fprintf(os.Stderr, "eqc: n%d→n%d rebuilt with a counterexample to a guessed disjointness\n", e.From, e.To)
			}
			out.Obligations, out.Reason, out.Model = out.Obligations[:done], "", nil
			out.Counterexamples++
			e.counterexamples = append(e.counterexamples, model)
			pr.buildEdge(e)
			rebuilt = true
		}
	}
	for _, e := range pr.Edges {
		fromMem, newEdge = pr.Nodes[e.From].mem, e.Infeasible
		q, rebuilt, proposed := pr.settlePins(ctx, s, pre, e)
		out.SMTQueries += q
		done := len(out.Obligations)
		var cancel context.CancelFunc
		if rebuilt {
			qctx, cancel = context.WithTimeout(ctx, pinnedBudget(ctx))
		}
		// Pins from the invariants alone (invpins.go) replace terms by
		// terms equal wherever the from-node's invariants hold, which
		// Houdini's proof that the edge keeps the to-node's invariants
		// assumed: only the runs' proposals, which rest on the path
		// condition too, make the edge one to check again.
		ok := obligations(e, proposed)
		if cancel != nil {
			cancel()
			qctx = ctx
		}
		if ok {
			continue
		}
		if !rebuilt || ctx.Err() != nil {
			return out
		}
		// The pins left something the edge's obligations needed (an
		// address over a variable no pin covers, whose canonical form
		// came from the node's states), or made a query harder (a memory
		// query the solver had solved over the loop's own addresses): the
		// edge as it was built.
		out.Obligations, out.Reason, out.Model = out.Obligations[:done], "", nil
		e.pins = nil
		pr.buildEdge(e)
		if !obligations(e, true) {
			return out
		}
	}
	out.Verdict, out.Reason = pair.Equivalent, ""
	return out
}

// pinnedEdgeBudget bounds the time a pinned edge's obligations may take
// before the edge is checked as first built instead, at least.
const pinnedEdgeBudget = 60 * time.Second

// pinnedBudget is the pinned edge's budget: half the time left to the
// check, but never below pinnedEdgeBudget. A fixed minute was too tight:
// gcc's flip_words pins its exit edge and needs 40–55 s there, while the
// edge as first built needs over four minutes, so a slow run fell back
// and timed out.
func pinnedBudget(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(pinnedEdgeBudget, time.Until(d)/2)
	}
	return pinnedEdgeBudget
}

// slotsApart names the obligation that the stack slots and the addresses
// the edge computes do not overlap.
const slotsApart = "stack slots and computed addresses do not overlap"

// edgeObligations checks the obligations of edge e given the nodes'
// Invariants (with inductive or rebuilt, also that e preserves its
// to-node's invariants); false at the first that fails, which check has
// recorded.
func (pr *Product) edgeObligations(e *PEdge, rebuilt, inductive bool, pre ir.Term, ck checker) bool {
	b := pr.p.B
	check := ck.check
	sg, dg := pr.p.Src.TFG, pr.p.Dst.TFG
	from := pr.Nodes[e.From]
	// The raw hypotheses prove the path conditions' facts; where those
	// hold the rewritten ones (e.hyps) say the same, and every later
	// query, smaller for it, assumes them.
	inv := b.And(append(append([]ir.Term(nil), from.Invariants...), e.obvaHyps...)...)
	where := fmt.Sprintf("n%d→dst %#x", e.From, dg.Nodes[e.DstTo].PC)
	if len(e.except) > 0 {
		where += " outside its via sets"
	}
	if !e.Infeasible {
		where = fmt.Sprintf("n%d→n%d (dst %#x, src %#x×%d)", e.From, e.To, dg.Nodes[e.DstTo].PC, sg.Nodes[e.Spec.To].PC, e.Spec.Arrivals)
	}
	// The facts behind the rewritten path conditions hold where the
	// target takes its path (condD0, as the path set gives it); those
	// behind the rest where both sides take theirs. Every later
	// obligation assumes condD, and those about the posts condS too,
	// which the first facts make the path sets' own conditions.
	if pair.Debug {
		for _, f := range e.condFacts {
			fmt.Fprintf(os.Stderr, "eqc: %s condfact %s\n", where, pr.p.B.Short(f))
		}
		for _, f := range e.obvaHyps {
			fmt.Fprintf(os.Stderr, "eqc: %s rawhyp %s\n", where, pr.p.B.Short(f))
		}
	}
	rawInv := inv
	condFactsHold := func() bool {
		return len(e.condFacts) == 0 || check(where+": addresses in the path conditions do not overlap", rawInv, e.condD0, b.Not(b.And(e.condFacts...)))
	}
	// The pins are among those facts, so the remaining obligations,
	// about states that take the edge, may read the invariants with
	// the pinned variables replaced like the edge's terms.
	inv = pr.pinned(e, b.And(append(append([]ir.Term(nil), from.Invariants...), e.hyps...)...))
	if e.Infeasible {
		if !condFactsHold() {
			return false
		}
		// Outside the paths of the step's via sets, when it is split.
		outside := []ir.Term{inv, e.condD}
		for _, sib := range e.except {
			outside = append(outside, b.Not(sib.condD0))
		}
		return check(where+": "+TargetEdgeImpossible, outside...)
	}
	pr.liveFacts(e)
	if pair.Debug {
		for _, f := range e.facts {
			fmt.Fprintf(os.Stderr, "eqc: %s fact %s\n", where, pr.p.B.Short(f))
		}
		for _, f := range e.hyps {
			fmt.Fprintf(os.Stderr, "eqc: %s obva %s\n", where, pr.p.B.Short(f))
		}
	}
	// The second group first: it assumes the first, so a model of its
	// failure is a state where the first holds, and it is where the
	// splitter's wrong guesses show (refute.go). The first group's query
	// is the costlier one of a loop with pointer parameters (its facts
	// are each frame slot against each pass's accesses, from the
	// hypotheses), and an edge rebuilt for each wrong guess paid it each
	// time: gcc-12's saxpy, 13–18 s a round on its exit edge.
	if len(e.facts) > 0 && !check(where+": "+slotsApart, append([]ir.Term{inv, e.condD, e.condS}, append(e.condFacts, b.Not(b.And(e.facts...)))...)...) {
		return false
	}
	if !condFactsHold() {
		return false
	}
	if to := pr.Nodes[e.To]; (inductive || rebuilt) && len(to.Invariants) > 0 {
		post := pr.post(e)(b.And(to.Invariants...))
		if !check(where+": invariants of the target node are inductive", append(append(pr.edgePre(e, pre)[1:], inv), b.Not(post))...) {
			return false
		}
	}
	if !check(where+": source takes the paired paths", inv, e.condD, b.Not(e.condS)) {
		return false
	}
	if !check(where+": same faults", inv, e.condD, e.condS, b.Xor(e.faultD, e.faultS)) {
		return false
	}
	live := []ir.Term{inv, e.condD, e.condS, b.Not(e.faultD)}
	to := pr.Nodes[e.To]
	if pair.IsEnd(dg, to.Key.Dst) {
		if dg.Nodes[to.Key.Dst].Kind == ir.NodeHalt {
			// Without a fault (live), both runs end in a call that does
			// not return (x86/noreturn.go), observable like any call
			// through the memory it leaves.
			return check(where+": memory at a call that does not return", append(live, pr.memoryDiffers(e.postS[x86.StateMem], e.postD[x86.StateMem])...)...)
		}
		return pr.exitObligations(e, live, ck)
	}
	var defs []ir.Term
	for _, c := range to.comps {
		if !c.fresh {
			defs = append(defs, b.Eq(pr.postValue(e, c), c.term))
		}
	}
	if len(defs) > 0 && !check(where+": definitions at the target node", append(live, b.Not(b.And(defs...)))...) {
		return false
	}
	// Memory form: the post-memories agree outside the node's slots.
	// Stores that write only slot bytes cannot matter there
	// (slotstores.go).
	a := b.Var("obligation.addr", ir.BVSort(64))
	outside := []ir.Term{}
	var slots []pair.Slot
	for side := 0; side < 2; side++ {
		for _, sl := range to.slots[side] {
			outside = append(outside, pr.outsideSlot(a, sl))
			slots = append(slots, sl)
		}
	}
	memo, bytes := map[ir.Term]ir.Term{}, map[ir.Term]ir.Term{}
	ms := pair.ByteAt(b, pr.simp, pr.withoutSlotStores(e.postS[x86.StateMem], slots, memo), a, bytes)
	md := pair.ByteAt(b, pr.simp, pr.withoutSlotStores(e.postD[x86.StateMem], slots, memo), a, bytes)
	return check(where+": memories agree outside the stack slots", append(append(live, outside...), b.Not(b.Eq(ms, md)))...)
}

// exitObligations checks the observables at the return along e.
func (pr *Product) exitObligations(e *PEdge, live []ir.Term, ck checker) bool {
	obs := e.exitObs
	if obs == nil {
		obs = pr.p.Observables(e.postS, e.postD)
	}
	for _, o := range obs {
		if !ck.equal(pr.p.B, "exit: "+o.Name, live, o.Src, o.Dst) {
			return false
		}
	}
	return ck.check("exit: memory outside the stack", append(live, pr.memoryDiffers(e.postS[x86.StateMem], e.postD[x86.StateMem])...)...)
}
