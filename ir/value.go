package ir

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
)

// BV is a concrete bit-vector: an integer in [0, 2^Width). Widths up to 64
// are held in a uint64 (the common case, and allocation-free); wider values
// in a big.Int that is never mutated after construction.
type BV struct {
	w   uint32
	v   uint64   // the value when w <= 64
	big *big.Int // the value when w > 64
}

// NewBV returns v truncated to w bits.
func NewBV(w uint32, v uint64) BV {
	if w == 0 {
		panic("ir: bit-vector of width 0")
	}
	if w > 64 {
		return BV{w: w, big: new(big.Int).SetUint64(v)}
	}
	return BV{w: w, v: v & mask64(w)}
}

// NewBVBig returns x mod 2^w (so negative x wraps around).
func NewBVBig(w uint32, x *big.Int) BV {
	if w == 0 {
		panic("ir: bit-vector of width 0")
	}
	m := new(big.Int).Lsh(big.NewInt(1), uint(w))
	r := new(big.Int).Mod(x, m) // Mod is Euclidean: r >= 0
	if w <= 64 {
		return BV{w: w, v: r.Uint64()}
	}
	return BV{w: w, big: r}
}

// mask64 is the mask of the low w bits, for 1 <= w <= 64.
func mask64(w uint32) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

// Width is the number of bits.
func (x BV) Width() uint32 { return x.w }

// Uint64 returns the low 64 bits.
func (x BV) Uint64() uint64 {
	if x.w > 64 {
		var lo big.Int
		lo.And(x.big, new(big.Int).SetUint64(^uint64(0)))
		return lo.Uint64()
	}
	return x.v
}

// Int64 returns x read as a two's-complement integer, for widths up to 64.
func (x BV) Int64() int64 {
	if x.w > 64 {
		panic("ir: Int64 of a bit-vector wider than 64")
	}
	sh := 64 - x.w
	return int64(x.v<<sh) >> sh
}

// Big returns the value as a new big.Int the caller may modify.
func (x BV) Big() *big.Int {
	if x.w > 64 {
		return new(big.Int).Set(x.big)
	}
	return new(big.Int).SetUint64(x.v)
}

// Bit reports bit i (0 is the least significant).
func (x BV) Bit(i uint32) bool {
	if i >= x.w {
		panic(fmt.Sprintf("ir: bit %d of a %d-bit vector", i, x.w))
	}
	if x.w > 64 {
		return x.big.Bit(int(i)) == 1
	}
	return x.v>>i&1 == 1
}

// IsZero reports whether every bit is 0.
func (x BV) IsZero() bool {
	if x.w > 64 {
		return x.big.Sign() == 0
	}
	return x.v == 0
}

// Equal reports whether x and y have the same width and value.
func (x BV) Equal(y BV) bool {
	if x.w != y.w {
		return false
	}
	if x.w > 64 {
		return x.big.Cmp(y.big) == 0
	}
	return x.v == y.v
}

// String prints x as an SMT-LIB literal: #x… when the width is a multiple
// of 4, #b… otherwise.
func (x BV) String() string {
	if x.w == 0 {
		return "<zero-width>"
	}
	if x.w%4 == 0 {
		s := x.Big().Text(16)
		return "#x" + strings.Repeat("0", int(x.w/4)-len(s)) + s
	}
	s := x.Big().Text(2)
	return "#b" + strings.Repeat("0", int(x.w)-len(s)) + s
}

// Value is a concrete value of any sort: a boolean, a bit-vector or a memory.
type Value struct {
	sort Sort
	b    bool
	bv   BV
	mem  *Mem
}

// BoolValue returns the boolean value b.
func BoolValue(b bool) Value { return Value{sort: BoolSort, b: b} }

// BVValue returns the bit-vector value x.
func BVValue(x BV) Value { return Value{sort: BVSort(x.w), bv: x} }

// MemValue returns the memory value m.
func MemValue(m *Mem) Value { return Value{sort: MemSort, mem: m} }

// Sort is v's sort; the zero Value has the zero Sort.
func (v Value) Sort() Sort { return v.sort }

// Bool returns v's boolean; it panics if v is not a boolean.
func (v Value) Bool() bool {
	if v.sort.Kind != KindBool {
		panic(fmt.Sprintf("ir: Bool of a %v value", v.sort))
	}
	return v.b
}

