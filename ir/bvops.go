package ir

import (
	"fmt"
	"math/big"
)

// Bit-vector arithmetic on concrete values, one method per bit-vector op of
// the op table, with SMT-LIB semantics (including division by zero and
// over-wide shifts). The evaluator and the simplifier's constant folding both
// go through these methods, so the two cannot disagree.
//
// Conventions:
//   - Binary methods are x.Op(y) and panic if the widths differ: the term
//     builder already rejects ill-sorted terms, so a mismatch here is a bug.
//   - Widths up to 64 are computed on the uint64 fast path and never
//     allocate; wider vectors go through big.Int and never mutate an operand
//     (BV values are shared freely, including the Builder's constant table).
//   - A result of width ≤ 64 is always held in the uint64 field and a wider
//     one in the big.Int field (with the uint64 field zero), whatever the
//     operand widths, because BV.Equal and the Builder's constant index
//     rely on that representation being canonical.

// ZeroBV is the w-bit zero.
func ZeroBV(w uint32) BV { return NewBV(w, 0) }

// OnesBV is the w-bit vector of all ones (−1 as a signed number).
func OnesBV(w uint32) BV {
	if w <= 64 {
		return NewBV(w, ^uint64(0))
	}
	return BV{w: w, big: bigMask(w)}
}

// IsOnes reports whether every bit of x is 1.
func (x BV) IsOnes() bool {
	if x.w > 64 {
		return x.big.BitLen() == int(x.w) && x.big.Cmp(bigMask(x.w)) == 0
	}
	return x.v == mask64(x.w)
}

// IsOne reports whether x is the integer 1 (for width 1 that is also −1).
func (x BV) IsOne() bool {
	if x.w > 64 {
		return x.big.IsUint64() && x.big.Uint64() == 1
	}
	return x.v == 1
}

// MSB reports the most significant (sign) bit.
func (x BV) MSB() bool { return x.Bit(x.w - 1) }

// Signed returns x read as a two's-complement integer, as a new big.Int.
func (x BV) Signed() *big.Int {
	z := x.Big()
	if x.MSB() {
		z.Sub(z, bigPow2(x.w))
	}
	return z
}

var bigOne = big.NewInt(1)

// bigPow2 returns a new 2^w.
func bigPow2(w uint32) *big.Int { return new(big.Int).Lsh(bigOne, uint(w)) }

// bigMask returns a new 2^w − 1.
func bigMask(w uint32) *big.Int {
	m := bigPow2(w)
	return m.Sub(m, bigOne)
}

// bvFromBig returns z mod 2^w in canonical form. z is owned by the callee
// (it may be reduced in place) and may be negative.
func bvFromBig(w uint32, z *big.Int) BV {
	if z.Sign() < 0 || z.BitLen() > int(w) {
		// big.Int's And uses two's-complement semantics for negative
		// operands, so this is reduction mod 2^w for either sign.
		z.And(z, bigMask(w))
	}
	if w <= 64 {
		return BV{w: w, v: z.Uint64()}
	}
	return BV{w: w, big: z}
}

// sameWidth panics unless x and y have the same width.
func (x BV) sameWidth(y BV, op string) {
	if x.w != y.w {
		panic(fmt.Sprintf("ir: %s of %d-bit and %d-bit vectors", op, x.w, y.w))
	}
}

// Add returns x + y mod 2^w.
func (x BV) Add(y BV) BV {
	x.sameWidth(y, "add")
	if x.w <= 64 {
		return BV{w: x.w, v: (x.v + y.v) & mask64(x.w)}
	}
	return bvFromBig(x.w, new(big.Int).Add(x.big, y.big))
}

// Sub returns x − y mod 2^w.
func (x BV) Sub(y BV) BV {
	x.sameWidth(y, "sub")
	if x.w <= 64 {
		return BV{w: x.w, v: (x.v - y.v) & mask64(x.w)}
	}
	return bvFromBig(x.w, new(big.Int).Sub(x.big, y.big))
}

// Mul returns x · y mod 2^w.
func (x BV) Mul(y BV) BV {
	x.sameWidth(y, "mul")
	if x.w <= 64 {
		return BV{w: x.w, v: (x.v * y.v) & mask64(x.w)}
	}
	return bvFromBig(x.w, new(big.Int).Mul(x.big, y.big))
}

// Neg returns −x mod 2^w.
func (x BV) Neg() BV {
	if x.w <= 64 {
		return BV{w: x.w, v: -x.v & mask64(x.w)}
	}
	return bvFromBig(x.w, new(big.Int).Neg(x.big))
}

