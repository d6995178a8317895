package learn

import (
	"fmt"
	"math/bits"
	"strings"

	"eqc/ir"
)

// XOR relations: x_k = x_i ⊕ x_j ⊕ … ⊕ K between variables of one width,
// which no affine relation over Z/2^w states. A vectorized XOR reduction
// keeps four partial results in the lanes of a register; the source's
// accumulator is their XOR, not their sum (a parity, a checksum, a hash's
// final fold).
//
// Bitwise XOR acts on every bit alike, so one relation is one vector a of
// GF(2) coefficients, the same for all bit positions, with ⊕ a_j·x_j = K
// on every row for a w-bit constant K. XORing each row with the first
// removes K; what remains says, for every later row r and bit b, that
// ⊕ a_j · bit b of (x_j[r] ⊕ x_j[0]) = 0. The relations are the null
// space of that 0/1 matrix (Gaussian elimination over GF(2), one word per
// equation), each basis vector solved for its highest-indexed variable,
// as the affine equalities are.

// maxXorVars bounds the variables of one width the XOR learner takes (a
// word of coefficients), and maxXorRelations the relations it returns for
// one width: a null space that large means too few rows, not relations.
const (
	maxXorVars      = 64
	maxXorRelations = 8
)

// xorVar is one operand of an XOR relation: bits [lo, lo+w) of variable
// i. Besides whole variables, the learner takes the two 32-bit halves of
// each 64-bit one: XOR is bitwise, and a 64-bit accumulator is the XOR of
// two 64-bit lanes, which the product's columns hold as 32-bit halves.
type xorVar struct {
	i  int
	lo uint32
}

func (v xorVar) value(t *table, r int, w uint32) uint64 {
	return t.cols[v.i][r] >> v.lo & mask(uint(w))
}

// xorRelations returns the XOR relations among the representatives of e
// (no constant column, no copy of another) of each width of at least 2
// bits, with at least three operands each (two are x = y ⊕ K, mostly a
// consequence of an offset or of a bound), that hold on every row.
func xorRelations(tm *termer, t *table, e eqResult) []Candidate {
	if t.rows < 2 {
		return nil
	}
	byWidth := map[uint32][]xorVar{}
	var widths []uint32
	add := func(w uint32, v xorVar) {
		if len(byWidth[w]) == 0 {
			widths = append(widths, w)
		}
		if len(byWidth[w]) < maxXorVars {
			byWidth[w] = append(byWidth[w], v)
		}
	}
	for i := 0; i < t.n; i++ {
		if !e.isRep(i) || t.width[i] < 2 {
			continue
		}
		add(t.width[i], xorVar{i, 0})
	}
	for i := 0; i < t.n; i++ {
		if e.isRep(i) && t.width[i] == 64 {
			add(32, xorVar{i, 0})
			add(32, xorVar{i, 32})
		}
	}
	var out []Candidate
	for _, w := range widths {
		vars := byWidth[w]
		if len(vars) < 3 {
			continue
		}
		n := 0
		for _, a := range xorNullSpace(t, vars, w) {
			if bits.OnesCount64(a) < 3 || n == maxXorRelations {
				continue
			}
			out = append(out, tm.xorCandidate(t, vars, a, w))
			n++
		}
	}
	return out
}

// xorNullSpace returns a basis of the coefficient vectors a (bit j for
// vars[j]) with ⊕ a_j·(x_j[r] ⊕ x_j[0]) = 0 in every bit of every row r,
// or nothing when the rows give fewer independent equations than twice
// the variables (too little evidence for what is left to mean anything).
func xorNullSpace(t *table, vars []xorVar, w uint32) []uint64 {
	m := len(vars)
	// basis[p] is a reduced equation whose lowest set bit is p.
	basis := make([]uint64, m)
	equations := 0
	for r := 1; r < t.rows; r++ {
		for b := uint32(0); b < w; b++ {
			var eq uint64
			for j, v := range vars {
				eq |= ((v.value(t, r, w) ^ v.value(t, 0, w)) >> b & 1) << j
			}
			if eq == 0 {
				continue
			}
			equations++
			for eq != 0 {
				p := bits.TrailingZeros64(eq)
				if basis[p] == 0 {
					basis[p] = eq
					break
				}
				eq ^= basis[p]
			}
		}
	}
	if equations < 2*m {
		return nil
	}
	// Reduce to row echelon form with each pivot cleared from the other
	// equations, then read one null vector off each free column.
	for p := m - 1; p >= 0; p-- {
		if basis[p] == 0 {
			continue
		}
		for q := 0; q < m; q++ {
			if q != p && basis[q]>>p&1 == 1 {
				basis[q] ^= basis[p]
			}
		}
	}
	var null []uint64
	for f := 0; f < m; f++ {
		if basis[f] != 0 {
			continue // a pivot column
		}
		v := uint64(1) << f
		for p := 0; p < m; p++ {
			if basis[p]>>f&1 == 1 {
				v |= 1 << p
			}
		}
		null = append(null, v)
	}
	return null
}

// xorCandidate is the relation with coefficient vector a over vars, solved
// for its highest-indexed operand: x_k = ⊕ others ⊕ K, K from the first
// row.
func (tm *termer) xorCandidate(t *table, vars []xorVar, a uint64, w uint32) Candidate {
	b := tm.b
	k := 63 - bits.LeadingZeros64(a)
	var k0 uint64
	var rhs ir.Term = ir.NoTerm
	var names []string
	for j, v := range vars {
		if a>>j&1 == 0 {
			continue
		}
		k0 ^= v.value(t, 0, w)
		if j == k {
			continue
		}
		names = append(names, tm.xorName(v, w))
		if rhs == ir.NoTerm {
			rhs = tm.xorTerm(v, w)
		} else {
			rhs = b.BVXor(rhs, tm.xorTerm(v, w))
		}
	}
	desc := strings.Join(names, " ⊕ ")
	if k0 != 0 {
		rhs = b.BVXor(rhs, b.Const(w, k0))
		desc += fmt.Sprintf(" ⊕ %#x", k0)
	}
	subj := vars[k]
	return Candidate{Term: b.Eq(tm.xorTerm(subj, w), rhs), Kind: Xor, Desc: fmt.Sprintf("%s = %s", tm.xorName(subj, w), desc)}
}

// xorTerm is operand v's term, w bits wide.
func (tm *termer) xorTerm(v xorVar, w uint32) ir.Term {
	if v.lo == 0 && tm.width[v.i] == w {
		return tm.vars[v.i].Term
	}
	return tm.b.Extract(tm.vars[v.i].Term, v.lo+w-1, v.lo)
}

func (tm *termer) xorName(v xorVar, w uint32) string {
	if v.lo == 0 && tm.width[v.i] == w {
		return tm.vars[v.i].Name
	}
	return fmt.Sprintf("%s[%d:%d]", tm.vars[v.i].Name, v.lo+w-1, v.lo)
}
