package ir_test

import (
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"

	"eqc/ir"
)

// The oracles for BV arithmetic are Go's own fixed-width integers (whose
// wraparound, truncating division and over-wide shifts coincide with
// SMT-LIB's except at division by zero) and an independent big.Int
// transcription of the SMT-LIB definitions for other widths.

type unsigned interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

type signed interface {
	~int8 | ~int16 | ~int32 | ~int64
}

// interesting returns boundary values of a w-bit vector and n random ones.
func interesting(rng *rand.Rand, w uint32, n int) []*big.Int {
	one := big.NewInt(1)
	pow := func(k uint32) *big.Int { return new(big.Int).Lsh(one, uint(k)) }
	mod := pow(w)
	vals := []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(3), big.NewInt(7), big.NewInt(8),
		new(big.Int).Sub(mod, one), new(big.Int).Sub(mod, big.NewInt(2)),
		pow(w - 1), new(big.Int).Add(pow(w-1), one), new(big.Int).Sub(pow(w-1), one),
		big.NewInt(int64(w)), big.NewInt(int64(w) - 1), big.NewInt(int64(w) + 1),
		new(big.Int).Lsh(one, 64), new(big.Int).Sub(new(big.Int).Lsh(one, 64), one),
	}
	for range n {
		z := new(big.Int)
		for i := uint32(0); i < w; i += 64 {
			z.Lsh(z, 64).Or(z, new(big.Int).SetUint64(rng.Uint64()))
		}
		if rng.IntN(3) == 0 { // small magnitudes matter for shifts and division
			z.SetUint64(rng.Uint64() >> rng.IntN(64))
		}
		vals = append(vals, z)
	}
	for i, v := range vals {
		vals[i] = new(big.Int).Mod(v, mod)
	}
	return vals
}

type binCase struct {
	name string
	bv   func(x, y ir.BV) ir.BV
}

var binOps = []binCase{
	{"add", ir.BV.Add}, {"sub", ir.BV.Sub}, {"mul", ir.BV.Mul},
	{"udiv", ir.BV.UDiv}, {"urem", ir.BV.URem}, {"sdiv", ir.BV.SDiv}, {"srem", ir.BV.SRem},
	{"and", ir.BV.And}, {"or", ir.BV.Or}, {"xor", ir.BV.Xor},
	{"shl", ir.BV.Shl}, {"lshr", ir.BV.LShr}, {"ashr", ir.BV.AShr},
	{"rotl", ir.BV.Rotl}, {"rotr", ir.BV.Rotr},
	{"ult", boolOp(ir.BV.Ult)}, {"ule", boolOp(ir.BV.Ule)},
	{"slt", boolOp(ir.BV.Slt)}, {"sle", boolOp(ir.BV.Sle)},
}

// boolOp wraps a comparison as a 1-bit result so that one table serves all.
func boolOp(f func(x, y ir.BV) bool) func(x, y ir.BV) ir.BV {
	return func(x, y ir.BV) ir.BV {
		if f(x, y) {
			return ir.NewBV(1, 1)
		}
		return ir.NewBV(1, 0)
	}
}

func b2u(c bool) uint64 {
	if c {
		return 1
	}
	return 0
}

func rotl64(w uint32, x uint64, s int) uint64 {
	switch w {
	case 8:
		return uint64(bits.RotateLeft8(uint8(x), s))
	case 16:
		return uint64(bits.RotateLeft16(uint16(x), s))
	case 32:
		return uint64(bits.RotateLeft32(uint32(x), s))
	}
	return bits.RotateLeft64(x, s)
}

