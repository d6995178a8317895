package ub

import (
	"testing"

	"eqc/ir"
)

// TestNullUserSpace: a loop body reads a[i] through pointer parameter a
// and b[i] through an integer k added to a global's address. Its
// hypotheses put both addresses at or above the null page and a (a
// pointer the access adds to) below UserSpaceEnd; k, no pointer, gets no
// bound. Each hypothesis is checked by evaluation: false with a near 2^64,
// true with a in user space.
func TestNullUserSpace(t *testing.T) {
	b := ir.NewBuilder()
	rsp, a, k, i := b.Var("rsp", ir.BVSort(64)), b.Var("a", ir.BVSort(64)), b.Var("k", ir.BVSort(64)), b.Var("i", ir.BVSort(64))
	mem := b.Var("mem", ir.MemSort)
	glob := b.Var("&g", ir.BVSort(64))
	g := ir.NewTFG(b, "f", []ir.StateVar{{Name: "rsp", Var: rsp}, {Name: "a", Var: a}, {Name: "k", Var: k}, {Name: "i", Var: i}, {Name: "mem", Var: mem}})
	entry, exit := g.AddNode(0, ir.NodeEntry), g.AddNode(1, ir.NodeExit)
	load := b.Add(b.Select(mem, b.Add(a, b.Mul(i, b.Const(64, 4))), 4), b.Select(mem, b.Add(glob, k), 4))
	g.AddEdge(&ir.Edge{From: entry, To: exit, Transfer: []ir.Term{rsp, a, k, b.ZeroExt(load, 32), mem}})
	set := g.PathSet(entry, exit, ir.PathOptions{})
	hyps := NullHypotheses(OBVAInput{B: b, Simp: ir.NewSimplifier(b), G: g, Paths: set.Path, Rsp0: rsp, Pointers: []ir.Term{a}})
	if len(hyps) == 0 {
		t.Fatal("no hypothesis")
	}
	bounded := map[ir.Term]bool{}
	for _, h := range hyps {
		for _, u := range b.PostOrder(h) {
			if b.Op(u) == ir.OpUlt && b.Arg(u, 1) == b.Const(64, UserSpaceEnd) {
				bounded[b.Arg(u, 0)] = true
			}
		}
	}
	if !bounded[a] || bounded[k] || len(bounded) != 1 {
		t.Errorf("terms bounded by UserSpaceEnd: %v; want the pointer a alone", bounded)
	}
	holds := func(av uint64) bool {
		env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
			rsp: ir.BVValue(ir.NewBV(64, 0x7fff_0000)), a: ir.BVValue(ir.NewBV(64, av)), k: ir.BVValue(ir.NewBV(64, 0x40)),
			i: ir.BVValue(ir.NewBV(64, 3)), glob: ir.BVValue(ir.NewBV(64, 0x60_0000)), mem: ir.MemValue(ir.MemFromMap(0, nil)),
		}}
		for _, h := range hyps {
			v, err := ir.NewEvaluator(b, env).Eval(h)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Bool() {
				return false
			}
		}
		return true
	}
	if !holds(0x5555_0000_1000) {
		t.Errorf("a hypothesis fails with a in user space")
	}
	if holds(0xffff_ffff_ffff_0000) {
		t.Errorf("every hypothesis holds with a near 2^64")
	}
}
