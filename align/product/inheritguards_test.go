package product_test

import (
	"testing"

	"eqc/align/product"
	"eqc/ir"
)

// diffC reads s[i] and s[i-1]: gcc-12 vectorizes it behind a runtime check
// that d and s are apart, and its scalar tail starts after a block that
// only tests (n − 1) & 3.
const diffC = "void diff(int *d, const int *s, int n)\n{\n\tfor (int i = 1; i < n; i++)\n\t\td[i - 1] = s[i] - s[i - 1];\n}\n"

// TestInheritedEntryGuards proves gcc-12's diff under the default UB
// models. The node the vector loop exits to is reached from the loop's
// head alone, so it has no entry path of its own: the facts that put the
// run on the vector path (n > 2, the arrays apart) reach it only as the
// head's entry guards, inherited (entryterms.go), and the tail's memory
// obligations need them. Its counter relation (the source's i against
// the target's ((n − 1) & ~3) + 1) is named only by the block after the
// one that tests, which exitBlockTerms passes through.
func TestInheritedEntryGuards(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with gcc-12 and proves")
	}
	p, pr, _ := proveProductUB(t, "gcc-12", "diff", diffC, "all")
	b := p.B
	exitNodes := 0
	for _, n := range pr.Nodes {
		if p.Dst.TFG.Nodes[n.Key.Dst].Kind != ir.NodeLoopExit {
			continue
		}
		exitNodes++
		fresh := product.FreshVars(n)
		guards, counter := 0, false
		for _, inv := range n.Invariants {
			own, src, masked := false, false, false
			for _, u := range b.PostOrder(inv) {
				if side, ok := fresh[u]; ok {
					own = true
					src = src || side == 0
				}
				masked = masked || b.Op(u) == ir.OpBVAnd
			}
			if !own {
				guards++
			}
			counter = counter || src && masked
		}
		if guards == 0 {
			t.Errorf("n%d: no invariant of the entry state alone (inherited entry guards)", n.ID)
		}
		if !counter {
			t.Errorf("n%d: no invariant relates the source's counter to the tail's masked start", n.ID)
		}
	}
	if exitNodes != 1 {
		t.Errorf("%d nodes at the target's loop exit, want 1", exitNodes)
	}
}
