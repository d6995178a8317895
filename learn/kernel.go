package learn

import (
	"fmt"
	"math/bits"
)

// This file is the exact linear algebra over Z/2^w (1 <= w <= 64) that the
// equality learner stands on. Arithmetic is uint64 arithmetic, which wraps
// modulo 2^64 for free; results are masked to w bits, which is reduction
// modulo 2^w because 2^w divides 2^64.
//
// Z/2^w is a local ring: an element is a unit exactly when it is odd, and
// every nonzero element is 2^k·u with u odd. Elimination therefore always
// pivots on the entry with the fewest trailing zeros, so that the pivot
// divides every other entry of its column; the only new fact a non-unit
// pivot 2^k brings is that 2^(w−k) times its row vanishes in the pivot
// column, and that row is added back to the rows still to be processed.
// This is the Howell form (Howell 1986; Storjohann and Mulders 1998),
// which unlike a plain echelon form describes the span completely.

// mask is the mask of the low w bits.
func mask(w uint) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

func checkWidth(w uint) {
	if w < 1 || w > 64 {
		panic(fmt.Sprintf("learn: modulus 2^%d out of range 2^1..2^64", w))
	}
}

// inverse returns the inverse of the odd u modulo 2^64 (hence modulo every
// 2^w): Newton's iteration x ← x(2 − ux) doubles the number of correct low
// bits, and u itself is its own inverse modulo 8.
func inverse(u uint64) uint64 {
	if u&1 == 0 {
		panic(fmt.Sprintf("learn: inverse of even %#x", u))
	}
	x := u
	for range 5 { // 3 → 6 → 12 → 24 → 48 → 96 bits
		x *= 2 - u*x
	}
	return x
}

// subMul sets dst[j:] = dst[j:] − q·src[j:] (mod 2^w); entries before j
// are zero in src.
func subMul(dst, src []uint64, q uint64, j int, m uint64) {
	for c := j; c < len(dst); c++ {
		dst[c] = (dst[c] - q*src[c]) & m
	}
}

// Howell returns the Howell form of the row span of a over Z/2^w: the
// nonzero rows of an echelon form in which
//
//   - each row's leading (first nonzero) entry is a power of two 2^k, and
//     no two rows lead in the same column;
//   - every entry above a leading 2^k lies in [0, 2^k);
//   - (the Howell property) for every column j, the span vectors that are
//     zero in columns 0..j−1 are exactly the span of the rows that lead at
//     column j or later.
//
// The Howell form is unique: two matrices have the same row span exactly
// when their Howell forms are equal. Rows are returned in leading-column
// order. a is not modified; every row must have the same length.
func Howell(a [][]uint64, w uint) [][]uint64 {
	checkWidth(w)
	if len(a) == 0 {
		return nil
	}
	ncol := len(a[0])
	m := mask(w)
	rows := make([][]uint64, 0, len(a)+ncol)
	for i, r := range a {
		if len(r) != ncol {
			panic(fmt.Sprintf("learn: Howell: row %d has %d entries, row 0 has %d", i, len(r), ncol))
		}
		c := make([]uint64, ncol)
		nz := false
		for j, v := range r {
			c[j] = v & m
			nz = nz || c[j] != 0
		}
		if nz {
			rows = append(rows, c)
		}
	}
	return howell(rows, ncol, w)
}

