package product_test

import (
	"context"
	"testing"

	"eqc/align/product"
	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
)

// TestInvariantPins proves gcc-12's vectorized saxpy (a loop over two
// pointer arguments, versioned on a runtime alias check, with a scalar
// tail after the vector loop) under the default UB models, and checks
// the pins its invariants define at the node where the vector loop exits
// (a loop-exit anchor) against the solver: each pin's equality follows
// from the node's invariants, a target variable is pinned to a term that
// names no target variable, any other to a term of the entry state alone.
// The source's counter must be among them, pinned to n & ~3: a relation
// only the tail's first block names (entryterms.go's exit-block terms).
func TestInvariantPins(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with gcc-12 and proves")
	}
	p, pr, s := proveProductUB(t, "gcc-12", "saxpy", "void saxpy(int *y, const int *x, int a, int n)\n{\n\tfor (int i = 0; i < n; i++)\n\t\ty[i] = a * x[i] + y[i];\n}\n", "all")
	b := p.B
	exitNodes := 0
	for _, n := range pr.Nodes {
		if p.Dst.TFG.Nodes[n.Key.Dst].Kind != ir.NodeLoopExit {
			continue
		}
		exitNodes++
		counter := false
		fresh := product.FreshVars(n)
		for _, pin := range product.InvariantPins(pr, n) {
			v, term := pin[0], pin[1]
			r := s.Check(context.Background(), prove.Query{B: b, Assertions: []ir.Term{b.And(n.Invariants...), b.Not(b.Eq(v, term))}})
			if r.Status != smtlib.Unsat {
				t.Errorf("n%d: pin %s = %s does not follow from the invariants (%s)", n.ID, b.Short(v), b.Short(term), r.Status)
			}
			names := map[int]bool{}
			for _, u := range b.PostOrder(term) {
				if side, ok := fresh[u]; ok {
					names[side] = true
				}
			}
			switch {
			case fresh[v] == 1 && names[1]:
				t.Errorf("n%d: target variable %s pinned to %s, which names a target variable", n.ID, b.Short(v), b.Short(term))
			case fresh[v] == 0 && (names[0] || names[1]):
				t.Errorf("n%d: source variable %s pinned to %s, which names a node variable", n.ID, b.Short(v), b.Short(term))
			}
			if fresh[v] == 0 && b.Sort(v).Width == 32 && b.Op(term) == ir.OpBVAnd {
				counter = true
			}
		}
		if !counter {
			t.Errorf("n%d: no pin of the source's counter to n & ~3", n.ID)
		}
	}
	if exitNodes != 1 {
		t.Errorf("%d nodes at the target's loop exit, want 1", exitNodes)
	}
}
