package inputs

import (
	"fmt"
	"hash/fnv"
	"testing"
)

func testHash(name string, xs ...uint64) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s%v", name, xs)
	return h.Sum64()
}

// TestCoArg checks the schedule's promises on every run and register.
func TestCoArg(t *testing.T) {
	narrow := RegisterParam{Narrow: true}
	bounds := []uint64{16, 32000}
	for k := range CoRuns {
		for i := range 6 {
			a := CoArg(k, i, narrow, 3, bounds, testHash)
			if i >= 3 {
				if a != testHash("arg", uint64(i)) {
					t.Errorf("run %d register %d (no parameter): %#x, want garbage from the hash", k, i, a)
				}
				continue
			}
			low := uint32(a)
			switch {
			case k == ZeroRun:
				if low != 0 {
					t.Errorf("zero run: register %d is %d", i, low)
				}
			case k == 5 || k == 6:
				if low != uint32(32000-(2*k-9)) {
					t.Errorf("run %d register %d: %d, want just below the bound 32000", k, i, low)
				}
			case k%4 == 1 && low != 1, k%4 == 3 && low != 2 && low != 3, (k%4 == 2 || k == SmallLongRun) && (low < 32 || low > 127), k%4 == 0 && k != SmallLongRun && low >= 64:
				t.Errorf("run %d register %d: %d", k, i, low)
			}
			if high := a >> 32; (k == 0 || k == ZeroRun) != (high == 0) {
				t.Errorf("run %d register %d: upper half %#x, want zero in runs 0 and %d only", k, i, high, ZeroRun)
			}
		}
	}
	if a := CoArg(ZeroRun, 0, RegisterParam{Pointer: true}, 1, nil, testHash); a == 0 {
		t.Error("the zero run gave a pointer parameter 0")
	}
}
