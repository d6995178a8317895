package pair

import (
	"bytes"
	"encoding/binary"

	"eqc/ir"
)

// Known results of C library calls in co-executions. A callee's result
// in a run is otherwise a hash of its arguments (hashEnv.ApplyFunc), which
// is right for a function nobody knows, and wrong for strlen: the length
// of the run's string is what the code after the call indexes it with
// (trim_right reads s[n-1], which with a random n is a random byte, so no
// run ever went round its loop). For the C library's const and pure
// functions whose meaning is fixed (Pair.libraryCallees: neither file
// defines them), a run's call returns what the function returns on the
// run's values and memory. Runs only suggest; the proofs keep the callees
// uninterpreted (or as CallAssumptions state them), so a result computed
// here is never an assumption of a proof.

// maxKnownScan bounds the bytes a known result reads: a string the run did
// not place may have no NUL within reach (a memory's default byte), and
// its call keeps the hash.
const maxKnownScan = 1 << 12

// knownResult is the rax callee returns on the argument register values
// args and memory mem, when known; int results are sign-extended, as the
// callee's 32-bit result reads in either half.
func knownResult(callee string, args []uint64, mem *ir.Mem, ctype uint64) (uint64, bool) {
	arg := func(i int) (uint64, bool) {
		if i < len(args) {
			return args[i], true
		}
		return 0, false
	}
	a0, ok0 := arg(0)
	a1, ok1 := arg(1)
	a2, ok2 := arg(2)
	int32Result := func(v int32) (uint64, bool) { return uint64(int64(v)), true }
	switch callee {
	case "abs":
		if !ok0 {
			return 0, false
		}
		x := int32(a0)
		if x < 0 {
			x = -x // abs(INT_MIN) is INT_MIN, as the wrap gives
		}
		return int32Result(x)
	case "labs", "llabs":
		if !ok0 {
			return 0, false
		}
		x := int64(a0)
		if x < 0 {
			x = -x
		}
		return uint64(x), true
	case "tolower", "toupper":
		if !ok0 {
			return 0, false
		}
		return int32Result(int32(cLocaleCase(int(int32(a0)), callee == "toupper")))
	case "__ctype_b_loc":
		return ctype + ctypeBLoc, true
	case "__ctype_tolower_loc":
		return ctype + ctypeLowerLoc, true
	case "__ctype_toupper_loc":
		return ctype + ctypeUpperLoc, true
	case "strlen":
		if !ok0 {
			return 0, false
		}
		return cStringLen(mem, a0, maxKnownScan)
	case "strnlen":
		if !ok0 || !ok1 {
			return 0, false
		}
		if n, ok := cStringLen(mem, a0, min(a1, maxKnownScan)); ok {
			return n, true
		}
		if a1 <= maxKnownScan {
			return a1, true
		}
		return 0, false
	case "strcmp", "strncmp":
		if !ok0 || !ok1 {
			return 0, false
		}
		limit := uint64(maxKnownScan)
		if callee == "strncmp" {
			if !ok2 {
				return 0, false
			}
			limit = min(limit, a2)
		}
		for i := uint64(0); i < limit; i++ {
			x, y := mem.Load(a0+i), mem.Load(a1+i)
			if x != y || x == 0 {
				return int32Result(int32(x) - int32(y))
			}
		}
		if callee == "strncmp" && a2 <= maxKnownScan {
			return 0, true
		}
		return 0, false
	case "memcmp", "bcmp":
		if !ok0 || !ok1 || !ok2 || a2 > maxKnownScan {
			return 0, false
		}
		return int32Result(int32(bytes.Compare(mem.Read(a0, int(a2)), mem.Read(a1, int(a2)))))
	case "strchr", "strrchr":
		if !ok0 || !ok1 {
			return 0, false
		}
		n, ok := cStringLen(mem, a0, maxKnownScan)
		if !ok {
			return 0, false
		}
		s := mem.Read(a0, int(n)+1) // the NUL is found too
		i := bytes.IndexByte(s, byte(a1))
		if callee == "strrchr" {
			i = bytes.LastIndexByte(s, byte(a1))
		}
		if i < 0 {
			return 0, true
		}
		return a0 + uint64(i), true
	case "memchr":
		if !ok0 || !ok1 || !ok2 || a2 > maxKnownScan {
			return 0, false
		}
		if i := bytes.IndexByte(mem.Read(a0, int(a2)), byte(a1)); i >= 0 {
			return a0 + uint64(i), true
		}
		return 0, true
	}
	return 0, false
}

// cStringLen is the offset of the first NUL from a, when it lies within
// limit bytes.
func cStringLen(mem *ir.Mem, a, limit uint64) (uint64, bool) {
	for i := uint64(0); i < limit; i++ {
		if mem.Load(a+i) == 0 {
			return i, true
		}
	}
	return 0, false
}

