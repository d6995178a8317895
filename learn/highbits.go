package learn

import (
	"fmt"

	"eqc/ir"
)

// High-bit equalities: x[w−1:k] = y[w−1:k], two variables that agree above
// their low k bits, over the narrower one's width w, for the least k in
// 1..maxHighBitsShift that holds on every row. A loop vectorized by a
// factor 2^k with a scalar epilogue leaves, at the vector loop's exit, the
// source's counter at i = 2^k·⌊(n−1)/2^k⌋ + 1 and n − 1 in a target
// register: no affine relation ties them (the floor), but they agree above
// their low k bits, and with the congruence i ≡ 1 mod 2^k that bounds the
// passes left to the epilogue's 2^k − 1. (gcc-12's minmax at -O3: without
// it the source's path set to the exit has no bound on its loop passes.)
//
// Pairs whose difference is constant are left out (their relation is an
// offset, which the equalities say), and so are pairs whose high parts take
// fewer than minHighBitsValues values on the rows: two small numbers agree
// above their low bits by chance.
const (
	maxHighBitsShift  = 6
	minHighBitsValues = 3
	maxHighBits       = 16
)

// highBitRelations returns the high-bit equalities between variables of
// at least maxHighBitsShift+2 bits (no constant column, no copy of an
// earlier variable; members of one offset class are kept, n − 1 being
// the one that agrees with the counter), the least shift for each pair,
// at most maxHighBits of them in variable order.
func highBitRelations(tm *termer, t *table, e eqResult) []Candidate {
	if t.rows < minHighBitsValues {
		return nil
	}
	var vars []int
	copies := map[[3]uint64]bool{}
	for i := 0; i < t.n; i++ {
		if e.rep[i] < 0 || t.width[i] < maxHighBitsShift+2 {
			continue
		}
		k := [3]uint64{uint64(e.rep[i]), e.off[i], uint64(t.width[i])}
		if !copies[k] {
			copies[k] = true
			vars = append(vars, i)
		}
	}
	var out []Candidate
	for a, i := range vars {
		for _, j := range vars[a+1:] {
			if len(out) == maxHighBits {
				return out
			}
			w := min(t.width[i], t.width[j])
			if k, ok := highBitShift(t, i, j, w); ok {
				out = append(out, tm.highBitCandidate(i, j, w, k))
			}
		}
	}
	return out
}

// highBitShift is the least k ≤ maxHighBitsShift with the low w bits of
// variables i and j equal above bit k on every row, when their difference
// varies and their high parts take minHighBitsValues values or more.
func highBitShift(t *table, i, j int, w uint32) (uint, bool) {
	m := mask(uint(w))
	x, y := t.cols[i], t.cols[j]
	d0 := (x[0] - y[0]) & m
	varies := false
	for r := 1; r < t.rows && !varies; r++ {
		varies = (x[r]-y[r])&m != d0
	}
	if !varies {
		return 0, false
	}
	for k := uint(1); k <= maxHighBitsShift; k++ {
		holds := true
		for r := 0; r < t.rows && holds; r++ {
			holds = (x[r]&m)>>k == (y[r]&m)>>k
		}
		if !holds {
			continue
		}
		seen := map[uint64]bool{}
		for r := 0; r < t.rows && len(seen) < minHighBitsValues; r++ {
			seen[(x[r]&m)>>k] = true
		}
		return k, len(seen) >= minHighBitsValues
	}
	return 0, false
}

func (tm *termer) highBitCandidate(i, j int, w uint32, k uint) Candidate {
	b := tm.b
	hi := func(v int) ir.Term { return b.Extract(tm.vars[v].Term, w-1, uint32(k)) }
	return Candidate{Term: b.Eq(hi(j), hi(i)), Kind: HighBits,
		Desc: fmt.Sprintf("%s[%d:%d] = %s[%d:%d]", tm.vars[j].Name, w-1, k, tm.vars[i].Name, w-1, k)}
}
