package prove

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"eqc/ir"
	"eqc/ir/smtlib"
)

// TestExpandStoresEvaluates: the rewrite is the array theory's axiom, so
// every read through stores means the same as its expansion under every
// assignment. Random store chains over two bases (one address a pointer
// read from memory) and random reads of 1 to 8 bytes, each compared with
// its expansion by the evaluator on random memories and addresses close
// enough that stores and reads meet. (Reads at addresses that read
// through the stores are not expanded: TestExpandStoresSolves.)
func TestExpandStoresEvaluates(t *testing.T) {
	rng := rand.New(rand.NewSource(47))
	b := ir.NewBuilder()
	m := b.Var("mem", ir.MemSort)
	p, q := b.Var("p", ir.BVSort(64)), b.Var("q", ir.BVSort(64))
	sizes := []uint32{1, 2, 4, 8}
	addr := func(mem ir.Term) ir.Term {
		switch rng.Intn(4) {
		case 0:
			return b.Add(p, b.Const(64, uint64(rng.Intn(12))))
		case 1:
			return b.Add(q, b.Const(64, uint64(rng.Intn(12))))
		case 2:
			// The same base less a constant (baseOffset's other form).
			return b.Sub(b.Add(p, b.Const(64, 12)), b.Const(64, uint64(rng.Intn(12))))
		}
		// A pointer read from the memory below the stores.
		return b.Add(b.ZeroExt(b.Select(mem, p, 1), 56), b.Const(64, uint64(rng.Intn(4))))
	}
	expanded := 0
	for round := 0; round < 200; round++ {
		mem := m
		for k := rng.Intn(5) + 1; k > 0; k-- {
			n := sizes[rng.Intn(len(sizes))]
			mem = b.Store(mem, addr(m), n, b.Const(8*n, rng.Uint64()))
		}
		n := sizes[rng.Intn(len(sizes))]
		read := b.Select(mem, addr(m), n)
		x := b.Var(fmt.Sprintf("x%d", n), ir.BVSort(8*n))
		orig := Query{B: b, Assertions: []ir.Term{b.Eq(read, x)}}
		xq, ok := expandStores(orig)
		if !ok {
			t.Fatalf("round %d: not expanded", round)
		}
		expanded++
		for trial := 0; trial < 20; trial++ {
			mv := ir.NewMem(byte(rng.Intn(4)))
			for a := uint64(0); a < 24; a++ {
				mv = mv.With(a, []byte{byte(rng.Intn(24))})
				mv = mv.With(0x100+a, []byte{byte(rng.Intn(256))})
			}
			pv := uint64(rng.Intn(3))
			qv := pv + uint64(rng.Intn(10))
			env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
				m: ir.MemValue(mv), p: ir.BVValue(ir.NewBV(64, pv)), q: ir.BVValue(ir.NewBV(64, qv)),
			}}
			rv, err := ir.NewEvaluator(b, env).Eval(read)
			if err != nil {
				t.Fatal(err)
			}
			env.Vars[x] = rv
			got, err := ir.NewEvaluator(b, env).Eval(xq.Assertions[0])
			if err != nil {
				t.Fatal(err)
			}
			if !got.Bool() {
				t.Fatalf("round %d: %s reads %v, its expansion does not", round, b.Short(read), rv)
			}
		}
	}
	if expanded == 0 {
		t.Fatal("nothing expanded")
	}
}