// glibc's <ctype.h> macros read tables through __ctype_b_loc() (a
// pointer to a pointer to 384 16-bit classes, indexed from -128) and
// __ctype_tolower_loc() / __ctype_toupper_loc() (384 32-bit results).
// Co-executions that may call them hold the C locale's tables at ctype
// (CtypeBase, which varies with the run as a hashed result would, so
// that no run makes the table's address look like a constant), and the
// calls return these addresses: isdigit(*s) in a run is then true on
// digits only, where a hashed pointer made it a random bit, so
// parse_int's loop ran on random bytes until the step cap.
const (
	ctypeBLoc     = 0  // → ctypeB + 128*2
	ctypeLowerLoc = 8  // → ctypeLower + 128*4
	ctypeUpperLoc = 16 // → ctypeUpper + 128*4
	ctypeB        = 0
	ctypeLower    = 1 << 12
	ctypeUpper    = 2 << 12
)

// ctypeBase is where run k's table locations lie and ctypeTableBase
// where its tables do: far from everything else a run places, and apart
// by a distance that changes with the run. At a fixed distance the
// address canonicalizer took a location and its table for one object
// (the location = the table's address − 0x1100 on every sample, a fact
// of the runs' layout that no proof can show).
func ctypeBase(k int) uint64 { return 0x5b5b_0000_0000 + uint64(k%64)<<16 }

func ctypeTableBase(k int) uint64 { return 0x5c5c_0000_0000 + uint64(k%64)<<24 }

// The classes' bits in glibc's table (its _ISbit: little-endian halves).
const (
	isUpper  = 0x100
	isLower  = 0x200
	isAlpha  = 0x400
	isDigit  = 0x800
	isXdigit = 0x1000
	isSpace  = 0x2000
	isPrint  = 0x4000
	isGraph  = 0x8000
	isBlank  = 0x1
	isCntrl  = 0x2
	isPunct  = 0x4
	isAlnum  = 0x8
)

// cLocaleClass is the C locale's class bits of byte c (0 above 127).
func cLocaleClass(c int) uint16 {
	var m uint16
	upper, lower, digit := 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9'
	set := func(cond bool, bits uint16) {
		if cond {
			m |= bits
		}
	}
	set(upper, isUpper|isAlpha|isAlnum)
	set(lower, isLower|isAlpha|isAlnum)
	set(digit, isDigit|isAlnum)
	set(digit || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F', isXdigit)
	set(c == ' ' || '\t' <= c && c <= '\r', isSpace)
	set(c == ' ' || c == '\t', isBlank)
	set(0x20 <= c && c < 0x7f, isPrint)
	set(0x20 < c && c < 0x7f, isGraph)
	set(c < 0x20 || c == 0x7f, isCntrl)
	set(0x20 < c && c < 0x7f && !upper && !lower && !digit, isPunct)
	if c < 0 || c > 0x7f {
		return 0
	}
	return m
}

// cLocaleCase is glibc's tolower(c) (toupper with upper) in the C
// locale: a letter's other case; -128..-2, signed chars, as the bytes
// 128..255 they are; everything else, EOF too, itself.
func cLocaleCase(c int, upper bool) int {
	switch {
	case !upper && 'A' <= c && c <= 'Z':
		return c + 'a' - 'A'
	case upper && 'a' <= c && c <= 'z':
		return c - ('a' - 'A')
	case -128 <= c && c <= -2:
		return c + 256
	}
	return c
}

// ctypeTables writes the C locale's tables into mem at tables and their
// locations at base.
func ctypeTables(mem *ir.Mem, base, tables uint64) *ir.Mem {
	le64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	mem = mem.With(base+ctypeBLoc, le64(tables+ctypeB+128*2))
	mem = mem.With(base+ctypeLowerLoc, le64(tables+ctypeLower+128*4))
	mem = mem.With(base+ctypeUpperLoc, le64(tables+ctypeUpper+128*4))
	var cls, lower, upper []byte
	for c := -128; c < 256; c++ {
		k := c
		if k < 0 {
			k += 256 // -128..-1 read as the bytes 128..255 do
		}
		cls = binary.LittleEndian.AppendUint16(cls, cLocaleClass(k))
		lo, up := cLocaleCase(c, false), cLocaleCase(c, true)
		lower = binary.LittleEndian.AppendUint32(lower, uint32(int32(lo)))
		upper = binary.LittleEndian.AppendUint32(upper, uint32(int32(up)))
	}
	mem = mem.With(tables+ctypeB, cls)
	mem = mem.With(tables+ctypeLower, lower)
	return mem.With(tables+ctypeUpper, upper)
}
