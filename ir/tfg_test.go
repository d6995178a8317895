package ir_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"eqc/ir"
)

// A toy state: i, n, s (32 bits each) and a memory.
type toy struct {
	b       *ir.Builder
	g       *ir.TFG
	i, n, s ir.Term
	mem     ir.Term
}

func newToy() *toy {
	b := ir.NewBuilder()
	t := &toy{b: b,
		i: b.Var("i", ir.BVSort(32)), n: b.Var("n", ir.BVSort(32)), s: b.Var("s", ir.BVSort(32)),
		mem: b.Var("mem", ir.MemSort)}
	t.g = ir.NewTFG(b, "toy", []ir.StateVar{{Name: "i", Var: t.i}, {Name: "n", Var: t.n}, {Name: "s", Var: t.s}, {Name: "mem", Var: t.mem}})
	return t
}

// edge adds from→to under cond with the components of set changed.
func (t *toy) edge(from, to ir.NodeID, cond ir.Term, set map[ir.Term]ir.Term, calls ...ir.Call) *ir.Edge {
	tr := []ir.Term{t.i, t.n, t.s, t.mem}
	for i, v := range tr {
		if x, ok := set[v]; ok {
			tr[i] = x
		}
	}
	return t.g.AddEdge(&ir.Edge{From: from, To: to, Cond: cond, Transfer: tr, Calls: calls})
}

func (t *toy) c32(v uint64) ir.Term { return t.b.Const(32, v) }

func (t *toy) state(rng *rand.Rand, n uint64) []ir.Value {
	return []ir.Value{ir.BVValue(ir.NewBV(32, rng.Uint64())), ir.BVValue(ir.NewBV(32, n)),
		ir.BVValue(ir.NewBV(32, rng.Uint64())), ir.MemValue(ir.NewMem(byte(rng.Uint64())))}
}

// calls: f(s, mem) returns a hash; its memory result is its argument.
var toyEnv = &ir.MapEnv{Funcs: map[string]func([]ir.Value) ir.Value{
	"f": func(a []ir.Value) ir.Value { return ir.BVValue(ir.NewBV(32, a[0].BV().Uint64()*2654435761+1)) },
}}

// loopTFG: entry → h (i := 0); h → c if i <u n, h → exit otherwise;
// c → p if bit 0 of s^i (s := s + i), else → q (s := f(s) - 1, calling
// f); p, q → h with i := i + 1.
func loopTFG() (*toy, map[string]ir.NodeID) {
	t := newToy()
	b, g := t.b, t.g
	nodes := map[string]ir.NodeID{}
	for _, k := range []struct {
		name string
		kind ir.NodeKind
	}{{"entry", ir.NodeEntry}, {"h", ir.NodeLoopHead}, {"c", ir.NodeBlock}, {"p", ir.NodeBlock}, {"q", ir.NodeBlock}, {"exit", ir.NodeExit}} {
		nodes[k.name] = g.AddNode(uint64(len(nodes)), k.kind)
	}
	f := b.DeclareFunc("f", []ir.Sort{ir.BVSort(32), ir.MemSort}, ir.BVSort(32))
	lt := b.Ult(t.i, t.n)
	odd := b.Eq(b.Extract(b.BVXor(t.s, t.i), 0, 0), b.Const(1, 1))
	t.edge(nodes["entry"], nodes["h"], ir.NoTerm, map[ir.Term]ir.Term{t.i: t.c32(0)})
	t.edge(nodes["h"], nodes["c"], lt, nil)
	t.edge(nodes["h"], nodes["exit"], b.Not(lt), nil)
	t.edge(nodes["c"], nodes["p"], odd, map[ir.Term]ir.Term{t.s: b.Add(t.s, t.i)})
	t.edge(nodes["c"], nodes["q"], b.Not(odd), map[ir.Term]ir.Term{t.s: b.Sub(b.Apply(f, t.s, t.mem), t.c32(1))},
		ir.Call{Callee: "f", Args: []ir.Term{t.s, t.mem}})
	t.edge(nodes["p"], nodes["h"], ir.NoTerm, map[ir.Term]ir.Term{t.i: b.Add(t.i, t.c32(1))})
	t.edge(nodes["q"], nodes["h"], ir.NoTerm, map[ir.Term]ir.Term{t.i: b.Add(t.i, t.c32(1))})
	return t, nodes
}

