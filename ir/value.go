package ir

import (
	"fmt"
	"math/big"
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
//
// A run of the co-execution keeps tens of thousands of states of ~45
// values each, so a Value is kept to 32 bytes: the sort is not stored but
// read off the fields. A memory has mem set; a bit-vector has a positive
// width (BV's width is never 0); a boolean has width 0 and bit 0 of bv.v
// set, its value in bit 1; the zero Value has neither.
type Value struct {
	bv  BV
	mem *Mem
}

const (
	boolTag  = 1 // bit 0 of bv.v: a boolean
	boolTrue = 2 // bit 1 of bv.v: the boolean's value
)

// BoolValue returns the boolean value b.
func BoolValue(b bool) Value {
	v := Value{bv: BV{v: boolTag}}
	if b {
		v.bv.v |= boolTrue
	}
	return v
}

// BVValue returns the bit-vector value x.
func BVValue(x BV) Value {
	if x.w == 0 {
		panic("ir: bit-vector value of width 0")
	}
	return Value{bv: x}
}

// MemValue returns the memory value m.
func MemValue(m *Mem) Value {
	if m == nil {
		panic("ir: nil memory value")
	}
	return Value{mem: m}
}

// ZeroValue is the value of sort s whose bits are all zero: false, the
// zero bit-vector, the memory of zero bytes. It completes a solver's model
// where the solver left a constant out because any value will do.
func ZeroValue(s Sort) Value {
	switch s.Kind {
	case KindBool:
		return BoolValue(false)
	case KindBV:
		return BVValue(ZeroBV(s.Width))
	}
	return MemValue(NewMem(0))
}

// kind is v's sort's kind, 0 for the zero Value.
func (v Value) kind() Kind {
	switch {
	case v.mem != nil:
		return KindMem
	case v.bv.w > 0:
		return KindBV
	case v.bv.v&boolTag != 0:
		return KindBool
	}
	return 0
}

// Sort is v's sort; the zero Value has the zero Sort.
func (v Value) Sort() Sort {
	switch v.kind() {
	case KindMem:
		return MemSort
	case KindBV:
		return BVSort(v.bv.w)
	case KindBool:
		return BoolSort
	}
	return Sort{}
}

// Bool returns v's boolean; it panics if v is not a boolean.
func (v Value) Bool() bool {
	if v.kind() != KindBool {
		panic(fmt.Sprintf("ir: Bool of a %v value", v.Sort()))
	}
	return v.bv.v&boolTrue != 0
}

// BV returns v's bit-vector; it panics if v is not a bit-vector.
func (v Value) BV() BV {
	if v.kind() != KindBV {
		panic(fmt.Sprintf("ir: BV of a %v value", v.Sort()))
	}
	return v.bv
}

// Mem returns v's memory; it panics if v is not a memory.
func (v Value) Mem() *Mem {
	if v.kind() != KindMem {
		panic(fmt.Sprintf("ir: Mem of a %v value", v.Sort()))
	}
	return v.mem
}

// Equal reports whether v and w are the same value of the same sort.
func (v Value) Equal(w Value) bool {
	k := v.kind()
	if k != w.kind() {
		return false
	}
	switch k {
	case KindBool:
		return v.bv.v == w.bv.v
	case KindBV:
		return v.bv.Equal(w.bv)
	case KindMem:
		return v.mem.Equal(w.mem)
	}
	return true // two zero Values
}

func (v Value) String() string {
	switch v.kind() {
	case KindBool:
		if v.Bool() {
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
// immutable: With returns a new memory that shares all but O(log n) nodes
// with the old one (a treap with path copying), so the evaluator can store
// through long chains, and keep every intermediate memory, in O(n log n).
// Addresses never written hold Default.
//
// The treap's nodes are aligned blocks of memBlock bytes, not bytes: a
// vector store copies one path instead of sixteen, which keeps the
// co-executions of a long loop nest (every visit holding its memory) in
// memory: TSVC s176 needed > 4 GiB with a node per byte.
type Mem struct {
	tree    *memNode
	Default byte
}

// memBlock is the size of a treap node's block of bytes.
const memBlock = 16

// memNode is a treap node: a binary search tree on base and a heap on prio.
// The priority is a hash of the base, so a set of blocks always gives the
// same shape. Bit k of written says whether base+k was ever written; the
// other bytes of vals are unused.
type memNode struct {
	base        uint64
	vals        [memBlock]byte
	written     uint16
	prio        uint64
	left, right *memNode
}

func memPrio(a uint64) uint64 {
	a ^= a >> 33
	a *= 0xff51afd7ed558ccd
	a ^= a >> 33
	a *= 0xc4ceb9fe1a85ec53
	return a ^ a>>33
}

// memInsert returns n with bytes written from offset off of the block at
// base (off+len(bytes) ≤ memBlock). Every node on the search path is a
// fresh copy, so the rotations below never modify a node of the old tree.
func memInsert(n *memNode, base uint64, off int, bytes []byte) *memNode {
	if n == nil {
		c := &memNode{base: base, prio: memPrio(base)}
		c.put(off, bytes)
		return c
	}
	c := *n
	switch {
	case base == n.base:
		c.put(off, bytes)
	case base < n.base:
		c.left = memInsert(n.left, base, off, bytes)
		if c.left.prio > c.prio { // rotate right
			l := c.left
			c.left = l.right
			l.right = &c
			return l
		}
	default:
		c.right = memInsert(n.right, base, off, bytes)
		if c.right.prio > c.prio { // rotate left
			r := c.right
			c.right = r.left
			r.left = &c
			return r
		}
	}
	return &c
}

func (n *memNode) put(off int, bytes []byte) {
	copy(n.vals[off:], bytes)
	n.written |= uint16(1<<len(bytes)-1) << off
}

// NewMem returns a memory holding def at every address.
func NewMem(def byte) *Mem { return &Mem{Default: def} }

// MemFromMap returns a memory holding bytes[a] at every address a in bytes
// and def elsewhere.
func MemFromMap(def byte, bytes map[uint64]byte) *Mem {
	m := NewMem(def)
	for a, b := range bytes {
		m = m.With(a, []byte{b})
	}
	return m
}

// Load returns the byte at a.
func (m *Mem) Load(a uint64) byte {
	base, off := a&^(memBlock-1), a&(memBlock-1)
	n := m.tree
	for n != nil {
		switch {
		case base == n.base:
			if n.written&(1<<off) != 0 {
				return n.vals[off]
			}
			return m.Default
		case base < n.base:
			n = n.left
		default:
			n = n.right
		}
	}
	return m.Default
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
	t := m.tree
	for len(bytes) > 0 {
		base, off := a&^(memBlock-1), int(a&(memBlock-1))
		k := min(len(bytes), memBlock-off)
		t = memInsert(t, base, off, bytes[:k])
		a += uint64(k)
		bytes = bytes[k:]
	}
	return &Mem{tree: t, Default: m.Default}
}

// Written returns, in increasing order, every address ever written in m's
// history (some may hold Default again).
func (m *Mem) Written() []uint64 {
	var out []uint64
	m.tree.each(func(n *memNode) bool {
		for k := uint64(0); k < memBlock; k++ {
			if n.written&(1<<k) != 0 {
				out = append(out, n.base+k)
			}
		}
		return true
	})
	return out
}

// each calls f on every node of the tree at n in increasing base order
// and reports whether f returned true every time (it stops at the first
// false).
func (n *memNode) each(f func(*memNode) bool) bool {
	for n != nil {
		if !n.left.each(f) || !f(n) {
			return false
		}
		n = n.right
	}
	return true
}

// block returns the node of the block at base, or nil.
func (m *Mem) block(base uint64) *memNode {
	n := m.tree
	for n != nil && n.base != base {
		if base < n.base {
			n = n.left
		} else {
			n = n.right
		}
	}
	return n
}

// Equal reports whether m and o hold the same byte at every address.
func (m *Mem) Equal(o *Mem) bool { return m.EqualOutside(o, 0, 0) }

// EqualOutside reports whether m and o hold the same byte at every address
// outside [lo, hi) (every address when lo >= hi). It compares block by
// block, and a block the two memories share (a persistent tree's
// untouched subtrees) in one step: co-executions compare memories after
// every step, and comparing byte by byte through Written spent more time
// allocating than comparing.
func (m *Mem) EqualOutside(o *Mem, lo, hi uint64) bool {
	if m == o || m.tree == o.tree && m.Default == o.Default {
		return true
	}
	if m.Default != o.Default {
		return false
	}
	// agree compares n's block with the same block of other (nil when
	// other never wrote it); the bytes neither wrote are both Default.
	agree := func(n, other *memNode) bool {
		if n == other {
			return true
		}
		var ow uint16
		if other != nil {
			ow = other.written
		}
		for k := uint64(0); k < memBlock; k++ {
			bit := uint16(1) << k
			if (n.written|ow)&bit == 0 || n.base+k >= lo && n.base+k < hi {
				continue
			}
			a, b := m.Default, m.Default
			if n.written&bit != 0 {
				a = n.vals[k]
			}
			if ow&bit != 0 {
				b = other.vals[k]
			}
			if a != b {
				return false
			}
		}
		return true
	}
	return m.tree.each(func(n *memNode) bool { return agree(n, o.block(n.base)) }) &&
		o.tree.each(func(n *memNode) bool { return m.block(n.base) != nil || agree(n, nil) })
}

func (m *Mem) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "mem{default #x%02x", m.Default)
	for _, a := range m.Written() {
		if b := m.Load(a); b != m.Default {
			fmt.Fprintf(&sb, " %#x:#x%02x", a, b)
		}
	}
	sb.WriteString("}")
	return sb.String()
}

// ValueFromHash spreads the 64-bit hash h into a value of sort so: a Bool
// from its low bit, a memory whose every byte is h's low byte, a
// bit-vector from h (repeated through a multiplicative step above 64
// bits). Environments that give every name a reproducible pseudo-random
// value use it.
func ValueFromHash(so Sort, h uint64) Value {
	switch so.Kind {
	case KindBool:
		return BoolValue(h&1 == 1)
	case KindMem:
		return MemValue(NewMem(byte(h)))
	}
	if so.Width <= 64 {
		return BVValue(NewBV(so.Width, h))
	}
	x := NewBV(64, h)
	for x.Width() < so.Width {
		h = h*0x9E3779B97F4A7C15 + 1
		x = NewBV(64, h).Concat(x)
	}
	return BVValue(x.Extract(so.Width-1, 0))
}
