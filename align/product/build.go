package product

import (
	"fmt"
	"sort"

	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/x86"
)

// maxSamples bounds the aligned states learned from per node.
const maxSamples = 400

// Build builds the product program of alignment a: its nodes (with
// definitions, slots and, when l.Candidates is set, learned candidates) and
// edges (with path sets); l.Equalities, when set, proposes pins in the
// discharge. The engines learn with both (align/product/learning); the
// proof checker learns no candidates: it takes the invariants from the
// proof.
func Build(p *pair.Pair, a pair.Alignment, runs []*pair.CoRun, l Learning) (*Product, string) {
	pr := &Product{p: p, index: map[pair.NodeKey]int{}, simp: p.Src.TFG.Simplifier, rsp0: p.SrcVar(x86.StateGPR0 + x86.RSP), learning: l, runs: runs}
	pr.live = [2]map[ir.NodeID]map[int]bool{pair.LiveAt(p.Src.TFG, p.ExitLive()), pair.LiveAt(p.Dst.TFG, p.ExitLive())}
	var srcRuns, dstRuns []*pair.Run
	for _, cr := range runs {
		srcRuns = append(srcRuns, cr.Src)
		dstRuns = append(dstRuns, cr.Dst)
	}
	slots := [2][]pair.Slot{pair.SlotsOf(srcRuns), pair.SlotsOf(dstRuns)}
	// Samples per product node, thinned per run so that each run's first
	// and last states stay (loop bounds come from the extremes).
	// The states that go on along each target edge are kept apart too:
	// the guesses of which addresses are apart on an edge are made on them
	// (an exit edge's last vector store meets the scalar tail's loads only
	// in the last state, which thinning the node's states would drop).
	samples := map[pair.NodeKey][]sample{}
	pr.edgeSamples = map[pair.EdgeKey][]sample{}
	for k, pairs := range a.Pairs {
		cr := runs[k]
		per := map[pair.NodeKey][]sample{}
		perEdge := map[pair.EdgeKey][]sample{}
		for i, vp := range pairs {
			sm := sample{cr: cr, s: cr.Src.Visits[vp.S].State, d: cr.Dst.Visits[vp.D].State}
			per[vp.Node] = append(per[vp.Node], sm)
			if i+1 < len(pairs) {
				ek := pair.EdgeKey{From: vp.Node, DstTo: pairs[i+1].Node.Dst}
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
	var keys []pair.NodeKey
	for key := range samples {
		if key != entry.Key {
			keys = append(keys, key)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Dst != keys[j].Dst {
			return keys[i].Dst < keys[j].Dst
		}
		return keys[i].Src < keys[j].Src
	})
	for _, key := range keys {
		sm := samples[key]
		var n *PNode
		if pair.IsEnd(p.Dst.TFG, key.Dst) {
			n = &PNode{ID: len(pr.Nodes), Key: key, mem: ir.NoTerm}
			pr.add(n)
			continue
		}
		n = pr.newNode(key, sm, slots)
		if l.Candidates == nil {
			continue
		}
		if err := pr.learnCandidates(n, sm); err != nil {
			return nil, "learn: " + err.Error()
		}
	}
	// Edges: every target edge between anchors out of every node.
	dg := p.Dst.TFG
	da := pair.AnchorSet(dg)
	for _, n := range pr.Nodes {
		if pair.IsEnd(dg, n.Key.Dst) {
			continue
		}
		for _, to := range pair.NextAnchors(dg, n.Key.Dst, da) {
			keys := []pair.EdgeKey{{From: n.Key, DstTo: to}}
			spec, ok := a.Specs[keys[0]]
			if !ok {
				if keys = pair.ViaKeys(a.Specs, n.Key, to); len(keys) > 0 {
					// The step is split by via sets, which must leave no
					// path of it out.
					var vias []map[int]bool
					for _, k := range keys {
						vias = append(vias, pair.ViaIDs(k.Via))
					}
					if !pair.ViaCovers(dg, n.Key.Dst, to, da, vias) {
						// The paths outside them must be impossible.
						keys = append(keys, pair.EdgeKey{From: n.Key, DstTo: to, Via: restVia})
					}
				} else {
					keys = []pair.EdgeKey{{From: n.Key, DstTo: to}}
					spec, ok = structuralSpec(pr, a, n, to)
				}
			}
			var split []*PEdge
			for _, ek := range keys {
				e := &PEdge{From: n.ID, DstTo: to, Via: ek.Via}
				switch ek.Via {
				case "":
				case restVia:
					e.Via, e.except, ok = "", split, false
				default:
					spec, ok = a.Specs[ek], true
					split = append(split, e)
				}
				if ok {
					toKey := pair.NodeKey{Src: spec.To, Dst: to}
					id, have := pr.index[toKey]
					if !have {
						if !pair.IsEnd(dg, to) {
							return nil, fmt.Sprintf("no-correlation: product node (%#x, %#x) has no observed states", p.Src.TFG.Nodes[spec.To].PC, dg.Nodes[to].PC)
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
					return nil, fmt.Sprintf("no-correlation: no path of the target's step from %#x to %#x takes only the edges %s", dg.Nodes[n.Key.Dst].PC, dg.Nodes[to].PC, e.Via)
				}
				pr.Edges = append(pr.Edges, e)
			}
		}
	}
	if reason := pr.staysAcyclic(); reason != "" {
		return nil, reason
	}
	if l.Candidates != nil {
		pr.inheritEntryGuards()
	}
	if reason := pr.findEscapes(); reason != "" {
		return nil, reason
	}
	if p.UsesOBVA() {
		pr.taint = pr.computeFrameTaint()
	}
	pr.tbsaParams = p.TBSAParams()
	pr.restrictParams = p.RestrictParams()
	if reason := pr.callFrameReason(); reason != "" {
		return nil, reason
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
		if !e.Infeasible && e.Spec.Stays() {
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
func structuralSpec(pr *Product, a pair.Alignment, n *PNode, to ir.NodeID) (pair.SrcSpec, bool) {
	sg, dg := pr.p.Src.TFG, pr.p.Dst.TFG
	if dg.Nodes[to].Kind != ir.NodeExit || sg.Exit == ir.NoNode {
		return pair.SrcSpec{}, false
	}
	mu := 1
	for k, sp := range a.Specs {
		if k.From == n.Key {
			mu = max(mu, sp.Mu)
		}
	}
	return pair.SrcSpec{To: sg.Exit, Arrivals: 1, Mu: mu}, true
}

// restVia, in Build's list of a split step's keys, stands for the
// step's paths outside its via sets: an infeasible edge.
const restVia = "rest"

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
