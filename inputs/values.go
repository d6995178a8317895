package inputs

import "math"

// Extend truncates v to size bytes and sign- (signed) or zero-extends it
// to 64 bits, as the convention leaves an integer argument in a register
// whose upper bits the callee may read only when it is 8 bytes wide.
func Extend(v uint64, size int, signed bool) uint64 {
	bits := 8 * size
	if bits >= 64 || bits <= 0 {
		return v
	}
	m := uint64(1)<<bits - 1
	v &= m
	if signed && v>>(bits-1)&1 == 1 {
		v |= ^m
	}
	return v
}

// Boundaries are the boundary values of an integer of size bytes: 0, 1,
// -1, the minimum and maximum, and a small value (for unsigned integers:
// 0, 1, the maximum, the signed maximum, 2 and 7).
func Boundaries(size int, signed bool) []uint64 {
	bits := uint(8 * size)
	if bits > 64 || bits == 0 {
		bits, size = 64, 8
	}
	if signed {
		minV := uint64(1) << (bits - 1)
		return []uint64{0, 1, ^uint64(0), Extend(minV, size, true), Extend(minV-1, size, true), 7}
	}
	return []uint64{0, 1, Extend(^uint64(0), size, false), ^uint64(0) >> (65 - bits), 2, 7}
}

// FloatBits is x as a float of size bytes (4: float, else double).
func FloatBits(x float64, size int) uint64 {
	if size == 4 {
		return uint64(math.Float32bits(float32(x)))
	}
	return math.Float64bits(x)
}

// Finite turns random bits into a finite float of size bytes: an
// all-ones exponent (NaN or infinity) loses its top bit. NaN payloads are
// not something two correct compilations must agree on.
func Finite(v uint64, size int) uint64 {
	if size == 4 {
		if v>>23&0xff == 0xff {
			v &^= 1 << 30
		}
		return v & 0xffffffff
	}
	if v>>52&0x7ff == 0x7ff {
		v &^= 1 << 62
	}
	return v
}
