package ub

import (
	"testing"

	"eqc/ir"
)

// TestRestrictThrough pins which addresses the restrict model takes for
// accesses through a parameter: its entry value or its frame reload plus
// integer offsets, never an offset that mentions a parameter (q + (p − q)
// is based on p, but an index read through p is not), an unscaled 64-bit
// summand, or two parameters.
func TestRestrictThrough(t *testing.T) {
	b := ir.NewBuilder()
	bv := ir.BVSort(64)
	p, q := b.Var("src.rdi", bv), b.Var("src.rsi", bv)
	rsp := b.Var("src.rsp", bv)
	mem := b.Var("src.mem", ir.MemSort)
	i32 := b.Var("n1.src.stack-0xc/4", ir.BVSort(32))
	l64 := b.Var("n1.src.stack-0x18/8", bv)
	c := func(v uint64) ir.Term { return b.Const(64, v) }
	slot := b.Add(rsp, c(^uint64(0x17)))
	reload := b.Select(b.Store(mem, slot, 8, q), slot, 8)
	taint := AnalyzeFrameTaint(b, rsp, ir.NoTerm, nil)
	f := paramFinder{in: OBVAInput{B: b, Simp: ir.NewSimplifier(b), Taint: taint, Rsp0: rsp}, vars: []ir.Term{p, q}, obva: true}
	cases := []struct {
		name  string
		a     ir.Term
		param int // -1: none
	}{
		{"p itself", p, 0},
		{"an int index scaled", b.Add(p, b.Shl(b.SignExt(i32, 32), c(2))), 0},
		{"a long index scaled", b.Add(q, b.Mul(c(4), l64)), 1},
		{"q reloaded from its slot", b.Add(reload, c(4)), 1},
		{"q plus a scaled difference to p", b.Add(q, b.Mul(c(4), b.Sub(p, q))), -1},
		{"q plus p's low half", b.Add(q, b.SignExt(b.Extract(p, 31, 0), 32)), -1},
		{"q plus an index read through p", b.Add(q, b.Shl(b.SignExt(b.Select(mem, p, 4), 32), c(2))), 1},
		{"an unscaled long", b.Add(p, l64), -1},
		{"both parameters", b.Add(p, q), -1},
	}
	for _, tc := range cases {
		param, ok := f.through(tc.a, true)
		if ok != (tc.param >= 0) || ok && param != tc.param {
			t.Errorf("%s (%s): parameter %d %v, want %d", tc.name, b.Short(tc.a), param, ok, tc.param)
		}
	}
	// Without strict (the tbsa model's reading) an offset may mention p.
	if param, ok := f.through(b.Add(q, b.Mul(c(4), b.Sub(p, q))), false); !ok || param != 1 {
		t.Errorf("tbsa's reading of q + 4·(p − q): %d %v, want q", param, ok)
	}
}
