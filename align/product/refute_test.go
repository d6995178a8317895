package product

import (
	"testing"

	"eqc/align/product/alias"
	"eqc/align/product/pair"
	"eqc/ir"
)

// valuesEnv gives its variables their values.
type valuesEnv map[ir.Term]uint64

func (e valuesEnv) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	v, ok := e[t]
	if !ok {
		return ir.Value{}, false
	}
	return ir.BVValue(ir.NewBV(b.Sort(t).Width, v)), true
}

func (valuesEnv) ApplyFunc(*ir.Func, []ir.Value) (ir.Value, bool) { return ir.Value{}, false }

// A model refutes an edge's guess when it makes a fact between two
// non-frame addresses false, or a merged fact (a hull, which the states
// judged too); by a stack fact on its own only once, when it has no
// guard (the edge is then rebuilt with collapsed reads guarded), since
// no state corrects the frame layout; never by a fact the model keeps.
func TestRefutes(t *testing.T) {
	b := ir.NewBuilder()
	simp := ir.NewSimplifier(b)
	rsp, d, s := b.Var("rsp", ir.BVSort(64)), b.Var("d", ir.BVSort(64)), b.Var("s", ir.BVSort(64))
	pr := &Product{p: &pair.Pair{B: b}, simp: simp, rsp0: rsp}
	plus := func(x ir.Term, c uint64) ir.Term { return simp.Simplify(b.Add(x, b.Const(64, c))) }
	guess := alias.Fact{A1: d, A2: plus(s, 8), N1: 4, N2: 4, Guard: ir.NoTerm}
	frame := alias.Fact{A1: plus(rsp, ^uint64(7)), A2: d, N1: 8, N2: 4, Guard: ir.NoTerm}
	// A merged fact, d[0..8) against s[8..16): no single fact of the edge.
	hull := simp.Simplify(alias.Fact{A1: d, A2: plus(s, 8), N1: 8, N2: 8, Guard: ir.NoTerm}.Term(b))
	for _, tc := range []struct {
		name  string
		e     *PEdge
		model valuesEnv
		want  bool
	}{
		{"guess kept", &PEdge{disjoint: map[alias.Fact]bool{guess: true}}, valuesEnv{rsp: 0x7000, d: 0x1000, s: 0x2000}, false},
		{"guess refuted", &PEdge{disjoint: map[alias.Fact]bool{guess: true}}, valuesEnv{rsp: 0x7000, d: 0x100a, s: 0x1000}, true},
		{"path-condition guess refuted", &PEdge{disjointCond: map[alias.Fact]bool{guess: true}}, valuesEnv{rsp: 0x7000, d: 0x1008, s: 0x1000}, true},
		{"read's guess refuted", &PEdge{readFacts: map[ir.Term]map[alias.Fact]bool{d: {guess: true}}}, valuesEnv{rsp: 0x7000, d: 0x1008, s: 0x1000}, true},
		// An unguarded stack fact false: once, to guard the reads the
		// splitter left unguarded (alias.Splitter.GuardCollapsed).
		{"unguarded stack fact false", &PEdge{disjoint: map[alias.Fact]bool{frame: true}}, valuesEnv{rsp: 0x7000, d: 0x6ff8, s: 0x1000}, true},
		{"stack fact false", &PEdge{disjoint: map[alias.Fact]bool{frame: true}, guardCollapsed: true}, valuesEnv{rsp: 0x7000, d: 0x6ff8, s: 0x1000}, false},
		{"hull false", &PEdge{facts: []ir.Term{hull}}, valuesEnv{rsp: 0x7000, d: 0x100c, s: 0x1000}, true},
		{"hull kept", &PEdge{facts: []ir.Term{hull}}, valuesEnv{rsp: 0x7000, d: 0x1000, s: 0x2000}, false},
		{"no model", &PEdge{disjoint: map[alias.Fact]bool{guess: true}}, nil, false},
	} {
		var m ir.Env
		if tc.model != nil {
			m = tc.model
		}
		if got := pr.refutes(tc.e, m); got != tc.want {
			t.Errorf("%s: refutes %v, want %v", tc.name, got, tc.want)
		}
	}
}
