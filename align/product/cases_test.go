package product

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
)

// The leaves of an if-then-else tree partition the states: on random
// states exactly one leaf's guards hold, and its value is the tree's
// (the evaluator is the oracle). Extracts and extensions are looked
// through; a tree with too many leaves is one case.
func TestValueCases(t *testing.T) {
	b := ir.NewBuilder()
	x, y, z := b.Var("x", ir.BVSort(64)), b.Var("y", ir.BVSort(64)), b.Var("z", ir.BVSort(64))
	p, q := b.Slt(x, y), b.Ult(y, z)
	sum := b.Add(x, y)
	chain := func(n int) ir.Term {
		t := z
		for i := 0; i < n; i++ {
			t = b.Ite(b.Eq(x, b.Const(64, uint64(i))), b.Add(y, b.Const(64, uint64(i))), t)
		}
		return t
	}
	for _, tc := range []struct {
		name   string
		t      ir.Term
		leaves int
	}{
		{"no branch", sum, 1},
		{"one branch", b.Ite(p, x, y), 2},
		{"nested", b.Ite(p, b.Ite(q, x, sum), y), 3},
		{"under an extract", b.Extract(b.Ite(p, b.Ite(q, x, sum), y), 31, 0), 3},
		{"under an extension", b.ZeroExt(b.Extract(b.Ite(q, x, y), 15, 0), 48), 2},
		{"branch inside an operation", b.Add(b.Ite(p, x, y), z), 1},
		{"a chain at the bound", chain(maxValueCases - 1), maxValueCases},
		{"a chain past the bound", chain(maxValueCases), 1},
	} {
		cs := valueCases(b, tc.t)
		if len(cs) != tc.leaves {
			t.Errorf("%s: %d cases, want %d", tc.name, len(cs), tc.leaves)
			continue
		}
		rng := rand.New(rand.NewSource(1))
		for n := 0; n < 200; n++ {
			env := valuesEnv{x: uint64(rng.Intn(maxValueCases + 2)), y: rng.Uint64() >> uint(rng.Intn(64)), z: rng.Uint64() >> uint(rng.Intn(64))}
			ev := ir.NewEvaluator(b, env)
			want, err := ev.Eval(tc.t)
			if err != nil {
				t.Fatal(err)
			}
			holding := 0
			for _, c := range cs {
				g, err := ev.Eval(b.And(append([]ir.Term{b.True()}, c.guards...)...))
				if err != nil {
					t.Fatal(err)
				}
				if !g.Bool() {
					continue
				}
				holding++
				if got, err := ev.Eval(c.value); err != nil || got != want {
					t.Errorf("%s: at %v the leaf %s is %v, the tree %v", tc.name, env, b.Short(c.value), got, want)
				}
			}
			if holding != 1 {
				t.Errorf("%s: at %v %d leaves' guards hold", tc.name, env, holding)
			}
		}
	}
}

// checker.equal splits an obligation the whole query does not decide:
// by the target's leaves, then a target leaf still undecided by the
// source's. The solver is z3; only the budgeted attempts this test
// names undecided are not asked (as if they had run out of time).
func TestCheckerEqual(t *testing.T) {
	s, _, err := prove.New(prove.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := ir.NewBuilder()
	n, a := b.Var("n", ir.BVSort(32)), b.Var("a", ir.BVSort(32))
	k := func(v uint64) ir.Term { return b.Const(32, v) }
	// The target adds the epilogue's elements one exit at a time; the
	// source by the count left, n mod 4, decided by its own conditions.
	left := b.BVAnd(n, k(3))
	dst := b.Ite(b.Eq(left, k(0)), a, b.Ite(b.Eq(left, k(1)), b.Add(a, n), b.Ite(b.Eq(left, k(2)), b.Add(b.Add(a, n), n), b.Add(b.Add(b.Add(a, n), n), n))))
	srcWith := func(three ir.Term) ir.Term {
		return b.Ite(b.Ult(left, k(2)), b.Ite(b.Eq(left, k(0)), a, b.Add(n, a)), b.Ite(b.Eq(left, k(3)), three, b.Add(b.Mul(k(2), n), a)))
	}
	flat := b.Add(a, b.Mul(n, left)) // the target without branches
	good, bad := srcWith(b.Add(b.Mul(k(3), n), a)), srcWith(b.Add(b.Mul(k(3), n), b.Add(a, k(1))))
	for _, tc := range []struct {
		name      string
		src, dst  ir.Term
		undecided []string // names of the attempts taken as undecided
		want      bool
		asked     []string
	}{
		{"whole decides", good, dst, nil, true, []string{"v"}},
		{"target's leaves decide", good, dst, []string{"v"}, true, []string{"v", "v (by the target's paths)"}},
		{"both sides' leaves decide", good, dst, []string{"v", "v (by the target's paths)"}, true, []string{"v", "v (by the target's paths)", "v (by both sides' paths)"}},
		{"only the source branches", good, flat, []string{"v"}, true, []string{"v", "v (by both sides' paths)"}},
		{"a case differs", bad, dst, []string{"v", "v (by the target's paths)"}, false, []string{"v", "v (by the target's paths)", "v (by both sides' paths)"}},
	} {
		asked := map[string]bool{}
		var model ir.Env
		ask := func(name string, assertions []ir.Term) bool {
			asked[name] = true
			r := s.Check(context.Background(), prove.Query{B: b, Assertions: assertions})
			if r.Status == smtlib.Sat {
				model = r.Model
			}
			if r.Status != smtlib.Sat && r.Status != smtlib.Unsat {
				t.Fatalf("%s: %s: %v %s", tc.name, name, r.Status, r.Reason)
			}
			return r.Status == smtlib.Unsat
		}
		ck := checker{
			check: func(name string, as ...ir.Term) bool { return ask(name, as) },
			attempt: func(_ time.Duration, name string, as ...ir.Term) (bool, bool) {
				for _, u := range tc.undecided {
					if u == name {
						asked[name] = true
						return false, true
					}
				}
				return ask(name, as), false
			},
			budget: func() time.Duration { return time.Second },
		}
		if got := ck.equal(b, "v", nil, tc.src, tc.dst); got != tc.want {
			t.Errorf("%s: equal = %v, want %v", tc.name, got, tc.want)
		}
		for _, name := range tc.asked {
			if !asked[name] {
				t.Errorf("%s: %q never asked", tc.name, name)
			}
		}
		if len(asked) != len(tc.asked) {
			t.Errorf("%s: asked %v", tc.name, asked)
		}
		if !tc.want {
			// The failing case's model is a state where the sides differ.
			ev := ir.NewEvaluator(b, model)
			if v, err := ev.Eval(b.Eq(tc.src, tc.dst)); err != nil || v.Bool() {
				t.Errorf("%s: the model does not separate the sides (%v, %v)", tc.name, v, err)
			}
		}
	}
}
