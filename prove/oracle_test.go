package prove

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"eqc/ir"
	"eqc/ir/irtest"
	"eqc/ir/smtlib"
)

// These tests check the term layer against the solvers and the solvers
// against each other, with no hand-written expectations: the simplifier is
// proved sound by Z3 term by term, every Sat model is evaluated by eqc's own
// evaluator, and the evaluator's value of a term is confirmed by each solver.

func newStack(t testing.TB, backends ...string) Solver {
	t.Helper()
	s, _, err := New(Options{Backends: backends})
	if err != nil {
		t.Fatalf("solver %v: %v (run `make deps`)", backends, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func check(t testing.TB, s Solver, b *ir.Builder, asserts ...ir.Term) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return s.Check(ctx, Query{B: b, Assertions: asserts})
}

// randomSort picks the sort of a random test term: mostly bit-vectors, some
// booleans and memories.
func randomSort(rng *rand.Rand) ir.Sort {
	switch rng.IntN(8) {
	case 0:
		return ir.BoolSort
	case 1:
		return ir.MemSort
	}
	return irtest.RandomSort(rng)
}

// TestSimplifierProvedByZ3 has Z3 prove simplify(t) = t for a sample of
// random terms: the simplifier's soundness, with Z3 as the oracle (the
// evaluator-based test in package ir covers many more terms, on sampled
// assignments only).
func TestSimplifierProvedByZ3(t *testing.T) {
	s := newStack(t, "z3")
	rng := rand.New(rand.NewPCG(7, 11))
	b := ir.NewBuilder()
	simp := ir.NewSimplifier(b)
	n := 400
	if testing.Short() {
		n = 50
	}
	changed := 0
	for i := 0; i < n; i++ {
		term := irtest.RandomTerm(rng, b, randomSort(rng), 4)
		st := simp.Simplify(term)
		if st == term {
			continue
		}
		changed++
		r := check(t, s, b, b.Not(b.Eq(st, term)))
		switch r.Status {
		case smtlib.Unsat:
		case smtlib.Sat:
			t.Errorf("simplify is unsound:\n  term       %s\n  simplified %s", smtlib.TermString(b, term), smtlib.TermString(b, st))
		default:
			t.Errorf("z3 could not decide simplify(t) = t (%s) for %s", r.Reason, b.Short(term))
		}
	}
	if changed < n/4 {
		t.Errorf("only %d of %d random terms were simplified; the test exercises too little", changed, n)
	}
	t.Logf("%d of %d terms simplified, each proved equal by z3", changed, n)
}

// TestEvaluatorAgreesWithSolvers evaluates random terms under random
// assignments and asks every solver to confirm the value: with the free
// constants pinned to their values, t ≠ value must be Unsat and t = value
// Sat (its model checked by the evaluator). Terms with memories or
// functions, which a finite pin cannot fix, get the Sat half only.
func TestEvaluatorAgreesWithSolvers(t *testing.T) {
	backends := []string{"z3", "cvc5", "boolector"}
	solvers := map[string]Solver{}
	for _, name := range backends {
		solvers[name] = newStack(t, name)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	b := ir.NewBuilder()
	n := 120
	if testing.Short() {
		n = 20
	}
	for i := 0; i < n; i++ {
		sort := randomSort(rng)
		if sort == ir.MemSort {
			sort = ir.BVSort(8)
		}
		term := irtest.RandomTerm(rng, b, sort, 4)
		env := irtest.RandomEnv(rng, b, term)
		v, err := ir.Eval(b, term, env)
		if err != nil {
			t.Fatalf("eval %s: %v", b.Short(term), err)
		}
		value := constOf(b, v)
		pins, closed := pin(b, env, term)
		for _, name := range backends {
			s := solvers[name]
			if r := check(t, s, b, b.Eq(term, value)); r.Status == smtlib.Unsat {
				t.Errorf("%s: t = %v is unsat, but the evaluator found an assignment: t = %s", name, v, smtlib.TermString(b, term))
			} else if r.Status == smtlib.Unknown && !unsupportedBy(name, r) {
				t.Errorf("%s: t = %v: %s", name, v, r.Reason)
			}
			if !closed {
				continue
			}
			q := append(append([]ir.Term(nil), pins...), b.Not(b.Eq(term, value)))
			if r := check(t, s, b, q...); r.Status == smtlib.Sat {
				t.Errorf("%s disagrees with the evaluator: t = %s evaluates to %v under %v", name, smtlib.TermString(b, term), v, env.Vars)
			} else if r.Status == smtlib.Unknown && !unsupportedBy(name, r) {
				t.Errorf("%s: pinned t ≠ %v: %s", name, v, r.Reason)
			}
		}
	}
}

// unsupportedBy excuses boolector from queries with uninterpreted functions,
// which it cannot declare.
func unsupportedBy(solver string, r Result) bool {
	return solver == KindBoolector && ReasonKind(r.Reason) == ReasonUnsupported
}

// constOf returns the literal term of a boolean or bit-vector value.
func constOf(b *ir.Builder, v ir.Value) ir.Term {
	if v.Sort() == ir.BoolSort {
		return b.Bool(v.Bool())
	}
	return b.ConstBV(v.BV())
}

// pin returns the equalities fixing every free constant of t to its value in
// env, and whether they fix t entirely (no memories, no functions).
func pin(b *ir.Builder, env *ir.MapEnv, t ir.Term) ([]ir.Term, bool) {
	var pins []ir.Term
	closed := true
	for _, u := range b.PostOrder(t) {
		switch b.Op(u) {
		case ir.OpVar:
			if b.Sort(u) == ir.MemSort {
				closed = false
				continue
			}
			pins = append(pins, b.Eq(u, constOf(b, env.Vars[u])))
		case ir.OpApply:
			closed = false
		}
	}
	return pins, closed
}

// TestBackendsAgree runs the same random queries through every backend and
// checks that no two definite answers differ.
func TestBackendsAgree(t *testing.T) {
	backends := []string{"z3", "z3-process", "cvc5", "boolector"}
	solvers := map[string]Solver{}
	for _, name := range backends {
		solvers[name] = newStack(t, name)
	}
	rng := rand.New(rand.NewPCG(17, 19))
	b := ir.NewBuilder()
	n := 60
	if testing.Short() {
		n = 10
	}
	definite := 0
	for i := 0; i < n; i++ {
		q := irtest.RandomTerm(rng, b, ir.BoolSort, 4)
		answers := map[string]smtlib.Status{}
		for _, name := range backends {
			r := check(t, solvers[name], b, q)
			if r.Status == smtlib.Unknown {
				if !unsupportedBy(name, r) {
					t.Errorf("%s: %s on %s", name, r.Reason, b.Short(q))
				}
				continue
			}
			answers[name] = r.Status
		}
		var first string
		for _, name := range backends {
			st, ok := answers[name]
			if !ok {
				continue
			}
			if first == "" {
				first = name
				definite++
				continue
			}
			if st != answers[first] {
				t.Errorf("%s says %v, %s says %v:\n%s", first, answers[first], name, st, smtlib.TermString(b, q))
			}
		}
	}
	if definite < n*3/4 {
		t.Errorf("only %d of %d queries got a definite answer", definite, n)
	}
}

// TestCacheKeysAlphaEquivalentQueries checks that the cache, behind the
// canonical printer, answers a renamed copy of a query without the solver,
// and that the model it returns is read in the new query's names.
func TestCacheKeysAlphaEquivalentQueries(t *testing.T) {
	s, cache, err := New(Options{Backends: []string{"z3"}, CacheSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	query := func(b *ir.Builder, x, y string) (Query, ir.Term, ir.Term) {
		xv, yv := b.Var(x, ir.BVSort(32)), b.Var(y, ir.BVSort(32))
		return Query{B: b, Assertions: []ir.Term{
			b.Eq(b.Add(xv, yv), b.Const(32, 100)),
			b.Ult(xv, b.Const(32, 10)),
		}}, xv, yv
	}
	ctx := context.Background()
	q1, _, _ := query(ir.NewBuilder(), "x", "y")
	r1 := s.Check(ctx, q1)
	b2 := ir.NewBuilder()
	b2.Var("padding", ir.BoolSort) // shifts term ids
	q2, x2, y2 := query(b2, "rdi", "rsi")
	r2 := s.Check(ctx, q2)
	if r1.Status != smtlib.Sat || r2.Status != smtlib.Sat {
		t.Fatalf("answers %v %v, want sat sat", r1.Status, r2.Status)
	}
	if !r2.Cached || cache.Stats().Hits != 1 {
		t.Errorf("renamed query was not a cache hit: cached=%v stats=%+v", r2.Cached, cache.Stats())
	}
	xv, _ := r2.Model.VarValue(b2, x2)
	yv, _ := r2.Model.VarValue(b2, y2)
	if xv.BV().Add(yv.BV()).Uint64() != 100 || xv.BV().Uint64() >= 10 {
		t.Errorf("cached model read in new names: rdi=%v rsi=%v", xv, yv)
	}
}

// TestBadBackends: an unknown backend name or a missing solver binary is an
// error from New; a query that runs past its deadline is Unknown "timeout".
func TestBadBackends(t *testing.T) {
	if _, _, err := New(Options{Backends: []string{"yices"}}); err == nil {
		t.Error("New accepted an unknown backend")
	}
	t.Setenv("PATH", t.TempDir())
	if _, _, err := New(Options{Backends: []string{"cvc5"}}); err == nil {
		t.Error("New accepted a missing cvc5")
	}
}

func TestTimeoutIsUnknown(t *testing.T) {
	s := newStack(t, "z3")
	b := ir.NewBuilder()
	// Factoring a 64-bit semiprime: far beyond a 100 ms budget.
	x, y := b.Var("x", ir.BVSort(64)), b.Var("y", ir.BVSort(64))
	one := b.Const(64, 1)
	q := []ir.Term{
		b.Eq(b.Mul(x, y), b.Const(64, 0xF4A0D47C54F6B1A3)),
		b.Ugt(x, one), b.Ugt(y, one),
		b.Ult(x, b.Const(64, 1<<32)), b.Ult(y, b.Const(64, 1<<32)),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := s.Check(ctx, Query{B: b, Assertions: q})
	if r.Status == smtlib.Unknown && ReasonKind(r.Reason) != ReasonTimeout {
		t.Errorf("reason %q, want a timeout", r.Reason)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("a 100 ms query took %v", el)
	}
}

// Benchmarks: one ir query through the stack, uncached (each iteration a
// new constant, so a new query) and cached (the same query again).
func BenchmarkQueryUncached(bm *testing.B) { benchIRQuery(bm, false) }
func BenchmarkQueryCached(bm *testing.B)   { benchIRQuery(bm, true) }

func benchIRQuery(bm *testing.B, cached bool) {
	s, _, err := New(Options{Backends: []string{"z3"}, CacheSize: 1 << 16})
	if err != nil {
		bm.Fatal(err)
	}
	defer s.Close()
	b := ir.NewBuilder()
	x, y := b.Var("x", ir.BVSort(64)), b.Var("y", ir.BVSort(64))
	i := 0
	for bm.Loop() {
		c := uint64(1)
		if !cached {
			c = uint64(i)
		}
		i++
		// (x + y) - y = x + c is unsat exactly when c ≠ 0.
		q := b.Eq(b.Sub(b.Add(x, y), y), b.Add(x, b.Const(64, c)))
		if r := s.Check(context.Background(), Query{B: b, Assertions: []ir.Term{q}}); r.Status == smtlib.Unknown {
			bm.Fatal(r.Reason)
		}
	}
}

func ExampleNew() {
	s, _, err := New(Options{Backends: []string{"z3"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	b := ir.NewBuilder()
	x := b.Var("x", ir.BVSort(8))
	// Is there an 8-bit x with x·3 = 1? (3 is odd, so it has an inverse.)
	r := s.Check(context.Background(), Query{B: b, Assertions: []ir.Term{b.Eq(b.Mul(x, b.Const(8, 3)), b.Const(8, 1))}})
	v, _ := r.Model.VarValue(b, x)
	fmt.Println(r.Status, v)
	// Output: sat #xab
}
