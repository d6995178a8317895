package prove

import (
	"context"
	"slices"
	"testing"
	"time"

	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/learn"
)

// houdiniLoop is one site, a loop head with the self-edge x := x + 2 over
// a 32-bit x, and four candidates: x even and x != 1 (inductive together),
// x == 0 and x < 100 (not inductive).
func houdiniLoop() (*ir.Builder, [][]ir.Term, []HoudiniEdge) {
	b := ir.NewBuilder()
	x := b.Var("x", ir.BVSort(32))
	cands := [][]ir.Term{{
		b.Eq(b.Extract(x, 0, 0), b.Const(1, 0)),
		b.Eq(x, b.Const(32, 0)),
		b.Not(b.Eq(x, b.Const(32, 1))),
		b.Ult(x, b.Const(32, 100)),
	}}
	sub := ir.NewSubstituter(b, map[ir.Term]ir.Term{x: b.Add(x, b.Const(32, 2))})
	return b, cands, []HoudiniEdge{{From: 0, To: 0, Post: sub.Apply}}
}

// conjSolver answers Unknown to every query that asks about several
// candidates at once (its last assertion negates a conjunction).
type conjSolver struct {
	Solver
	queries int
}

func (s *conjSolver) Check(ctx context.Context, q Query) Result {
	s.queries++
	last := q.Assertions[len(q.Assertions)-1]
	if q.B.Op(last) == ir.OpNot && q.B.Op(q.B.Args(last)[0]) == ir.OpAnd {
		return Result{Status: smtlib.Unknown, Reason: ReasonTimeout}
	}
	return s.Solver.Check(context.WithoutCancel(ctx), q)
}