// walk steps the base TFG from node n until it has arrived at target
// arrivals times, collecting the calls.
func walk(t *testing.T, g *ir.TFG, n, target ir.NodeID, arrivals int, st []ir.Value) ([]ir.Value, []ir.CallValue) {
	t.Helper()
	var calls []ir.CallValue
	for a := 0; a < arrivals; {
		s, err := g.EvalStep(n, st, toyEnv)
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, s.Calls...)
		st, n = s.Next, s.Edge.To
		if n == target {
			a++
		}
	}
	return st, calls
}

func sameStates(x, y []ir.Value) bool {
	for i := range x {
		if !x[i].Equal(y[i]) {
			return false
		}
	}
	return true
}

func sameCalls(x, y []ir.CallValue) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i].Callee != y[i].Callee || !sameStates(x[i].Args, y[i].Args) {
			return false
		}
	}
	return true
}

func TestTFGCheckAndExclusive(t *testing.T) {
	tt, _ := loopTFG()
	if err := tt.g.Check(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range tt.g.Nodes {
		if len(tt.g.Out(n.ID)) == 0 {
			continue
		}
		for k := 0; k < 20; k++ {
			if _, err := tt.g.EvalStep(n.ID, tt.state(rng, rng.Uint64()), toyEnv); err != nil {
				t.Fatal(err)
			}
		}
	}
	bad := newToy()
	x := bad.g.AddNode(0, ir.NodeEntry)
	bad.g.AddEdge(&ir.Edge{From: x, To: x, Cond: bad.c32(1)})
	if bad.g.Check() == nil {
		t.Fatal("a bit-vector condition passed Check")
	}
}

// TestPathSetUnroll: eight iterations of a loop whose body branches are one
// composite edge of 2^8 paths, equal to eight trips around the base TFG.
func TestPathSetUnroll(t *testing.T) {
	tt, nodes := loopTFG()
	g := tt.g
	h := nodes["h"]
	for _, arrivals := range []int{1, 2, 8} {
		e := g.PathSet(h, h, ir.PathOptions{Mu: arrivals, Arrivals: arrivals})
		if e == nil {
			t.Fatalf("no path set for %d arrivals", arrivals)
		}
		if want := uint64(1) << arrivals; e.Path.Count() != want {
			t.Fatalf("%d arrivals: %d paths, want %d", arrivals, e.Path.Count(), want)
		}
		if len(e.Path.Paths(3)) != min(3, 1<<arrivals) {
			t.Fatalf("Paths(3) gave %d", len(e.Path.Paths(3)))
		}
		if g.PathSet(h, h, ir.PathOptions{Mu: arrivals - 1, Arrivals: arrivals}) != nil {
			t.Fatalf("%d arrivals fit in %d retreating edges", arrivals, arrivals-1)
		}
		rng := rand.New(rand.NewPCG(5, uint64(arrivals)))
		for k := 0; k < 200; k++ {
			st := tt.state(rng, rng.Uint64N(40))
			st[0] = ir.BVValue(ir.NewBV(32, rng.Uint64N(40)))
			step, err := composite(g, e).EvalStep(0, st, toyEnv)
			if err != nil {
				t.Fatal(err)
			}
			trips := st[1].BV().Uint64() - min(st[1].BV().Uint64(), st[0].BV().Uint64())
			taken := step.Edge.ID == 0
			if taken != (trips >= uint64(arrivals)) {
				t.Fatalf("i=%v n=%v: composite taken=%v", st[0], st[1], taken)
			}
			if !taken {
				continue
			}
			want, calls := walk(t, g, h, h, arrivals, st)
			if !sameStates(step.Next, want) || !sameCalls(step.Calls, calls) {
				t.Fatalf("i=%v n=%v: composite gives %v calls %v, base %v calls %v", st[0], st[1], step.Next, step.Calls, want, calls)
			}
		}
	}
}

// composite wraps e in a one-node TFG (edge 0: e, edge 1: its negation) so
// EvalStep can evaluate it.
func composite(g *ir.TFG, e *ir.Edge) *ir.TFG {
	c := ir.NewTFG(g.B, "composite", g.State)
	n := c.AddNode(0, ir.NodeEntry)
	x := c.AddNode(0, ir.NodeExit)
	cp := *e
	cp.From, cp.To, cp.Path = n, x, nil
	c.AddEdge(&cp)
	c.AddEdge(&ir.Edge{From: n, To: x, Cond: g.B.Not(e.Cond)})
	return c
}

// TestPathSetDiamonds: 24 diamonds in a row are 2^24 paths; the path set is
// built in linear time and agrees with the base TFG.
func TestPathSetDiamonds(t *testing.T) {
	const k = 24
	tt := newToy()
	b, g := tt.b, tt.g
	var heads []ir.NodeID
	for d := 0; d <= k; d++ {
		kind := ir.NodeBlock
		switch d {
		case 0:
			kind = ir.NodeEntry
		case k:
			kind = ir.NodeExit
		}
		heads = append(heads, g.AddNode(uint64(3*d), kind))
		if d == k {
			break
		}
		l, r := g.AddNode(uint64(3*d+1), ir.NodeBlock), g.AddNode(uint64(3*d+2), ir.NodeBlock)
		bit := b.Eq(b.Extract(tt.n, uint32(d), uint32(d)), b.Const(1, 1))
		tt.edge(heads[d], l, bit, map[ir.Term]ir.Term{tt.s: b.Add(tt.s, tt.c32(uint64(d+1)))})
		tt.edge(heads[d], r, b.Not(bit), map[ir.Term]ir.Term{tt.s: b.Mul(tt.s, tt.c32(3))})
		_ = l
		_ = r
	}
	for d := 0; d < k; d++ {
		tt.edge(heads[d]+1, heads[d+1], ir.NoTerm, nil)
		tt.edge(heads[d]+2, heads[d+1], ir.NoTerm, nil)
	}
	start := time.Now()
	e := g.PathSet(heads[0], heads[k], ir.PathOptions{})
	if e == nil || e.Path.Count() != 1<<k {
		t.Fatalf("path set %v", e)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("path set of %d diamonds took %v", k, d)
	}
	// An edge filter that refuses the left arm of the first and last
	// diamonds leaves a quarter of the paths.
	left := map[ir.NodeID]bool{heads[0] + 1: true, heads[k-1] + 1: true}
	if e := g.PathSet(heads[0], heads[k], ir.PathOptions{Edge: func(e *ir.Edge) bool { return !left[e.To] }}); e == nil || e.Path.Count() != 1<<(k-2) {
		t.Fatalf("filtered path set %v", e)
	}
	c := g.Collapse(nil)
	if len(c.Nodes) != 2 || len(c.Edges) != 1 {
		t.Fatalf("collapsed diamonds: %s", c.Stats())
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for j := 0; j < 50; j++ {
		st := tt.state(rng, rng.Uint64())
		base, err := g.Run(st, toyEnv, 1000)
		if err != nil {
			t.Fatal(err)
		}
		col, err := c.Run(st, toyEnv, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if !sameStates(base[len(base)-1].Next, col[len(col)-1].Next) {
			t.Fatalf("collapsed run differs")
		}
	}
}

// TestCollapseLoop: the loop collapses to entry, head and exit with one
// composite edge per pair of consecutive anchors, and runs like the base.
func TestCollapseLoop(t *testing.T) {
	for _, simplify := range []bool{false, true} {
		t.Run(fmt.Sprint("simplify=", simplify), func(t *testing.T) {
			tt, nodes := loopTFG()
			g := tt.g
			if simplify {
				g.Simplifier = ir.NewSimplifier(g.B)
			}
			anchors := g.Anchors()
			if len(anchors) != 3 || anchors[0] != nodes["entry"] || anchors[1] != nodes["h"] || anchors[2] != nodes["exit"] {
				t.Fatalf("anchors %v", anchors)
			}
			c := g.Collapse(nil)
			if len(c.Nodes) != 3 || len(c.Edges) != 3 {
				t.Fatalf("collapsed: %s", c.Stats())
			}
			if err := c.Check(); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(9, 10))
			for j := 0; j < 100; j++ {
				st := tt.state(rng, rng.Uint64N(12))
				base, err := g.Run(st, toyEnv, 1000)
				if err != nil {
					t.Fatal(err)
				}
				col, err := c.Run(st, toyEnv, 1000)
				if err != nil {
					t.Fatal(err)
				}
				var bc, cc []ir.CallValue
				for _, s := range base {
					bc = append(bc, s.Calls...)
				}
				for _, s := range col {
					cc = append(cc, s.Calls...)
				}
				if !sameStates(base[len(base)-1].Next, col[len(col)-1].Next) || !sameCalls(bc, cc) {
					t.Fatalf("n=%v: collapsed run differs", st[1])
				}
			}
		})
	}
}

// TestCompositeEdges counts the composite edges between the entry, the loop
// heads and the exit on small graphs whose count is known: an acyclic
// function with a call and a trap has one, a loop three, two loops in
// sequence five, a loop nest five, and two loops that can reach each other
// from the entry the bound (n+1)² = 9. Loop heads marked as blocks are
// found by their retreating edges.
func TestCompositeEdges(t *testing.T) {
	graph := func(kinds string, edges ...[2]int) *ir.TFG {
		tt := newToy()
		for i, k := range kinds {
			kind := map[rune]ir.NodeKind{'E': ir.NodeEntry, 'b': ir.NodeBlock, 'L': ir.NodeLoopHead,
				'c': ir.NodeCallSite, 'X': ir.NodeExit, 'H': ir.NodeHalt}[k]
			tt.g.AddNode(uint64(i), kind)
		}
		for _, e := range edges {
			tt.edge(ir.NodeID(e[0]), ir.NodeID(e[1]), ir.NoTerm, nil)
		}
		return tt.g
	}
	loop, _ := loopTFG()
	for _, c := range []struct {
		name string
		g    *ir.TFG
		want int
	}{
		{"loopTFG", loop.g, 3},
		// entry → call → b → exit; entry → halt.
		{"acyclic", graph("EcbXH", [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 3}, [2]int{0, 4}), 1},
		// entry → h1 ⇄ b1, h1 → h2 ⇄ b2, h2 → exit; heads unmarked.
		{"sequence", graph("EbbbbX", [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 1}, [2]int{1, 3}, [2]int{3, 4}, [2]int{4, 3}, [2]int{3, 5}), 5},
		// entry → outer; outer → inner → outer (latch b); inner ⇄ b2; outer → exit.
		{"nest", graph("ELLbX", [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 3}, [2]int{3, 2}, [2]int{2, 1}, [2]int{1, 4}), 5},
		// both heads reachable from the entry, from each other, from themselves, and reach the exit.
		{"dense", graph("EbLLX", [2]int{0, 1}, [2]int{1, 2}, [2]int{1, 3}, [2]int{2, 2}, [2]int{2, 3}, [2]int{3, 3}, [2]int{3, 2},
			[2]int{2, 4}, [2]int{3, 4}, [2]int{0, 4}), 9},
	} {
		if got := c.g.CompositeEdges(); got != c.want {
			t.Errorf("%s: %d composite edges, want %d", c.name, got, c.want)
		}
	}
}

func TestSeqParFault(t *testing.T) {
	tt := newToy()
	b, g := tt.b, tt.g
	u, v, w := g.AddNode(0, ir.NodeEntry), g.AddNode(1, ir.NodeBlock), g.AddNode(2, ir.NodeExit)
	div0 := b.Eq(tt.n, tt.c32(0))
	e1 := g.AddEdge(&ir.Edge{From: u, To: v, Transfer: []ir.Term{tt.n, tt.n, tt.s, tt.mem}})
	e2 := g.AddEdge(&ir.Edge{From: v, To: w, Fault: b.Eq(tt.i, tt.c32(0)), Transfer: []ir.Term{tt.i, tt.n, b.UDiv(tt.s, tt.i), tt.mem}})
	s := g.Seq(e1, e2)
	if s.Fault != div0 {
		t.Fatalf("sequential fault is %s, want %s", b.Short(s.Fault), b.Short(div0))
	}
	if s.Transfer[2] != b.UDiv(tt.s, tt.n) {
		t.Fatalf("sequential transfer is %s", b.Short(s.Transfer[2]))
	}
	// UB, the part of a fault a library's contract makes undefined,
	// composes as the fault does: over the first edge's state, or'ed in
	// sequence, chosen by the own condition in parallel.
	ub2 := b.Ult(tt.i, tt.c32(4))
	e3 := g.AddEdge(&ir.Edge{From: v, To: w, Cond: b.Not(b.Eq(tt.s, tt.c32(0))), Fault: ub2, UB: ub2, Transfer: []ir.Term{tt.i, tt.n, tt.s, tt.mem}})
	if s3 := g.Seq(e1, e3); s3.UB != b.Ult(tt.n, tt.c32(4)) || s3.Fault != s3.UB {
		t.Fatalf("sequential UB is %s (fault %s), want %s", b.Short(s3.UB), b.Short(s3.Fault), b.Short(b.Ult(tt.n, tt.c32(4))))
	}
	if s.UB != b.False() {
		t.Fatalf("sequential UB of edges without any is %s", b.Short(s.UB))
	}
	p := g.Par(e3, g.AddEdge(&ir.Edge{From: v, To: w, Cond: b.Eq(tt.s, tt.c32(0)), Transfer: []ir.Term{tt.i, tt.n, tt.s, tt.mem}}))
	for _, c := range []struct {
		s, i uint64
		want bool
	}{{1, 2, true}, {1, 5, false}, {0, 2, false}} {
		env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{tt.s: ir.BVValue(ir.NewBV(32, c.s)), tt.i: ir.BVValue(ir.NewBV(32, c.i))}}
		if got, err := ir.NewEvaluator(b, env).Eval(p.UB); err != nil || got.Bool() != c.want {
			t.Errorf("parallel UB at s=%d i=%d: %v %v, want %v", c.s, c.i, got, err, c.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("composing non-adjacent edges did not panic")
		}
	}()
	g.Seq(e2, e1)
}

// TestStepsFollowRuns: on eight iterations of a branching loop (256
// paths), the places Steps visits whose merged prefix a state takes, and
// whose next edge it then takes, are the steps of that state's run, with
// the same states before them, in linear many visits.
func TestStepsFollowRuns(t *testing.T) {
	tt, nodes := loopTFG()
	g := tt.g
	h := nodes["h"]
	const arrivals = 8
	e := g.PathSet(h, h, ir.PathOptions{Mu: arrivals, Arrivals: arrivals})
	type place struct{ prefix, next *ir.Edge }
	var places []place
	if !g.Steps(e.Path, 1000, func(prefix, next *ir.Edge) { places = append(places, place{prefix, next}) }) {
		t.Fatal("Steps stopped before the limit")
	}
	if len(places) > 8*arrivals {
		t.Fatalf("%d visits for %d iterations", len(places), arrivals)
	}
	if g.Steps(e.Path, 5, func(_, _ *ir.Edge) {}) {
		t.Fatal("Steps did not report the limit")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for k := 0; k < 100; k++ {
		st := tt.state(rng, rng.Uint64N(40))
		st[0] = ir.BVValue(ir.NewBV(32, rng.Uint64N(20)))
		st[1] = ir.BVValue(ir.NewBV(32, st[0].BV().Uint64()+arrivals+rng.Uint64N(3)))
		// The run: its steps from h until it is back at h arrivals times.
		var want []string
		n, cur := h, st
		for a := 0; a < arrivals; {
			s, err := g.EvalStep(n, cur, toyEnv)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, fmt.Sprint(s.Edge.ID, cur))
			cur, n = s.Next, s.Edge.To
			if n == h {
				a++
			}
		}
		var got []string
		for _, p := range places {
			at := st
			if p.prefix != nil {
				s, err := composite(g, p.prefix).EvalStep(0, st, toyEnv)
				if err != nil {
					t.Fatal(err)
				}
				if s.Edge.ID != 0 || s.Fault {
					continue
				}
				at = s.Next
			}
			if s, err := composite(g, p.next).EvalStep(0, at, toyEnv); err != nil {
				t.Fatal(err)
			} else if s.Edge.ID == 0 {
				got = append(got, fmt.Sprint(p.next.ID, at))
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("state %v:\nvisits taken %v\nrun steps    %v", st, got, want)
		}
	}
}
