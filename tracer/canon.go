package tracer

import (
	"debug/elf"
	"encoding/binary"
	"sort"
)

// Canonical keys of pointer arguments (canon.go)
//
// The two executables of a pair place their code, data and literals at
// different addresses, and the two functions lay out their frames
// differently, so a pointer passed to a stubbed callee has different bits on
// the two sides even when it means the same thing. A stub therefore hashes
// a pointer parameter by its canonical key, and the call logs are compared
// by the same key:
//
//   - an address inside a symbol of the executable (a function or a data
//     object, the object's statics included) is the symbol's name and the
//     offset: mix(id(name) ^ tagSymbol) + offset;
//   - an address inside read-only data (string literals, constant tables)
//     is the bytes it points to, up to a NUL or canonStringMax bytes:
//     mix(FNV-1a(bytes) ^ tagString);
//   - an address on the run stack is one constant: frames differ between
//     the two builds, so no two stack addresses are told apart;
//   - anything else (the fixed heap, plain integers) is itself.
//
// The table of ranges is computed once per executable (newCanon), written
// by the tracer into a read-only mapping at CanonAddr before the snapshot,
// and read by the driver's __eqc_key; canonTable.key is the same function
// in Go, so the comparison and the stubs agree by construction.

// Kinds of canonical ranges (the driver's __eqc_key tests the numbers).
const (
	canonSymbol   = 1
	canonReadOnly = 2
	canonStack    = 3

	canonStringMax = 4096
	canonMaxRanges = (CanonSize/8 - 1) / 4

	tagSymbol = 0x73796d626f6c
	tagString = 0x737472696e67
	tagStack  = 0x737461636b
)

type canonRange struct{ lo, hi, kind, id uint64 }

// canonTable is an executable's ranges, sorted and disjoint, and the bytes
// of its read-only segments.
type canonTable struct {
	ranges []canonRange
	ro     []segment
}

// newCanon builds the table of x: its read-only segments whole (a string
// must not be cut by a symbol inside them), then every function and data
// symbol outside them, clipped so that ranges do not overlap (the lower
// address, then the name, first), then the run stack.
func newCanon(x *Executable, ro []segment) canonTable {
	t := canonTable{ro: ro}
	inRO := func(a uint64) bool {
		for _, s := range ro {
			if a >= s.addr && a < s.addr+uint64(len(s.data)) {
				return true
			}
		}
		return false
	}
	var syms []canonRange
	var names []string
	for _, m := range []map[string]elf.Symbol{x.funcs, x.data} {
		for n, s := range m {
			if s.Value == 0 || inRO(s.Value) {
				continue
			}
			syms = append(syms, canonRange{lo: s.Value, hi: s.Value + max(s.Size, 1), kind: canonSymbol, id: StubID(n)})
			names = append(names, n)
		}
	}
	idx := make([]int, len(syms))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool {
		a, b := syms[idx[i]], syms[idx[j]]
		if a.lo != b.lo {
			return a.lo < b.lo
		}
		return names[idx[i]] < names[idx[j]]
	})
	all := []canonRange{{lo: StackAddr, hi: StackAddr + x.StackSize, kind: canonStack}}
	for _, s := range ro {
		all = append(all, canonRange{lo: s.addr, hi: s.addr + uint64(len(s.data)), kind: canonReadOnly})
	}
	for _, i := range idx {
		all = append(all, syms[i])
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].lo < all[j].lo })
	var prevHi uint64
	for _, r := range all {
		r.lo = max(r.lo, prevHi)
		if r.lo >= r.hi {
			continue
		}
		if len(t.ranges) == canonMaxRanges {
			break
		}
		t.ranges = append(t.ranges, r)
		prevHi = r.hi
	}
	return t
}

// encode is the table as the driver reads it: a count, then lo, hi, kind,
// id of each range.
func (t *canonTable) encode() []byte {
	b := make([]byte, 8+32*len(t.ranges))
	binary.LittleEndian.PutUint64(b, uint64(len(t.ranges)))
	for i, r := range t.ranges {
		e := b[8+32*i:]
		binary.LittleEndian.PutUint64(e, r.lo)
		binary.LittleEndian.PutUint64(e[8:], r.hi)
		binary.LittleEndian.PutUint64(e[16:], r.kind)
		binary.LittleEndian.PutUint64(e[24:], r.id)
	}
	return b
}

// key is the canonical key of a (as the driver's __eqc_key computes it) and
// the kind of range a falls in (0: none).
func (t *canonTable) key(a uint64) (uint64, int) {
	r, ok := t.rangeOf(a)
	if !ok {
		return a, 0
	}
	switch r.kind {
	case canonSymbol:
		return stubMix(r.id^tagSymbol) + (a - r.lo), canonSymbol
	case canonReadOnly:
		h := uint64(0xcbf29ce484222325)
		for p := a; p < r.hi && p-a < canonStringMax; p++ {
			b := t.byteAt(p)
			if b == 0 {
				break
			}
			h = (h ^ uint64(b)) * 0x100000001b3
		}
		return stubMix(h ^ tagString), canonReadOnly
	}
	return stubMix(tagStack), canonStack
}

// rangeOf is the range a falls in.
func (t *canonTable) rangeOf(a uint64) (canonRange, bool) {
	i := sort.Search(len(t.ranges), func(i int) bool { return t.ranges[i].hi > a })
	if i == len(t.ranges) || a < t.ranges[i].lo {
		return canonRange{}, false
	}
	return t.ranges[i], true
}

// pastEnd is the key a has as a pointer one past the end of the symbol
// before it, when a is the first byte of the range right after a symbol:
// C lets a pointer point there, and which object follows differs between
// layouts.
func (t *canonTable) pastEnd(a uint64) (uint64, bool) {
	i := sort.Search(len(t.ranges), func(i int) bool { return t.ranges[i].hi >= a })
	if i == len(t.ranges) || t.ranges[i].hi != a || t.ranges[i].kind != canonSymbol {
		return 0, false
	}
	r := t.ranges[i]
	return stubMix(r.id^tagSymbol) + (r.hi - r.lo), true
}

// byteAt reads a read-only byte (zero past a segment's file contents, as
// the loader maps it).
func (t *canonTable) byteAt(a uint64) byte {
	for _, s := range t.ro {
		if a >= s.addr && a < s.addr+uint64(len(s.data)) {
			return s.data[a-s.addr]
		}
	}
	return 0
}

// readOnlySegments are the loaded segments neither writable nor executable,
// each as long as it is in memory (bytes past the file's are zero).
func readOnlySegments(f *elf.File) ([]segment, error) {
	var out []segment
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Flags&(elf.PF_W|elf.PF_X) != 0 || p.Memsz == 0 {
			continue
		}
		b := make([]byte, p.Memsz)
		if _, err := p.ReadAt(b[:p.Filesz], 0); err != nil {
			return nil, err
		}
		out = append(out, segment{addr: p.Vaddr, data: b})
	}
	return out, nil
}
