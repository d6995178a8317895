package pair

import (
	"fmt"
	"testing"

	"eqc/ir"
	"eqc/x86"
)

// TestStackHeights pins the dataflow on a hand-built TFG: pushes and pops
// add up along paths, a loop that keeps rsp keeps its height, two paths
// that disagree (or an rsp loaded from memory) make a node's height, and
// those after it, unknown.
func TestStackHeights(t *testing.T) {
	b := ir.NewBuilder()
	g, state := handTFG(b, "heights")
	rsp := state[x86.StateGPR0+x86.RSP].Var
	// 0 entry, 1 block, 2 loop head, 3 join of disagreeing paths, 4 after
	// it, 5 after a loaded rsp, 6 exit.
	kinds := []ir.NodeKind{ir.NodeEntry, ir.NodeBlock, ir.NodeLoopHead, ir.NodeBlock, ir.NodeBlock, ir.NodeBlock, ir.NodeExit}
	for i, k := range kinds {
		g.AddNode(uint64(i), k)
	}
	edge := func(from, to ir.NodeID, newRSP ir.Term) {
		tr := make([]ir.Term, x86.StateLen)
		for i := range tr {
			tr[i] = state[i].Var
		}
		tr[x86.StateGPR0+x86.RSP] = newRSP
		g.AddEdge(&ir.Edge{From: from, To: to, Cond: b.True(), Fault: b.False(), Transfer: tr})
	}
	off := func(c int64) ir.Term { return b.Add(rsp, b.Const(64, uint64(c))) }
	edge(0, 1, off(-8))  // push
	edge(1, 2, off(-24)) // sub rsp, 24
	edge(2, 2, rsp)      // the loop keeps rsp
	edge(2, 3, off(32))  // one way to the join...
	edge(1, 3, off(16))  // ...and another, 8 bytes apart
	edge(3, 4, rsp)
	edge(2, 5, b.Select(state[x86.StateMem].Var, rsp, 8)) // rsp loaded
	edge(2, 6, off(32))
	want := map[ir.NodeID]int64{0: 0, 1: -8, 2: -32, 6: 0}
	got := StackHeights(g)
	if len(got) != len(want) {
		t.Errorf("heights %v, want %v", got, want)
	}
	for n, h := range want {
		if got[n] != h {
			t.Errorf("node %d: height %d, want %d (all: %v)", n, got[n], h, got)
		}
	}
}

// handTFG is an empty TFG over an x86 state of fresh variables s0, s1, ...,
// for tests that build their nodes and edges by hand.
func handTFG(b *ir.Builder, name string) (*ir.TFG, []ir.StateVar) {
	state := make([]ir.StateVar, x86.StateLen)
	for i := range state {
		so := ir.BVSort(64)
		if i == x86.StateMem {
			so = ir.MemSort
		}
		state[i] = ir.StateVar{Name: fmt.Sprint("s", i), Var: b.Var(fmt.Sprint("s", i), so)}
	}
	return ir.NewTFG(b, name, state), state
}

// handEdge adds edges to a hand-built TFG: from, to, the condition, and
// the state components the edge sets (the others keep their values).
func handEdge(b *ir.Builder, g *ir.TFG, state []ir.StateVar) func(from, to ir.NodeID, cond ir.Term, set map[int]ir.Term) {
	return func(from, to ir.NodeID, cond ir.Term, set map[int]ir.Term) {
		tr := make([]ir.Term, x86.StateLen)
		for i := range tr {
			tr[i] = state[i].Var
		}
		for i, v := range set {
			tr[i] = v
		}
		g.AddEdge(&ir.Edge{From: from, To: to, Cond: cond, Fault: b.False(), Transfer: tr})
	}
}
