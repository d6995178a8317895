package learn

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// eqResult is what the equality learner found.
type eqResult struct {
	// rels generate every affine relation mod 2^64 that holds on all rows
	// (those that are congruences in disguise have mod < 64).
	rels []linRel
	// rep[i] is the representative of variable i's offset class: x[i] =
	// x[rep[i]] + off[i] on every row, and rep[r] == r for a representative.
	// rep[i] is -1 for a constant column (x[i] = off[i] on every row).
	rep []int
	off []uint64
	// congMod[[2]int{s, o}] is the largest k with x[s] ≡ x[o] + c (mod
	// 2^k) among rels (o = -1: x[s] ≡ c), so that the gcd-based
	// congruences can skip what the kernel already said more strongly.
	congMod map[[2]int]uint
	// rounds and rows count the kernel computations and the rows the last
	// one used.
	rounds, rows int
}

// isRep reports whether variable i is a non-constant representative.
func (e *eqResult) isRep(i int) bool { return e.rep[i] == i }

// learnEqualities finds a generating set of the affine relations over
// Z/2^64 that hold on every row of t, following §4.4 of the PLDI 2019
// paper:
//
//  1. A pre-pass over all rows finds constant columns (x = c) and columns
//     at a constant offset from an earlier one (x = y + c) and removes them:
//     every relation is such a relation's multiple plus one that does not
//     involve the removed column, so nothing is lost.
//  2. The kernel of opt.Sample sampled rows over the remaining columns is
//     computed exactly (Kernel). Its generators are tested on every other
//     row; if some fail, up to opt.Sample of the failing rows join the
//     sample and the kernel is recomputed. A sample's kernel contains the
//     full data's kernel, so when every generator holds on every row the
//     two are equal: the result is exact, not a guess.
//  3. Coefficients are brought near zero (signedReduce), generators
//     implied by the others are dropped (minimal), and each is solved for
//     a variable (relFromVector).
func learnEqualities(t *table, opt Options) eqResult {
	e := eqResult{rep: make([]int, t.n), off: make([]uint64, t.n)}
	if t.rows == 0 {
		return e
	}
	var kept []int // representatives: the kernel's columns
	for i := 0; i < t.n; i++ {
		col := t.cols[i]
		e.rep[i] = i
		if isConst(col) {
			e.rep[i], e.off[i] = -1, col[0]
			coef := make([]uint64, t.n)
			e.rels = append(e.rels, linRel{subj: i, coef: coef, c0: col[0], mod: 64})
			continue
		}
		for _, j := range kept {
			if d, ok := constDiff(col, t.cols[j]); ok {
				e.rep[i], e.off[i] = j, d
				coef := make([]uint64, t.n)
				coef[j] = 1
				e.rels = append(e.rels, linRel{subj: i, coef: coef, c0: d, mod: 64})
				break
			}
		}
		if e.rep[i] == i {
			kept = append(kept, i)
		}
	}
	if len(kept) > 0 {
		e.rels = append(e.rels, kernelRels(t, kept, opt, &e)...)
	}
	e.congMod = make(map[[2]int]uint)
	for _, r := range e.rels {
		if r.mod == 64 {
			continue
		}
		other := -1
		for i, c := range r.coef {
			switch {
			case c == 0:
			case c == 1 && other == -1:
				other = i
			default:
				other = -2
			}
		}
		if other >= -1 {
			k := [2]int{r.subj, other}
			e.congMod[k] = max(e.congMod[k], r.mod)
		}
	}
	slices.SortStableFunc(e.rels, func(a, b linRel) int {
		if a.mod != b.mod {
			return int(b.mod) - int(a.mod)
		}
		return a.subj - b.subj
	})
	return e
}

func isConst(col []uint64) bool {
	for _, v := range col[1:] {
		if v != col[0] {
			return false
		}
	}
	return true
}

// constDiff reports whether a − b (mod 2^64) is the same on every row.
func constDiff(a, b []uint64) (uint64, bool) {
	d := a[0] - b[0]
	for r := 1; r < len(a); r++ {
		if a[r]-b[r] != d {
			return 0, false
		}
	}
	return d, true
}