// nativeBin is op on Go's w-bit integers, with SMT-LIB's division by zero.
func nativeBin[U unsigned, S signed](name string, w uint32, x, y U) uint64 {
	sx, sy := S(x), S(y)
	switch name {
	case "add":
		return uint64(x + y)
	case "sub":
		return uint64(x - y)
	case "mul":
		return uint64(x * y)
	case "udiv":
		if y == 0 {
			return uint64(^U(0))
		}
		return uint64(x / y)
	case "urem":
		if y == 0 {
			return uint64(x)
		}
		return uint64(x % y)
	case "sdiv":
		if y == 0 {
			if sx < 0 {
				return 1
			}
			return uint64(^U(0))
		}
		return uint64(U(sx / sy)) // Go wraps MinInt / −1 to MinInt, as SMT-LIB does
	case "srem":
		if y == 0 {
			return uint64(x)
		}
		return uint64(U(sx % sy))
	case "and":
		return uint64(x & y)
	case "or":
		return uint64(x | y)
	case "xor":
		return uint64(x ^ y)
	case "shl": // Go shifts by ≥ width give 0 and sign fill, like SMT-LIB
		return uint64(x << uint64(y))
	case "lshr":
		return uint64(x >> uint64(y))
	case "ashr":
		return uint64(U(sx >> uint64(y)))
	case "rotl":
		return rotl64(w, uint64(x), int(uint64(y)%uint64(w)))
	case "rotr":
		return rotl64(w, uint64(x), -int(uint64(y)%uint64(w)))
	case "ult":
		return b2u(x < y)
	case "ule":
		return b2u(x <= y)
	case "slt":
		return b2u(sx < sy)
	case "sle":
		return b2u(sx <= sy)
	}
	panic(name)
}

func checkNative[U unsigned, S signed](t *testing.T, w uint32) {
	rng := rand.New(rand.NewPCG(uint64(w), 1))
	vals := interesting(rng, w, 300)
	for _, xb := range vals {
		x := U(xb.Uint64())
		bx := ir.NewBV(w, uint64(x))
		if got, want := bx.Neg().Uint64(), uint64(-x); got != want {
			t.Fatalf("w=%d neg %#x = %#x, want %#x", w, x, got, want)
		}
		if got, want := bx.Not().Uint64(), uint64(^x); got != want {
			t.Fatalf("w=%d not %#x = %#x, want %#x", w, x, got, want)
		}
		if got, want := bx.SignExt(64-w).Uint64(), uint64(int64(S(x))); w < 64 && got != want {
			t.Fatalf("w=%d sext %#x = %#x, want %#x", w, x, got, want)
		}
		for lo := uint32(0); lo < w; lo += 1 + uint32(rng.IntN(5)) {
			hi := lo + uint32(rng.IntN(int(w-lo)))
			want := uint64(x) >> lo & (^uint64(0) >> (63 - (hi - lo)))
			if got := bx.Extract(hi, lo); got.Uint64() != want || got.Width() != hi-lo+1 {
				t.Fatalf("w=%d extract[%d:%d] %#x = %v, want %#x", w, hi, lo, x, got, want)
			}
		}
		for _, yb := range vals {
			y := U(yb.Uint64())
			by := ir.NewBV(w, uint64(y))
			for _, op := range binOps {
				got := op.bv(bx, by)
				want := nativeBin[U, S](op.name, w, x, y)
				if got.Uint64() != want {
					t.Fatalf("w=%d %s(%#x, %#x) = %v, want %#x", w, op.name, x, y, got, want)
				}
			}
			if w <= 32 {
				got := bx.Concat(by)
				if want := uint64(x)<<w | uint64(y); got.Uint64() != want || got.Width() != 2*w {
					t.Fatalf("w=%d concat(%#x, %#x) = %v, want %#x", w, x, y, got, want)
				}
			}
		}
	}
}

func TestBVNative(t *testing.T) {
	checkNative[uint8, int8](t, 8)
	checkNative[uint16, int16](t, 16)
	checkNative[uint32, int32](t, 32)
	checkNative[uint64, int64](t, 64)
}

