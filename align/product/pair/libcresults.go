package pair

import (
	"bytes"

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
func knownResult(callee string, args []uint64, mem *ir.Mem) (uint64, bool) {
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
		c := int32(a0)
		switch {
		case callee == "tolower" && 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case callee == "toupper" && 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		return int32Result(c)
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