// UDiv returns ⌊x / y⌋ on unsigned values, and all ones when y = 0 (SMT-LIB).
func (x BV) UDiv(y BV) BV {
	x.sameWidth(y, "udiv")
	if y.IsZero() {
		return OnesBV(x.w)
	}
	if x.w <= 64 {
		return BV{w: x.w, v: x.v / y.v}
	}
	return bvFromBig(x.w, new(big.Int).Quo(x.big, y.big))
}

// URem returns x mod y on unsigned values, and x when y = 0 (SMT-LIB).
func (x BV) URem(y BV) BV {
	x.sameWidth(y, "urem")
	if y.IsZero() {
		return x
	}
	if x.w <= 64 {
		return BV{w: x.w, v: x.v % y.v}
	}
	return bvFromBig(x.w, new(big.Int).Rem(x.big, y.big))
}

// SDiv is SMT-LIB's bvsdiv, computed by its definition from bvudiv on the
// magnitudes so that every corner (division by zero, −2^(w−1) / −1, width 1)
// follows the standard rather than Go's or the CPU's conventions.
func (x BV) SDiv(y BV) BV {
	x.sameWidth(y, "sdiv")
	sx, sy := x.MSB(), y.MSB()
	switch {
	case !sx && !sy:
		return x.UDiv(y)
	case sx && !sy:
		return x.Neg().UDiv(y).Neg()
	case !sx && sy:
		return x.UDiv(y.Neg()).Neg()
	default:
		return x.Neg().UDiv(y.Neg())
	}
}

// SRem is SMT-LIB's bvsrem (the remainder takes the sign of x), computed by
// its definition from bvurem on the magnitudes.
func (x BV) SRem(y BV) BV {
	x.sameWidth(y, "srem")
	sx, sy := x.MSB(), y.MSB()
	switch {
	case !sx && !sy:
		return x.URem(y)
	case sx && !sy:
		return x.Neg().URem(y).Neg()
	case !sx && sy:
		return x.URem(y.Neg())
	default:
		return x.Neg().URem(y.Neg()).Neg()
	}
}

// And returns the bitwise x & y.
func (x BV) And(y BV) BV {
	x.sameWidth(y, "bvand")
	if x.w <= 64 {
		return BV{w: x.w, v: x.v & y.v}
	}
	return bvFromBig(x.w, new(big.Int).And(x.big, y.big))
}

// Or returns the bitwise x | y.
func (x BV) Or(y BV) BV {
	x.sameWidth(y, "bvor")
	if x.w <= 64 {
		return BV{w: x.w, v: x.v | y.v}
	}
	return bvFromBig(x.w, new(big.Int).Or(x.big, y.big))
}

// Xor returns the bitwise x ^ y.
func (x BV) Xor(y BV) BV {
	x.sameWidth(y, "bvxor")
	if x.w <= 64 {
		return BV{w: x.w, v: x.v ^ y.v}
	}
	return bvFromBig(x.w, new(big.Int).Xor(x.big, y.big))
}

// Not returns the bitwise complement of x.
func (x BV) Not() BV {
	if x.w <= 64 {
		return BV{w: x.w, v: ^x.v & mask64(x.w)}
	}
	return bvFromBig(x.w, new(big.Int).Xor(x.big, bigMask(x.w)))
}

// shiftAmount returns y as a shift count and whether it is below x's width;
// counts at or above the width saturate (SMT-LIB shifts by ≥ w give 0 or
// sign fill), so the exact value of a huge count does not matter.
func (x BV) shiftAmount(y BV) (uint, bool) {
	if y.w > 64 {
		if y.big.BitLen() > 32 {
			return 0, false
		}
		s := y.big.Uint64()
		return uint(s), s < uint64(x.w)
	}
	return uint(y.v), y.v < uint64(x.w)
}

// Shl returns x << y, and 0 when y ≥ w.
func (x BV) Shl(y BV) BV {
	x.sameWidth(y, "shl")
	s, ok := x.shiftAmount(y)
	if !ok {
		return ZeroBV(x.w)
	}
	if x.w <= 64 {
		return BV{w: x.w, v: x.v << s & mask64(x.w)}
	}
	return bvFromBig(x.w, new(big.Int).Lsh(x.big, s))
}

// LShr returns x >> y filling with zeros, and 0 when y ≥ w.
func (x BV) LShr(y BV) BV {
	x.sameWidth(y, "lshr")
	s, ok := x.shiftAmount(y)
	if !ok {
		return ZeroBV(x.w)
	}
	if x.w <= 64 {
		return BV{w: x.w, v: x.v >> s}
	}
	return bvFromBig(x.w, new(big.Int).Rsh(x.big, s))
}

