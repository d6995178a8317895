package ir

import (
	"fmt"
	"testing"
)

// TestLookupSelect: a select the builder made is found, by its memory,
// address and width; one it did not make is not, and looking does not make
// it.
func TestLookupSelect(t *testing.T) {
	b := NewBuilder()
	m := b.Var("mem", MemSort)
	a := b.Var("a", BVSort(64))
	s := b.Select(m, a, 8)
	if got, ok := b.LookupSelect(m, a, 8); !ok || got != s {
		t.Errorf("LookupSelect(mem, a, 8) = %v, %v; want %v", got, ok, s)
	}
	for _, c := range []struct {
		m, a Term
		n    uint32
	}{{m, a, 4}, {m, b.Add(a, b.Const(64, 1)), 8}, {b.Store(m, a, 1, b.Const(8, 0)), a, 8}} {
		n := b.Len()
		if _, ok := b.LookupSelect(c.m, c.a, c.n); ok {
			t.Errorf("LookupSelect(%s, %s, %d) found a select never made", b.Short(c.m), b.Short(c.a), c.n)
		}
		if b.Len() != n {
			t.Errorf("LookupSelect made a term")
		}
	}
}

// TestConjuncts: nested conjunctions flatten in order; anything else is
// its own one conjunct.
func TestConjuncts(t *testing.T) {
	b := NewBuilder()
	x, y, z := b.Var("x", BoolSort), b.Var("y", BoolSort), b.Var("z", BoolSort)
	or := b.Or(y, z)
	for _, c := range []struct {
		t    Term
		want []Term
	}{
		{b.And(x, b.And(y, z)), []Term{x, y, z}},
		{b.And(b.And(x, or), z), []Term{x, or, z}},
		{or, []Term{or}},
	} {
		got := b.Conjuncts(c.t)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("Conjuncts(%s) = %v, want %v", b.Short(c.t), got, c.want)
		}
	}
}
