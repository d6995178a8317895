package prove

import (
	"context"
	"testing"

	"eqc/ir"
	"eqc/ir/smtlib"
)

// TestReduceReads: queries whose memories are only read go to the solver
// without arrays, with the same answer as the query has (each one's answer
// is known by construction: equal addresses read equal bytes, a wider read
// is its bytes, a pointer read from memory addresses memory), and a Sat
// model, rebuilt into memories, satisfies the original query (the adapter
// checks it with the evaluator, which would make it Unknown otherwise).
// Queries that write memory, or compare memories, are sent as they are.
func TestReduceReads(t *testing.T) {
	s := newZ3Solver(t)
	b := ir.NewBuilder()
	m, m2 := b.Var("mem", ir.MemSort), b.Var("mem2", ir.MemSort)
	p, q := b.Var("p", ir.BVSort(64)), b.Var("q", ir.BVSort(64))
	c8 := func(v uint64) ir.Term { return b.Const(8, v) }
	c64 := func(v uint64) ir.Term { return b.Const(64, v) }
	rd := func(mem, a ir.Term, n uint32) ir.Term { return b.Select(mem, a, n) }
	cases := []struct {
		name    string
		asserts []ir.Term
		reduced bool
		want    smtlib.Status
	}{
		{"equal addresses read equal bytes", []ir.Term{b.Eq(rd(m, p, 1), c8(1)), b.Eq(rd(m, q, 1), c8(2)), b.Eq(p, q)}, true, smtlib.Unsat},
		{"two memories may differ", []ir.Term{b.Eq(rd(m, p, 1), c8(1)), b.Eq(rd(m2, q, 1), c8(2)), b.Eq(p, q)}, true, smtlib.Sat},
		{"neighbouring bytes", []ir.Term{b.Eq(rd(m, p, 1), c8(1)), b.Eq(rd(m, b.Add(p, c64(1)), 1), c8(2))}, true, smtlib.Sat},
		{"a word is its bytes", []ir.Term{b.Eq(rd(m, p, 4), b.Const(32, 0x01020304)), b.Eq(rd(m, b.Add(p, c64(2)), 1), c8(2))}, true, smtlib.Sat},
		{"a word is not other bytes", []ir.Term{b.Eq(rd(m, p, 4), b.Const(32, 0x01020304)), b.Eq(rd(m, b.Add(q, c64(3)), 1), c8(5)), b.Eq(b.Add(q, c64(1)), p)}, true, smtlib.Unsat},
		{"a pointer read from memory", []ir.Term{b.Eq(rd(m, p, 8), q), b.Eq(rd(m, rd(m, p, 8), 1), c8(7)), b.Eq(rd(m, q, 1), c8(8))}, true, smtlib.Unsat},
		{"a pointer read from memory, sat", []ir.Term{b.Eq(rd(m, p, 8), q), b.Eq(rd(m, rd(m, p, 8), 1), c8(7)), b.Not(b.Eq(p, q))}, true, smtlib.Sat},
		{"a store", []ir.Term{b.Eq(rd(b.Store(m, p, 1, c8(3)), q, 1), c8(4)), b.Eq(p, q)}, false, smtlib.Unsat},
		{"memories compared", []ir.Term{b.Eq(m, m2), b.Not(b.Eq(rd(m, p, 1), rd(m2, p, 1)))}, false, smtlib.Unsat},
	}
	for _, tc := range cases {
		q := Query{B: b, Assertions: tc.asserts}
		if _, ok := reduceReads(q); ok != tc.reduced {
			t.Errorf("%s: reduced %v, want %v", tc.name, ok, tc.reduced)
		}
		r := s.Check(context.Background(), q)
		if r.Status != tc.want {
			t.Errorf("%s: %v (%s), want %v", tc.name, r.Status, r.Reason, tc.want)
		}
	}
}

// newZ3Solver is a Solver over libz3 for one test, closed at its end.
func newZ3Solver(t *testing.T) Solver {
	t.Helper()
	lib, err := NewZ3Lib()
	if err != nil {
		t.Fatal(err)
	}
	s := NewSolver(lib)
	t.Cleanup(func() { s.Close() })
	return s
}
