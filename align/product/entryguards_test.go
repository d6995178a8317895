package product_test

import (
	"context"
	"strings"
	"testing"

	"eqc/align/correlate"
	"eqc/align/internal/aligntest"
	"eqc/align/product"
	"eqc/align/product/learning"
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/prove"
	"eqc/ub"
	"eqc/x86"
)

// TestEntryGuards builds the product of a loop over two pointer
// arguments that gcc-12 -O3 versions on a runtime check that the arrays
// are far enough apart: the vector loop's node gets that check as a
// candidate, a fact of the entry state that names both pointers, and the
// entry node gets no entry guards (it has no path to it).
func TestEntryGuards(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with gcc-12")
	}
	p, pr := buildProduct(t, "gcc-12", "addn", "void addn(int *d, const int *s, int n)\n{\n\tfor (int i = 0; i < n; i++)\n\t\td[i] += s[i];\n}\n")
	rdi, rsi := p.SrcVar(x86.StateGPR0+x86.RDI), p.SrcVar(x86.StateGPR0+x86.RSI)
	both := 0
	for _, n := range pr.Nodes {
		for _, c := range n.Candidates {
			if !strings.HasPrefix(c.Desc, "entry guard ") {
				continue
			}
			if n.ID == 0 {
				t.Errorf("entry node: %s", c.Desc)
			}
			vars := map[ir.Term]bool{}
			for _, u := range p.B.PostOrder(c.Term) {
				vars[u] = true
			}
			if vars[rdi] && vars[rsi] {
				both++
			}
		}
	}
	if both == 0 {
		t.Errorf("no node has an entry guard relating d and s")
	}
}

// buildProduct compiles C source src with cc at -O0 and -O3, co-executes
// function fn's two builds and builds the product of the static engine's
// first alignment.
func buildProduct(t *testing.T, cc, fn, src string) (*pair.Pair, *product.Product) {
	t.Helper()
	return buildProductUB(t, cc, fn, src, "none")
}

// buildProductUB is buildProduct under the UB models spec names.
func buildProductUB(t *testing.T, cc, fn, src, spec string) (*pair.Pair, *product.Product) {
	t.Helper()
	objs := aligntest.CompileC(t, cc, fn, src, "O0", "O3")
	p, err := pair.Load(objs["O0"], fn, objs["O3"], fn)
	if err != nil {
		t.Fatal(err)
	}
	models, err := ub.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	p.SetModels(models)
	runs := p.CoExecuteAll(context.Background())
	aligns := correlate.Engine{}.Alignments(context.Background(), p, runs, 1).Alignments
	if len(aligns) == 0 {
		t.Fatal("no alignment of the co-executions")
	}
	pr, reason := product.Build(p, aligns[0], runs, learning.Search())
	if pr == nil {
		t.Fatal(reason)
	}
	return p, pr
}

// proveProductUB builds the product as buildProductUB does and proves it
// under the pair's models, failing the test when it is not equivalent.
func proveProductUB(t *testing.T, cc, fn, src, spec string) (*pair.Pair, *product.Product, prove.Solver) {
	t.Helper()
	p, pr := buildProductUB(t, cc, fn, src, spec)
	s := aligntest.NewSolver(t)
	pre, _ := p.ModelPrecondition()
	if o := pr.Prove(context.Background(), s, pre); o.Verdict != pair.Equivalent {
		t.Fatalf("%s: %s (%s)", fn, o.Verdict, o.Reason)
	}
	return p, pr, s
}
