package learn

import (
	"fmt"
	"math/bits"
	"strings"

	"eqc/ir"
)

// This file writes learned relations as ir terms and as readable text.

// linRel is an affine relation solved for one variable:
//
//	x[subj] ≡ Σ_{i≠subj} coef[i]·x[i] + c0 (mod 2^mod)
//
// over the zero-extended values; mod 64 is an equality over 64-bit
// arithmetic, a smaller mod a congruence (the low mod bits agree).
type linRel struct {
	subj int
	coef []uint64 // coef[subj] is 0; entries reduced mod 2^mod
	c0   uint64
	mod  uint
}

func (r linRel) kind() Kind {
	if r.mod == 64 {
		return Equality
	}
	return Congruence
}

// relFromVector solves the kernel vector v (n variable coefficients, then
// the constant; mod 2^64) for a variable. When every variable coefficient
// is a multiple of 2^s, v says Σ (c_i/2^s)·x_i + c/2^s ≡ 0 mod 2^(64−s):
// a congruence. The subject is the highest-indexed variable with an odd
// coefficient after that division. ok is false for a vector no state can
// satisfy (constant not divisible by 2^s, or no variable at all).
func relFromVector(v []uint64) (linRel, bool) {
	n := len(v) - 1
	s := 64
	for _, c := range v[:n] {
		if c != 0 {
			s = min(s, bits.TrailingZeros64(c))
		}
	}
	if s == 64 || (v[n] != 0 && bits.TrailingZeros64(v[n]) < s) {
		return linRel{}, false
	}
	mod := uint(64 - s)
	m := mask(mod)
	subj := -1
	for i := n - 1; i >= 0; i-- {
		if (v[i]>>s)&1 == 1 {
			subj = i
			break
		}
	}
	f := -inverse(v[subj] >> s)
	r := linRel{subj: subj, coef: make([]uint64, n), mod: mod}
	for i := 0; i < n; i++ {
		if i != subj {
			r.coef[i] = (v[i] >> s) * f & m
		}
	}
	r.c0 = (v[n] >> s) * f & m
	return r, true
}

// termer builds terms over a schema's variables.
type termer struct {
	b     *ir.Builder
	vars  []Var
	width []uint32
}

// at returns variable i at width w: zero-extended, or its low w bits.
func (t *termer) at(i int, w uint32) ir.Term {
	x, vw := t.vars[i].Term, t.width[i]
	switch {
	case vw == w:
		return x
	case vw < w:
		return t.b.ZeroExt(x, w-vw)
	default:
		return t.b.Extract(x, w-1, 0)
	}
}

// sext returns variable i sign-extended to width w (>= its width).
func (t *termer) sext(i int, w uint32) ir.Term {
	if t.width[i] == w {
		return t.vars[i].Term
	}
	return t.b.SignExt(t.vars[i].Term, w-t.width[i])
}

// signedMag splits v (mod 2^m) into a sign and a magnitude, reading it as
// a two's-complement m-bit number (but 2^(m−1) as positive).
func signedMag(v uint64, m uint) (neg bool, mag uint64) {
	if v>>(m-1)&1 == 1 && v != 1<<(m-1) {
		return true, (-v) & mask(m)
	}
	return false, v
}

// num prints a magnitude: decimal when small, hex otherwise.
func num(v uint64) string {
	if v < 1<<16 {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%#x", v)
}

// snum prints v (mod 2^m) as a signed number.
func snum(v uint64, m uint) string {
	if neg, mag := signedMag(v, m); neg {
		return "-" + num(mag)
	}
	return num(v)
}

func modText(mod uint) string {
	if mod <= 16 {
		return fmt.Sprint(uint64(1) << mod)
	}
	return fmt.Sprintf("2^%d", mod)
}

// linear writes r as a candidate.
func (t *termer) linear(r linRel) Candidate {
	b := t.b
	// Positive terms first, each group in variable order: v = a + b − c.
	var others, negs []int
	for i, c := range r.coef {
		if c != 0 && i != r.subj {
			if neg, _ := signedMag(c, r.mod); neg {
				negs = append(negs, i)
			} else {
				others = append(others, i)
			}
		}
	}
	others = append(others, negs...)
	// The right-hand side as text.
	var sb strings.Builder
	for k, i := range others {
		neg, mag := signedMag(r.coef[i], r.mod)
		switch {
		case k == 0 && neg:
			sb.WriteString("-")
		case k > 0 && neg:
			sb.WriteString(" - ")
		case k > 0:
			sb.WriteString(" + ")
		}
		if mag != 1 {
			sb.WriteString(num(mag) + "·")
		}
		sb.WriteString(t.vars[i].Name)
	}
	if r.c0 != 0 || len(others) == 0 {
		neg, mag := signedMag(r.c0, r.mod)
		switch {
		case len(others) == 0 && r.mod < 64:
			sb.WriteString(num(r.c0)) // a residue: 0 ≤ c0 < 2^mod
		case len(others) == 0:
			sb.WriteString(snum(r.c0, r.mod))
		case neg:
			sb.WriteString(" - " + num(mag))
		default:
			sb.WriteString(" + " + num(mag))
		}
	}
	subjName := t.vars[r.subj].Name
	if r.mod < 64 {
		desc := fmt.Sprintf("%s ≡ %s (mod %s)", subjName, sb.String(), modText(r.mod))
		w := uint32(r.mod)
		return Candidate{Term: b.Eq(t.at(r.subj, w), t.sum(others, r, w)), Kind: Congruence, Desc: desc}
	}
	desc := fmt.Sprintf("%s = %s", subjName, sb.String())
	sw := t.width[r.subj]
	var term ir.Term
	switch {
	case len(others) == 0 && r.c0&^mask(uint(sw)) == 0:
		term = b.Eq(t.vars[r.subj].Term, b.Const(sw, r.c0))
	case len(others) == 1 && r.c0 == 0 && r.coef[others[0]] == 1 && t.width[others[0]] == sw:
		term = b.Eq(t.vars[r.subj].Term, t.vars[others[0]].Term)
	default:
		term = b.Eq(t.at(r.subj, 64), t.sum(others, r, 64))
	}
	return Candidate{Term: term, Kind: Equality, Desc: desc}
}

// sum builds Σ coef[i]·x[i] + c0 at width w, with subtraction for negative
// coefficients so that the term reads like the description.
func (t *termer) sum(others []int, r linRel, w uint32) ir.Term {
	b := t.b
	acc := ir.NoTerm
	for _, i := range others {
		neg, mag := signedMag(r.coef[i], r.mod)
		x := t.at(i, w)
		if mag != 1 {
			x = b.Mul(b.Const(w, mag), x)
		}
		switch {
		case acc == ir.NoTerm && neg:
			acc = b.Neg(x)
		case acc == ir.NoTerm:
			acc = x
		case neg:
			acc = b.Sub(acc, x)
		default:
			acc = b.Add(acc, x)
		}
	}
	if acc == ir.NoTerm {
		return b.Const(w, r.c0)
	}
	if r.c0 != 0 {
		if neg, mag := signedMag(r.c0, r.mod); neg {
			acc = b.Sub(acc, b.Const(w, mag))
		} else {
			acc = b.Add(acc, b.Const(w, mag))
		}
	}
	return acc
}
