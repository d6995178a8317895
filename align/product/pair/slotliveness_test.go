package pair

import (
	"slices"
	"testing"

	"eqc/ir"
	"eqc/x86"
)

// TestSlotLiveAt pins the slot liveness on a hand-built TFG: a loop whose
// body writes one local (B) before it reads it and another (A) after it
// reads it; the head's condition reads a third (C); a fourth (D) is never
// touched. The entry edge allocates the frame (rsp−32) and writes A.
func TestSlotLiveAt(t *testing.T) {
	b := ir.NewBuilder()
	g, state := handTFG(b, "slots")
	rsp, mem := state[x86.StateGPR0+x86.RSP].Var, state[x86.StateMem].Var
	off := func(c int64) ir.Term { return b.Add(rsp, b.Const(64, uint64(c))) }
	// 0 entry, 1 loop head, 2 body, 3 exit.
	for i, k := range []ir.NodeKind{ir.NodeEntry, ir.NodeLoopHead, ir.NodeBlock, ir.NodeExit} {
		g.AddNode(uint64(i), k)
	}
	edge := handEdge(b, g, state)
	rax, rdi := x86.StateGPR0+x86.RAX, x86.StateGPR0+x86.RDI
	// Slots, from the entry rsp: A −16, B −24, C −32/4, D −40.
	slots := []Slot{{Off: -40, Size: 8}, {Off: -32, Size: 4}, {Off: -24, Size: 8}, {Off: -16, Size: 8}}
	const D, C, B, A = 0, 1, 2, 3
	// At the head rsp is rsp0−32: A at +16, B at +8, C at +0.
	edge(0, 1, b.True(), map[int]ir.Term{x86.StateGPR0 + x86.RSP: b.Add(rsp, b.Const(64, ^uint64(31))),
		x86.StateMem: b.Store(mem, b.Add(rsp, b.Const(64, ^uint64(15))), 8, state[rdi].Var)})
	goOn := b.Not(b.Eq(b.Select(mem, off(0), 4), b.Const(32, 0)))
	edge(1, 2, goOn, map[int]ir.Term{x86.StateMem: b.Store(mem, off(8), 8, b.Select(mem, off(16), 8))})
	edge(2, 1, b.True(), map[int]ir.Term{x86.StateMem: b.Store(mem, off(16), 8, b.Add(b.Select(mem, off(8), 8), b.Const(64, 1)))})
	edge(1, 3, b.Not(goOn), map[int]ir.Term{rax: b.Select(mem, off(16), 8), x86.StateGPR0 + x86.RSP: off(32)})
	live := SlotLiveAt(g, slots, StackHeights(g))
	want := map[ir.NodeID][]bool{0: {false, true, false, false}, 1: {false, true, false, true}, 3: {false, false, false, false}}
	for n, w := range want {
		if !slices.Equal(live[n], w) {
			t.Errorf("node %d: live %v, want %v (D, C, B, A)", n, live[n], w)
		}
	}

	// What one path set reads and writes, from a start at height −32.
	sa := slotAccess{b: b, rsp: rsp, h: -32, slots: slots, memo: map[ir.Term][]bool{}}
	storeB := func(m ir.Term) ir.Term { return b.Store(m, off(8), 8, state[rax].Var) }
	c := b.Eq(state[rax].Var, b.Const(64, 0))
	call := b.Apply(b.DeclareFunc("call.f.mem", []ir.Sort{ir.BVSort(64), ir.MemSort}, ir.MemSort), rsp, storeB(mem))
	for _, tc := range []struct {
		name        string
		m           ir.Term
		writesB     bool
		readB       bool // a read of B from m reaches the start
		computedAll bool
	}{
		{"store", storeB(mem), true, false, false},
		{"one branch", b.Ite(c, storeB(mem), mem), false, true, false},
		{"both branches", b.Ite(c, storeB(mem), storeB(b.Store(mem, off(0), 4, b.Const(32, 1)))), true, false, false},
		{"half of it", b.Store(mem, off(8), 4, b.Const(32, 0)), false, true, false},
		{"through a call", call, true, false, false},
		{"store at a computed address", b.Store(mem, b.Add(rsp, state[rax].Var), 8, state[rdi].Var), false, true, false},
	} {
		if got := sa.written(tc.m)[B]; got != tc.writesB {
			t.Errorf("%s: B written %v, want %v", tc.name, got, tc.writesB)
		}
		reads := sa.reads([]ir.Term{b.Select(tc.m, off(8), 8)})
		if reads[B] != tc.readB || reads[A] || reads[D] {
			t.Errorf("%s: a load of B reads %v from the start (D, C, B, A), want B %v alone", tc.name, reads, tc.readB)
		}
	}
	if reads := sa.reads([]ir.Term{b.Select(mem, b.Add(rsp, state[rax].Var), 1)}); !slices.Equal(reads, []bool{true, true, true, true}) {
		t.Errorf("a load at a computed frame address reads %v, want every slot", reads)
	}
	if reads := sa.reads([]ir.Term{b.Select(mem, state[rdi].Var, 8)}); slices.Contains(reads, true) {
		t.Errorf("a load through rdi reads slots %v", reads)
	}
}