// ref is an independent big.Int transcription of SMT-LIB's definitions,
// with x, y in [0, 2^w). It returns the result reduced mod 2^w (or 0/1 for
// comparisons).
func ref(name string, w uint32, x, y *big.Int) *big.Int {
	one := big.NewInt(1)
	mod := new(big.Int).Lsh(one, uint(w))
	half := new(big.Int).Lsh(one, uint(w-1))
	toS := func(v *big.Int) *big.Int {
		if v.Cmp(half) >= 0 {
			return new(big.Int).Sub(v, mod)
		}
		return new(big.Int).Set(v)
	}
	red := func(v *big.Int) *big.Int { return new(big.Int).Mod(v, mod) }
	b := func(c bool) *big.Int { return big.NewInt(int64(b2u(c))) }
	sx, sy := toS(x), toS(y)
	wBig := big.NewInt(int64(w))
	switch name {
	case "add":
		return red(new(big.Int).Add(x, y))
	case "sub":
		return red(new(big.Int).Sub(x, y))
	case "mul":
		return red(new(big.Int).Mul(x, y))
	case "udiv":
		if y.Sign() == 0 {
			return red(big.NewInt(-1))
		}
		return new(big.Int).Quo(x, y)
	case "urem":
		if y.Sign() == 0 {
			return new(big.Int).Set(x)
		}
		return new(big.Int).Rem(x, y)
	case "sdiv":
		if y.Sign() == 0 {
			if sx.Sign() < 0 {
				return big.NewInt(1)
			}
			return red(big.NewInt(-1))
		}
		return red(new(big.Int).Quo(sx, sy)) // Quo truncates toward zero
	case "srem":
		if y.Sign() == 0 {
			return new(big.Int).Set(x)
		}
		return red(new(big.Int).Rem(sx, sy)) // Rem takes the dividend's sign
	case "and":
		return new(big.Int).And(x, y)
	case "or":
		return new(big.Int).Or(x, y)
	case "xor":
		return new(big.Int).Xor(x, y)
	case "shl":
		if y.Cmp(wBig) >= 0 {
			return new(big.Int)
		}
		return red(new(big.Int).Lsh(x, uint(y.Uint64())))
	case "lshr":
		if y.Cmp(wBig) >= 0 {
			return new(big.Int)
		}
		return new(big.Int).Rsh(x, uint(y.Uint64()))
	case "ashr":
		if y.Cmp(wBig) >= 0 {
			if sx.Sign() < 0 {
				return red(big.NewInt(-1))
			}
			return new(big.Int)
		}
		return red(new(big.Int).Rsh(sx, uint(y.Uint64())))
	case "rotl", "rotr": // bit by bit: bit i moves to (i ± s) mod w
		s := new(big.Int).Mod(y, wBig).Uint64()
		out := new(big.Int)
		for i := uint64(0); i < uint64(w); i++ {
			j := (i + s) % uint64(w)
			if name == "rotr" {
				j = (i + uint64(w) - s) % uint64(w)
			}
			out.SetBit(out, int(j), x.Bit(int(i)))
		}
		return out
	case "ult":
		return b(x.Cmp(y) < 0)
	case "ule":
		return b(x.Cmp(y) <= 0)
	case "slt":
		return b(sx.Cmp(sy) < 0)
	case "sle":
		return b(sx.Cmp(sy) <= 0)
	case "neg":
		return red(new(big.Int).Neg(x))
	case "not":
		return new(big.Int).Xor(x, new(big.Int).Sub(mod, one))
	}
	panic(name)
}

