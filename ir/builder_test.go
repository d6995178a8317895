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

// TestWithArgs: a term rebuilt from its own arguments is itself (hash
// consing), from others of the same sorts it is the same operation with
// the same parameters over them, and from an argument of another sort it
// panics.
func TestWithArgs(t *testing.T) {
	b := NewBuilder()
	x, y := b.Var("x", BVSort(32)), b.Var("y", BVSort(32))
	m := b.Var("m", MemSort)
	for _, tc := range []struct{ t, want Term }{
		{b.Sub(x, y), b.Sub(y, x)},
		{b.Extract(x, 15, 8), b.Extract(y, 15, 8)},
		{b.Select(m, b.ZeroExt(x, 32), 2), b.Select(m, b.ZeroExt(y, 32), 2)},
	} {
		if got := b.WithArgs(tc.t, b.Args(tc.t)); got != tc.t {
			t.Errorf("%s rebuilt from its own arguments: %s", b.Short(tc.t), b.Short(got))
		}
		if got := b.WithArgs(tc.t, b.Args(tc.want)); got != tc.want {
			t.Errorf("%s over %v: %s, want %s", b.Short(tc.t), b.Args(tc.want), b.Short(got), b.Short(tc.want))
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for an argument of another sort")
		}
	}()
	b.WithArgs(b.Sub(x, y), []Term{x, b.Var("z", BVSort(64))})
}