// AShr returns x >> y filling with the sign bit; all sign bits when y ≥ w.
func (x BV) AShr(y BV) BV {
	x.sameWidth(y, "ashr")
	s, ok := x.shiftAmount(y)
	if !ok {
		if x.MSB() {
			return OnesBV(x.w)
		}
		return ZeroBV(x.w)
	}
	if x.w <= 64 {
		sh := 64 - x.w
		return BV{w: x.w, v: uint64(int64(x.v<<sh)>>sh>>s) & mask64(x.w)}
	}
	// big.Int's Rsh of a negative number rounds toward −∞, which is the
	// arithmetic shift.
	z := x.Signed()
	return bvFromBig(x.w, z.Rsh(z, s))
}

// rotateAmount returns y mod w.
func (x BV) rotateAmount(y BV) uint32 {
	if y.w > 64 {
		return uint32(new(big.Int).Rem(y.big, big.NewInt(int64(x.w))).Uint64())
	}
	return uint32(y.v % uint64(x.w))
}

// Rotl returns x rotated left by y mod w bits.
func (x BV) Rotl(y BV) BV {
	x.sameWidth(y, "rotl")
	return x.rotl(x.rotateAmount(y))
}

// Rotr returns x rotated right by y mod w bits.
func (x BV) Rotr(y BV) BV {
	x.sameWidth(y, "rotr")
	s := x.rotateAmount(y)
	if s == 0 {
		return x
	}
	return x.rotl(x.w - s)
}

// rotl rotates left by s < w.
func (x BV) rotl(s uint32) BV {
	if s == 0 {
		return x
	}
	if x.w <= 64 {
		return BV{w: x.w, v: (x.v<<s | x.v>>(x.w-s)) & mask64(x.w)}
	}
	hi := new(big.Int).Lsh(x.big, uint(s))
	lo := new(big.Int).Rsh(x.big, uint(x.w-s))
	return bvFromBig(x.w, hi.Or(hi, lo))
}

// Concat returns x as the high bits above lo (width x.w + lo.w).
func (x BV) Concat(lo BV) BV {
	w := x.w + lo.w
	if w <= 64 {
		return BV{w: w, v: x.v<<lo.w | lo.v}
	}
	z := x.Big()
	z.Lsh(z, uint(lo.w))
	if lo.w > 64 {
		z.Or(z, lo.big)
	} else {
		z.Or(z, new(big.Int).SetUint64(lo.v))
	}
	return BV{w: w, big: z}
}

// Extract returns bits hi down to lo of x, inclusive.
func (x BV) Extract(hi, lo uint32) BV {
	if hi < lo || hi >= x.w {
		panic(fmt.Sprintf("ir: extract [%d:%d] of a %d-bit vector", hi, lo, x.w))
	}
	w := hi - lo + 1
	if x.w <= 64 {
		return BV{w: w, v: x.v >> lo & mask64(w)}
	}
	return bvFromBig(w, new(big.Int).Rsh(x.big, uint(lo)))
}

// ZeroExt returns x widened by n zero bits.
func (x BV) ZeroExt(n uint32) BV {
	w := x.w + n
	if w <= 64 {
		return BV{w: w, v: x.v}
	}
	return BV{w: w, big: x.Big()}
}

// SignExt returns x widened by n copies of its sign bit.
func (x BV) SignExt(n uint32) BV {
	w := x.w + n
	if w <= 64 {
		sh := 64 - x.w
		return BV{w: w, v: uint64(int64(x.v<<sh)>>sh) & mask64(w)}
	}
	return bvFromBig(w, x.Signed())
}

// Ult reports x < y on unsigned values.
func (x BV) Ult(y BV) bool {
	x.sameWidth(y, "ult")
	if x.w <= 64 {
		return x.v < y.v
	}
	return x.big.Cmp(y.big) < 0
}

// Ule reports x ≤ y on unsigned values.
func (x BV) Ule(y BV) bool { return !y.Ult(x) }

// Slt reports x < y on two's-complement values.
func (x BV) Slt(y BV) bool {
	x.sameWidth(y, "slt")
	if x.w <= 64 {
		return x.Int64() < y.Int64()
	}
	return x.Signed().Cmp(y.Signed()) < 0
}

// Sle reports x ≤ y on two's-complement values.
func (x BV) Sle(y BV) bool { return !y.Slt(x) }
