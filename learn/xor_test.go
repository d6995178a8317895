package learn

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestXorRelations: the source's accumulator c is the XOR of four lanes
// and a constant (a vectorized XOR reduction seeded with 0x5a5a): the
// learner states c = l0 ⊕ l1 ⊕ l2 ⊕ l3 ⊕ 0x5a5a, which holds on every row
// (checked by evaluation), and nothing over columns with no XOR relation
// (independent random values, a counter, a 64-bit pointer), whatever the
// number of rows past one.
func TestXorRelations(t *testing.T) {
	names := []string{"i", "p", "l0", "l1", "l2", "l3", "r", "c"}
	widths := []uint32{32, 64, 32, 32, 32, 32, 32, 32}
	for _, rows := range []int{1, 3, 40} {
		f := newFixture(names, widths)
		rng := rand.New(rand.NewPCG(uint64(rows), 29))
		for k := range rows {
			l := [4]uint64{uint64(rng.Uint32()), uint64(rng.Uint32()), uint64(rng.Uint32()), uint64(rng.Uint32())}
			f.states = append(f.states, State{Vals: []uint64{
				uint64(k), 0x6000_0000_0000 + uint64(rng.IntN(1<<20))*4, l[0], l[1], l[2], l[3],
				uint64(rng.Uint32()), l[0] ^ l[1] ^ l[2] ^ l[3] ^ 0x5a5a,
			}})
		}
		cs := f.learn(t, Options{Kinds: Kinds(Xor)})
		f.holdsEverywhere(t, cs)
		got := descs(cs, Xor)
		want := []string{"c = l0 ⊕ l1 ⊕ l2 ⊕ l3 ⊕ 0x5a5a"}
		if rows == 1 {
			want = nil // one row: every XOR of the columns is a constant on it
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d rows: xor relations %q, want %q", rows, got, want)
		}
	}
}

// TestXorNullSpace checks the elimination against brute force: on random
// columns of 4 bits, with a few relations planted, every vector of the
// basis is a relation, the basis has the dimension of the space of all
// relations (counted by trying every coefficient vector), and its
// vectors are independent.
func TestXorNullSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		m := 3 + rng.IntN(6)
		rows := 2 + rng.IntN(12)
		tb := &table{n: m, rows: rows, cols: make([][]uint64, m), width: make([]uint32, m)}
		for j := range m {
			tb.width[j] = 4
			tb.cols[j] = make([]uint64, rows)
			for r := range rows {
				tb.cols[j][r] = uint64(rng.IntN(16))
			}
		}
		for range rng.IntN(3) { // plant x_j = x_a ⊕ x_b ⊕ K
			j, a, b, k := rng.IntN(m), rng.IntN(m), rng.IntN(m), uint64(rng.IntN(16))
			if j == a || j == b || a == b {
				continue
			}
			for r := range rows {
				tb.cols[j][r] = tb.cols[a][r] ^ tb.cols[b][r] ^ k
			}
		}
		vars := make([]xorVar, m)
		for j := range vars {
			vars[j] = xorVar{i: j}
		}
		holds := func(a uint64) bool {
			for r := 1; r < rows; r++ {
				var x uint64
				for j := range m {
					if a>>j&1 == 1 {
						x ^= tb.cols[j][r] ^ tb.cols[j][0]
					}
				}
				if x != 0 {
					return false
				}
			}
			return true
		}
		dim := 0
		for a := uint64(1); a < 1<<m; a++ {
			if holds(a) {
				dim++ // counts the nonzero relations: 2^d − 1 of them
			}
		}
		basis := xorNullSpace(tb, vars, 4)
		if basis == nil {
			continue // too few equations: nothing claimed
		}
		if want := (1 << len(basis)) - 1; dim != want {
			t.Errorf("trial %d: %d relations in all, the basis spans %d", trial, dim, want)
		}
		span := map[uint64]bool{0: true}
		for _, v := range basis {
			if !holds(v) {
				t.Errorf("trial %d: basis vector %b is not a relation", trial, v)
			}
			for _, s := range slices.Collect(maps.Keys(span)) {
				span[s^v] = true
			}
		}
		if len(span) != 1<<len(basis) {
			t.Errorf("trial %d: basis %b is not independent", trial, basis)
		}
	}
}