// TestSlotLiveAtFramePointer: unoptimized code reaches its locals from
// rbp (rsp0−8 after its prologue), and its lifted terms say rsp − 8 + c
// before simplification. A local the loop writes before it reads is dead
// at the head, one the head's condition reads is live, and a value
// loaded from a local (a pointer the code keeps there) is no address
// computed in the frame.
func TestSlotLiveAtFramePointer(t *testing.T) {
	b := ir.NewBuilder()
	g, state := handTFG(b, "fp")
	rsp, rbp, mem := state[x86.StateGPR0+x86.RSP].Var, state[x86.StateGPR0+x86.RBP].Var, state[x86.StateMem].Var
	c := func(v int64) ir.Term { return b.Const(64, uint64(v)) }
	fpAt := func(off int64) ir.Term { return b.Add(rbp, c(off)) }
	for i, k := range []ir.NodeKind{ir.NodeEntry, ir.NodeLoopHead, ir.NodeBlock, ir.NodeExit} {
		g.AddNode(uint64(i), k)
	}
	edge := handEdge(b, g, state)
	rax := x86.StateGPR0 + x86.RAX
	// Slots: P (a pointer) rbp−0x20, X rbp−0x18, N rbp−0xc/4, the saved rbp.
	slots := []Slot{{Off: -0x28, Size: 8}, {Off: -0x20, Size: 8}, {Off: -0x14, Size: 4}, {Off: -8, Size: 8}}
	const P, X, N = 0, 1, 2
	// The prologue: push rbp; mov rsp, rbp; sub $0x20, rsp; N = edi.
	pushed := b.Store(mem, b.Sub(rsp, c(8)), 8, rbp)
	edge(0, 1, b.True(), map[int]ir.Term{
		x86.StateGPR0 + x86.RBP: b.Sub(rsp, c(8)),
		x86.StateGPR0 + x86.RSP: b.Sub(rsp, c(0x28)),
		x86.StateMem:            b.Store(pushed, b.Add(b.Sub(rsp, c(8)), c(-0xc)), 4, b.Extract(state[x86.StateGPR0+x86.RDI].Var, 31, 0)),
	})
	goOn := b.Not(b.Eq(b.Select(mem, fpAt(-0xc), 4), b.Const(32, 0)))
	// The body writes X, then reads it, and reads through the pointer P.
	wrote := b.Store(mem, fpAt(-0x18), 8, state[rax].Var)
	edge(1, 2, goOn, map[int]ir.Term{x86.StateMem: wrote, rax: b.Add(b.Select(wrote, fpAt(-0x18), 8), b.Select(mem, b.Select(mem, fpAt(-0x20), 8), 8))})
	edge(2, 1, b.True(), map[int]ir.Term{})
	edge(1, 3, b.Not(goOn), map[int]ir.Term{x86.StateGPR0 + x86.RSP: b.Add(rsp, c(0x28))})
	live := SlotLiveAt(g, slots, StackHeights(g))
	if l := live[1]; l[X] || !l[N] || !l[P] {
		t.Errorf("head: live %v; want X dead, N and P live (P, X, N, saved rbp)", l)
	}
	if fp := FramePointerHeights(g, StackHeights(g)); fp[1] != -8 || fp[2] != -8 {
		t.Errorf("frame pointer heights %v, want −8 at the head and the body", fp)
	}
}
