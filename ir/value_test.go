package ir

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestMemPersistent checks Mem against a Go map on a long chain of writes to
// distinct and repeated addresses, keeping every intermediate memory: old
// versions must not change when new ones are made from them.
func TestMemPersistent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := NewMem(0xAA)
	model := map[uint64]byte{}
	type snap struct {
		m     *Mem
		model map[uint64]byte
	}
	var snaps []snap
	for i := 0; i < 100000; i++ {
		a := rng.Uint64N(1 << 20)
		if i%3 == 0 {
			a = ^uint64(0) - uint64(i%5) // near the top: writes wrap around
		}
		v := make([]byte, 1+rng.IntN(20)) // within, across and over blocks
		for k := range v {
			v[k] = byte(rng.Uint32())
		}
		m = m.With(a, v)
		for k, x := range v {
			model[a+uint64(k)] = x
		}
		if i%20000 == 0 {
			cp := make(map[uint64]byte, len(model))
			for k, x := range model {
				cp[k] = x
			}
			snaps = append(snaps, snap{m, cp})
		}
	}
	snaps = append(snaps, snap{m, model})
	for i, s := range snaps {
		for a, want := range s.model {
			if got := s.m.Load(a); got != want {
				t.Fatalf("snapshot %d: Load(%#x) = %#x, want %#x", i, a, got, want)
			}
		}
		if got := s.m.Load(1 << 40); got != 0xAA {
			t.Fatalf("snapshot %d: unwritten address holds %#x, want the default", i, got)
		}
		if len(s.m.Written()) != len(s.model) {
			t.Fatalf("snapshot %d: %d written addresses, want %d", i, len(s.m.Written()), len(s.model))
		}
	}
	if !MemFromMap(0xAA, model).Equal(m) {
		t.Error("MemFromMap of the same bytes is not Equal")
	}
	if snaps[0].m.Equal(m) {
		t.Error("an early snapshot Equals the final memory")
	}
}

// TestMemEqualOutside checks EqualOutside against a byte-by-byte oracle
// over the written addresses of both memories: pairs grown from a shared
// memory by a few writes each (most subtrees shared), some writing the
// default back, compared outside random ranges.
func TestMemEqualOutside(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	write := func(m *Mem, n int) *Mem {
		for range n {
			a := 0x1000 + rng.Uint64N(256)
			v := make([]byte, 1+rng.IntN(3))
			for k := range v {
				v[k] = byte(rng.IntN(3)) // often the default (0) or equal
			}
			m = m.With(a, v)
		}
		return m
	}
	oracle := func(m, o *Mem, lo, hi uint64) bool {
		if m.Default != o.Default {
			return false
		}
		for _, a := range append(m.Written(), o.Written()...) {
			if (a < lo || a >= hi) && m.Load(a) != o.Load(a) {
				return false
			}
		}
		return true
	}
	equal := 0
	for i := range 20000 {
		base := write(NewMem(0), rng.IntN(40))
		m, o := write(base, rng.IntN(3)), write(base, rng.IntN(3))
		if i%50 == 0 {
			o = &Mem{tree: o.tree, Default: 1}
		}
		lo := 0x1000 + rng.Uint64N(300)
		hi := lo + rng.Uint64N(16)
		if i%4 == 0 {
			lo, hi = 0, 0
		}
		want := oracle(m, o, lo, hi)
		if got := m.EqualOutside(o, lo, hi); got != want {
			t.Fatalf("case %d: EqualOutside(%v, %v, %#x, %#x) = %v, want %v", i, m, o, lo, hi, got, want)
		}
		if got := o.EqualOutside(m, lo, hi); got != want {
			t.Fatalf("case %d: not symmetric", i)
		}
		if want {
			equal++
		}
	}
	if equal < 2000 || equal > 18000 {
		t.Errorf("%d of 20000 pairs equal: the cases do not exercise both answers", equal)
	}
}

// TestValueCompact pins what the 32-byte Value reads off its fields: each
// constructor's sort and contents, the zero Value's zero Sort, and the
// size itself (a long run keeps tens of thousands of states of Values).
func TestValueCompact(t *testing.T) {
	if n := unsafe.Sizeof(Value{}); n != 32 {
		t.Errorf("Value is %d bytes, want 32", n)
	}
	wide := NewBV(128, 5)
	m := NewMem(7)
	cases := []struct {
		v    Value
		sort Sort
		str  string
	}{
		{Value{}, Sort{}, "<no value>"},
		{BoolValue(false), BoolSort, "false"},
		{BoolValue(true), BoolSort, "true"},
		{BVValue(NewBV(1, 0)), BVSort(1), "#b0"},
		{BVValue(NewBV(64, 3)), BVSort(64), "#x0000000000000003"},
		{BVValue(wide), BVSort(128), wide.String()},
		{MemValue(m), MemSort, m.String()},
	}
	for i, c := range cases {
		if got := c.v.Sort(); got != c.sort {
			t.Errorf("%d: sort %v, want %v", i, got, c.sort)
		}
		if got := c.v.String(); got != c.str {
			t.Errorf("%d: %q, want %q", i, got, c.str)
		}
		for j, d := range cases {
			if got := c.v.Equal(d.v); got != (i == j) {
				t.Errorf("%v.Equal(%v) = %v", c.v, d.v, got)
			}
		}
	}
	if !BoolValue(true).Bool() || BoolValue(false).Bool() {
		t.Error("Bool does not return the boolean")
	}
	if !BVValue(wide).BV().Equal(wide) || MemValue(m).Mem() != m {
		t.Error("BV or Mem does not return the value")
	}
}
