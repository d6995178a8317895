package align

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"eqc/ir"
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

// Co-execution bounds: the first run goes far (often to the end, which is
// what pins the exit's correlation and the loop bounds); the others only
// add variety for learning.
const (
	longRunSteps  = 150000
	shortRunSteps = 4000
	coRuns        = 8
	maxAlignments = 4
	maxSamples    = 400 // aligned states learned from per node
)

// debug, set by EQC_DEBUG in the environment, prints the product programs
// tried and their candidates on stderr.
var debug = os.Getenv("EQC_DEBUG") != ""

func init() {
	if debug {
		prove.Trace = func(what string, from, to, n int, st prove.Status, d time.Duration) {
			fmt.Fprintf(os.Stderr, "eqc: %s n%d→n%d, %d candidates: %v in %v\n", what, from, to, n, st, d)
		}
	}
}

// CheckLoops runs the loop engine p.Engine asks for on p; auto ("" too)
// races the two (race.go).
func CheckLoops(ctx context.Context, p *Pair, s prove.Solver) *Outcome {
	if p.Engine == EngineAuto || p.Engine == "" {
		return p.raceLoops(ctx, s)
	}
	return p.checkLoopsOn(ctx, s, nil)
}

// checkLoopsOn runs one engine, p.Engine (static or data), on the
// co-executions runs, made here when nil (racing engines share them).
func (p *Pair) checkLoopsOn(ctx context.Context, s prove.Solver, runs []*coRun) *Outcome {
	out := &Outcome{Verdict: Unknown}
	if reason := p.loopGate(); reason != "" {
		out.Reason = reason
		return out
	}
	pre, assumptions := p.loopPrecondition()
	out.Assumptions = assumptions
	r := s.Check(ctx, prove.Query{B: p.B, Assertions: []ir.Term{pre}})
	out.SMTQueries++
	if r.Status != prove.Sat {
		out.Reason = "inconsistent-assumptions: the precondition is not satisfiable (" + r.Status.String() + " " + r.Reason + ")"
		return out
	}
	t0 := time.Now()
	if runs == nil {
		runs = p.coExecuteAll(ctx)
	}
	if runs == nil {
		out.Reason = "timeout"
		return out
	}
	var firstFail, noAlignment string
	engine := p.Engine
	var aligns []alignment
	var reason string
	switch engine {
	case EngineStatic:
		aligns = p.correlate(runs, maxAlignments)
		reason = "no-correlation: no alignment of the co-executions fits"
	case EngineData:
		test := p.testCoRuns(ctx)
		if test == nil {
			out.Reason = "timeout"
			return out
		}
		var ds dataSearch
		aligns, ds = p.dataAlignments(ctx, runs, test, maxAlignments)
		out.PredicatesTried += ds.tried
		reason = ds.reason
		if debug {
			fmt.Fprintf(os.Stderr, "eqc: alignment predicates: %d assignments tried, %d alignments: %q %s\n", ds.tried, len(aligns), ds.chosen, ds.reason)
		}
	}
	if debug {
		fmt.Fprintf(os.Stderr, "eqc: %s engine after co-execution %v: %d alignments\n", engine, time.Since(t0), len(aligns))
		for k, cr := range runs {
			fmt.Fprintf(os.Stderr, "eqc:   run %d: src %s; dst %s\n", k, cr.src.describe(p.Src.TFG), cr.dst.describe(p.Dst.TFG))
		}
	}
	if len(aligns) == 0 && noAlignment == "" {
		noAlignment = reason
	}
	for _, a := range aligns {
		if !p.claim(specsKey(a.specs)) {
			continue // tried already, or being tried by the racing engine
		}
		out.CorrelationsTried++
		pr, reason := p.buildProduct(a, runs, true)
		if pr == nil && debug {
			fmt.Fprintf(os.Stderr, "eqc: alignment %v: no product: %s\n", a.specs, reason)
		}
		if pr == nil {
			if firstFail == "" {
				firstFail = reason
				out.productFailed = true
			}
			continue
		}
		t0 := time.Now()
		o := pr.prove(ctx, s, pre)
		if debug {
			fmt.Fprintf(os.Stderr, "eqc: alignment %v: %s (%d queries, %v)\n%s", a.specs, o.Reason, o.SMTQueries, time.Since(t0), pr)
			for _, n := range pr.Nodes {
				fmt.Fprintf(os.Stderr, "  n%d: %d candidates\n", n.ID, len(n.Candidates))
				for _, c := range n.Candidates {
					fmt.Fprintf(os.Stderr, "    cand %s\n", c.Desc)
				}
			}
		}
		out.SMTQueries += o.SMTQueries
		if o.Verdict == Equivalent {
			o.SMTQueries = out.SMTQueries
			o.Assumptions = assumptions
			o.Proof = pr.proofFile(assumptions, o.Obligations)
			o.Engine, o.PredicatesTried, o.CorrelationsTried = engine, out.PredicatesTried, out.CorrelationsTried
			return o
		}
		if firstFail == "" {
			firstFail = o.Reason
			out.productFailed = true
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

// The loop engines, by name (the CLI's --engine).
const (
	EngineStatic = "static"
	EngineData   = "data"
	EngineAuto   = "auto"
)

// testCoRuns are the co-executions the data-driven engine tests its
// alignments on and learns nothing from (nil when ctx ends first).
func (p *Pair) testCoRuns(ctx context.Context) []*coRun {
	runs := make([]*coRun, testRuns)
	for k := range runs {
		runs[k] = p.coExecute(coRuns+k, shortRunSteps)
		if ctx.Err() != nil {
			return nil
		}
	}
	return runs
}

// loopPrecondition is the precondition with the UB assumptions the loop
// engine may use listed too.
func (p *Pair) loopPrecondition() (ir.Term, []string) {
	pre, assumptions := p.precondition()
	if p.OBVA && p.takesPointer() {
		assumptions = append(assumptions, obvaAssumption)
	}
	return pre, assumptions
}

// loopGate says why the loop engine cannot take p ("" when it can): an
// instruction the lifter does not support, a call, read-only data the two
// files may define differently. Every obligation assumes none of these, so
// the proof checker asks again.
func (p *Pair) loopGate() string {
	for _, side := range []Side{p.Src, p.Dst} {
		if len(side.TFG.Unsupported) > 0 {
			return "unsupported:" + side.TFG.Unsupported[0]
		}
		for _, e := range side.TFG.Edges {
			if len(e.Calls) > 0 {
				return "unsupported:calls (" + e.Calls[0].Callee + ")"
			}
		}
	}
	return p.readOnlyDataDiffers()
}

// coExecuteAll runs the co-executions the loop engine learns from; nil
// when ctx ends first. They are deterministic (seeded), which is what lets
// the proof checker rebuild the same product from a recorded alignment.
func (p *Pair) coExecuteAll(ctx context.Context) []*coRun {
	runs := make([]*coRun, coRuns)
	for k := range runs {
		steps := shortRunSteps
		if k == 0 {
			steps = longRunSteps
		}
		runs[k] = p.coExecute(k, steps)
		if ctx.Err() != nil {
			return nil
		}
	}
	return runs
}

// buildProduct builds the product program of alignment a: its nodes (with
// definitions, slots and, when learn is set, learned candidates) and edges
// (with path sets). The proof checker builds without learning: it takes
// the invariants from the proof.
func (p *Pair) buildProduct(a alignment, runs []*coRun, learn bool) (*Product, string) {
	pr := &Product{p: p, index: map[nodeKey]int{}, simp: p.Src.TFG.Simplifier, rsp0: p.srcVar(x86.StateGPR0 + x86.RSP)}
	pr.live = [2]map[ir.NodeID]map[int]bool{liveAt(p.Src.TFG, p.exitLive()), liveAt(p.Dst.TFG, p.exitLive())}
	var srcRuns, dstRuns []*run
	for _, cr := range runs {
		srcRuns = append(srcRuns, cr.src)
		dstRuns = append(dstRuns, cr.dst)
	}
	slots := [2][]slot{slotsOf(srcRuns), slotsOf(dstRuns)}
	// Samples per product node, thinned per run so that each run's first
	// and last states stay (loop bounds come from the extremes).
	// The states that go on along each target edge are kept apart too:
	// the guesses of which addresses are apart on an edge are made on them
	// (an exit edge's last vector store meets the scalar tail's loads only
	// in the last state, which thinning the node's states would drop).
	samples := map[nodeKey][]sample{}
	pr.edgeSamples = map[edgeKey][]sample{}
	for k, pairs := range a.pairs {
		cr := runs[k]
		per := map[nodeKey][]sample{}
		perEdge := map[edgeKey][]sample{}
		for i, vp := range pairs {
			sm := sample{cr: cr, s: cr.src.visits[vp.s].state, d: cr.dst.visits[vp.d].state}
			per[vp.node] = append(per[vp.node], sm)
			if i+1 < len(pairs) {
				ek := edgeKey{from: vp.node, dstTo: pairs[i+1].node.dst}
				perEdge[ek] = append(perEdge[ek], sm)
			}
		}
		for key, sm := range per {
			samples[key] = append(samples[key], thin(sm, maxSamples/len(runs))...)
		}
		for ek, sm := range perEdge {
			pr.edgeSamples[ek] = append(pr.edgeSamples[ek], thin(sm, max(2, maxCanonSamples/len(runs)))...)
		}
	}
	entry := pr.newEntryNode()
	entry.samples = samples[entry.Key]
	// Nodes in a deterministic order: by anchor addresses.
	var keys []nodeKey
	for key := range samples {
		if key != entry.Key {
			keys = append(keys, key)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].dst != keys[j].dst {
			return keys[i].dst < keys[j].dst
		}
		return keys[i].src < keys[j].src
	})
	for _, key := range keys {
		sm := samples[key]
		var n *PNode
		if isEnd(p.Dst.TFG, key.dst) {
			n = &PNode{ID: len(pr.Nodes), Key: key, mem: ir.NoTerm}
			pr.add(n)
			continue
		}
		n = pr.newNode(key, sm, slots)
		if !learn {
			continue
		}
		if err := pr.learnCandidates(n, sm); err != nil {
			return nil, "learn: " + err.Error()
		}
	}
	// Edges: every target edge between anchors out of every node.
	dg := p.Dst.TFG
	da := anchorSet(dg)
	for _, n := range pr.Nodes {
		if isEnd(dg, n.Key.dst) {
			continue
		}
		for _, to := range dstSuccessors(dg, n.Key.dst, da) {
			keys := []edgeKey{{from: n.Key, dstTo: to}}
			spec, ok := a.specs[keys[0]]
			if !ok {
				if keys = viaKeys(a.specs, n.Key, to); len(keys) > 0 {
					// The step is split by via sets, which must leave no
					// path of it out.
					var vias []map[int]bool
					for _, k := range keys {
						vias = append(vias, viaIDs(k.via))
					}
					if !viaCovers(dg, n.Key.dst, to, da, vias) {
						// The paths outside them must be impossible.
						keys = append(keys, edgeKey{from: n.Key, dstTo: to, via: restVia})
					}
				} else {
					keys = []edgeKey{{from: n.Key, dstTo: to}}
					spec, ok = structuralSpec(pr, a, n, to)
				}
			}
			var split []*PEdge
			for _, ek := range keys {
				e := &PEdge{From: n.ID, DstTo: to, Via: ek.via}
				switch ek.via {
				case "":
				case restVia:
					e.Via, e.except, ok = "", split, false
				default:
					spec, ok = a.specs[ek], true
					split = append(split, e)
				}
				if ok {
					toKey := nodeKey{spec.to, to}
					id, have := pr.index[toKey]
					if !have {
						if !isEnd(dg, to) {
							return nil, fmt.Sprintf("no-correlation: product node (%#x, %#x) has no observed states", p.Src.TFG.Nodes[spec.to].PC, dg.Nodes[to].PC)
						}
						end := &PNode{ID: len(pr.Nodes), Key: toKey, mem: ir.NoTerm}
						pr.add(end)
						id = end.ID
					}
					e.To, e.Spec = id, spec
				} else {
					e.Infeasible = true
				}
				pr.pathSets(e)
				if e.dst == nil {
					// A via set (from a proof file) no path takes only.
					return nil, fmt.Sprintf("no-correlation: no path of the target's step from %#x to %#x takes only the edges %s", dg.Nodes[n.Key.dst].PC, dg.Nodes[to].PC, e.Via)
				}
				pr.Edges = append(pr.Edges, e)
			}
		}
	}
	if reason := pr.staysAcyclic(); reason != "" {
		return nil, reason
	}
	if p.OBVA && p.takesPointer() {
		pr.taint = pr.computeFrameTaint()
	}
	for _, e := range pr.Edges {
		pr.buildEdge(e)
	}
	return pr, ""
}

// staysAcyclic says why pr has a cycle of edges on which the source stays
// ("" when it has none). Around such a cycle the target could run
// forever while the source stands still, and a source that then ends
// would not be matched: the obligations on edges say nothing about that
// (PLDI'19 §3.1, obligation 3). The target moves on every edge, so
// cycles where it stays cannot arise.
func (pr *Product) staysAcyclic() string {
	succ := map[int][]int{}
	for _, e := range pr.Edges {
		if !e.Infeasible && e.Spec.stays() {
			succ[e.From] = append(succ[e.From], e.To)
		}
	}
	const (
		unseen = iota
		open
		done
	)
	state := map[int]int{}
	var visit func(n int) bool
	visit = func(n int) bool {
		state[n] = open
		for _, m := range succ[n] {
			if state[m] == open || state[m] == unseen && !visit(m) {
				return false
			}
		}
		state[n] = done
		return true
	}
	for _, nd := range pr.Nodes {
		if n := nd.ID; state[n] == unseen && !visit(n) {
			return fmt.Sprintf("no-correlation: a cycle through n%d on which the source stays while the target moves", n)
		}
	}
	return ""
}

// structuralSpec pairs a target edge the runs never took with a source
// path set by the shape of the product: an edge to the exit goes with the
// source's way to its exit, passing its loops as often as the node's other
// edges do.
func structuralSpec(pr *Product, a alignment, n *PNode, to ir.NodeID) (srcSpec, bool) {
	sg, dg := pr.p.Src.TFG, pr.p.Dst.TFG
	if dg.Nodes[to].Kind != ir.NodeExit || sg.Exit == ir.NoNode {
		return srcSpec{}, false
	}
	mu := 1
	for k, sp := range a.specs {
		if k.from == n.Key {
			mu = max(mu, sp.mu)
		}
	}
	return srcSpec{to: sg.Exit, arrivals: 1, mu: mu}, true
}

func isEnd(g *ir.TFG, v ir.NodeID) bool {
	k := g.Nodes[v].Kind
	return k == ir.NodeExit || k == ir.NodeHalt
}

// dstSuccessors lists the anchors some path from anchor v reaches without
// passing another anchor.
func dstSuccessors(g *ir.TFG, v ir.NodeID, anchors map[ir.NodeID]bool) []ir.NodeID {
	var out []ir.NodeID
	for w := range anchors {
		if g.PathSet(v, w, ir.PathOptions{Mu: 1, Through: func(u ir.NodeID) bool { return !anchors[u] }}) != nil {
			out = append(out, w)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// viaKeys are the keys of specs that split the target's step from from to
// dstTo by via sets, in via order.
func viaKeys(specs map[edgeKey]srcSpec, from nodeKey, dstTo ir.NodeID) []edgeKey {
	var out []edgeKey
	for k := range specs {
		if k.from == from && k.dstTo == dstTo && k.via != "" {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].via < out[j].via })
	return out
}

// restVia, in buildProduct's list of a split step's keys, stands for the
// step's paths outside its via sets: an infeasible edge.
const restVia = "rest"

// maxViaSets bounds the via sets of one target step (a bit each below).
const maxViaSets = 64

// viaCovers reports whether every path of g from anchor v to anchor w
// (through no other anchor) takes only the edges of one of the via sets,
// so that the product edges of the sets, between them, pair every path
// of the step. A depth-first search carries the sets that hold the path
// so far; (node, sets) pairs are searched once.
func viaCovers(g *ir.TFG, v, w ir.NodeID, anchors map[ir.NodeID]bool, vias []map[int]bool) bool {
	if len(vias) > maxViaSets {
		return false
	}
	type state struct {
		n    ir.NodeID
		sets uint64
	}
	seen := map[state]bool{}
	var covered func(n ir.NodeID, sets uint64) bool
	covered = func(n ir.NodeID, sets uint64) bool {
		if seen[state{n, sets}] {
			return true // searched, or on the current path (no path cycles between anchors)
		}
		seen[state{n, sets}] = true
		for _, e := range g.Out(n) {
			next := uint64(0)
			for i, via := range vias {
				if sets&(1<<i) != 0 && via[e.ID] {
					next |= 1 << i
				}
			}
			switch {
			case e.To == w:
				if next == 0 {
					return false
				}
			case anchors[e.To]:
			case !covered(e.To, next):
				return false
			}
		}
		return true
	}
	return covered(v, 1<<len(vias)-1)
}

// thin keeps at most n samples, evenly spread (the first and last kept:
// loop bounds come from the extremes).
func thin(s []sample, n int) []sample {
	if len(s) <= n {
		return s
	}
	out := make([]sample, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, s[i*(len(s)-1)/(n-1)])
	}
	return out
}

// prove runs Houdini over the product's candidates and discharges every
// obligation. Houdini has made the invariants inductive already, so the
// discharge does not ask that again (the proof checker does).
func (pr *Product) prove(ctx context.Context, s prove.Solver, pre ir.Term) *Outcome {
	queries, unknown := pr.houdini(ctx, s, pre)
	cands, invs := 0, 0
	for _, n := range pr.Nodes {
		cands += len(n.Candidates)
		invs += len(n.Invariants)
	}
	if unknown != "" {
		return &Outcome{Verdict: Unknown, Reason: "invariants: " + unknown, SMTQueries: queries, ProductNodes: len(pr.Nodes), ProductEdges: len(pr.Edges), Candidates: cands}
	}
	out := pr.discharge(ctx, s, pre, false)
	out.SMTQueries += queries
	out.Candidates, out.Invariants = cands, invs
	return out
}

// houdini keeps the largest inductive subset of every node's candidates
// as its Invariants. It returns the queries it made and, when the fixpoint
// could not be reached, why.
func (pr *Product) houdini(ctx context.Context, s prove.Solver, pre ir.Term) (int, string) {
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
	h := prove.Houdini(ctx, s, pr.p.B, cands, hedges)
	if h.Unknown != "" {
		return h.Queries, h.Unknown
	}
	for _, n := range pr.Nodes {
		n.Invariants = h.Invariants(cands, n.ID)
	}
	return h.Queries, ""
}

// edgePre are the assumptions of paired edge e besides its from-node's
// invariants: the precondition, both sides take their paths, the target
// does not fault.
func (pr *Product) edgePre(e *PEdge, pre ir.Term) []ir.Term {
	b := pr.p.B
	return append([]ir.Term{pre, e.condD, b.Not(e.faultD), e.condS}, e.obvaHyps...)
}

// post maps a term over e's to-node variables to what it says after e,
// over the from-node's state.
func (pr *Product) post(e *PEdge) func(ir.Term) ir.Term {
	sub := pr.postSubst(e)
	simp := pr.simp
	return func(t ir.Term) ir.Term { return simp.Simplify(sub.Apply(t)) }
}

// discharge checks every obligation of the product given the nodes'
// Invariants. With inductive set it also proves the invariants: those of
// the entry node follow from the precondition, and along every paired edge
// the from-node's invariants imply the to-node's after the edge.
func (pr *Product) discharge(ctx context.Context, s prove.Solver, pre ir.Term, inductive bool) *Outcome {
	b := pr.p.B
	out := &Outcome{Verdict: Unknown, ProductNodes: len(pr.Nodes), ProductEdges: len(pr.Edges)}
	qctx := ctx // the queries' context: shorter while a pinned edge is tried
	check := func(name string, assertions ...ir.Term) bool {
		t0 := time.Now()
		r := s.Check(qctx, prove.Query{B: b, Assertions: append([]ir.Term{pre}, assertions...)})
		out.SMTQueries++
		if debug {
			fmt.Fprintf(os.Stderr, "eqc: %s: %v in %v\n", name, r.Status, time.Since(t0))
		}
		if prove.DumpQuery != nil {
			prove.DumpQuery(fmt.Sprintf("q%d", out.SMTQueries), prove.Query{B: b, Assertions: append([]ir.Term{pre}, assertions...)})
		}
		out.Obligations = append(out.Obligations, Obligation{Name: name, Status: r.Status, Reason: r.Reason})
		switch r.Status {
		case prove.Unsat:
			return true
		case prove.Sat:
			out.Reason = "invariants-too-weak: " + name
		default:
			out.Reason = "solver-unknown: " + name + ": " + r.Reason
			if ctx.Err() != nil {
				out.Reason = "timeout"
			}
		}
		return false
	}
	if entry := pr.Nodes[0]; inductive && len(entry.Invariants) > 0 {
		if !check("n0: invariants hold at the entry", b.Not(b.And(entry.Invariants...))) {
			return out
		}
	}
	for _, e := range pr.Edges {
		q, rebuilt := pr.settlePins(ctx, s, pre, e)
		out.SMTQueries += q
		done := len(out.Obligations)
		var cancel context.CancelFunc
		if rebuilt {
			qctx, cancel = context.WithTimeout(ctx, pinnedBudget(ctx))
		}
		ok := pr.edgeObligations(e, rebuilt, inductive, pre, check)
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
		out.Obligations, out.Reason = out.Obligations[:done], ""
		e.pins = nil
		pr.buildEdge(e)
		if !pr.edgeObligations(e, true, inductive, pre, check) {
			return out
		}
	}
	out.Verdict, out.Reason = Equivalent, ""
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

// edgeObligations checks the obligations of edge e given the nodes'
// Invariants (with inductive or rebuilt, also that e preserves its
// to-node's invariants); false at the first that fails, which check has
// recorded.
func (pr *Product) edgeObligations(e *PEdge, rebuilt, inductive bool, pre ir.Term, check func(string, ...ir.Term) bool) bool {
	b := pr.p.B
	sg, dg := pr.p.Src.TFG, pr.p.Dst.TFG
	from := pr.Nodes[e.From]
	inv := b.And(append(append([]ir.Term(nil), from.Invariants...), e.obvaHyps...)...)
	where := fmt.Sprintf("n%d→dst %#x", e.From, dg.Nodes[e.DstTo].PC)
	if len(e.except) > 0 {
		where += " outside its via sets"
	}
	if !e.Infeasible {
		where = fmt.Sprintf("n%d→n%d (dst %#x, src %#x×%d)", e.From, e.To, dg.Nodes[e.DstTo].PC, sg.Nodes[e.Spec.to].PC, e.Spec.arrivals)
	}
	// The facts behind the rewritten path conditions hold where the
	// target takes its path (condD0, as the path set gives it); those
	// behind the rest where both sides take theirs. Every later
	// obligation assumes condD, and those about the posts condS too,
	// which the first facts make the path sets' own conditions.
	if len(e.condFacts) > 0 && !check(where+": addresses in the path conditions do not overlap", inv, e.condD0, b.Not(b.And(e.condFacts...))) {
		return false
	}
	// The pins are among those facts, so the remaining obligations,
	// about states that take the edge, may read the invariants with
	// the pinned variables replaced like the edge's terms.
	inv = pr.pinned(e, inv)
	if e.Infeasible {
		// Outside the paths of the step's via sets, when it is split.
		outside := []ir.Term{inv, e.condD}
		for _, sib := range e.except {
			outside = append(outside, b.Not(sib.condD0))
		}
		return check(where+": target edge impossible", outside...)
	}
	if debug {
		for _, f := range e.facts {
			fmt.Fprintf(os.Stderr, "eqc: %s fact %s\n", where, pr.p.B.Short(f))
		}
		for _, f := range e.obvaHyps {
			fmt.Fprintf(os.Stderr, "eqc: %s obva %s\n", where, pr.p.B.Short(f))
		}
	}
	if len(e.facts) > 0 && !check(where+": stack slots and computed addresses do not overlap", append([]ir.Term{inv, e.condD, e.condS}, append(e.condFacts, b.Not(b.And(e.facts...)))...)...) {
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
	if isEnd(dg, to.Key.dst) {
		if dg.Nodes[to.Key.dst].Kind == ir.NodeHalt {
			return true // both end abnormally
		}
		return pr.exitObligations(e, live, check)
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
	a := b.Var("obligation.addr", ir.BVSort(64))
	outside := []ir.Term{}
	for side := 0; side < 2; side++ {
		for _, sl := range to.slots[side] {
			lo := pr.slotAddr(sl)
			outside = append(outside, b.Not(b.And(b.Ule(lo, a), b.Ult(a, pr.simp.Simplify(b.Add(lo, b.Const(64, uint64(sl.size))))))))
		}
	}
	ms := pr.simp.Simplify(b.Select(e.postS[x86.StateMem], a, 1))
	md := pr.simp.Simplify(b.Select(e.postD[x86.StateMem], a, 1))
	return check(where+": memories agree outside the stack slots", append(append(live, outside...), b.Not(b.Eq(ms, md)))...)
}

// exitObligations checks the observables at the return along e.
func (pr *Product) exitObligations(e *PEdge, live []ir.Term, check func(string, ...ir.Term) bool) bool {
	b := pr.p.B
	obs := e.exitObs
	if obs == nil {
		obs = pr.p.observables(e.postS, e.postD)
	}
	for _, o := range obs {
		if !check("exit: "+o.name, append(live, b.Not(b.Eq(o.src, o.dst)))...) {
			return false
		}
	}
	return check("exit: memory outside the stack", append(live, pr.p.memoryDiffersOutsideStack(e.postS[x86.StateMem], e.postD[x86.StateMem], pr.simp)...)...)
}
