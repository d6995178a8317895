package learn

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestCongruencesPlanted(t *testing.T) {
	names := []string{"x", "y", "i", "n", "z"}
	f := newFixture(names, []uint32{64, 64, 64, 64, 16})
	rng := rand.New(rand.NewPCG(31, 32))
	for range 150 {
		i := rng.Uint64()
		f.states = append(f.states, State{Vals: []uint64{
			8*rng.Uint64() + 3,             // x ≡ 3 (mod 8)
			24*uint64(rng.IntN(1<<40)) + 5, // y ≡ 5 (mod 8), y ≡ 2 (mod 3)
			i,                              // nothing alone
			i + 4*uint64(rng.IntN(1000)),   // n − i ≡ 0 (mod 4)
			uint64(rng.IntN(1<<10))<<6 | 1, // z ≡ 1 (mod 64), 16 bits
		}})
	}
	cs := f.learn(t, Options{Kinds: Kinds(Congruence)})
	f.holdsEverywhere(t, cs)
	got := descs(cs, Congruence)
	want := []string{"x ≡ 3 (mod 8)", "y ≡ 5 (mod 8)", "y ≡ 2 (mod 3)", "n ≡ i (mod 4)", "z ≡ 1 (mod 64)"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("congruences\n got %q\nwant %q", got, want)
	}
}

// TestCongruencesMaximal: on random data with random planted moduli, each
// single-variable power-of-two congruence found is the largest that holds
// (up to 2^12), computed directly from the values.
func TestCongruencesMaximal(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for it := 0; it < 30; it++ {
		f := newFixture([]string{"a", "b", "c"}, nil)
		shift := []uint{uint(rng.IntN(15)), uint(rng.IntN(15)), uint(rng.IntN(15))}
		off := []uint64{rng.Uint64(), rng.Uint64(), rng.Uint64()}
		for range 40 {
			x := make([]uint64, 3)
			for k := range x {
				x[k] = rng.Uint64()<<shift[k] + off[k]
			}
			f.states = append(f.states, State{Vals: x})
		}
		cs := f.learn(t, Options{Kinds: Kinds(Congruence), MaxOddModulus: 1, MaxPairCongruences: -1})
		f.holdsEverywhere(t, cs)
		var want []string
		for k := range 3 {
			tz := 64
			for _, st := range f.states {
				if d := st.Vals[k] - f.states[0].Vals[k]; d != 0 {
					tz = min(tz, bits.TrailingZeros64(d))
				}
			}
			// Up to 2^12 from the gcd; beyond, the kernel states the
			// full 2^tz (2^(64−tz)·(x − c) = 0).
			if tz > 0 {
				r := linRel{subj: k, coef: make([]uint64, 3), c0: f.states[0].Vals[k] & mask(uint(tz)), mod: uint(tz)}
				want = append(want, (&termer{b: f.b, vars: f.s.Vars, width: []uint32{64, 64, 64}}).linear(r).Desc)
			}
		}
		got := descs(cs, Congruence)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("shifts %v: got %q, want %q", shift, got, want)
		}
	}
}

func TestOddModulus(t *testing.T) {
	for _, c := range []struct{ g, limit, want uint64 }{
		{0, 15, 0}, {1, 15, 0}, {3, 15, 3}, {45, 15, 15}, {8 * 45, 15, 15}, {49, 15, 7}, {11 * 13, 15, 13}, {17, 15, 0},
	} {
		if got := oddModulus(c.g, c.limit); got != c.want {
			t.Errorf("oddModulus(%d, %d) = %d, want %d", c.g, c.limit, got, c.want)
		}
	}
}

// TestPairOddModulus: x = 4·y makes y − x = −3·y a multiple of 3 (and with
// y ≡ 0 mod 5, a fixed residue mod 15 in 64-bit arithmetic) on every
// state; by default that is a candidate, and MaxPairOddModulus 1 leaves it
// out while single-variable odd congruences (y ≡ 0 mod 5) stay.
func TestPairOddModulus(t *testing.T) {
	f := newFixture([]string{"x", "y"}, []uint32{64, 64})
	rng := rand.New(rand.NewPCG(35, 36))
	for range 60 {
		y := 5 * uint64(rng.IntN(1<<20))
		f.states = append(f.states, State{Vals: []uint64{4 * y, y}})
	}
	for _, tc := range []struct {
		pairOdd  uint64
		wantPair bool
	}{{0, true}, {1, false}} {
		cs := f.learn(t, Options{Kinds: Kinds(Congruence), MaxPairOddModulus: tc.pairOdd})
		f.holdsEverywhere(t, cs)
		got := descs(cs, Congruence)
		pair := slices.ContainsFunc(got, func(d string) bool { return strings.HasPrefix(d, "y - x ≡") })
		if pair != tc.wantPair || !slices.Contains(got, "y ≡ 0 (mod 5)") {
			t.Errorf("MaxPairOddModulus %d: congruences %q", tc.pairOdd, got)
		}
	}
}
