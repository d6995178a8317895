package ub

import (
	"testing"

	"eqc/ir"
)

// TestFrameTaintTerms pins the may-depend-on rules on hand-built terms:
// what is computed from the entry rsp, or loaded from the frame without a
// store that gives the value exactly, may be derived; loads elsewhere are
// not, until a derived value may have been stored there. A callee keeps
// the frame above its stack pointer and derives its results from the
// values passed (the C calling convention); after a call in the
// convention's model the caller's stack arguments hold what the callee
// could derive from what it was given, or what was stored there before.
func TestFrameTaintTerms(t *testing.T) {
	b := ir.NewBuilder()
	rsp := b.Var("src.rsp", ir.BVSort(64))
	x := b.Var("src.rdi", ir.BVSort(64))
	m := b.Var("mem", ir.MemSort)
	c := func(v int64) ir.Term { return b.Const(64, uint64(v)) }
	frame := func(off int64) ir.Term { return b.Add(rsp, c(off)) }
	// A call with the lifter's form: values, stack pointer, memory.
	callRax := b.DeclareFunc("call:g/1.rax", []ir.Sort{ir.BVSort(64), ir.BVSort(64), ir.MemSort}, ir.BVSort(64))
	callMem := b.DeclareFunc("call:g/1.mem", []ir.Sort{ir.BVSort(64), ir.BVSort(64), ir.MemSort}, ir.MemSort)
	callRax.Callee, callMem.Callee = true, true
	spilled := b.Store(m, frame(-16), 8, x)
	after := b.Apply(callMem, x, frame(-32), spilled)
	// The calling convention's form: values and the view of memory.
	convRax := b.DeclareFunc("callc:g/1.rax", []ir.Sort{ir.BVSort(64), ir.MemSort}, ir.BVSort(64))
	convRax.View = true
	convMem := b.DeclareFunc("callc:g/1.mem", []ir.Sort{ir.BVSort(64), ir.MemSort}, ir.MemSort)
	convMem.View = true
	viewWithFrame := b.Store(m, x, 8, frame(-8))
	// A store at a computed frame address that may keep the old bytes
	// (the convention's replay and strip): cond ? v : old. The old bytes
	// are the frame's, which may hold anything; the store only ever puts
	// v there.
	elem := b.Add(frame(-64), b.Mul(c(4), x))
	cond := b.Ult(x, c(8))
	condStore := func(under, v ir.Term) ir.Term {
		return b.Store(under, elem, 8, b.Ite(cond, v, b.Select(under, elem, 8)))
	}
	nodeMem := b.Var("n1.mem", ir.MemSort) // a memory at a node of a product
	cases := []struct {
		name  string
		t     ir.Term
		heap  bool
		want  bool
		above bool // a derived value may have been stored at or above rsp
	}{
		{"entry rsp", rsp, false, true, false},
		{"frame address", frame(-8), false, true, false},
		{"argument", x, false, false, false},
		{"argument arithmetic", b.Add(x, b.Mul(c(4), x)), false, false, false},
		{"frame slot holding a frame address", b.Select(b.Store(m, frame(-16), 8, frame(-8)), frame(-16), 8), false, true, false},
		{"frame slot holding an argument", b.Select(b.Store(m, frame(-16), 8, x), frame(-16), 8), false, false, false},
		{"frame slot past a pointer store", b.Select(b.Store(b.Store(m, frame(-16), 8, x), b.Add(x, c(4)), 4, b.Extract(x, 31, 0)), frame(-16), 8), false, false, false},
		{"frame slot past a store of a frame address", b.Select(b.Store(b.Store(m, frame(-16), 8, x), x, 8, frame(-32)), frame(-16), 8), false, true, false},
		{"a byte of a frame slot holding an argument", b.Select(b.Store(m, frame(-16), 8, x), frame(-13), 1), false, false, false},
		{"a byte of a frame slot holding a frame address", b.Select(b.Store(m, frame(-16), 8, frame(-8)), frame(-13), 1), false, true, false},
		{"bytes partly past a frame slot", b.Select(b.Store(m, frame(-16), 8, x), frame(-12), 8), false, true, false},
		{"frame bytes nothing stored", b.Select(m, frame(-24), 8), false, true, false},
		{"a frame byte widened", b.ZeroExt(b.SignExt(b.Select(m, frame(-24), 1), 24), 32), false, false, false},
		{"four frame bytes widened", b.ZeroExt(b.Select(m, frame(-24), 4), 32), false, true, false},
		{"memory through an argument", b.Select(m, x, 8), false, false, false},
		{"memory through an argument, frame addresses escaped", b.Select(m, x, 8), true, true, false},
		{"either arm", b.Select(b.Ite(b.Eq(x, c(0)), b.Store(m, x, 8, frame(-8)), m), x, 8), false, true, false},
		{"the return address at entry", b.Select(m, rsp, 8), false, false, false},
		{"a stack argument at entry", b.Select(m, frame(8), 8), false, false, false},
		{"a stack argument at entry, frame addresses stored above rsp", b.Select(m, frame(8), 8), false, false, true},
		{"a stack argument at a node", b.Select(nodeMem, frame(16), 8), false, false, false},
		{"a stack argument at a node, frame addresses stored above rsp", b.Select(nodeMem, frame(16), 8), false, true, true},
		{"frame bytes at a node", b.Select(nodeMem, frame(-24), 8), false, true, false},
		{"a truth value about the frame", b.Ult(x, frame(-8)), false, false, false},
		{"a choice on the frame between arguments", b.Ite(b.Ult(x, frame(-8)), x, c(1)), false, false, false},
		{"a callee's result, given an argument", b.Apply(callRax, x, frame(-32), spilled), false, false, false},
		{"a callee's result, given a frame address", b.Apply(callRax, frame(-8), frame(-32), spilled), false, true, false},
		{"a callee's result, frame addresses escaped", b.Apply(callRax, x, frame(-32), spilled), true, true, false},
		{"a frame slot above the call's rsp, after it", b.Select(after, frame(-16), 8), false, false, false},
		{"a frame slot below the call's rsp, after it", b.Select(after, frame(-40), 8), false, true, false},
		{"a convention callee's result, given an argument", b.Apply(convRax, x, m), false, false, false},
		{"a convention callee's result, given a frame address", b.Apply(convRax, frame(-8), m), false, true, false},
		{"a convention callee's result, a frame address in its view but no escape", b.Apply(convRax, x, viewWithFrame), false, false, false},
		{"a convention callee's result, frame addresses escaped", b.Apply(convRax, x, m), true, true, false},
		{"a stack argument after a convention call given an argument", b.Select(b.Apply(convMem, x, m), frame(24), 8), false, false, false},
		{"a stack argument after a convention call given a frame address", b.Select(b.Apply(convMem, frame(-8), m), frame(24), 8), false, true, false},
		{"a stack argument after a convention call, frame addresses escaped", b.Select(b.Apply(convMem, x, m), frame(24), 8), true, true, false},
		{"a stack argument after a convention call, frame addresses stored above rsp", b.Select(b.Apply(convMem, x, m), frame(24), 8), false, true, true},
		{"a frame slot after a convention call", b.Select(b.Apply(convMem, x, m), frame(-24), 8), false, true, false},
		{"a frame slot past a conditional store of an argument", b.Select(condStore(spilled, x), frame(-16), 8), false, false, false},
		{"a frame slot past a conditional store of a frame address", b.Select(condStore(spilled, frame(-8)), frame(-16), 8), false, true, false},
		{"a frame slot past a conditional store, old value first", b.Select(b.Store(spilled, elem, 8, b.Ite(cond, b.Select(spilled, elem, 8), x)), frame(-16), 8), false, false, false},
	}
	for _, tc := range cases {
		ft := &FrameTaint{b: b, rsp0: rsp, mem0: m, derived: map[ir.Term]bool{}, heap: tc.heap, above: tc.above, memo: map[ir.Term]bool{}, loads: map[loadKey]bool{}}
		if got := ft.Derived(tc.t); got != tc.want {
			t.Errorf("%s: derived = %v, want %v (%s)", tc.name, got, tc.want, b.Short(tc.t))
		}
	}
}

