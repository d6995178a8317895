package pair

import (
	"testing"

	"eqc/inputs"
	"eqc/ir"
	"eqc/x86"
)

// Over the first eight co-executions, strings start at every alignment
// and end at every place in their 8-byte word, have no NUL before the
// end, and are at least as long as asked (up to maxStringLen).
func TestPlaceString(t *testing.T) {
	env := &hashEnv{seed: 1}
	starts, ends := map[uint64]bool{}, map[uint64]bool{}
	for k := range 8 {
		for _, n := range []uint64{0, 1, 3, 40, 1 << 20} {
			addr, s := placeString(env, k, 1, n, nil, nil)
			end := -1
			for j, c := range s {
				if c == 0 {
					end = j
					break
				}
			}
			if end < 0 || uint64(end) < min(n, maxStringLen) || end > maxStringLen+7 {
				t.Fatalf("run %d, length %d: the string ends at %d", k, n, end)
			}
			if len(s) < end+9 {
				t.Errorf("run %d, length %d: %d bytes after the NUL, want 8 a word-at-a-time read may take", k, n, len(s)-end-1)
			}
			starts[addr%8] = true
			ends[(addr+uint64(end))%8] = true
		}
	}
	if len(starts) != 8 || len(ends) != 8 {
		t.Errorf("starts mod 8 %v, NULs mod 8 %v: want all eight of each", starts, ends)
	}
}

// TestArrayFill: the run of small elements with long counts
// (inputs.SmallLongRun) fills its arrays with small elements, and at
// least one run with random elements has long counts too; a source that
// traps on overflow gets moderate elements in that run instead, and the
// other kinds as before.
func TestArrayFill(t *testing.T) {
	for _, traps := range []bool{false, true} {
		if f := arrayFill(inputs.SmallLongRun, traps); f != inputs.FillSmall {
			t.Errorf("traps %v: run %d (SmallLongRun) fills with %v, want small elements", traps, inputs.SmallLongRun, f)
		}
		want := inputs.FillRandom
		if traps {
			want = inputs.FillModerate
		}
		if f := arrayFill(2, traps); f != want {
			t.Errorf("traps %v: run 2 fills with %v, want %v", traps, f, want)
		}
		if f := arrayFill(inputs.ZeroRun, traps); f != inputs.FillZero {
			t.Errorf("traps %v: the zero run fills with %v", traps, f)
		}
	}
}

// TestPlaceStringPairs: two string parameters are at a distance that
// varies over the runs (at one distance, the canonical addresses and the
// nodes' definitions took one for the other plus it), and in
// sameStringRuns the second repeats the first, wholly in the first of
// them and but for its last byte in the second.
func TestPlaceStringPairs(t *testing.T) {
	dists := map[uint64]bool{}
	for k := range 9 {
		env := &hashEnv{seed: uint64(k)*7919 + 1}
		a0, s0 := placeString(env, k, 0, 40, nil, nil)
		a1, s1 := placeString(env, k, 1, 40, s0, nil)
		dists[a1-a0] = true
		if a1%8 != a0%8 {
			t.Errorf("run %d: the strings start at %d and %d past a word", k, a0%8, a1%8)
		}
		n0, n1 := cstrlen(s0), cstrlen(s1)
		same := string(s0[:n0]) == string(s1[:n1])
		switch k {
		case sameStringRuns[0]:
			if !same {
				t.Errorf("run %d: %q and %q, want the same string", k, s0[:n0], s1[:n1])
			}
		case sameStringRuns[1]:
			if n0 != n1 || n0 == 0 || string(s0[:n0-1]) != string(s1[:n1-1]) || s0[n0-1] == s1[n1-1] {
				t.Errorf("run %d: %q and %q, want them to differ in the last byte only", k, s0[:n0], s1[:n1])
			}
		default:
			if same {
				t.Errorf("run %d: the same string %q twice", k, s0[:n0])
			}
		}
	}
	if len(dists) < 5 {
		t.Errorf("over 9 runs the strings are %d distinct distances apart", len(dists))
	}
}

func cstrlen(s []byte) int {
	for i, c := range s {
		if c == 0 {
			return i
		}
	}
	return len(s)
}

// TestRunVisitsBounded: a run that reaches an anchor at every step (a
// loop that calls, where each call site is one, and here a loop head
// that loops on itself) keeps at most maxRunVisits visits, whatever its
// step bound: the states it keeps are what filled a worker's memory.
func TestRunVisitsBounded(t *testing.T) {
	b := ir.NewBuilder()
	g, state := handTFG(b, "spin")
	g.AddNode(0, ir.NodeEntry)
	g.AddNode(1, ir.NodeLoopHead)
	g.AddNode(2, ir.NodeExit)
	rax := x86.StateGPR0 + x86.RAX
	edge := func(from, to ir.NodeID, cond ir.Term) {
		tr := make([]ir.Term, x86.StateLen)
		for i := range tr {
			tr[i] = state[i].Var
		}
		tr[rax] = b.Add(state[rax].Var, b.Const(64, 1))
		g.AddEdge(&ir.Edge{From: from, To: to, Cond: cond, Fault: b.False(), Transfer: tr})
	}
	edge(0, 1, b.True())
	stop := b.Eq(state[rax].Var, b.Const(64, 1<<40))
	edge(1, 1, b.Not(stop))
	edge(1, 2, stop)
	st := make([]ir.Value, x86.StateLen)
	for i := range st {
		st[i] = ir.BVValue(ir.NewBV(64, 0))
	}
	st[x86.StateMem] = ir.MemValue(ir.NewMem(0))
	r := execute(g, AnchorSet(g), st, &ir.MapEnv{}, 1<<40, runLimits{steps: 10 * maxRunVisits, visits: maxRunVisits}, false)
	if len(r.Visits) != maxRunVisits || r.Ended {
		t.Errorf("%d visits, ended %v; want %d, not ended", len(r.Visits), r.Ended, maxRunVisits)
	}
}

