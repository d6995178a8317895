package learn

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHighBitRelations plants the state at a vectorized loop's exit for
// each vector factor 2^k, for n from 2 to 299: the source's 32-bit counter
// i = 2^k·⌊(n−1)/2^k⌋ + 1,
// the target's 64-bit register r = n − 1, and n itself, with a random
// column beside them. The high-bit equality found is r's and i's above bit
// k, with the least k; n (whose high bits differ from i's where n − 1 is
// one below a multiple of 2^k) gives none, nor does the random column, and
// every candidate holds on every row (the evaluator).
func TestHighBitRelations(t *testing.T) {
	for k := uint(1); k <= maxHighBitsShift; k++ {
		f := newFixture([]string{"n", "i", "x", "r"}, []uint32{32, 32, 32, 64})
		rng := rand.New(rand.NewPCG(uint64(k), 7))
		for n := uint64(2); n < 300; n++ { // every residue, so that n agrees with i above no bit
			i := (n-1)>>k<<k + 1
			f.states = append(f.states, State{Vals: []uint64{n, i, rng.Uint64() & mask(32), n - 1}})
		}
		cs := f.learn(t, Options{Kinds: Kinds(HighBits)})
		f.holdsEverywhere(t, cs)
		want := []string{hb("r", "i", 31, k)}
		if got := descs(cs, HighBits); !slices.Equal(got, want) {
			t.Errorf("k=%d: high-bit relations %q, want %q", k, got, want)
		}
	}
}

// TestHighBitRelationsNone: no candidate from columns whose difference
// is constant (an offset, which the equalities say), from small values
// whose high parts are all zero, or from columns that never agree above
// their low bits.
func TestHighBitRelationsNone(t *testing.T) {
	cases := []struct {
		name string
		row  func(rng *rand.Rand) []uint64
	}{
		{"offset", func(rng *rand.Rand) []uint64 { x := rng.Uint64N(1 << 20); return []uint64{x, x + 1} }},
		{"small", func(rng *rand.Rand) []uint64 { return []uint64{rng.Uint64N(4), rng.Uint64N(4)} }},
		{"random", func(rng *rand.Rand) []uint64 { return []uint64{rng.Uint64N(1 << 20), rng.Uint64N(1 << 20)} }},
	}
	for _, tc := range cases {
		f := newFixture([]string{"a", "b"}, []uint32{32, 32})
		rng := rand.New(rand.NewPCG(1, 2))
		for range 30 {
			f.states = append(f.states, State{Vals: tc.row(rng)})
		}
		if got := descs(f.learn(t, Options{Kinds: Kinds(HighBits)}), HighBits); len(got) > 0 {
			t.Errorf("%s: %q, want none", tc.name, got)
		}
	}
}

func hb(x, y string, hi int, k uint) string {
	return fmt.Sprintf("%s[%d:%d] = %s[%d:%d]", x, hi, k, y, hi, k)
}