// TestFrameTaintOBVA: under the OBVA model a load through an address not
// derived from rsp passes the stores into the frame and the return
// address, and a load there passes the stores through such addresses;
// nothing else changes (the caller's stack area above the return address,
// addresses derived from rsp).
func TestFrameTaintOBVA(t *testing.T) {
	b := ir.NewBuilder()
	rsp := b.Var("src.rsp", ir.BVSort(64))
	x := b.Var("src.rdi", ir.BVSort(64))
	m := b.Var("mem", ir.MemSort)
	c := func(v int64) ir.Term { return b.Const(64, uint64(v)) }
	frame := func(off int64) ir.Term { return b.Add(rsp, c(off)) }
	cases := []struct {
		name        string
		t           ir.Term
		plain, obva bool
	}{
		{"an argument's pointee past a frame slot holding a frame address", b.Select(b.Store(m, frame(-16), 8, frame(-8)), x, 8), true, false},
		{"an argument's pointee past the return address overwritten", b.Select(b.Store(m, frame(0), 8, frame(-8)), x, 4), true, false},
		{"a frame slot past a store of a frame address through an argument", b.Select(b.Store(b.Store(m, frame(-16), 8, x), x, 8, frame(-32)), frame(-16), 8), true, false},
		{"an argument's pointee past the caller's stack area holding a frame address", b.Select(b.Store(m, frame(16), 8, frame(-8)), x, 8), true, true},
		{"a frame-derived address past a frame slot holding a frame address", b.Select(b.Store(m, frame(-16), 8, frame(-8)), b.Add(rsp, x), 8), true, true},
		{"a frame slot past a store through a frame-derived address", b.Select(b.Store(b.Store(m, frame(-16), 8, x), b.Add(rsp, x), 8, frame(-32)), frame(-16), 8), true, true},
		{"an argument's pointee past a store of a frame address through an argument", b.Select(b.Store(m, b.Add(x, c(8)), 8, frame(-8)), x, 8), true, true},
	}
	for _, tc := range cases {
		for _, obva := range []bool{false, true} {
			ft := &FrameTaint{b: b, rsp0: rsp, obva: obva, mem0: m, derived: map[ir.Term]bool{}, memo: map[ir.Term]bool{}, loads: map[loadKey]bool{}}
			want := tc.plain
			if obva {
				want = tc.obva
			}
			if got := ft.Derived(tc.t); got != want {
				t.Errorf("%s (obva %v): derived = %v, want %v", tc.name, obva, got, want)
			}
		}
	}
}

