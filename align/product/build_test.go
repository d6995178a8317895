package product

import (
	"strings"
	"testing"

	"eqc/align/product/pair"
)

// A cycle of product edges on which the source stays would let the target
// run forever against a source that ends: Build must refuse it,
// and accept stays that lead out of every cycle.
func TestStaysAcyclic(t *testing.T) {
	stay := pair.SrcSpec{Arrivals: 0}
	move := pair.SrcSpec{Arrivals: 1, Mu: 1}
	type edge struct {
		from, to int
		spec     pair.SrcSpec
	}
	for _, tc := range []struct {
		name  string
		edges []edge
		want  string // "" when acyclic
	}{
		{"no stays", []edge{{0, 1, move}, {1, 1, move}, {1, 2, move}}, ""},
		{"a stay out of a loop", []edge{{0, 1, move}, {1, 1, move}, {1, 2, stay}, {2, 2, move}, {2, 3, move}}, ""},
		{"a stay self-loop", []edge{{0, 1, move}, {1, 1, stay}}, "n1"},
		{"a cycle of stays", []edge{{0, 1, move}, {1, 2, stay}, {2, 1, stay}, {2, 3, move}}, "n1"},
		{"a cycle with one move", []edge{{0, 1, move}, {1, 2, stay}, {2, 1, move}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := &Product{}
			for i := 0; i < 4; i++ {
				pr.Nodes = append(pr.Nodes, &PNode{ID: i})
			}
			for _, e := range tc.edges {
				pr.Edges = append(pr.Edges, &PEdge{From: e.from, To: e.to, Spec: e.spec})
			}
			got := pr.staysAcyclic()
			if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
				t.Errorf("staysAcyclic() = %q, want %q", got, tc.want)
			}
		})
	}
}
