package inputs

import (
	"math"
	"testing"
)

// TestExtend checks Extend against Go's own conversions, exhaustively for
// one- and two-byte integers.
func TestExtend(t *testing.T) {
	for v := uint64(0); v < 1<<16; v++ {
		x := v | 0xabcd_0000_0000 // garbage above
		if got, want := Extend(x, 1, true), uint64(int64(int8(v))); got != want {
			t.Fatalf("Extend(%#x, 1, signed) = %#x, want %#x", x, got, want)
		}
		if got, want := Extend(x, 1, false), uint64(uint8(v)); got != want {
			t.Fatalf("Extend(%#x, 1, unsigned) = %#x, want %#x", x, got, want)
		}
		if got, want := Extend(x, 2, true), uint64(int64(int16(v))); got != want {
			t.Fatalf("Extend(%#x, 2, signed) = %#x, want %#x", x, got, want)
		}
	}
	if Extend(0x1234, 8, true) != 0x1234 || Extend(0x1234, 0, false) != 0x1234 {
		t.Error("Extend changed a full-width value")
	}
}

func TestBoundaries(t *testing.T) {
	for _, c := range []struct {
		size   int
		signed bool
		want   []uint64
	}{
		{4, true, []uint64{0, 1, math.MaxUint64, 0xffff_ffff_8000_0000, math.MaxInt32, 7}},
		{1, false, []uint64{0, 1, 0xff, 0x7f, 2, 7}},
		{8, true, []uint64{0, 1, math.MaxUint64, 1 << 63, math.MaxInt64, 7}},
		{0, false, []uint64{0, 1, math.MaxUint64, math.MaxInt64, 2, 7}}, // unknown size: 64 bits
	} {
		got := Boundaries(c.size, c.signed)
		for i := range c.want {
			if got[i] != c.want[i] {
				t.Errorf("Boundaries(%d, %v) = %#x, want %#x", c.size, c.signed, got, c.want)
				break
			}
		}
	}
}

// TestFinite: every bit pattern comes out finite, and finite ones
// unchanged.
func TestFinite(t *testing.T) {
	for _, v := range []uint64{0x7f800000, 0xff800001, 0x7fc00000, 0x3f800000, 0x7ff0000000000000, 0xfff8000000000001, 0x3ff0000000000000} {
		f32 := math.Float32frombits(uint32(Finite(v, 4)))
		if math.IsNaN(float64(f32)) || math.IsInf(float64(f32), 0) {
			t.Errorf("Finite(%#x, 4) = %v", v, f32)
		}
		f64 := math.Float64frombits(Finite(v, 8))
		if math.IsNaN(f64) || math.IsInf(f64, 0) {
			t.Errorf("Finite(%#x, 8) = %v", v, f64)
		}
	}
	if Finite(0x3f800000, 4) != 0x3f800000 || Finite(0x3ff0000000000000, 8) != 0x3ff0000000000000 {
		t.Error("Finite changed 1.0")
	}
}
