package learn

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
)

// gcd is Euclid's greatest common divisor; gcd(0, b) = b.
func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// absDiff is |a − b| as integers.
func absDiff(a, b uint64) uint64 {
	if a >= b {
		return a - b
	}
	return b - a
}

// diffGCD returns the gcd of |d(r) − d(0)| over the rows: every modulus n
// with d(r) ≡ d(0) (mod n) on every row divides it. It stops early at 1.
func diffGCD(rows int, d func(r int) uint64) uint64 {
	d0 := d(0)
	var g uint64
	for r := 1; r < rows && g != 1; r++ {
		g = gcd(g, absDiff(d(r), d0))
	}
	return g
}

// oddModulus returns the largest odd divisor of g in [3, limit], or 0.
func oddModulus(g, limit uint64) uint64 {
	if g == 0 {
		return 0
	}
	o := g >> bits.TrailingZeros64(g)
	for n := limit | 1; n >= 3; n -= 2 {
		if n <= o && o%n == 0 {
			return n
		}
	}
	return 0
}

// congr is what the data says about one variable or difference.
type congr struct {
	log2 uint   // 2^log2 divides every difference (capped), 0 if none
	odd  uint64 // odd modulus found, 0 if none
}

func congrOf(g uint64, opt Options) congr {
	var c congr
	if g != 0 {
		c.log2 = min(uint(bits.TrailingZeros64(g)), opt.MaxModLog2)
	}
	c.odd = oddModulus(g, opt.MaxOddModulus)
	return c
}

// congruences returns x ≡ c (mod n) for each non-constant representative
// and x_j − x_i ≡ c (mod n) for pairs of them, as in §4.4: n divides the
// gcd of all differences d(r) − d(0), so take its power-of-two part (up to
// 2^opt.MaxModLog2, written as a statement about the low bits) and its
// largest odd divisor up to opt.MaxOddModulus. A pair's congruence is only
// kept when it is not implied by the two variables' own congruences, and
// at most opt.MaxPairCongruences pairs are kept, largest moduli first.
// Power-of-two congruences the kernel already found with a modulus at
// least as large (as x ≡ c or x_j ≡ x_i + c) are skipped.
func congruences(tm *termer, t *table, e eqResult, opt Options) []Candidate {
	b := tm.b
	var out []Candidate
	var reps []int
	single := make([]congr, t.n)
	for i := 0; i < t.n; i++ {
		if !e.isRep(i) {
			continue
		}
		reps = append(reps, i)
		col := t.cols[i]
		c := congrOf(diffGCD(t.rows, func(r int) uint64 { return col[r] }), opt)
		single[i] = c
		if c.log2 > 0 && e.congMod[[2]int{i, -1}] < c.log2 {
			out = append(out, tm.linear(linRel{subj: i, coef: make([]uint64, t.n), c0: col[0] & mask(c.log2), mod: c.log2}))
		}
		if c.odd != 0 {
			w := t.width[i]
			term := b.Eq(b.URem(tm.vars[i].Term, b.Const(w, c.odd)), b.Const(w, col[0]%c.odd))
			out = append(out, Candidate{Term: term, Kind: Congruence, Desc: fmt.Sprintf("%s ≡ %d (mod %d)", tm.vars[i].Name, col[0]%c.odd, c.odd)})
		}
	}
	if opt.MaxPairCongruences < 0 {
		return out
	}
	type pair struct {
		i, j  int
		d0    uint64
		log2  uint
		odd   uint64
		score uint64
	}
	var pairs []pair
	for a, i := range reps {
		ci := t.cols[i]
		for _, j := range reps[a+1:] {
			cj := t.cols[j]
			pairOpt := opt
			pairOpt.MaxOddModulus = min(opt.MaxOddModulus, opt.MaxPairOddModulus)
			c := congrOf(diffGCD(t.rows, func(r int) uint64 { return cj[r] - ci[r] }), pairOpt)
			if c.log2 <= min(single[i].log2, single[j].log2) || c.log2 <= e.congMod[[2]int{j, i}] {
				c.log2 = 0
			}
			if c.odd != 0 && single[i].odd != 0 && single[j].odd != 0 && gcd(single[i].odd, single[j].odd)%c.odd == 0 {
				c.odd = 0
			}
			if c.log2 == 0 && c.odd == 0 {
				continue
			}
			score := max(uint64(1)<<c.log2, c.odd)
			pairs = append(pairs, pair{i: i, j: j, d0: cj[0] - ci[0], log2: c.log2, odd: c.odd, score: score})
		}
	}
	slices.SortStableFunc(pairs, func(x, y pair) int { return cmp.Compare(y.score, x.score) })
	if len(pairs) > opt.MaxPairCongruences {
		pairs = pairs[:opt.MaxPairCongruences]
	}
	slices.SortStableFunc(pairs, func(x, y pair) int { return cmp.Or(cmp.Compare(x.i, y.i), cmp.Compare(x.j, y.j)) })
	for _, p := range pairs {
		if p.log2 > 0 {
			coef := make([]uint64, t.n)
			coef[p.i] = 1
			out = append(out, tm.linear(linRel{subj: p.j, coef: coef, c0: p.d0 & mask(p.log2), mod: p.log2}))
		}
		if p.odd != 0 {
			diff := b.Sub(tm.at(p.j, 64), tm.at(p.i, 64))
			term := b.Eq(b.URem(diff, b.Const(64, p.odd)), b.Const(64, p.d0%p.odd))
			out = append(out, Candidate{Term: term, Kind: Congruence, Desc: fmt.Sprintf("%s - %s ≡ %d (mod %d)", tm.vars[p.j].Name, tm.vars[p.i].Name, p.d0%p.odd, p.odd)})
		}
	}
	return out
}
