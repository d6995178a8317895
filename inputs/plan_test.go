package inputs

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// TestFill checks each fill kind's elements, for ints, floats and
// pointers.
func TestFill(t *testing.T) {
	elems := []Elem{{Size: 4}, {Size: 1, Char: true}, {Size: 8, Float: true}, {Size: 4, Float: true}, {Size: 8, Pointer: true}, {Size: 12}}
	for _, e := range elems {
		for kind := FillRandom; kind <= FillModerate; kind++ {
			data := Fill(PlanRand(int(kind)), 96, e, kind)
			if len(data) != 96 {
				t.Fatalf("%+v kind %d: %d bytes", e, kind, len(data))
			}
			u := e.Unit()
			prev := math.Inf(-1)
			for i, off := 0, 0; off+u <= len(data); i, off = i+1, off+u {
				var buf [8]byte
				copy(buf[:], data[off:off+u])
				bits := binary.LittleEndian.Uint64(buf[:])
				var x float64 // the element's value
				switch {
				case e.Pointer:
					if bits != 0 {
						t.Fatalf("%+v kind %d: pointer element %d is %#x, want NULL", e, kind, i, bits)
					}
					continue
				case e.Float && u == 4:
					x = float64(math.Float32frombits(uint32(bits)))
				case e.Float:
					x = math.Float64frombits(bits)
				default:
					x = float64(int64(Extend(bits, u, true)))
				}
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("%+v kind %d: element %d is %v", e, kind, i, x)
				}
				bad := false
				switch kind {
				case FillSmall:
					bad = x < -3 || x > 3 || x*2 != math.Trunc(x*2)
				case FillZero:
					bad = x != 0
				case FillOne:
					bad = x != 1
				case FillOnes:
					bad = x != -1
				case FillRamp:
					bad = x != float64(i%7-3)
				case FillCodes:
					bad = x < 0 || x > 15 || e.Float && x > 7.5 || x*2 != math.Trunc(x*2)
				case FillSorted:
					bad = i > 0 && x < prev || x*2 != math.Trunc(x*2)
				case FillModerate:
					bad = !e.Float && u > 1 && (x < -2048 || x > 2047)
				case FillText:
					if e.Char {
						bad = !strings.ContainsRune(TextBytes, rune(x)) || i%4 != 2 && (x < '0' || x > '9')
					} else {
						bad = x < -3 || x > 3 || x*2 != math.Trunc(x*2)
					}
				}
				prev = x
				if bad {
					t.Fatalf("%+v kind %d: element %d is %v", e, kind, i, x)
				}
			}
		}
	}
}

// TestPlanDeterministic: the plan gives the same inputs every time.
func TestPlanDeterministic(t *testing.T) {
	p := Param{Kind: Int, Size: 4, Signed: true}
	for k, step := range Plan {
		a := Fill(PlanRand(k), 64, Elem{Size: 4}, step.Fill)
		b := Fill(PlanRand(k), 64, Elem{Size: 4}, step.Fill)
		x := Arg(PlanRand(k), p, step.Arg, 10)
		y := Arg(PlanRand(k), p, step.Arg, 10)
		if string(a) != string(b) || x != y {
			t.Fatalf("input %d differs between two calls", k)
		}
	}
	if v := Arg(PlanRand(0), Param{Kind: Int, Size: 4}, ArgNeg, 0); v != 2 {
		t.Errorf("unsigned negative argument %d, want 2", v)
	}
	if v := Arg(PlanRand(0), Param{Kind: Float, Size: 8}, ArgCount, 10); math.Float64frombits(v) != 5 {
		t.Errorf("float count argument %v, want 5", math.Float64frombits(v))
	}
}

// TestLink: a buffer of four 16-byte list nodes (next at offset 8) at
// 0x1000 becomes a chain 0x1000 → 0x1010 → 0x1020 → 0x1030 → NULL, the
// values untouched; at address 0 every link is NULL.
func TestLink(t *testing.T) {
	e := Elem{Size: 16, Links: []int64{8}}
	data := make([]byte, 64)
	for i := range data {
		data[i] = 0xab
	}
	Link(data, 0x1000, e)
	for j := 0; j < 4; j++ {
		want := uint64(0x1000 + 16*(j+1))
		if j == 3 {
			want = 0
		}
		if got := binary.LittleEndian.Uint64(data[16*j+8:]); got != want {
			t.Errorf("node %d: next %#x, want %#x", j, got, want)
		}
		if v := binary.LittleEndian.Uint64(data[16*j:]); v != 0xabababababababab {
			t.Errorf("node %d: value changed to %#x", j, v)
		}
	}
	Link(data, 0, e)
	for j := 0; j < 4; j++ {
		if got := binary.LittleEndian.Uint64(data[16*j+8:]); got != 0 {
			t.Errorf("at address 0, node %d: next %#x, want NULL", j, got)
		}
	}
}