// TestExpandStoresSolves: queries that read through stores reach the
// solver array-free, with the answers the array theory gives (known by
// construction), and those that compare memories, or read an ite of two,
// are left to the array theory.
func TestExpandStoresSolves(t *testing.T) {
	s := newZ3Solver(t)
	b := ir.NewBuilder()
	m, m2 := b.Var("mem", ir.MemSort), b.Var("mem2", ir.MemSort)
	p, q := b.Var("p", ir.BVSort(64)), b.Var("q", ir.BVSort(64))
	c64 := func(v uint64) ir.Term { return b.Const(64, v) }
	st := b.Store(b.Store(m, p, 8, c64(0x1122334455667788)), q, 1, b.Const(8, 0x99))
	cases := []struct {
		name     string
		asserts  []ir.Term
		expanded bool
		want     smtlib.Status
	}{
		{"a byte read back", []ir.Term{b.Not(b.Eq(b.Select(st, q, 1), b.Const(8, 0x99)))}, true, smtlib.Unsat},
		{"every read resolved, sat", []ir.Term{b.Eq(b.Select(st, q, 1), b.Const(8, 0x99)), b.Ult(p, q)}, true, smtlib.Sat},
		{"a byte under a later store", []ir.Term{b.Eq(p, q), b.Not(b.Eq(b.Select(st, p, 2), b.Const(16, 0x7799)))}, true, smtlib.Unsat},
		{"apart by the premises", []ir.Term{b.Uge(b.Sub(q, p), c64(8)), b.Ule(b.Sub(q, p), c64(100)), b.Not(b.Eq(b.Select(st, b.Add(p, c64(4)), 4), b.Const(32, 0x11223344)))}, true, smtlib.Unsat},
		{"may meet", []ir.Term{b.Not(b.Eq(b.Select(st, b.Add(p, c64(4)), 4), b.Const(32, 0x11223344)))}, true, smtlib.Sat},
		{"memories compared", []ir.Term{b.Not(b.Eq(st, m2))}, false, smtlib.Sat},
		{"an address read from memory", []ir.Term{b.Not(b.Eq(b.Select(st, b.Select(m, q, 8), 1), b.Const(8, 0)))}, true, smtlib.Sat},
		{"an address read through the stores", []ir.Term{b.Not(b.Eq(b.Select(st, b.Select(st, b.Add(p, c64(100)), 8), 1), b.Const(8, 0)))}, false, smtlib.Sat},
		{"an ite of memories", []ir.Term{b.Not(b.Eq(b.Select(b.Ite(b.Eq(p, q), st, m2), p, 1), b.Const(8, 0)))}, false, smtlib.Sat},
	}
	for _, tc := range cases {
		qq := Query{B: b, Assertions: tc.asserts}
		if _, ok := expandStores(qq); ok != tc.expanded {
			t.Errorf("%s: expanded %v, want %v", tc.name, ok, tc.expanded)
		}
		if r := s.Check(context.Background(), qq); r.Status != tc.want {
			t.Errorf("%s: %v (%s), want %v", tc.name, r.Status, r.Reason, tc.want)
		}
	}
}

// TestExpandStoresShadowed: a byte a later store wrote again is that
// store's case alone. Leaving the earlier store's case below it (never
// taken) made Z3 take 11 s over two chains that differ only by such a
// store, which its array theory compares at once.
func TestExpandStoresShadowed(t *testing.T) {
	b := ir.NewBuilder()
	m := b.Var("mem", ir.MemSort)
	p, q := b.Var("p", ir.BVSort(64)), b.Var("q", ir.BVSort(64))
	old, later := b.Var("old", ir.BVSort(32)), b.Var("later", ir.BVSort(32))
	p4 := b.Add(p, b.Const(64, 4))
	// The later store's address is the same as the first's, written
	// another way (p+4 against (p+12)−8).
	st := b.Store(b.Store(m, p4, 4, old), b.Sub(b.Add(p, b.Const(64, 12)), b.Const(64, 8)), 4, later)
	x := b.Var("x", ir.BVSort(32))
	xq, ok := expandStores(Query{B: b, Assertions: []ir.Term{b.Eq(b.Select(st, q, 4), x)}})
	if !ok {
		t.Fatal("not expanded")
	}
	for _, u := range b.PostOrder(xq.Assertions...) {
		if u == old {
			t.Fatalf("the shadowed store's value is in the expansion: %s", smtlib.TermString(b, xq.Assertions[0]))
		}
	}
}
