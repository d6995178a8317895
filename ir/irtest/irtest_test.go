package irtest_test

import (
	"math/rand/v2"
	"testing"

	"eqc/ir"
	"eqc/ir/irtest"
)

// TestDeterministic: the same seed gives the same terms and environments,
// so a failure found by a random test can be replayed.
func TestDeterministic(t *testing.T) {
	gen := func() (string, string) {
		rng := rand.New(rand.NewPCG(9, 9))
		b := ir.NewBuilder()
		var terms, vals string
		for range 50 {
			term := irtest.RandomTerm(rng, b, irtest.RandomSort(rng), 4)
			terms += b.Short(term) + "\n"
			env := irtest.RandomEnv(rng, b, term)
			v, err := ir.Eval(b, term, env)
			if err != nil {
				t.Fatal(err)
			}
			vals += v.String() + "\n"
		}
		return terms, vals
	}
	t1, v1 := gen()
	t2, v2 := gen()
	if t1 != t2 || v1 != v2 {
		t.Errorf("same seed, different terms or values")
	}
}

// TestSorts: every requested sort is produced, every variable and function
// is bound by RandomEnv, and functions are functions (equal arguments, equal
// results).
func TestSorts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	b := ir.NewBuilder()
	sorts := []ir.Sort{ir.BoolSort, ir.MemSort, ir.BVSort(1), ir.BVSort(7), ir.BVSort(65), ir.BVSort(128), ir.BVSort(256)}
	for _, s := range sorts {
		for range 200 {
			term := irtest.RandomTerm(rng, b, s, 5)
			if got := b.Sort(term); got != s {
				t.Fatalf("asked for %v, got %v: %s", s, got, b.Short(term))
			}
			env := irtest.RandomEnv(rng, b, term)
			ev := ir.NewEvaluator(b, env)
			if _, err := ev.Eval(term); err != nil {
				t.Fatalf("eval %s: %v", b.Short(term), err)
			}
			for _, u := range b.PostOrder(term) {
				if b.Op(u) != ir.OpApply {
					continue
				}
				v1, err1 := ev.Eval(u)
				v2, err2 := ir.Eval(b, u, env)
				if err1 != nil || err2 != nil || !v1.Equal(v2) {
					t.Fatalf("function %s is not a function: %v %v (%v, %v)", b.Short(u), v1, v2, err1, err2)
				}
			}
		}
	}
}