// howell brings rows (entries already reduced mod 2^w) to Howell form in
// place and returns it. It may append rows and reorders them.
//
// Invariant at column j, with r rows already fixed as pivots: the span
// vectors that are zero in columns < j are exactly span(rows[r:]), and
// rows[r:] are zero in columns < j. Pivoting on the entry 2^k·u of least
// valuation makes every other entry of the column a multiple q·2^k, so
// rows[i] − q·pivot clears it without changing the span; a vector of the
// span then vanishes in column j exactly when its pivot coefficient is a
// multiple of 2^(w−k), so appending 2^(w−k)·pivot restores the invariant
// for column j+1.
func howell(rows [][]uint64, ncol int, w uint) [][]uint64 {
	m := mask(w)
	r := 0
	for j := 0; j < ncol && r < len(rows); j++ {
		best, bestTZ := -1, 64
		for i := r; i < len(rows); i++ {
			if v := rows[i][j]; v != 0 {
				if tz := bits.TrailingZeros64(v); tz < bestTZ {
					best, bestTZ = i, tz
					if tz == 0 {
						break
					}
				}
			}
		}
		if best < 0 {
			continue
		}
		rows[r], rows[best] = rows[best], rows[r]
		p := rows[r]
		k := uint(bestTZ)
		if u := p[j] >> k; u != 1 {
			inv := inverse(u)
			for c := j; c < ncol; c++ {
				p[c] = p[c] * inv & m
			}
		}
		// p[j] == 2^k: clear the column below, reduce it above.
		for i := range rows {
			if i == r {
				continue
			}
			if q := rows[i][j] >> k; q != 0 {
				subMul(rows[i], p, q, j, m)
			}
		}
		if k > 0 {
			s := uint64(1) << (w - k)
			ann := make([]uint64, ncol)
			nz := false
			for c := j + 1; c < ncol; c++ {
				ann[c] = p[c] * s & m
				nz = nz || ann[c] != 0
			}
			if nz {
				rows = append(rows, ann)
			}
		}
		r++
	}
	// Every row past r was cleared at each pivot column and was zero at
	// every other column.
	return rows[:r]
}

// leading returns the index of the first nonzero entry of v, or -1.
func leading(v []uint64) int {
	for j, x := range v {
		if x != 0 {
			return j
		}
	}
	return -1
}

// InSpan reports whether v lies in the row span over Z/2^w of h, which
// must be in Howell form (as Howell returns it). v is not modified.
func InSpan(h [][]uint64, v []uint64, w uint) bool {
	checkWidth(w)
	m := mask(w)
	x := make([]uint64, len(v))
	for i, e := range v {
		x[i] = e & m
	}
	// By the Howell property, a span vector that is zero before a row's
	// leading column is a combination of that row and later ones, so its
	// entry there must be a multiple of the leading 2^k.
	for _, row := range h {
		j := leading(row)
		if j < 0 {
			continue
		}
		if len(row) != len(x) {
			panic(fmt.Sprintf("learn: InSpan: vector of %d entries, rows of %d", len(x), len(row)))
		}
		for c := 0; c < j; c++ {
			if x[c] != 0 {
				return false
			}
		}
		k := uint(bits.TrailingZeros64(row[j]))
		if x[j]&(uint64(1)<<k-1) != 0 {
			return false
		}
		if q := x[j] >> k; q != 0 {
			subMul(x, row, q, j, m)
		}
	}
	return leading(x) < 0
}

// Kernel returns a generating set of every affine relation over Z/2^w that
// holds on all of rows: every vector c of n+1 entries with
//
//	c[0]·x[0] + … + c[n−1]·x[n−1] + c[n] ≡ 0 (mod 2^w)
//
// for each row x (of n entries; c[n] is the coefficient of an implicit
// constant-1 column). The result is complete: the Z/2^w-linear
// combinations of the returned vectors are exactly that set K, no more (each
// returned vector annihilates every row) and no less. It is the Howell form
// of K with respect to the column order n−1, n−2, …, 0, n, so it is
// canonical (it depends only on K, not on the rows' order or redundancy),
// and each vector's leading entry — its highest-indexed nonzero variable
// coefficient — is a power of two 2^k; when k is 0 the vector reads
// x[lead] = −(lower-indexed terms + c[n]). Such Howell forms may contain
// implied vectors (multiples 2^(w−k)·v needed for completeness of the
// echelon form); see minimal for a generating set without them.
//
// With no rows K is everything, and Kernel returns the n+1 unit vectors.
// Entries of rows are reduced mod 2^w first.
func Kernel(rows [][]uint64, n int, w uint) [][]uint64 {
	checkWidth(w)
	h := kernelPermuted(rows, n, w)
	out := make([][]uint64, len(h))
	for i, v := range h {
		out[i] = unpermute(v)
	}
	return out
}

