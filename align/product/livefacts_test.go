package product

import (
	"testing"

	"eqc/align/product/alias"
	"eqc/align/product/pair"
	"eqc/ir"
)

// TestLiveFacts: an edge's obligations need the disjointness facts of the
// to-node's candidate reads only for the candidates Houdini kept. A
// dropped mirror candidate (x = a[i-20] at the loop head, where i = 0 on
// entry) reads 80 bytes before the array, which may be the frame; its
// fact, an obligation, failed s1281 with both compilers.
func TestLiveFacts(t *testing.T) {
	b := ir.NewBuilder()
	bv := ir.BVSort(64)
	rsp := b.Var("src.rsp", bv)
	arr := b.Var("&a", bv)
	i := b.Var("n1.dst.rax", bv)
	mem := b.Var("n1.mem", ir.MemSort)
	slot := b.Add(rsp, b.Const(64, ^uint64(15))) // rsp - 16
	at := func(off int64) ir.Term { return b.Add(b.Add(arr, i), b.Const(64, uint64(off))) }
	x := b.Var("n1.src.stack-0x10/4", ir.BVSort(32))
	keptRead, droppedRead := b.Select(mem, at(0), 4), b.Select(mem, at(-0x50), 4)
	kept := b.Eq(x, keptRead)

	pr := &Product{p: &pair.Pair{B: b}, simp: ir.NewSimplifier(b),
		Nodes: []*PNode{{ID: 0}, {ID: 1, mem: mem, Invariants: []ir.Term{kept}}}}
	own := alias.Fact{A1: slot, A2: b.Var("src.rdi", bv), N1: 4, N2: 4, Guard: ir.NoTerm} // the edge's own store
	keptFact := alias.Fact{A1: slot, A2: at(0), N1: 4, N2: 4, Guard: ir.NoTerm}
	droppedFact := alias.Fact{A1: slot, A2: at(-0x50), N1: 4, N2: 4, Guard: ir.NoTerm}
	e := &PEdge{From: 0, To: 1,
		disjoint: map[alias.Fact]bool{own: true},
		readFacts: map[ir.Term]map[alias.Fact]bool{
			keptRead:    {keptFact: true},
			droppedRead: {droppedFact: true},
		}}
	want := func(what string, facts ...alias.Fact) {
		t.Helper()
		got := map[ir.Term]bool{}
		for _, f := range e.facts {
			got[f] = true
		}
		if len(got) != len(facts) {
			t.Errorf("%s: %d facts, want %d", what, len(got), len(facts))
		}
		for _, f := range facts {
			if !got[pr.simp.Simplify(f.Term(b))] {
				t.Errorf("%s: missing %s", what, b.Short(f.Term(b)))
			}
		}
	}
	// While Houdini runs, every candidate's read is resolved with its facts.
	pr.setFacts(e, nil)
	want("built", own, keptFact, droppedFact)
	// The obligations take the kept candidates' facts only.
	pr.liveFacts(e)
	want("after Houdini", own, keptFact)
	// A node whose every candidate was dropped needs none of them.
	pr.Nodes[1].Invariants = nil
	pr.liveFacts(e)
	want("no invariants", own)
}
