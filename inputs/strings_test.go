package inputs

import "testing"

// TestStringLen checks, exhaustively over small cases, that the string
// is at least minLen long, no more than 7 bytes longer, and that its NUL
// sits at offset 3k+1 mod 8 of its word.
func TestStringLen(t *testing.T) {
	for k := range 24 {
		for start := uint64(0); start < 8; start++ {
			for minLen := uint64(0); minLen < 40; minLen++ {
				n := StringLen(k, start, minLen)
				if n < minLen || n > minLen+7 || (start+n)%8 != uint64(3*k+1)%8 {
					t.Fatalf("StringLen(%d, %d, %d) = %d", k, start, minLen, n)
				}
			}
		}
	}
}

// TestStringShapes: any eight inputs in a row see every alignment of the
// start and every place of the NUL in its word.
func TestStringShapes(t *testing.T) {
	for first := range 8 {
		starts, nuls := map[uint64]bool{}, map[uint64]bool{}
		for k := first; k < first+8; k++ {
			s := StringStart(k)
			starts[s] = true
			nuls[(s+StringLen(k, s, 16))%8] = true
		}
		if len(starts) != 8 || len(nuls) != 8 {
			t.Errorf("inputs %d..%d: starts %v, NULs %v", first, first+7, starts, nuls)
		}
	}
}