// TestCallLog: in co-execution a callee's memory carries the log of the
// calls made, so two runs' memories agree only after the same calls in
// the same order (with equal arguments, an address in the caller's frame
// counting as one value); the C library's const functions are not
// logged, and a callee's result does not depend on where a local it is
// given lives.
func TestCallLog(t *testing.T) {
	env := &hashEnv{seed: 3}
	b := ir.NewBuilder()
	fn := func(callee, result string, n int) *ir.Func {
		sorts := make([]ir.Sort, n+2)
		for i := range sorts {
			sorts[i] = ir.BVSort(64)
		}
		sorts[n+1] = ir.MemSort
		so := ir.BVSort(64)
		if result == "mem" {
			so = ir.MemSort
		}
		name := x86.CallFunc{Callee: callee, N: n, Complete: true, Result: result}.String()
		f := b.DeclareFunc(name, sorts, so)
		f.Callee = true // as the lifter declares it
		return f
	}
	word := func(v uint64) ir.Value { return ir.BVValue(ir.NewBV(64, v)) }
	const sp1, sp2 = 0x7ff0_0000_1000, 0x7ff0_0000_2000 // the two builds' stack pointers
	call := func(m *ir.Mem, callee string, arg, sp uint64) *ir.Mem {
		v, _ := env.ApplyFunc(fn(callee, "mem", 1), []ir.Value{word(arg), word(sp), ir.MemValue(m)})
		return v.Mem()
	}
	m0 := ir.NewMem(0)
	// The same two calls, one argument the address of a local in each
	// build's frame.
	a := call(call(m0, "f", 7, sp1), "g", sp1+0x10, sp1)
	c := call(call(m0, "f", 7, sp2), "g", sp2+0x28, sp2)
	if !HeapEqual(a, c, 0x7ff0_0001_0000) {
		t.Error("the same calls left different memories")
	}
	for _, d := range []*ir.Mem{
		call(call(m0, "g", sp2+0x28, sp2), "f", 7, sp2), // reordered
		call(m0, "f", 7, sp2),                           // one missing
		call(call(m0, "f", 8, sp2), "g", sp2+0x28, sp2), // another argument
	} {
		if HeapEqual(a, d, 0x7ff0_0001_0000) {
			t.Error("different calls left the same memory")
		}
	}
	if m := call(m0, "abs", 5, sp1); !HeapEqual(m, m0, 0x7ff0_0001_0000) {
		t.Error("a const library function changed the memory")
	}
	r1, _ := env.ApplyFunc(fn("g", "rax", 1), []ir.Value{word(sp1 + 0x10), word(sp1), ir.MemValue(m0)})
	r2, _ := env.ApplyFunc(fn("g", "rax", 1), []ir.Value{word(sp2 + 0x28), word(sp2), ir.MemValue(m0)})
	if !r1.BV().Equal(r2.BV()) {
		t.Error("a callee's result depends on where the local it is given lives")
	}
}

// TestCallResultsSmall: about a quarter of a co-execution's call results
// are 0, 1 or 2, each of them taken, so that runs take the branches of a
// failed call and of a count as well as those of a random word; a result
// still depends on the callee and its arguments alone.
func TestCallResultsSmall(t *testing.T) {
	b := ir.NewBuilder()
	sorts := []ir.Sort{ir.BVSort(64), ir.BVSort(64), ir.MemSort}
	f := b.DeclareFunc(x86.CallFunc{Callee: "g", N: 1, Complete: true, Result: "rax"}.String(), sorts, ir.BVSort(64))
	f.Callee = true
	word := func(v uint64) ir.Value { return ir.BVValue(ir.NewBV(64, v)) }
	seen := map[uint64]int{}
	const calls = 4000
	for k := uint64(0); k < calls; k++ {
		env := &hashEnv{seed: k%8*7919 + 1}
		args := []ir.Value{word(k / 8), word(0x7ff0_0000_1000), ir.MemValue(ir.NewMem(0))}
		v, _ := env.ApplyFunc(f, args)
		again, _ := env.ApplyFunc(f, args)
		if !v.BV().Equal(again.BV()) {
			t.Fatal("one call, two results")
		}
		if x := v.BV().Uint64(); x <= 2 {
			seen[x]++
		}
	}
	small := seen[0] + seen[1] + seen[2]
	if small < calls/5 || small > calls/3 || seen[0] == 0 || seen[1] == 0 || seen[2] == 0 {
		t.Errorf("small results %v of %d calls, want about a quarter, each of 0, 1 and 2", seen, calls)
	}
}
