package product_test

import (
	"testing"

	"eqc/align/product"
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/x86"
)

// TestWidenSource: gcc-12 -O3 ends maxv for n = 2..4 in straight-line
// code, so its entry-to-exit step pairs with up to three source passes.
// Given an entry state with n = 4 the edge's source path set widens to
// exactly three passes, and the rebuilt set's condition holds there;
// given n = 40, which no set within reach covers, it does not widen.
func TestWidenSource(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with gcc-12")
	}
	const src = "int maxv(const int *a, int n)\n{\n\tint m = a[0];\n\tfor (int i = 1; i < n; i++)\n\t\tif (a[i] > m)\n\t\t\tm = a[i];\n\treturn m;\n}\n"
	p, pr := buildProduct(t, "gcc-12", "maxv", src)
	entryState := func(n uint64) ir.Env {
		env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{}}
		for i := 0; i < x86.StateLen; i++ {
			v := p.SrcVar(i)
			switch s := p.B.Sort(v); {
			case s == ir.MemSort:
				env.Vars[v] = ir.MemValue(ir.NewMem(0))
			case s == ir.BoolSort:
				env.Vars[v] = ir.BoolValue(false)
			default:
				env.Vars[v] = ir.BVValue(ir.NewBV(s.Width, 0))
			}
		}
		env.Vars[p.SrcVar(x86.StateGPR0+x86.RSP)] = ir.BVValue(ir.NewBV(64, 0x7fff_0008))
		env.Vars[p.SrcVar(x86.StateGPR0+x86.RDI)] = ir.BVValue(ir.NewBV(64, 0x1000_0000))
		env.Vars[p.SrcVar(x86.StateGPR0+x86.RSI)] = ir.BVValue(ir.NewBV(64, n))
		return env
	}
	var exit *product.PEdge
	for _, e := range pr.Edges {
		if e.From == 0 && !e.Infeasible && pair.IsEnd(p.Dst.TFG, pr.Nodes[e.To].Key.Dst) {
			exit = e
		}
	}
	if exit == nil {
		t.Fatal("no edge from the entry to the exit")
	}
	exit.Spec.Mu = 1 // as co-executions with n ≤ 2 would leave it
	if product.WidenSource(pr, exit, entryState(40)) {
		t.Errorf("widened to %d passes for n = 40", exit.Spec.Mu)
	}
	if !product.WidenSource(pr, exit, entryState(4)) || exit.Spec.Mu != 3 {
		t.Fatalf("n = 4: %d passes, want 3", exit.Spec.Mu)
	}
	if v, err := ir.Eval(p.B, product.SrcCond(exit), entryState(4)); err != nil || !v.Bool() {
		t.Errorf("the widened set's condition at n = 4: %v, %v", v, err)
	}
}
