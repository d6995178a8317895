package product

import (
	"fmt"
	"sort"

	"eqc/align/product/pair"
	"eqc/ir/smtlib"
	"eqc/prove"
)

// Recording proofs: when an engine proves a pair equivalent it describes
// what the proof rests on as a prove.ProofFile — the product graph with
// each node's definitions and invariants, the assumptions, the obligations
// it discharged — and Check names the binaries by content. The proof
// checker (align/verify) rebuilds the same description from the binaries
// and compares it with the recorded one, so the two must come from the
// same code: Graph below (and, for the loop-free engine, pair's
// LoopFreeGraph).

// Graph describes the product: nodes with their definitions and (when
// withInvariants) invariants, edges with their path sets.
func (pr *Product) Graph(withInvariants bool) prove.Graph {
	sg, dg := pr.p.Src.TFG, pr.p.Dst.TFG
	b := pr.p.B
	var gr prove.Graph
	for _, n := range pr.Nodes {
		pn := prove.ProofNode{ID: n.ID, Src: pair.AnchorOf(sg, n.Key.Src), Dst: pair.AnchorOf(dg, n.Key.Dst), Defined: pr.definitions(n)}
		if withInvariants {
			for _, inv := range n.Invariants {
				pn.Invariants = append(pn.Invariants, smtlib.TermString(b, inv))
			}
		}
		gr.Nodes = append(gr.Nodes, pn)
	}
	for _, e := range pr.Edges {
		pe := prove.ProofEdge{From: e.From, DstTo: pair.AnchorOf(dg, e.DstTo)}
		for id := range pair.ViaIDs(e.Via) {
			de := dg.Edges[id]
			pe.DstVia = append(pe.DstVia, prove.ViaEdge{ID: id, From: prove.Addr(dg.Nodes[de.From].PC), To: prove.Addr(dg.Nodes[de.To].PC)})
		}
		sort.Slice(pe.DstVia, func(i, j int) bool { return pe.DstVia[i].ID < pe.DstVia[j].ID })
		if e.Infeasible {
			pe.Infeasible = true
		} else {
			to := e.To
			pe.To = &to
			pe.SrcPath = &prove.PathSpec{To: pair.AnchorOf(sg, e.Spec.To), Arrivals: e.Spec.Arrivals, Mu: e.Spec.Mu}
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
			out = append(out, pr.compName(n, c)+" = "+smtlib.TermString(pr.p.B, c.term))
		}
	}
	sort.Strings(out)
	return out
}

// ProofFile is the loop engine's proof of pr (the file references are
// Check's to fill in).
func (pr *Product) ProofFile(assumptions []string, obligations []pair.Obligation) *prove.ProofFile {
	pf := prove.NewProofFile(prove.EngineLoops)
	pf.Assumptions = assumptions
	pf.Product = pr.Graph(true)
	pf.Obligations = pair.ObligationNames(obligations)
	return pf
}