// kernelRels runs the sample–check–resample loop over the columns kept.
func kernelRels(t *table, kept []int, opt Options, e *eqResult) []linRel {
	n := len(kept)
	all := make([]int, t.rows)
	for r := range all {
		all[r] = r
	}
	smp := newSampler(opt.Seed)
	sample := smp.pick(all, opt.Sample)
	inSample := make([]bool, t.rows)
	rowOf := func(r int) []uint64 {
		x := make([]uint64, n)
		for c, i := range kept {
			x[c] = t.cols[i][r]
		}
		return x
	}
	var h [][]uint64 // permuted Howell form of the sample's kernel
	for {
		e.rounds++
		e.rows = len(sample)
		rows := make([][]uint64, len(sample))
		for k, r := range sample {
			inSample[r] = true
			rows[k] = rowOf(r)
		}
		h = kernelPermuted(rows, n, 64)
		gens := make([][]uint64, len(h))
		for k, v := range h {
			gens[k] = unpermute(v)
		}
		var fails []int
		x := make([]uint64, n)
		for r := 0; r < t.rows; r++ {
			if inSample[r] {
				continue
			}
			for c, i := range kept {
				x[c] = t.cols[i][r]
			}
			for _, g := range gens {
				if dot(g, x) != 0 {
					fails = append(fails, r)
					break
				}
			}
		}
		if len(fails) == 0 {
			break
		}
		sample = append(sample, smp.pick(fails, opt.Sample)...)
		slices.Sort(sample)
	}
	signedReduce(h, 64)
	var plain, chance [][]uint64
	for _, v := range minimal(h, 64) {
		nat := unpermute(v)
		full := make([]uint64, t.n+1)
		for c, i := range kept {
			full[i] = nat[c]
		}
		full[t.n] = nat[n]
		if r, ok := relFromVector(full); ok && coincidental(t, r) {
			chance = append(chance, full)
		} else {
			plain = append(plain, full)
		}
	}
	if len(chance) > 0 {
		plain = withoutChance(t, plain, chance)
	}
	var out []linRel
	for _, v := range plain {
		if r, ok := relFromVector(v); ok && !coincidental(t, r) && !(opt.SmallCoefficients && oddPartLarge(r)) && !slices.ContainsFunc(out, r.equal) {
			out = append(out, r)
		}
	}
	return out
}

// withoutChance rewrites the plain relations so that they name as few of
// the lowest-indexed variables as the chance ones allow. The kernel's
// reduced form solves each generator for its highest-indexed variable and
// substitutes it everywhere: when a coincidental relation has solved an
// array's base for the entry registers (base = 0x7bae…·e0 + …), the
// loop's own p = base + 4·i reads p = 0x7bae…·e0 + … + 4·i, which no
// run refutes but no proof can use. Eliminating the chance relations'
// lowest-indexed variables (the caller's explaining columns, the entry
// state's registers among them) instead brings base back. Both rewrites
// stay in the kernel's span, so every relation still holds on every row.
func withoutChance(t *table, plain, chance [][]uint64) [][]uint64 {
	// The chance relations' Howell form leads at the lowest-indexed
	// columns, so a relation of few high-indexed variables that the
	// kernel's form mixed into them (twice = 2·e3 among the entry
	// registers' coincidences) is one of its rows of its own.
	// Reducing by the whole form (the Howell property needs every row)
	// gives each plain relation the one representative of its class
	// modulo the chance relations that is zero in their leading columns.
	h := Howell(chance, 64)
	var found [][]uint64
	for _, row := range h {
		if r, ok := relFromVector(row); ok && !coincidental(t, r) {
			found = append(found, slices.Clone(row))
		}
	}
	for _, u := range plain {
		changed := false
		for _, row := range h {
			j := leading(row)
			// The remainder in [−2^(k−1), 2^(k−1)), as signedReduce:
			// p = base − 2·e3 keeps its −2 against a lead of 2^62.
			q := u[j]
			if k := uint(bits.TrailingZeros64(row[j])); k > 0 {
				q = (u[j] + 1<<(k-1)) >> k
			}
			if q != 0 {
				subMul(u, row, q, j, mask(64))
				changed = true
			}
		}
		if !changed {
			continue
		}
		// As signedReduce does: where every row's x_j is a multiple of
		// 2^z, c_j matters only mod 2^(64−z); read it in the signed range
		// (base ≡ 0 mod 4 lets p = base + 4·i read p = 0xc000…01·base + 4·i).
		for j, c := range u[:t.n] {
			z := 64
			for _, x := range t.cols[j] {
				z = min(z, bits.TrailingZeros64(x))
			}
			if c == 0 || z == 0 || z == 64 {
				continue
			}
			k := uint(64 - z)
			u[j] = (c+1<<(k-1))&mask(k) - 1<<(k-1)
		}
	}
	return append(plain, found...)
}

// maxPlainCoef bounds the coefficients of a relation that fewer rows than
// its variables can still support (coincidental).
const maxPlainCoef = 1 << 16

// oddPartLarge reports whether a coefficient of r is 2^k times an odd
// number m with |m| > maxPlainCoef, reading m in the 64−k (or r.mod−k)
// bits that matter (Options.SmallCoefficients). Power-of-two coefficients
// stay small: 2^63·i says something about i's parity, and costs the
// solver a shift, not a multiplier.
func oddPartLarge(r linRel) bool {
	for _, c := range r.coef {
		c &= mask(r.mod)
		if c == 0 {
			continue
		}
		k := uint(bits.TrailingZeros64(c))
		w := r.mod - k
		m := c >> k
		if min(m, -m&mask(w)) > maxPlainCoef {
			return true
		}
	}
	return false
}