func TestBVBig(t *testing.T) {
	for _, w := range []uint32{1, 2, 7, 63, 64, 65, 127, 128, 200} {
		rng := rand.New(rand.NewPCG(uint64(w), 2))
		vals := interesting(rng, w, 60)
		for _, x := range vals {
			bx := ir.NewBVBig(w, x)
			if got := bx.Big(); got.Cmp(x) != 0 {
				t.Fatalf("w=%d NewBVBig(%v).Big() = %v", w, x, got)
			}
			for _, name := range []string{"neg", "not"} {
				var got ir.BV
				if name == "neg" {
					got = bx.Neg()
				} else {
					got = bx.Not()
				}
				if want := ref(name, w, x, x); got.Big().Cmp(want) != 0 || got.Width() != w {
					t.Fatalf("w=%d %s(%v) = %v, want %#x", w, name, bx, got, want)
				}
			}
			for n := uint32(1); n <= 70; n += 23 {
				want := ir.NewBVBig(w+n, bx.Signed())
				if got := bx.SignExt(n); !got.Equal(want) {
					t.Fatalf("w=%d sext %d of %v = %v, want %v", w, n, bx, got, want)
				}
				if got := bx.ZeroExt(n); got.Big().Cmp(x) != 0 || got.Width() != w+n {
					t.Fatalf("w=%d zext %d of %v = %v", w, n, bx, got)
				}
			}
			for k := 0; k < 6; k++ {
				lo := uint32(rng.IntN(int(w)))
				hi := lo + uint32(rng.IntN(int(w-lo)))
				want := new(big.Int).Rsh(x, uint(lo))
				want.Mod(want, new(big.Int).Lsh(big.NewInt(1), uint(hi-lo+1)))
				if got := bx.Extract(hi, lo); got.Big().Cmp(want) != 0 || got.Width() != hi-lo+1 {
					t.Fatalf("w=%d extract[%d:%d] %v = %v, want %#x", w, hi, lo, bx, got, want)
				}
			}
			for _, y := range vals {
				by := ir.NewBVBig(w, y)
				for _, op := range binOps {
					got := op.bv(bx, by)
					if want := ref(op.name, w, x, y); got.Big().Cmp(want) != 0 {
						t.Fatalf("w=%d %s(%v, %v) = %v, want %#x", w, op.name, bx, by, got, want)
					}
				}
				want := new(big.Int).Lsh(x, uint(w))
				want.Or(want, y)
				if got := bx.Concat(by); got.Big().Cmp(want) != 0 || got.Width() != 2*w {
					t.Fatalf("w=%d concat(%v, %v) = %v", w, bx, by, got)
				}
			}
		}
	}
}

// TestBVCanonical checks that results narrowing from wide to ≤ 64 bits and
// widening past 64 land in the representation Equal and the Builder's
// constant table expect.
func TestBVCanonical(t *testing.T) {
	wide := ir.NewBVBig(128, new(big.Int).Lsh(big.NewInt(0xabcd), 60))
	lo := wide.Extract(63, 0)
	if !lo.Equal(ir.NewBV(64, 0xd<<60)) {
		t.Errorf("extract of a wide vector: %v", lo)
	}
	if got := ir.NewBV(64, 5).ZeroExt(64); !got.Equal(ir.NewBVBig(128, big.NewInt(5))) {
		t.Errorf("zext past 64 bits: %v", got)
	}
	if got := ir.OnesBV(128).Add(ir.NewBV(128, 1)); !got.IsZero() || !got.Equal(ir.ZeroBV(128)) {
		t.Errorf("ones + 1 = %v", got)
	}
	b := ir.NewBuilder()
	if b.ConstBV(ir.OnesBV(128).Add(ir.NewBV(128, 2))) != b.Const(128, 1) {
		t.Errorf("equal wide constants are different terms")
	}
	if !ir.OnesBV(100).IsOnes() || ir.OnesBV(100).Sub(ir.NewBV(100, 1)).IsOnes() || !ir.OnesBV(1).IsOne() {
		t.Errorf("IsOnes/IsOne")
	}
}

func TestBVNoAllocFastPath(t *testing.T) {
	x, y := ir.NewBV(64, 0x8000_0000_0000_0001), ir.NewBV(64, 3)
	allocs := testing.AllocsPerRun(100, func() {
		_ = x.Add(y).Mul(y).SDiv(y).SRem(y).AShr(y).Rotl(y).Rotr(y).Extract(40, 3).SignExt(10).ZeroExt(5)
		_ = x.Slt(y) || x.Ule(y)
	})
	if allocs != 0 {
		t.Errorf("64-bit ops allocate %v times per run", allocs)
	}
}

func BenchmarkBVAdd64(b *testing.B) {
	x, y := ir.NewBV(64, 12345), ir.NewBV(64, 678)
	for b.Loop() {
		x = x.Add(y)
	}
}

func BenchmarkBVAdd128(b *testing.B) {
	x, y := ir.NewBV(128, 12345), ir.NewBV(128, 678)
	for b.Loop() {
		x = x.Add(y)
	}
}
