package ub

import (
	"math/rand/v2"
	"testing"

	"eqc/ir"
)

// TestSkipFrameStores pins when a read may pass a store under the OBVA
// hypotheses: only a read covered by a hypothesized access against a store
// at a constant frame offset, or a read at a constant frame offset against
// a store covered by one; never two accesses of which neither is in the
// frame, nor one outside the recorded spans, nor a frame access beyond
// the frame's top (rsp+8).
func TestSkipFrameStores(t *testing.T) {
	b := ir.NewBuilder()
	simp := ir.NewSimplifier(b)
	rsp := b.Var("src.rsp", ir.BVSort(64))
	p := b.Var("src.rdi", ir.BVSort(64))
	q := b.Var("src.rsi", ir.BVSort(64))
	m := b.Var("mem", ir.MemSort)
	c := func(v int64) ir.Term { return b.Const(64, uint64(v)) }
	frame := func(off int64) ir.Term { return b.Add(rsp, c(off)) }
	v := b.Var("v", ir.BVSort(64))
	cases := []struct {
		name string
		read ir.Term // a select over one store on m
		skip bool    // the rewrite reads m itself
	}{
		{"pointer read past a frame spill", b.Select(b.Store(m, frame(-16), 8, v), p, 4), true},
		{"pointer read inside the span past a spill", b.Select(b.Store(m, frame(-16), 8, v), b.Add(p, c(4)), 4), true},
		{"pointer read past the span", b.Select(b.Store(m, frame(-16), 8, v), b.Add(p, c(6)), 4), false},
		{"unrecorded pointer read past a spill", b.Select(b.Store(m, frame(-16), 8, v), q, 4), false},
		{"frame read past a pointer store", b.Select(b.Store(m, p, 8, v), frame(-16), 8), true},
		{"frame read past an unrecorded store", b.Select(b.Store(m, q, 8, v), frame(-16), 8), false},
		{"pointer read past a pointer store", b.Select(b.Store(m, p, 8, v), p, 4), false},
		{"caller's frame read past a pointer store", b.Select(b.Store(m, p, 8, v), frame(8), 8), false},
		{"pointer read past a store into the caller's frame", b.Select(b.Store(m, frame(8), 8, v), p, 4), false},
		{"read at the return address past a pointer store", b.Select(b.Store(m, p, 8, v), frame(0), 8), true},
	}
	misses := Misses{}
	misses.add(b, p, 8)
	for _, tc := range cases {
		got := SkipFrameStores(b, simp, rsp, misses, []ir.Term{tc.read})[0]
		n, _ := b.Params(tc.read)
		passed := got == simp.Simplify(b.Select(m, b.Arg(tc.read, 1), n))
		if passed != tc.skip {
			t.Errorf("%s: %s, want skip=%v", tc.name, b.Short(got), tc.skip)
		}
	}
	// A pointer reloaded from its spill becomes the argument, and an access
	// through it is then covered too (the misses gain the rewritten base).
	spilled := b.Store(m, frame(-16), 8, p)
	reload := b.Select(spilled, frame(-16), 8)
	ms := Misses{}
	ms.add(b, reload, 4)
	got := SkipFrameStores(b, simp, rsp, ms, []ir.Term{b.Select(b.Store(spilled, frame(-24), 8, v), reload, 4)})[0]
	if want := simp.Simplify(b.Select(m, p, 4)); got != want {
		t.Errorf("reloaded pointer: %s, want %s", b.Short(got), b.Short(want))
	}
}