// coincidental reports whether relation r fits t's rows by coincidence:
// its support (the variables it names, its subject among them) is at
// least as large as the number of distinct rows over that support, and a
// coefficient is far from zero. Through d points in s ≥ d dimensions some
// affine relation always passes, and the kernel finds one, with
// coefficients that look random; a loop node whose samples come from five
// runs gets such relations among the entry registers the runs left
// unset (gcc's scale: zext(k) = 0x003a4340a0000000·rsp + … ), and each
// costs Houdini seconds of bit-blasted multiplication before a
// counterexample drops it. A relation with small coefficients (a stride,
// a scale) is kept however few rows show it: it is what the code
// computes more often than chance. Dropping a candidate is always sound;
// only completeness is at stake, and only for relations the rows cannot
// tell from chance.
func coincidental(t *table, r linRel) bool {
	m := mask(r.mod)
	support, large := []int{r.subj}, false
	for i, c := range r.coef {
		c &= m
		if c == 0 {
			continue
		}
		support = append(support, i)
		if min(c, -c&m) > maxPlainCoef {
			large = true
		}
	}
	if !large {
		return false
	}
	seen := map[string]bool{}
	key := make([]byte, 0, 8*len(support))
	for row := 0; row < t.rows; row++ {
		key = key[:0]
		for _, i := range support {
			key = binary.LittleEndian.AppendUint64(key, t.cols[i][row])
		}
		seen[string(key)] = true
		if len(seen) > len(support) {
			return false
		}
	}
	return true
}

// narrowed returns r modulo 2^w, for a relation over Z/2^64 whose subject
// is w < 64 bits wide and which combines more than a variable plus a
// constant. On the samples the two agree, but only the narrow one can be
// inductive when the values wrap at w bits: a reduction's lanes summed
// mod 2^32 (s ≡ x0 + x1 + x2 + x3), of which the kernel, seeing no wrap on
// its rows, may give only the 64-bit form, or a basis whose high
// coefficients (2^63·i) vanish only mod 2^32.
// equal reports whether r and o are the same relation.
func (r linRel) equal(o linRel) bool {
	return r.subj == o.subj && r.c0 == o.c0 && r.mod == o.mod && slices.Equal(r.coef, o.coef)
}

// sumOfNarrow reports whether r, a relation mod 2^64, relates three or
// more variables all of one width below 64 (a reduction's lanes and its
// sum, s = x0 + x1 + x2 + x3). Over their zero extensions it says, beyond
// its narrowed form, that the sum never wraps: a fact about every lane's
// bound that is rarely inductive, and whose refutation costs Houdini
// dearly (gcc's vectorized count of zeros spent 37 s of its 61 s on the
// 64-bit form before dropping it). Learn gives the narrowed form in its
// place, as an equality too (the sum at its own width).
func (r linRel) sumOfNarrow(widths []uint32) bool {
	w, vars := widths[r.subj], 1
	if r.mod != 64 || w >= 64 {
		return false
	}
	for i, c := range r.coef {
		if i == r.subj || c == 0 {
			continue
		}
		if widths[i] != w {
			return false
		}
		vars++
	}
	return vars >= 3
}

// narrowSolved returns r, a relation mod 2^64 solved for a variable of
// 64 bits, solved instead for each narrower variable whose coefficient is
// ±1, modulo that variable's width (narrowed): s = p + zext(n), a string
// pointer against an int count from its start, is not inductive once n
// wraps, while n ≡ s − p (mod 2^32) is, and it is what a count returned
// as an int needs.
func (r linRel) narrowSolved(widths []uint32) []linRel {
	if r.mod != 64 || widths[r.subj] < 64 {
		return nil
	}
	var out []linRel
	for j, c := range r.coef {
		if j == r.subj || widths[j] >= 64 || (c != 1 && c != ^uint64(0)) {
			continue
		}
		// x_s = c·x_j + Σ_{i≠j} c_i·x_i + c0, so with c = ±1:
		// x_j = c·x_s − Σ c·c_i·x_i − c·c0.
		s := linRel{subj: j, coef: make([]uint64, len(r.coef)), c0: -(c * r.c0), mod: 64}
		for i, ci := range r.coef {
			if i != j && i != r.subj {
				s.coef[i] = -(c * ci)
			}
		}
		s.coef[r.subj] = c
		if n, ok := s.narrowed(widths[j]); ok {
			out = append(out, n)
		}
	}
	return out
}

func (r linRel) narrowed(w uint32) (linRel, bool) {
	if r.mod != 64 || w >= 64 || w == 0 {
		return linRel{}, false
	}
	m := mask(uint(w))
	n := linRel{subj: r.subj, coef: make([]uint64, len(r.coef)), c0: r.c0 & m, mod: uint(w)}
	others, unit := 0, true
	for i, c := range r.coef {
		if i == r.subj || c&m == 0 {
			continue
		}
		n.coef[i] = c & m
		others++
		unit = unit && c&m == 1
	}
	if others == 0 || (others == 1 && unit) {
		return linRel{}, false
	}
	return n, true
}
