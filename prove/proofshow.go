package prove

import (
	"fmt"
	"io"
	"strings"
)

// Showing a proof to a person (proofshow.go): the product graph of a
// proof file — node pairs with what they define and their invariants,
// edges with the target path and the source path set they pair, the
// assumptions every obligation used — as indented text (WriteText) or as
// a Graphviz digraph (WriteDOT: `dot -Tsvg`). Both only format the file;
// nothing is checked here (eqc proof verify does that).

// WriteText prints pf as text.
func (pf *ProofFile) WriteText(w io.Writer) error {
	var b strings.Builder
	fn := pf.Source.Function
	if pf.Target.Function != "" && pf.Target.Function != fn {
		fn += " / " + pf.Target.Function
	}
	fmt.Fprintf(&b, "proof of %s (engine %s, ub %s)\n", fn, pf.Engine, pf.UB)
	fmt.Fprintf(&b, "  source  %s (sha256 %.12s…)\n", pf.Source.Path, pf.Source.SHA256)
	fmt.Fprintf(&b, "  target  %s (sha256 %.12s…)\n", pf.Target.Path, pf.Target.SHA256)
	for _, c := range pf.Context {
		fmt.Fprintf(&b, "  context %s (sha256 %.12s…)\n", c.Path, c.SHA256)
	}
	b.WriteString("assumptions\n")
	for _, a := range pf.Assumptions {
		fmt.Fprintf(&b, "  %s\n", a)
	}
	b.WriteString("nodes\n")
	for _, n := range pf.Product.Nodes {
		fmt.Fprintf(&b, "  n%-3d src %-22s dst %s\n", n.ID, n.Src, n.Dst)
		list := func(label string, items []string) {
			for i, it := range items {
				if i == 0 {
					fmt.Fprintf(&b, "       %-11s %s\n", label, it)
				} else {
					fmt.Fprintf(&b, "       %-11s %s\n", "", it)
				}
			}
		}
		list("defines", n.Defined)
		list("invariants", n.Invariants)
	}
	b.WriteString("edges\n")
	for _, e := range pf.Product.Edges {
		fmt.Fprintf(&b, "  %-10s %s\n", edgeEnds(e), edgeText(e))
	}
	fmt.Fprintf(&b, "obligations discharged (%d)\n", len(pf.Obligations))
	for _, o := range pf.Obligations {
		fmt.Fprintf(&b, "  %s\n", o)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// edgeEnds is "n0 → n1", or "n1 ✗" for an infeasible edge.
func edgeEnds(e ProofEdge) string {
	if e.To == nil {
		return fmt.Sprintf("n%d ✗", e.From)
	}
	return fmt.Sprintf("n%d → n%d", e.From, *e.To)
}

// edgeText says what an edge pairs: the target's step (with its via
// edges) and the source's path set, or that the step is impossible.
func edgeText(e ProofEdge) string {
	t := "target to " + e.DstTo.String()
	if len(e.DstVia) > 0 {
		var via []string
		for _, v := range e.DstVia {
			via = append(via, fmt.Sprintf("%d (%#x→%#x)", v.ID, uint64(v.From), uint64(v.To)))
		}
		t += " via edges " + strings.Join(via, ", ")
	}
	switch {
	case e.Infeasible || e.SrcPath == nil:
		return t + ": impossible there"
	case e.SrcPath.Arrivals == 0:
		return t + "; source stays"
	}
	p := e.SrcPath
	return fmt.Sprintf("%s; source to %s (arrival %d, loops turned at most %d times)", t, p.To, p.Arrivals, p.Mu)
}

// WriteDOT prints pf's product graph as a Graphviz digraph: a box per
// node pair with its invariants, an edge per paired path, a dashed edge
// to a point for an impossible target step.
func (pf *ProofFile) WriteDOT(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph proof {\n")
	fmt.Fprintf(&b, "  label=%s; labelloc=t;\n", dotQuote(fmt.Sprintf("proof of %s (engine %s, ub %s)", pf.Source.Function, pf.Engine, pf.UB)))
	fmt.Fprintf(&b, "  node [shape=box, fontname=\"monospace\", fontsize=10];\n  edge [fontname=\"monospace\", fontsize=9];\n")
	for _, n := range pf.Product.Nodes {
		lines := []string{fmt.Sprintf("n%d", n.ID), "src " + n.Src.String(), "dst " + n.Dst.String()}
		lines = append(lines, n.Invariants...)
		fmt.Fprintf(&b, "  n%d [label=%s];\n", n.ID, dotLines(lines))
	}
	for i, e := range pf.Product.Edges {
		label := dotLines(strings.Split(strings.ReplaceAll(edgeText(e), "; ", ";\n"), "\n"))
		if e.To == nil {
			fmt.Fprintf(&b, "  x%d [shape=point];\n  n%d -> x%d [style=dashed, label=%s];\n", i, e.From, i, label)
			continue
		}
		fmt.Fprintf(&b, "  n%d -> n%d [label=%s];\n", e.From, *e.To, label)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// dotQuote is s as a DOT string.
func dotQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// dotLines is a left-justified multi-line DOT label.
func dotLines(lines []string) string {
	var b strings.Builder
	b.WriteByte('"')
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	for _, l := range lines {
		b.WriteString(r.Replace(l))
		b.WriteString(`\l`)
	}
	b.WriteByte('"')
	return b.String()
}
