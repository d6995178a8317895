package align

import (
	"fmt"
	"sort"

	"eqc/ir"
	"eqc/prove"
)

// Recording proofs: when an engine proves a pair equivalent it describes
// what the proof rests on as a prove.ProofFile — the product graph with
// each node's definitions and invariants, the assumptions, the obligations
// it discharged — and Check names the binaries by content. The proof
// checker (verify.go) rebuilds the same description from the binaries and
// compares it with the recorded one, so the two must come from the same
// code: graph below.

// anchorOf names node v of g in a proof file.
func anchorOf(g *ir.TFG, v ir.NodeID) prove.Anchor {
	if v == ir.NoNode {
		return prove.Anchor{Kind: "none"}
	}
	n := g.Nodes[v]
	return prove.Anchor{PC: prove.Addr(n.PC), Kind: n.Kind.String()}
}

// graph describes the product: nodes with their definitions and (when
// withInvariants) invariants, edges with their path sets.
func (pr *Product) graph(withInvariants bool) prove.Graph {
	sg, dg := pr.p.Src.TFG, pr.p.Dst.TFG
	b := pr.p.B
	var gr prove.Graph
	for _, n := range pr.Nodes {
		pn := prove.ProofNode{ID: n.ID, Src: anchorOf(sg, n.Key.src), Dst: anchorOf(dg, n.Key.dst), Defined: pr.definitions(n)}
		if withInvariants {
			for _, inv := range n.Invariants {
				pn.Invariants = append(pn.Invariants, ir.TermString(b, inv))
			}
		}
		gr.Nodes = append(gr.Nodes, pn)
	}
	for _, e := range pr.Edges {
		pe := prove.ProofEdge{From: e.From, DstTo: anchorOf(dg, e.DstTo)}
		for id := range viaIDs(e.Via) {
			de := dg.Edges[id]
			pe.DstVia = append(pe.DstVia, prove.ViaEdge{ID: id, From: prove.Addr(dg.Nodes[de.From].PC), To: prove.Addr(dg.Nodes[de.To].PC)})
		}
		sort.Slice(pe.DstVia, func(i, j int) bool { return pe.DstVia[i].ID < pe.DstVia[j].ID })
		if e.Infeasible {
			pe.Infeasible = true
		} else {
			to := e.To
			pe.To = &to
			pe.SrcPath = &prove.PathSpec{To: anchorOf(sg, e.Spec.to), Arrivals: e.Spec.arrivals, Mu: e.Spec.mu}
		}
		gr.Edges = append(gr.Edges, pe)
	}
	return gr
}

// compName is the name of comp c's variable at node n (the one it has
// when fresh, the one it would have had when defined).
func (pr *Product) compName(n *PNode, c comp) string {
	side := [2]string{"src", "dst"}[c.side]
	if c.state >= 0 {
		return fmt.Sprintf("n%d.%s.%s", n.ID, side, pr.sideTFG(c.side).State[c.state].Name)
	}
	return fmt.Sprintf("n%d.%s.%s", n.ID, side, c.slot)
}

// definitions lists node n's defined components as "name = term", sorted.
func (pr *Product) definitions(n *PNode) []string {
	var out []string
	for _, c := range n.comps {
		if !c.fresh {
			out = append(out, pr.compName(n, c)+" = "+ir.TermString(pr.p.B, c.term))
		}
	}
	sort.Strings(out)
	return out
}

// proofFile is the loop engine's proof of pr (the file references are
// Check's to fill in).
func (pr *Product) proofFile(assumptions []string, obligations []Obligation) *prove.ProofFile {
	pf := prove.NewProofFile(prove.EngineLoops)
	pf.Assumptions = assumptions
	pf.Product = pr.graph(true)
	pf.Obligations = obligationNames(obligations)
	return pf
}

// loopFreeGraph is the loop-free engine's product: the two entries and the
// two exits, joined by the one edge of both functions' whole bodies.
func (p *Pair) loopFreeGraph() prove.Graph {
	sg, dg := p.Src.TFG, p.Dst.TFG
	exit := 1
	return prove.Graph{
		Nodes: []prove.ProofNode{
			{ID: 0, Src: anchorOf(sg, sg.Entry), Dst: anchorOf(dg, dg.Entry)},
			{ID: 1, Src: anchorOf(sg, sg.Exit), Dst: anchorOf(dg, dg.Exit)},
		},
		Edges: []prove.ProofEdge{{From: 0, To: &exit, DstTo: anchorOf(dg, dg.Exit),
			SrcPath: &prove.PathSpec{To: anchorOf(sg, sg.Exit), Arrivals: 1, Mu: 0}}},
	}
}

// loopFreeProof is the loop-free engine's proof of p.
func (p *Pair) loopFreeProof(assumptions []string, obligations []Obligation) *prove.ProofFile {
	pf := prove.NewProofFile(prove.EngineLoopFree)
	pf.Assumptions = assumptions
	pf.Product = p.loopFreeGraph()
	pf.Obligations = obligationNames(obligations)
	return pf
}

func obligationNames(obs []Obligation) []string {
	out := make([]string, 0, len(obs))
	for _, o := range obs {
		out = append(out, o.Name)
	}
	return out
}

// completeProof names the binaries and context files of req in pf by path
// and SHA-256, and the UB model.
func completeProof(pf *prove.ProofFile, req Request) error {
	ref := func(path, fn string) (prove.FileRef, error) {
		h, err := prove.HashFile(path)
		return prove.FileRef{Path: path, Function: fn, SHA256: h}, err
	}
	var err error
	if pf.Source, err = ref(req.SrcPath, req.SrcFunc); err != nil {
		return err
	}
	if pf.Target, err = ref(req.DstPath, req.DstFunc); err != nil {
		return err
	}
	pf.Context = nil
	for _, c := range req.Context {
		r, err := ref(c, "")
		if err != nil {
			return err
		}
		pf.Context = append(pf.Context, r)
	}
	pf.UB = req.UB
	if pf.UB == "" {
		pf.UB = "all"
	}
	return nil
}