// TestFrameTaintAbove: the caller's stack area (stack arguments, which C
// lets the function assign) holds no frame address unless some edge
// stores one there or at a computed frame address; stores below the
// entry rsp do not count.
func TestFrameTaintAbove(t *testing.T) {
	b := ir.NewBuilder()
	rsp := b.Var("src.rsp", ir.BVSort(64))
	x := b.Var("src.rdi", ir.BVSort(64))
	m := b.Var("mem", ir.MemSort)
	nodeMem := b.Var("n1.mem", ir.MemSort)
	c := func(v int64) ir.Term { return b.Const(64, uint64(v)) }
	frame := func(off int64) ir.Term { return b.Add(rsp, c(off)) }
	for _, tc := range []struct {
		name string
		mem  ir.Term
		want bool
	}{
		{"an argument stored above", b.Store(nodeMem, frame(8), 8, x), false},
		{"a frame address stored below", b.Store(nodeMem, frame(-16), 8, frame(-8)), false},
		{"a frame address stored above", b.Store(nodeMem, frame(8), 8, frame(-8)), true},
		{"a frame address stored over the return address", b.Store(nodeMem, rsp, 8, frame(-8)), true},
		{"a frame address stored at a computed frame address", b.Store(nodeMem, b.Add(frame(-64), x), 8, frame(-8)), true},
	} {
		ft := AnalyzeFrameTaint(b, rsp, m, []TaintEdge{{Mem: tc.mem}})
		if got := ft.Derived(b.Select(nodeMem, frame(16), 8)); got != tc.want {
			t.Errorf("%s: a stack argument at a node derived = %v, want %v", tc.name, got, tc.want)
		}
	}
}