// TestObjectOf pins which addresses the OBVA model keeps inside a global:
// those whose one pointer summand is the global's address, every other
// summand an integer offset (constant, scaled, or a narrower value
// extended); never one with two objects' addresses, an unscaled 64-bit
// summand (it may be a pointer cast to an integer), or a frame address.
func TestObjectOf(t *testing.T) {
	b := ir.NewBuilder()
	bv := ir.BVSort(64)
	x, y := b.Var("&X", bv), b.Var("&Y", bv)
	rsp := b.Var("src.rsp", bv)
	i32 := b.Var("n1.src.stack-0xc/4", ir.BVSort(32)) // int i
	l64 := b.Var("n1.src.stack-0x18/8", bv)           // long j
	c := func(v uint64) ir.Term { return b.Const(64, v) }
	objects := map[ir.Term]uint64{x: 400, y: 400}
	taint := AnalyzeFrameTaint(b, rsp, ir.NoTerm, nil)
	cases := []struct {
		name string
		a    ir.Term
		base ir.Term // NoTerm: no object
	}{
		{"the object itself", x, x},
		{"a constant offset", b.Add(x, c(8)), x},
		{"an int index scaled", b.Add(x, b.Shl(b.SignExt(i32, 32), c(2))), x},
		{"a long index scaled", b.Add(x, b.Mul(c(4), l64)), x},
		{"an int index into chars", b.Add(b.SignExt(i32, 32), x), x},
		{"a scaled index and a field offset", b.Add(b.Add(x, b.Shl(b.SignExt(i32, 32), c(3))), c(4)), x},
		{"an index subtracted", b.Sub(x, b.Shl(b.ZeroExt(i32, 32), c(2))), x},
		{"an unscaled long", b.Add(x, l64), ir.NoTerm},
		{"two objects", b.Add(x, y), ir.NoTerm},
		{"an object subtracted", b.Sub(x, y), ir.NoTerm},
		{"a frame address", b.Add(x, b.Shl(rsp, c(1))), ir.NoTerm},
		{"no object", b.Add(l64, c(4)), ir.NoTerm},
		{"an object scaled", b.Add(c(8), b.Shl(x, c(1))), ir.NoTerm},
	}
	for _, tc := range cases {
		base, size, ok := objectOf(b, tc.a, objects, taint)
		if ok != (tc.base != ir.NoTerm) || (ok && (base != tc.base || size != 400)) {
			t.Errorf("%s (%s): object %v %s, want %v", tc.name, b.Short(tc.a), ok, b.Short(base), b.Short(tc.base))
		}
	}
	if _, _, ok := objectOf(b, x, nil, taint); ok {
		t.Errorf("an object without Objects")
	}
}

// TestOBVAManyPaths: a loop whose body loads a[i] in its condition and
// again on one branch (m := a[i] when a[i] > m), unrolled six passes: 64
// paths, past MaxOBVAPaths, so the hypotheses come by merged prefixes.
// Oracle: on random states whose accesses all miss the frame every
// hypothesis holds (they are facts about such runs), and when the run's
// k-th pass loads from a frame slot, for each k, some hypothesis fails
// (they speak of every pass).
func TestOBVAManyPaths(t *testing.T) {
	b := ir.NewBuilder()
	rsp, p, i, m := b.Var("rsp", ir.BVSort(64)), b.Var("p", ir.BVSort(64)), b.Var("i", ir.BVSort(64)), b.Var("m", ir.BVSort(32))
	mem := b.Var("mem", ir.MemSort)
	g := ir.NewTFG(b, "max", []ir.StateVar{{Name: "rsp", Var: rsp}, {Name: "p", Var: p}, {Name: "i", Var: i}, {Name: "m", Var: m}, {Name: "mem", Var: mem}})
	h, c, take, skip, exit := g.AddNode(0, ir.NodeLoopHead), g.AddNode(1, ir.NodeBlock), g.AddNode(2, ir.NodeBlock), g.AddNode(3, ir.NodeBlock), g.AddNode(4, ir.NodeExit)
	edge := func(from, to ir.NodeID, cond ir.Term, iv, mv ir.Term) {
		g.AddEdge(&ir.Edge{From: from, To: to, Cond: cond, Transfer: []ir.Term{rsp, p, iv, mv, mem}})
	}
	elem := b.Select(mem, b.Add(p, b.Mul(i, b.Const(64, 4))), 4)
	more := b.Ult(i, b.Const(64, 1000))
	edge(h, c, more, i, m)
	edge(h, exit, b.Not(more), i, m)
	edge(c, take, b.Slt(m, elem), i, m)
	edge(c, skip, b.Not(b.Slt(m, elem)), i, m)
	edge(take, h, ir.NoTerm, b.Add(i, b.Const(64, 1)), elem)
	edge(skip, h, ir.NoTerm, b.Add(i, b.Const(64, 1)), m)
	const passes = 6
	set := g.PathSet(h, h, ir.PathOptions{Mu: passes, Arrivals: passes})
	if set.Path.Count() <= MaxOBVAPaths {
		t.Fatalf("%d paths: not past MaxOBVAPaths", set.Path.Count())
	}
	hyps := OBVAHypotheses(OBVAInput{B: b, Simp: ir.NewSimplifier(b), G: g, Paths: set.Path,
		Taint: AnalyzeFrameTaint(b, rsp, mem, nil), Rsp0: rsp})
	if len(hyps) == 0 {
		t.Fatal("no hypotheses")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const top = 0x7fff_0000
	holds := func(pv, iv uint64) bool {
		bytes := map[uint64]byte{}
		for k := uint64(0); k < 4*passes+4; k++ {
			bytes[pv+4*iv+k] = byte(rng.Uint32())
		}
		env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
			rsp: ir.BVValue(ir.NewBV(64, top)), p: ir.BVValue(ir.NewBV(64, pv)), i: ir.BVValue(ir.NewBV(64, iv)),
			m: ir.BVValue(ir.NewBV(32, uint64(rng.Uint32()))), mem: ir.MemValue(ir.MemFromMap(0, bytes)),
		}}
		ev := ir.NewEvaluator(b, env)
		for _, h := range hyps {
			v, err := ev.Eval(h)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Bool() {
				return false
			}
		}
		return true
	}
	for range 200 {
		if pv, iv := 0x1000_0000+4*rng.Uint64N(1<<20), rng.Uint64N(900); !holds(pv, iv) {
			t.Fatalf("p=%#x i=%d: a hypothesis fails on a run that misses the frame", pv, iv)
		}
	}
	for k := uint64(0); k < passes; k++ {
		failed := false
		for range 20 {
			// Pass k loads from 16 bytes below the entry rsp; the
			// data decide the branches, so try a few.
			iv := rng.Uint64N(900)
			failed = failed || !holds(top-16-4*(iv+k), iv)
		}
		if !failed {
			t.Errorf("pass %d loads from the frame and every hypothesis holds", k)
		}
	}
}

