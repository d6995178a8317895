package prove

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"eqc/ir"
	"eqc/ir/smtlib"
)

// TestAbstractNonlinear: products and quotients of two non-constant terms
// of 16 bits or more become constants, one per term; products by a
// constant, narrow ones and divisions by a constant stay.
func TestAbstractNonlinear(t *testing.T) {
	b := ir.NewBuilder()
	x, y := b.Var("x", ir.BVSort(32)), b.Var("y", ir.BVSort(32))
	u, v := b.Var("u", ir.BVSort(8)), b.Var("v", ir.BVSort(8))
	xy := b.Mul(x, y)
	cases := []struct {
		name  string
		terms []ir.Term
		gone  []ir.Term // abstracted
		kept  []ir.Term // still there
		fresh int       // constants in the abstracted query
	}{
		{"product", []ir.Term{b.Eq(xy, b.Const(32, 6))}, []ir.Term{xy}, nil, 1},
		{"one product twice", []ir.Term{b.Eq(xy, b.Const(32, 6)), b.Ule(xy, x)}, []ir.Term{xy}, []ir.Term{x}, 1},
		{"nested", []ir.Term{b.Eq(b.Mul(xy, x), y)}, []ir.Term{xy, b.Mul(xy, x)}, []ir.Term{y}, 1},
		{"quotient and remainder", []ir.Term{b.Eq(b.UDiv(x, y), b.URem(y, x))}, []ir.Term{b.UDiv(x, y), b.URem(y, x)}, nil, 2},
		{"by a constant", []ir.Term{b.Eq(b.Mul(x, b.Const(32, 3)), b.UDiv(y, b.Const(32, 7)))}, nil, []ir.Term{b.Mul(x, b.Const(32, 3)), b.UDiv(y, b.Const(32, 7))}, 0},
		{"narrow", []ir.Term{b.Eq(b.Mul(u, v), b.Const(8, 1))}, nil, []ir.Term{b.Mul(u, v)}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := Query{B: b, Assertions: c.terms}
			a, ok := abstractNonlinear(q)
			if ok != (len(c.gone) > 0) {
				t.Fatalf("abstracted = %v, want %v", ok, len(c.gone) > 0)
			}
			in := map[ir.Term]bool{}
			vars := 0
			for _, s := range b.PostOrder(a.Assertions...) {
				in[s] = true
				if b.Op(s) == ir.OpVar && len(b.VarName(s)) > 3 && b.VarName(s)[:3] == "nl!" {
					vars++
				}
			}
			for _, g := range c.gone {
				if in[g] {
					t.Errorf("%s is still in the query", b.Short(g))
				}
			}
			for _, k := range c.kept {
				if !in[k] {
					t.Errorf("%s is gone", b.Short(k))
				}
			}
			if vars != c.fresh {
				t.Errorf("%d fresh constants, want %d", vars, c.fresh)
			}
		})
	}
}

// TestRestrictNonlinear: every state the restricted query holds in is one
// the original holds in (the evaluator is the oracle, over small values
// so that both hold often).
func TestRestrictNonlinear(t *testing.T) {
	b := ir.NewBuilder()
	x, y, z := b.Var("x", ir.BVSort(16)), b.Var("y", ir.BVSort(16)), b.Var("z", ir.BVSort(16))
	c := func(v uint64) ir.Term { return b.Const(16, v) }
	queries := [][]ir.Term{
		{b.Eq(b.Mul(x, y), z)},
		{b.Ule(b.Mul(b.Mul(x, y), z), c(3)), b.Not(b.Eq(x, c(0)))},
		{b.Eq(b.Mul(b.Add(x, c(1)), y), b.Mul(y, b.Add(x, c(1))))},
		{b.Eq(b.Mul(b.Mul(x, y), b.Mul(y, z)), c(0)), b.Ule(c(2), z)},
	}
	rng := rand.New(rand.NewSource(1))
	for i, as := range queries {
		q := Query{B: b, Assertions: as}
		r, ok := restrictNonlinear(q)
		if !ok {
			t.Fatalf("query %d: not restricted", i)
		}
		held := 0
		for k := 0; k < 2000; k++ {
			env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{}}
			for _, v := range []ir.Term{x, y, z} {
				env.Vars[v] = ir.BVValue(ir.NewBV(16, uint64(rng.Intn(4))))
			}
			if modelSatisfies(r, env) != nil {
				continue
			}
			held++
			if err := modelSatisfies(q, env); err != nil {
				t.Fatalf("query %d: the restricted query holds at %v and the original does not: %v", i, env, err)
			}
		}
		if held == 0 {
			t.Errorf("query %d: the restricted query held in no state tried", i)
		}
	}
}

// countingText counts the scripts its solver is asked.
type countingText struct {
	TextSolver
	n int
}

func (c *countingText) CheckText(ctx context.Context, script string) Answer {
	c.n++
	return c.TextSolver.CheckText(ctx, script)
}

// TestNonlinearAttempts: with real z3, a query with products gets its
// answer from the abstracted query (one script), the restricted one (two)
// or the query itself (three), and the answer is the query's in every
// case.
func TestNonlinearAttempts(t *testing.T) {
	lib, err := NewZ3Lib()
	if err != nil {
		t.Fatal(err)
	}
	ct := &countingText{TextSolver: lib}
	s := NewSolver(ct)
	t.Cleanup(func() { s.Close() })
	b := ir.NewBuilder()
	x, y := b.Var("x", ir.BVSort(32)), b.Var("y", ir.BVSort(32))
	i := b.Var("i", ir.BVSort(64))
	c32 := func(v uint64) ir.Term { return b.Const(32, v) }
	c64 := func(v uint64) ir.Term { return b.Const(64, v) }
	// noOverflow is a sanitizer's test that x·y does not overflow.
	noOverflow := b.Eq(b.Mul(b.SignExt(x, 32), b.SignExt(y, 32)), b.SignExt(b.Mul(x, y), 32))
	cases := []struct {
		name    string
		asserts []ir.Term
		want    smtlib.Status
		scripts int
	}{
		{"unsat whatever the products", []ir.Term{noOverflow, b.Ult(c64(5), i), b.Ult(i, c64(6))}, smtlib.Unsat, 1},
		{"sat with zero data", []ir.Term{noOverflow, b.Ult(c64(5), i)}, smtlib.Sat, 2},
		{"sat only with a product", []ir.Term{b.Eq(b.Mul(x, y), c32(6)), b.Ule(c32(2), x), b.Ule(c32(2), y)}, smtlib.Sat, 3},
		{"unsat only by the product", []ir.Term{b.Eq(x, c32(2)), b.Eq(b.Mul(x, y), c32(7))}, smtlib.Unsat, 3},
		{"commuted", []ir.Term{b.Not(b.Eq(b.Mul(x, y), b.Mul(y, x)))}, smtlib.Unsat, 3},
		{"no products", []ir.Term{b.Eq(b.Add(x, y), c32(6))}, smtlib.Sat, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ct.n = 0
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			q := Query{B: b, Assertions: c.asserts}
			r := s.Check(ctx, q)
			if r.Status != c.want {
				t.Fatalf("%v (%s), want %v", r.Status, r.Reason, c.want)
			}
			if r.Status == smtlib.Sat {
				if err := modelSatisfies(q, r.Model); err != nil {
					t.Fatalf("model: %v", err)
				}
			}
			if ct.n != c.scripts {
				t.Errorf("%d scripts asked, want %d", ct.n, c.scripts)
			}
		})
	}
}
