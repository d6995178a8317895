package inputs

import (
	"encoding/binary"
	"math/rand"
)

// Dictionary inputs: the constants a function's code compares with,
// adds and masks by, and their neighbours, as argument values and
// element values. A mutant that changes `x >= 'a'` into `x > 'a'`, or
// `c - '0'` into `c - '1'` behind an isdigit test, differs only on inputs
// at or next to the constant; the plan's patterns (small values, random
// bytes, text) reach such a point by chance, a fuzzer's dictionary of the
// code's own constants reaches it on purpose. The constants come from the
// lifted code of both functions (pair.Pair.CodeConstants); which one is
// used where is decided by the input's random source, so an input is
// deterministic for a pair.

// dictValue is one value drawn from dict for input k: a constant or one of
// its two neighbours (a comparison `x > c` at -O0 is `x >= c + 1`
// optimized, so both sides of every constant are tried).
func dictValue(rng *rand.Rand, dict []int64) int64 {
	v := dict[rng.Intn(len(dict))]
	return v + int64(rng.Intn(3)-1)
}

// DictFill returns size bytes of elements of e, each drawn from dict
// (a constant or a neighbour, truncated to the element; floats get the
// value converted: float code compares with float constants, which
// CodeConstants does not collect).
// Pointers in memory are left NULL, as in Fill. A char element that would
// be NUL becomes the constant's low byte plus one, so that a string of
// dictionary bytes is not cut short at its first zero.
func DictFill(rng *rand.Rand, size int, e Elem, dict []int64) []byte {
	data := make([]byte, size)
	if e.Pointer || len(dict) == 0 {
		return data
	}
	es := e.Unit()
	float := e.Float && (es == 4 || es == 8)
	for off := 0; off+es <= len(data); off += es {
		x := dictValue(rng, dict)
		v := uint64(x)
		if float {
			v = FloatBits(float64(x), es)
		}
		if e.Char && byte(v) == 0 {
			v = uint64(byte(x) + 1)
		}
		var buf [8]byte
		binary.LittleEndian.PutUint64(buf[:], v)
		copy(data[off:off+es], buf[:es])
	}
	return data
}