// TestOBVAMergedIteAddress: when the branches of a loop body move the
// pointer differently (p += 4 or p += 8), the merged prefixes of later
// passes read through an ite of the two, which is no base plus offset:
// those accesses get no hypothesis (they made the splitter's facts grow
// past memory), the first pass's do, and every hypothesis still holds on
// runs that miss the frame.
func TestOBVAMergedIteAddress(t *testing.T) {
	b := ir.NewBuilder()
	rsp, p, i := b.Var("rsp", ir.BVSort(64)), b.Var("p", ir.BVSort(64)), b.Var("i", ir.BVSort(64))
	mem := b.Var("mem", ir.MemSort)
	g := ir.NewTFG(b, "walk", []ir.StateVar{{Name: "rsp", Var: rsp}, {Name: "p", Var: p}, {Name: "i", Var: i}, {Name: "mem", Var: mem}})
	h, c, four, eight, exit := g.AddNode(0, ir.NodeLoopHead), g.AddNode(1, ir.NodeBlock), g.AddNode(2, ir.NodeBlock), g.AddNode(3, ir.NodeBlock), g.AddNode(4, ir.NodeExit)
	edge := func(from, to ir.NodeID, cond ir.Term, pv, iv ir.Term) {
		g.AddEdge(&ir.Edge{From: from, To: to, Cond: cond, Transfer: []ir.Term{rsp, pv, iv, mem}})
	}
	pos := b.Slt(b.Const(32, 0), b.Select(mem, p, 4))
	more := b.Ult(i, b.Const(64, 1000))
	edge(h, c, more, p, i)
	edge(h, exit, b.Not(more), p, i)
	edge(c, four, pos, b.Add(p, b.Const(64, 4)), i)
	edge(c, eight, b.Not(pos), b.Add(p, b.Const(64, 8)), i)
	edge(four, h, ir.NoTerm, p, b.Add(i, b.Const(64, 1)))
	edge(eight, h, ir.NoTerm, p, b.Add(i, b.Const(64, 1)))
	set := g.PathSet(h, h, ir.PathOptions{Mu: 6, Arrivals: 6})
	hyps := OBVAHypotheses(OBVAInput{B: b, Simp: ir.NewSimplifier(b), G: g, Paths: set.Path,
		Taint: AnalyzeFrameTaint(b, rsp, mem, nil), Rsp0: rsp})
	if len(hyps) == 0 {
		t.Fatal("no hypothesis for the first pass")
	}
	for _, hy := range hyps {
		for _, u := range b.PostOrder(hy) {
			if b.Op(u) == ir.OpIte && b.Sort(u) == ir.BVSort(64) {
				t.Fatalf("a hypothesis about an ite address: %s", b.Short(hy))
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		pv := 0x1000_0000 + 4*rng.Uint64N(1<<20)
		bytes := map[uint64]byte{}
		for k := uint64(0); k < 64; k++ {
			bytes[pv+k] = byte(rng.Uint32())
		}
		env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
			rsp: ir.BVValue(ir.NewBV(64, 0x7fff_0000)), p: ir.BVValue(ir.NewBV(64, pv)),
			i: ir.BVValue(ir.NewBV(64, rng.Uint64N(900))), mem: ir.MemValue(ir.MemFromMap(0, bytes)),
		}}
		ev := ir.NewEvaluator(b, env)
		for _, hy := range hyps {
			if v, err := ev.Eval(hy); err != nil || !v.Bool() {
				t.Fatalf("p=%#x: %s is %v (%v) on a run that misses the frame", pv, b.Short(hy), v, err)
			}
		}
	}
}
