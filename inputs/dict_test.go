package inputs

import (
	"encoding/binary"
	"math"
	"testing"
)

// DictFill fills with the constants and their neighbours only, truncated
// to the element; a char is never NUL; floats get the value converted;
// pointers stay NULL.
func TestDictFill(t *testing.T) {
	dict := []int64{'a', 256, -40}
	allowed := map[int64]bool{}
	for _, c := range dict {
		for d := int64(-1); d <= 1; d++ {
			allowed[c+d] = true
		}
	}
	rng := PlanRand(3)
	ints := DictFill(rng, 4*64, Elem{Size: 4}, dict)
	seen := map[int64]bool{}
	for i := 0; i < len(ints); i += 4 {
		v := int64(int32(binary.LittleEndian.Uint32(ints[i:])))
		if !allowed[v] {
			t.Fatalf("int element %d: %d", i/4, v)
		}
		seen[v] = true
	}
	if len(seen) < 6 {
		t.Errorf("64 ints take %d of the 9 values: %v", len(seen), seen)
	}
	chars := DictFill(rng, 256, Elem{Size: 1, Char: true}, []int64{256, 'z'})
	for i, c := range chars {
		if c == 0 {
			t.Fatalf("char %d is NUL", i)
		}
		if ok := c == 'y' || c == 'z' || c == '{' || c == 0xff || c == 1 || c == 2; !ok {
			t.Fatalf("char %d: %#x", i, c)
		}
	}
	floats := DictFill(rng, 8*8, Elem{Size: 8, Float: true}, []int64{-40})
	for i := 0; i < len(floats); i += 8 {
		f := math.Float64frombits(binary.LittleEndian.Uint64(floats[i:]))
		if f != -41 && f != -40 && f != -39 {
			t.Fatalf("double element %d: %v", i/8, f)
		}
	}
	for i, b := range DictFill(rng, 64, Elem{Size: 8, Pointer: true}, dict) {
		if b != 0 {
			t.Fatalf("pointer byte %d: %#x", i, b)
		}
	}
	if out := DictFill(rng, 16, Elem{Size: 4}, nil); len(out) != 16 || binary.LittleEndian.Uint32(out) != 0 {
		t.Errorf("empty dictionary: %v", out)
	}
}