func houdiniSolver(t *testing.T) Solver {
	t.Helper()
	s, _, err := New(Options{Backends: []string{"z3"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestHoudini(t *testing.T) {
	s := houdiniSolver(t)
	want := []bool{true, false, true, false}
	b, cands, edges := houdiniLoop()
	if r := Houdini(context.Background(), s, b, cands, edges); r.Unknown != "" || !slices.Equal(r.Kept[0], want) {
		t.Errorf("Houdini: kept %v (%s), want %v", r.Kept[0], r.Unknown, want)
	}

	// Without Split, an undecided query gives up; with it, each candidate
	// is asked about alone and the fixpoint is the same.
	b, cands, edges = houdiniLoop()
	cs := &conjSolver{Solver: s}
	if r := Houdini(context.Background(), cs, b, cands, edges); r.Unknown == "" {
		t.Errorf("Houdini on a solver that decides no conjunction: kept %v, no unknown", r.Kept[0])
	}
	b, cands, edges = houdiniLoop()
	if r := HoudiniWith(context.Background(), cs, b, cands, edges, HoudiniOptions{Split: true}); r.Unknown != "" || !slices.Equal(r.Kept[0], want) {
		t.Errorf("Split: kept %v (%s), want %v", r.Kept[0], r.Unknown, want)
	}

	// Settle: its implied candidates are never asked about, its broken
	// ones are dropped, and it is applied before the first query.
	b, cands, edges = houdiniLoop()
	cs = &conjSolver{Solver: s}
	settled := 0
	edges[0].Settle = func(premise []ir.Term, idx []int, posts []ir.Term) []HoudiniVerdict {
		if cs.queries == 0 {
			settled++
		}
		if len(premise) != len(idx) || len(posts) != len(idx) {
			t.Errorf("Settle: premise %d, idx %v, posts %d", len(premise), idx, len(posts))
		}
		vs := make([]HoudiniVerdict, len(idx))
		for j, i := range idx {
			switch i {
			case 1:
				vs[j] = HoudiniBroken
			case 2:
				vs[j] = HoudiniImplied
			}
		}
		return vs
	}
	r := HoudiniWith(context.Background(), cs, b, cands, edges, HoudiniOptions{Split: true})
	if r.Unknown != "" || !slices.Equal(r.Kept[0], want) || settled == 0 {
		t.Errorf("Settle: kept %v (%s), settled %d times before a query, want %v", r.Kept[0], r.Unknown, settled, want)
	}
	// Candidates 0 and 3 are asked about, never 2: the first query is a
	// conjunction of two (unknown), then one each.
	if r.Queries != cs.queries || r.Queries > 5 {
		t.Errorf("Settle: %d queries (solver saw %d)", r.Queries, cs.queries)
	}
}

// hangSolver keeps every query that asks about the term hang until the
// query's context ends, then answers Unknown, as a solver stuck on a hard
// candidate does. Every other query runs to its answer whatever its
// context's deadline: the tests are about the stuck candidate, and a loaded
// machine (CI runs packages side by side) can take longer than a short
// per-query timeout for z3's easy queries too.
type hangSolver struct {
	Solver
	hang ir.Term
}

func (s *hangSolver) Check(ctx context.Context, q Query) Result {
	last := q.Assertions[len(q.Assertions)-1]
	if slices.Contains(q.B.PostOrder(last), s.hang) {
		<-ctx.Done()
		return Result{Status: smtlib.Unknown, Reason: ReasonTimeout}
	}
	return s.Solver.Check(context.WithoutCancel(ctx), q)
}

// TestHoudiniQueryTimeout: with a per-query timeout and Split, a candidate
// the solver is stuck on is dropped (and the one it needed with it) and
// the fixpoint is still reached; without the timeout, the query waits for
// the whole context and the fixpoint is given up.
func TestHoudiniQueryTimeout(t *testing.T) {
	b, cands, edges := houdiniLoop()
	hs := &hangSolver{Solver: houdiniSolver(t), hang: edges[0].Post(cands[0][2])}
	r := HoudiniWith(context.Background(), hs, b, cands, edges, HoudiniOptions{Split: true, QueryTimeout: 100 * time.Millisecond})
	if want := []bool{true, false, false, false}; r.Unknown != "" || !slices.Equal(r.Kept[0], want) {
		t.Errorf("QueryTimeout: kept %v (%q), want %v", r.Kept[0], r.Unknown, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	b, cands, edges = houdiniLoop()
	hs.hang = edges[0].Post(cands[0][2])
	if r := HoudiniWith(ctx, hs, b, cands, edges, HoudiniOptions{Split: true}); r.Unknown != "timeout" {
		t.Errorf("no QueryTimeout: kept %v (%q), want the timeout", r.Kept[0], r.Unknown)
	}
}

// TestHoudiniWeaken: a counting loop x := x - 1 while x > 10, entered
// with any x > 10 (an entry edge from site 0), where the runs suggested
// x ≥ 12 and x ≤ 40. Plain Houdini drops both; with Weaken (a bound moved
// to the counterexample's value) the lower bound becomes x ≥ 10, which is
// inductive, and is kept; the upper bound cannot be (the entry admits any
// x) and is dropped after at most maxWeakenings replacements.
func TestHoudiniWeaken(t *testing.T) {
	s := houdiniSolver(t)
	setup := func() (*ir.Builder, [][]ir.Term, []HoudiniEdge, ir.Term) {
		b := ir.NewBuilder()
		x := b.Var("x", ir.BVSort(32))
		x0 := b.Var("x0", ir.BVSort(32))
		c := func(v uint64) ir.Term { return b.Const(32, v) }
		cands := [][]ir.Term{nil, {b.Ule(c(12), x), b.Ule(x, c(40))}}
		enter := ir.NewSubstituter(b, map[ir.Term]ir.Term{x: x0})
		step := ir.NewSubstituter(b, map[ir.Term]ir.Term{x: b.Sub(x, c(1))})
		return b, cands, []HoudiniEdge{
			{From: 0, To: 1, Pre: []ir.Term{b.Ult(c(10), x0)}, Post: enter.Apply},
			{From: 1, To: 1, Pre: []ir.Term{b.Ult(c(10), x)}, Post: step.Apply},
		}, x
	}
	b, cands, edges, _ := setup()
	if r := Houdini(context.Background(), s, b, cands, edges); r.Unknown != "" || r.Kept[1][0] || r.Kept[1][1] {
		t.Errorf("Houdini: kept %v (%s), want neither bound", r.Kept[1], r.Unknown)
	}
	b, cands, edges, x := setup()
	weakenings := 0
	weaken := func(cand ir.Term, value func(ir.Term) (ir.Value, bool)) (ir.Term, bool) {
		v, ok := value(x)
		if !ok {
			return cand, false
		}
		weakenings++
		lo, hi := b.Arg(cand, 0), b.Arg(cand, 1)
		if b.IsConst(lo) {
			return b.Ule(b.Const(32, min(v.BV().Uint64(), b.ConstValue(lo).Uint64())), hi), true
		}
		return b.Ule(lo, b.Const(32, max(v.BV().Uint64(), b.ConstValue(hi).Uint64()))), true
	}
	r := HoudiniWith(context.Background(), s, b, cands, edges, HoudiniOptions{Weaken: weaken})
	want := b.Ule(b.Const(32, 10), x)
	if r.Unknown != "" || !r.Kept[1][0] || r.Kept[1][1] || cands[1][0] != want {
		t.Errorf("Weaken: kept %v (%s), candidates %s and %s; want only %s", r.Kept[1], r.Unknown, b.Short(cands[1][0]), b.Short(cands[1][1]), b.Short(want))
	}
	if weakenings > 2*maxWeakenings {
		t.Errorf("Weaken called %d times, want at most %d", weakenings, 2*maxWeakenings)
	}
}

// TestHoudiniEdgeWeakenings: on a counting-up loop every upper bound
// fails and a weakening only moves it to the model's value, which the next
// model breaks again; the replacements made on one edge's models stop at
// maxEdgeWeakenings, so the fixpoint ends after a bounded number of
// rounds, with no upper bound kept.
func TestHoudiniEdgeWeakenings(t *testing.T) {
	s := houdiniSolver(t)
	b := ir.NewBuilder()
	x := b.Var("x", ir.BVSort(32))
	x0 := b.Var("x0", ir.BVSort(32))
	c := func(v uint64) ir.Term { return b.Const(32, v) }
	var bounds []ir.Term
	for k := range uint64(20) {
		bounds = append(bounds, b.Ule(x, c(40+k)))
	}
	cands := [][]ir.Term{nil, bounds}
	enter := ir.NewSubstituter(b, map[ir.Term]ir.Term{x: x0})
	step := ir.NewSubstituter(b, map[ir.Term]ir.Term{x: b.Add(x, c(1))})
	edges := []HoudiniEdge{
		{From: 0, To: 1, Pre: []ir.Term{b.Ult(x0, c(10))}, Post: enter.Apply},
		{From: 1, To: 1, Pre: []ir.Term{b.Ult(x, c(1000))}, Post: step.Apply},
	}
	weakenings := 0
	weaken := func(cand ir.Term, value func(ir.Term) (ir.Value, bool)) (ir.Term, bool) {
		v, ok := value(x)
		if !ok {
			return cand, false
		}
		weakenings++
		return b.Ule(x, c(v.BV().Uint64())), true
	}
	r := HoudiniWith(context.Background(), s, b, cands, edges, HoudiniOptions{Weaken: weaken})
	if r.Unknown != "" || slices.Contains(r.Kept[1], true) {
		t.Errorf("kept %v (%s), want no upper bound", r.Kept[1], r.Unknown)
	}
	// Unbounded, the loop edge's models would replace each of the 20
	// bounds maxWeakenings times; the entry edge breaks none.
	if weakenings != maxEdgeWeakenings {
		t.Errorf("%d weakenings, want the loop edge's %d", weakenings, maxEdgeWeakenings)
	}
}

// TestHoudiniRefine: a candidate learned from one run mixes the loop's true
// relation y = 2x with that run's coincidence e = 5 (e is an entry value the
// loop never changes): y − 2x + e − 5 = 0. The entry edge admits any e and
// drops it, and plain Houdini keeps nothing. With Refine, the entry edge's
// model joins the run's states as a row, the affine equalities of the grown
// table (package learn, as the loop engine relearns them) leave e out, and
// y = 2x is proved inductive.
func TestHoudiniRefine(t *testing.T) {
	s := houdiniSolver(t)
	b := ir.NewBuilder()
	e := b.Var("e", ir.BVSort(32))
	x := b.Var("x", ir.BVSort(32))
	y := b.Var("y", ir.BVSort(32))
	c := func(v uint64) ir.Term { return b.Const(32, v) }
	mixed := b.Eq(b.Add(b.Sub(y, b.Add(x, x)), e), c(5))
	enter := ir.NewSubstituter(b, map[ir.Term]ir.Term{x: c(0), y: c(0)})
	step := ir.NewSubstituter(b, map[ir.Term]ir.Term{x: b.Add(x, c(1)), y: b.Add(y, c(2))})
	edges := []HoudiniEdge{
		{From: 0, To: 1, Post: enter.Apply},
		{From: 1, To: 1, Pre: []ir.Term{b.Ult(x, c(1000))}, Post: step.Apply},
	}
	if r := Houdini(context.Background(), s, b, [][]ir.Term{nil, {mixed}}, edges); r.Unknown != "" || r.Kept[1][0] {
		t.Fatalf("Houdini: kept %v (%s), want nothing", r.Kept[1], r.Unknown)
	}
	schema := &learn.Schema{Vars: []learn.Var{{Name: "e", Term: e}, {Name: "x", Term: x}, {Name: "y", Term: y}}}
	states := []learn.State{{Vals: []uint64{5, 0, 0}}, {Vals: []uint64{5, 1, 2}}, {Vals: []uint64{5, 2, 4}}}
	sites := []int(nil)
	refine := func(site int, value func(ir.Term) (ir.Value, bool)) []ir.Term {
		sites = append(sites, site)
		row := make([]uint64, len(schema.Vars))
		for i, v := range schema.Vars {
			val, ok := value(v.Term)
			if !ok {
				t.Fatalf("no value of %s in the model", v.Name)
			}
			row[i] = val.BV().Uint64()
		}
		states = append(states, learn.State{Vals: row})
		cands, err := learn.Learn(b, schema, states, learn.Options{Kinds: learn.Kinds(learn.Equality)})
		if err != nil {
			t.Fatal(err)
		}
		var out []ir.Term
		for _, c := range cands {
			out = append(out, c.Term)
		}
		return out
	}
	cands := [][]ir.Term{nil, {mixed}}
	r := HoudiniWith(context.Background(), s, b, cands, edges, HoudiniOptions{Refine: refine})
	if r.Unknown != "" || len(sites) == 0 || sites[0] != 1 {
		t.Fatalf("Refine: sites %v (%s), want site 1 refined", sites, r.Unknown)
	}
	kept := r.Invariants(cands, 1)
	if len(kept) == 0 || len(r.Kept[1]) != len(cands[1]) {
		t.Fatalf("Refine: kept %v of %d candidates", r.Kept[1], len(cands[1]))
	}
	// What is kept implies y = 2x.
	q := Query{B: b, Assertions: append(kept, b.Not(b.Eq(y, b.Add(x, x))))}
	if res := s.Check(context.Background(), q); res.Status != smtlib.Unsat {
		t.Errorf("kept invariants do not imply y = 2x: %v", res.Status)
	}
	if len(sites) > maxRefinements {
		t.Errorf("%d refinements of one site, want at most %d", len(sites), maxRefinements)
	}
}
