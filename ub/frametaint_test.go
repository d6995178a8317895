package ub

import (
	"testing"

	"eqc/ir"
)

// TestFrameTaintTerms pins the may-depend-on rules on hand-built terms:
// what is computed from the entry rsp, or loaded from the frame without a
// store that gives the value exactly, may be derived; loads elsewhere are
// not, until a derived value may have been stored there.
func TestFrameTaintTerms(t *testing.T) {
	b := ir.NewBuilder()
	rsp := b.Var("src.rsp", ir.BVSort(64))
	x := b.Var("src.rdi", ir.BVSort(64))
	m := b.Var("mem", ir.MemSort)
	c := func(v int64) ir.Term { return b.Const(64, uint64(v)) }
	frame := func(off int64) ir.Term { return b.Add(rsp, c(off)) }
	cases := []struct {
		name string
		t    ir.Term
		heap bool
		want bool
	}{
		{"entry rsp", rsp, false, true},
		{"frame address", frame(-8), false, true},
		{"argument", x, false, false},
		{"argument arithmetic", b.Add(x, b.Mul(c(4), x)), false, false},
		{"frame slot holding a frame address", b.Select(b.Store(m, frame(-16), 8, frame(-8)), frame(-16), 8), false, true},
		{"frame slot holding an argument", b.Select(b.Store(m, frame(-16), 8, x), frame(-16), 8), false, false},
		{"frame slot past a pointer store", b.Select(b.Store(b.Store(m, frame(-16), 8, x), b.Add(x, c(4)), 4, b.Extract(x, 31, 0)), frame(-16), 8), false, false},
		{"frame slot past a store of a frame address", b.Select(b.Store(b.Store(m, frame(-16), 8, x), x, 8, frame(-32)), frame(-16), 8), false, true},
		{"frame bytes nothing stored", b.Select(m, frame(-24), 8), false, true},
		{"memory through an argument", b.Select(m, x, 8), false, false},
		{"memory through an argument, frame addresses escaped", b.Select(m, x, 8), true, true},
		{"either arm", b.Select(b.Ite(b.Eq(x, c(0)), b.Store(m, x, 8, frame(-8)), m), x, 8), false, true},
	}
	for _, tc := range cases {
		ft := &FrameTaint{b: b, rsp0: rsp, derived: map[ir.Term]bool{}, heap: tc.heap, memo: map[ir.Term]bool{}}
		if got := ft.Derived(tc.t); got != tc.want {
			t.Errorf("%s: derived = %v, want %v (%s)", tc.name, got, tc.want, b.Short(tc.t))
		}
	}
}
