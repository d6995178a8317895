package align

import (
	"strings"
	"testing"

	"eqc/ir"
	"eqc/x86"
)

// A cycle of product edges on which the source stays would let the target
// run forever against a source that ends: buildProduct must refuse it,
// and accept stays that lead out of every cycle.
func TestStaysAcyclic(t *testing.T) {
	stay := srcSpec{arrivals: 0}
	move := srcSpec{arrivals: 1, mu: 1}
	type edge struct {
		from, to int
		spec     srcSpec
	}
	for _, tc := range []struct {
		name  string
		edges []edge
		want  string // "" when acyclic
	}{
		{"no stays", []edge{{0, 1, move}, {1, 1, move}, {1, 2, move}}, ""},
		{"a stay out of a loop", []edge{{0, 1, move}, {1, 1, move}, {1, 2, stay}, {2, 2, move}, {2, 3, move}}, ""},
		{"a stay self-loop", []edge{{0, 1, move}, {1, 1, stay}}, "n1"},
		{"a cycle of stays", []edge{{0, 1, move}, {1, 2, stay}, {2, 1, stay}, {2, 3, move}}, "n1"},
		{"a cycle with one move", []edge{{0, 1, move}, {1, 2, stay}, {2, 1, move}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := &Product{}
			for i := 0; i < 4; i++ {
				pr.Nodes = append(pr.Nodes, &PNode{ID: i})
			}
			for _, e := range tc.edges {
				pr.Edges = append(pr.Edges, &PEdge{From: e.from, To: e.to, Spec: e.spec})
			}
			got := pr.staysAcyclic()
			if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
				t.Errorf("staysAcyclic() = %q, want %q", got, tc.want)
			}
		})
	}
}

// A predicate's value is cs·src − cd·dst ± base over the run's values:
// the target's pointer counts from a global's address, an argument or
// a register the loop does not change.
func TestPredicateValue(t *testing.T) {
	state := func(regs map[int]uint64) []ir.Value {
		st := make([]ir.Value, x86.StateGPR0+16)
		for r := 0; r < 16; r++ {
			st[x86.StateGPR0+r] = ir.BVValue(ir.NewBV(64, regs[r]))
		}
		return st
	}
	entry := state(map[int]uint64{x86.RDI: 0x5000})
	src := state(map[int]uint64{x86.RCX: 3})
	dst := state(map[int]uint64{x86.RAX: 0x1000c, x86.RDX: 0x500c, x86.RSI: 0x5000})
	cr := &coRun{entry: entry, env: &hashEnv{globals: map[string]uint64{"&A": 0x10000}}, dst: &run{visits: []visit{{state: dst}}}}
	for _, tc := range []struct {
		pd   predicate
		want uint64
		text string
	}{
		{predicate{src: alignVar{reg: x86.RCX}, dst: alignVar{reg: x86.RAX}, cs: 4, cd: 1, base: predicateBase{name: "&A", reg: -1, global: "&A", plus: true}}, 0, "src.4·rcx − dst.rax + &A = 0"},
		{predicate{src: alignVar{reg: x86.RCX}, dst: alignVar{reg: x86.RDX}, cs: 4, cd: 1, base: predicateBase{name: "entry.rdi", reg: x86.RDI, plus: true}}, 0, "src.4·rcx − dst.rdx + entry.rdi = 0"},
		{predicate{src: alignVar{reg: x86.RCX}, dst: alignVar{reg: x86.RAX}, cs: 1, cd: 1}, 1<<64 - 0x10009, "src.rcx − dst.rax = -65545"},
		{predicate{src: alignVar{reg: x86.RCX}, dst: alignVar{reg: x86.RDX}, cs: 4, cd: 1, base: predicateBase{name: "dst.rsi", reg: -1, dst: &alignVar{reg: x86.RSI}, plus: true}}, 0, "src.4·rcx − dst.rdx + dst.rsi = 0"},
		{predicate{src: alignVar{reg: x86.RAX}, dst: alignVar{reg: x86.RCX}, cs: 1, cd: 4, base: predicateBase{name: "&A", reg: -1, global: "&A"}}, 0, "src.rax − dst.4·rcx − &A = 0"},
	} {
		pd := tc.pd
		s, d := src, dst
		if pd.src.reg == x86.RAX { // the source holds the pointer
			s, d = dst, src
		}
		got := pd.eval(pd.src.value(s, 0), pd.dst.value(d, 0), pd.base.value(cr, 0))
		pd.k = got
		if got != tc.want || pd.String() != tc.text {
			t.Errorf("%s: value %#x, want %#x; text %q, want %q", &pd, got, tc.want, pd.String(), tc.text)
		}
	}
}
