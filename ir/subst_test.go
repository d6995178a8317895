package ir_test

import (
	"math/rand/v2"
	"testing"

	"eqc/ir"
	"eqc/ir/irtest"
)

// TestSubstituteEval checks Substitute against the evaluator: evaluating
// t[x := e] equals evaluating t where x takes e's value.
func TestSubstituteEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		b := ir.NewBuilder()
		so := irtest.RandomSort(rng)
		term := irtest.RandomTerm(rng, b, so, 5)
		m := map[ir.Term]ir.Term{}
		for _, u := range b.PostOrder(term) {
			if b.Op(u) == ir.OpVar && rng.IntN(2) == 0 {
				m[u] = irtest.RandomTerm(rng, b, b.Sort(u), 3)
			}
		}
		roots := []ir.Term{term}
		for k, v := range m {
			roots = append(roots, k, v)
		}
		env := irtest.RandomEnv(rng, b, roots...)
		got, err := ir.Eval(b, ir.Substitute(b, term, m), env)
		if err != nil {
			t.Fatal(err)
		}
		env2 := &ir.MapEnv{Vars: map[ir.Term]ir.Value{}, Funcs: env.Funcs}
		for k, v := range env.Vars {
			env2.Vars[k] = v
		}
		for k, v := range m {
			// Simultaneous substitution: the replacement is evaluated in
			// the original environment.
			if env2.Vars[k], err = ir.Eval(b, v, env); err != nil {
				t.Fatal(err)
			}
		}
		want, err := ir.Eval(b, term, env2)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(want) {
			t.Fatalf("case %d: substituted %s evaluates to %v, want %v", i, b.Short(term), got, want)
		}
	}
}

// TestSubstituteDeep substitutes through a chain of 200k stores: iterative,
// memoized, and unchanged subterms keep their identity.
func TestSubstituteDeep(t *testing.T) {
	b := ir.NewBuilder()
	m := b.Var("mem", ir.MemSort)
	p := b.Var("p", ir.BVSort(64))
	q := b.Var("q", ir.BVSort(64))
	other := b.Var("other", ir.BVSort(64))
	untouched := b.Select(m, other, 8)
	cur := m
	for i := 0; i < 200000; i++ {
		cur = b.Store(cur, b.Add(p, b.Const(64, uint64(i))), 1, b.Const(8, uint64(i)))
	}
	sub := ir.NewSubstituter(b, map[ir.Term]ir.Term{p: q})
	r := sub.Apply(cur)
	if r == cur {
		t.Fatal("substitution changed nothing")
	}
	if got := sub.Apply(untouched); got != untouched {
		t.Fatalf("a term without p changed: %s", b.Short(got))
	}
	if again := sub.Apply(cur); again != r {
		t.Fatal("memoized result differs")
	}
	// The innermost store now writes at q.
	for b.Op(r) == ir.OpStore && b.Arg(r, 0) != m {
		r = b.Arg(r, 0)
	}
	if b.Arg(r, 1) != b.Add(q, b.Const(64, 0)) {
		t.Fatalf("innermost address is %s", b.Short(b.Arg(r, 1)))
	}
}

func TestSubstituteSortMismatchPanics(t *testing.T) {
	b := ir.NewBuilder()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	ir.Substitute(b, b.Var("x", ir.BVSort(8)), map[ir.Term]ir.Term{b.Var("x", ir.BVSort(8)): b.Const(16, 1)})
}