// kernelPermuted is Kernel in the permuted column order: entry p < n is the
// coefficient of variable n−1−p, entry n that of the constant.
//
// Method: the matrix with one row per coordinate p, [column p of the data
// | unit vector e_p], spans exactly the vectors (M·a, a); by the Howell
// property its Howell rows that are zero in the m data columns span those
// with M·a = 0, which is K.
func kernelPermuted(rows [][]uint64, n int, w uint) [][]uint64 {
	m := mask(w)
	nr := len(rows)
	width := nr + n + 1
	aug := make([][]uint64, n+1, 2*(n+1)+nr)
	backing := make([]uint64, (n+1)*width)
	for p := range aug {
		aug[p] = backing[p*width : (p+1)*width : (p+1)*width]
		aug[p][nr+p] = 1
	}
	for i, x := range rows {
		if len(x) != n {
			panic(fmt.Sprintf("learn: Kernel: row %d has %d entries, want %d", i, len(x), n))
		}
		for v := 0; v < n; v++ {
			aug[n-1-v][i] = x[v] & m
		}
		aug[n][i] = 1 & m
	}
	h := howell(aug, width, w)
	var out [][]uint64
	for _, row := range h {
		if j := leading(row); j >= nr {
			out = append(out, row[nr:])
		}
	}
	return out
}

// unpermute maps a vector from Kernel's pivot order to variable order.
func unpermute(v []uint64) []uint64 {
	n := len(v) - 1
	out := make([]uint64, n+1)
	for p := 0; p < n; p++ {
		out[n-1-p] = v[p]
	}
	out[n] = v[n]
	return out
}

// minimal drops from h, a Howell form, every row that is a combination of
// the others, and returns the rest (in order): a generating set of the same
// span none of whose members is implied by the others. A row with a unit
// leading entry is never implied: every other row is zero in its leading
// column (rows above were reduced mod 1, rows below lead later). Only rows
// leading with 2^k, k > 0, are tested, against the Howell form of the rows
// kept so far and those not yet tested.
func minimal(h [][]uint64, w uint) [][]uint64 {
	keep := make([]bool, len(h))
	for i := range keep {
		keep[i] = true
	}
	for i := len(h) - 1; i >= 0; i-- {
		j := leading(h[i])
		if h[i][j] == 1 {
			continue
		}
		var others [][]uint64
		for o, row := range h {
			if o != i && keep[o] {
				others = append(others, append([]uint64(nil), row...))
			}
		}
		if len(others) > 0 && InSpan(howell(others, len(h[i]), w), h[i], w) {
			keep[i] = false
		}
	}
	var out [][]uint64
	for i, row := range h {
		if keep[i] {
			out = append(out, row)
		}
	}
	return out
}

// signedReduce rewrites h, a Howell form, for reading: where the Howell
// form reduces an entry above a leading 2^k (k > 0) into [0, 2^k), this
// moves it into [−2^(k−1), 2^(k−1)) instead, by subtracting that row once
// more. The span is unchanged and the result is still determined by the
// span alone; a relation like v7 = v2 − 4·v1 then reads so, rather than
// with its coefficients reduced modulo a congruence such as v2 ≡ 4·v1
// (mod 8) that another row states. Rows stay zero at unit leading entries.
func signedReduce(h [][]uint64, w uint) {
	m := mask(w)
	for k, row := range h {
		j := leading(row)
		e := uint(bits.TrailingZeros64(row[j]))
		if e == 0 {
			continue
		}
		half := uint64(1) << (e - 1)
		for i := 0; i < k; i++ {
			if h[i][j] >= half {
				subMul(h[i], row, 1, j, m)
			}
		}
	}
}

// dot returns c·x + c[n] mod 2^64, the value of the affine form c on row x.
func dot(c, x []uint64) uint64 {
	s := c[len(c)-1]
	for i, v := range x {
		s += c[i] * v
	}
	return s
}