// BV returns v's bit-vector; it panics if v is not a bit-vector.
func (v Value) BV() BV {
	if v.sort.Kind != KindBV {
		panic(fmt.Sprintf("ir: BV of a %v value", v.sort))
	}
	return v.bv
}

// Mem returns v's memory; it panics if v is not a memory.
func (v Value) Mem() *Mem {
	if v.sort.Kind != KindMem {
		panic(fmt.Sprintf("ir: Mem of a %v value", v.sort))
	}
	return v.mem
}

// Equal reports whether v and w are the same value of the same sort.
func (v Value) Equal(w Value) bool {
	if v.sort != w.sort {
		return false
	}
	switch v.sort.Kind {
	case KindBool:
		return v.b == w.b
	case KindBV:
		return v.bv.Equal(w.bv)
	case KindMem:
		return v.mem.Equal(w.mem)
	}
	return true // two zero Values
}

func (v Value) String() string {
	switch v.sort.Kind {
	case KindBool:
		if v.b {
			return "true"
		}
		return "false"
	case KindBV:
		return v.bv.String()
	case KindMem:
		return v.mem.String()
	}
	return "<no value>"
}

// Mem is a concrete memory: every 64-bit address holds a byte. It is
// immutable: With returns a new memory that shares the old one, so the
// evaluator can store through long chains cheaply. Addresses never written
// hold Default.
type Mem struct {
	parent  *Mem
	writes  map[uint64]byte // bytes written at this level
	Default byte            // meaningful at the root of the chain only
	depth   int
}

// maxMemDepth bounds how many overlays a lookup walks before the chain is
// flattened into one map.
const maxMemDepth = 16

// NewMem returns a memory holding def at every address.
func NewMem(def byte) *Mem { return &Mem{Default: def} }

// Load returns the byte at a.
func (m *Mem) Load(a uint64) byte {
	for c := m; c != nil; c = c.parent {
		if b, ok := c.writes[a]; ok {
			return b
		}
		if c.parent == nil {
			return c.Default
		}
	}
	panic("unreachable")
}

// Read returns the n bytes at a, a+1, … (addresses wrap around).
func (m *Mem) Read(a uint64, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = m.Load(a + uint64(i))
	}
	return out
}

// With returns m with bytes written at a, a+1, … (addresses wrap around).
func (m *Mem) With(a uint64, bytes []byte) *Mem {
	w := make(map[uint64]byte, len(bytes))
	for i, b := range bytes {
		w[a+uint64(i)] = b
	}
	n := &Mem{parent: m, writes: w, depth: m.depth + 1}
	if n.depth > maxMemDepth {
		return n.flatten()
	}
	return n
}

// flatten returns an equal memory with a single level.
func (m *Mem) flatten() *Mem {
	all := make(map[uint64]byte)
	root := m
	var chain []*Mem
	for c := m; c != nil; c = c.parent {
		chain = append(chain, c)
		root = c
	}
	for i := len(chain) - 1; i >= 0; i-- {
		for a, b := range chain[i].writes {
			all[a] = b
		}
	}
	return &Mem{writes: all, Default: root.Default}
}

// Written returns, in increasing order, every address written anywhere in
// m's history (some may hold Default again).
func (m *Mem) Written() []uint64 {
	seen := make(map[uint64]bool)
	for c := m; c != nil; c = c.parent {
		for a := range c.writes {
			seen[a] = true
		}
	}
	out := make([]uint64, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (m *Mem) root() *Mem {
	for m.parent != nil {
		m = m.parent
	}
	return m
}

// Equal reports whether m and o hold the same byte at every address.
func (m *Mem) Equal(o *Mem) bool {
	if m == o {
		return true
	}
	if m.root().Default != o.root().Default {
		return false
	}
	for _, a := range m.Written() {
		if m.Load(a) != o.Load(a) {
			return false
		}
	}
	for _, a := range o.Written() {
		if m.Load(a) != o.Load(a) {
			return false
		}
	}
	return true
}

func (m *Mem) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "mem{default #x%02x", m.root().Default)
	for _, a := range m.Written() {
		if b := m.Load(a); b != m.root().Default {
			fmt.Fprintf(&sb, " %#x:#x%02x", a, b)
		}
	}
	sb.WriteString("}")
	return sb.String()
}
