package pair

import (
	"testing"

	"eqc/inputs"
)

// Over the first eight co-executions, strings start at every alignment
// and end at every place in their 8-byte word, have no NUL before the
// end, and are at least as long as asked (up to maxStringLen).
func TestPlaceString(t *testing.T) {
	env := &hashEnv{seed: 1}
	starts, ends := map[uint64]bool{}, map[uint64]bool{}
	for k := range 8 {
		for _, n := range []uint64{0, 1, 3, 40, 1 << 20} {
			addr, s := placeString(env, k, 1, n)
			end := -1
			for j, c := range s {
				if c == 0 {
					end = j
					break
				}
			}
			if end < 0 || uint64(end) < min(n, maxStringLen) || end > maxStringLen+7 {
				t.Fatalf("run %d, length %d: the string ends at %d", k, n, end)
			}
			if len(s) < end+9 {
				t.Errorf("run %d, length %d: %d bytes after the NUL, want 8 a word-at-a-time read may take", k, n, len(s)-end-1)
			}
			starts[addr%8] = true
			ends[(addr+uint64(end))%8] = true
		}
	}
	if len(starts) != 8 || len(ends) != 8 {
		t.Errorf("starts mod 8 %v, NULs mod 8 %v: want all eight of each", starts, ends)
	}
}

// TestArrayFill: the run of small elements with long counts
// (inputs.SmallLongRun) fills its arrays with small elements, and at
// least one run with random elements has long counts too.
func TestArrayFill(t *testing.T) {
	if f := arrayFill(inputs.SmallLongRun); f != inputs.FillSmall {
		t.Errorf("run %d (SmallLongRun) fills with %v, want small elements", inputs.SmallLongRun, f)
	}
	if f := arrayFill(2); f != inputs.FillRandom {
		t.Errorf("run 2 fills with %v, want random elements", f)
	}
	if f := arrayFill(inputs.ZeroRun); f != inputs.FillZero {
		t.Errorf("the zero run fills with %v", f)
	}
}
