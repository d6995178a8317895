package learn

import (
	"fmt"
	"slices"
	"strings"

	"eqc/ir"
)

// Fold relations: v = op(l_1, …, l_k) for op one of signed and unsigned
// max and min, AND and OR, with l_1..l_k the lanes of one or two vector
// registers. A vectorized max, min, AND or OR reduction keeps partial
// results in the lanes of its accumulators (clang: two of them); the
// source's scalar is their fold, which no affine, XOR or order relation
// states. XORs are XOR relations already, and so are sums affine ones,
// except over lanes narrower than the columns that hold them (paddb's
// sixteen bytes of an unsigned char sum, in four 32-bit columns): those
// are folds by addition here.
//
// The lanes of a register are the columns that extract bits of one term
// (the product's xmm columns, extract(xmm0, 32·j+31, 32·j)); a column of
// width W holds W/w lanes of width w < W (pmaxsw's 16-bit lanes in the
// 32-bit columns). The learner tries each register, then each pair, at
// each lane width of a subject column, and keeps a fold that holds on
// every row, unless the rows cannot tell it from chance: the subject
// constant on them, or equal to one lane on every row (equalities say
// that).

// Fold operators.
type foldOp uint8

const (
	foldSMax foldOp = iota
	foldSMin
	foldUMax
	foldUMin
	foldAnd
	foldOr
	foldAdd // lanes narrower than their columns only: the others are affine
	numFoldOps
)

var foldNames = [numFoldOps]string{"smax", "smin", "umax", "umin", "and", "or", "add"}

// maxFoldRelations bounds the fold relations of one width.
const maxFoldRelations = 8

// apply folds y into x at width w.
func (op foldOp) apply(x, y uint64, w uint32) uint64 {
	sx, sy := sext64(x, w), sext64(y, w)
	switch op {
	case foldSMax:
		if sy > sx {
			return y
		}
	case foldSMin:
		if sy < sx {
			return y
		}
	case foldUMax:
		if y > x {
			return y
		}
	case foldUMin:
		if y < x {
			return y
		}
	case foldAnd:
		return x & y
	case foldOr:
		return x | y
	case foldAdd:
		return (x + y) & mask(uint(w))
	}
	return x
}

// term is op applied to x and y.
func (op foldOp) term(b *ir.Builder, x, y ir.Term) ir.Term {
	switch op {
	case foldSMax:
		return b.Ite(b.Slt(x, y), y, x)
	case foldSMin:
		return b.Ite(b.Slt(y, x), y, x)
	case foldUMax:
		return b.Ite(b.Ult(x, y), y, x)
	case foldUMin:
		return b.Ite(b.Ult(y, x), y, x)
	case foldAnd:
		return b.BVAnd(x, y)
	case foldAdd:
		return b.Add(x, y)
	}
	return b.BVOr(x, y)
}

// register is the columns that extract bits of one term, at one width,
// by their low bit.
type register struct {
	base ir.Term
	cols []int
}

// registers groups the columns that are extracts of one term and of one
// width (a register learned by both 64- and 32-bit lanes is two).
func registers(tm *termer, t *table) []register {
	type key struct {
		base ir.Term
		w    uint32
	}
	var keys []key
	byKey := map[key][]int{}
	b := tm.b
	for i := 0; i < t.n; i++ {
		x := tm.vars[i].Term
		if b.Op(x) != ir.OpExtract {
			continue
		}
		k := key{b.Arg(x, 0), t.width[i]}
		if byKey[k] == nil {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	var out []register
	for _, k := range keys {
		cols := byKey[k]
		if len(cols) < 2 {
			continue
		}
		slices.SortFunc(cols, func(i, j int) int {
			_, li := b.Params(tm.vars[i].Term)
			_, lj := b.Params(tm.vars[j].Term)
			return int(li) - int(lj)
		})
		out = append(out, register{k.base, cols})
	}
	return out
}

// lanes lists the w-bit lanes of the registers' columns, or nothing when a
// column's width is not a multiple of w.
func lanes(t *table, regs []register, w uint32) []xorVar {
	var out []xorVar
	for _, r := range regs {
		for _, i := range r.cols {
			if t.width[i] < w || t.width[i]%w != 0 {
				return nil
			}
			for lo := uint32(0); lo < t.width[i]; lo += w {
				out = append(out, xorVar{i, lo})
			}
		}
	}
	return out
}

// foldRelations returns the fold relations that hold on every row between
// a representative column of e (the subject) and the lanes of one or two
// registers of its width, the subject in none of them.
func foldRelations(tm *termer, t *table, e eqResult) []Candidate {
	if t.rows < 3 {
		return nil
	}
	regs := registers(tm, t)
	if len(regs) == 0 {
		return nil
	}
	inReg := map[int]ir.Term{}
	for _, r := range regs {
		for _, i := range r.cols {
			inReg[i] = r.base
		}
	}
	var out []Candidate
	count := map[uint32]int{}
	for s := 0; s < t.n; s++ {
		w := t.width[s]
		if !e.isRep(s) || w < 8 || count[w] == maxFoldRelations {
			continue
		}
		// Registers that fit alone are not tried in pairs: the smallest
		// set of lanes is the accumulator.
		try := func(set ...register) bool {
			if count[w] == maxFoldRelations {
				return false
			}
			for _, r := range set {
				if inReg[s] == r.base {
					return false
				}
			}
			ls := lanes(t, set, w)
			if len(ls) < 2 {
				return false
			}
			// Every op that holds: the rows may not tell the minimum
			// of flags from their AND, the solver does.
			fits := false
			for op := foldOp(0); op < numFoldOps && count[w] < maxFoldRelations; op++ {
				if op == foldAdd && t.width[ls[0].i] == w {
					continue
				}
				if foldHolds(t, s, ls, op, w) {
					out = append(out, tm.foldCandidates(s, ls, op, w)...)
					count[w]++
					fits = true
				}
			}
			return fits
		}
		fitted := make([]bool, len(regs))
		for k, r := range regs {
			fitted[k] = try(r)
		}
		for k := range regs {
			for j := k + 1; j < len(regs); j++ {
				if !fitted[k] && !fitted[j] {
					try(regs[k], regs[j])
				}
			}
		}
	}
	return out
}

// foldHolds says whether subject column s is op over lanes ls on every
// row, the rows telling it from chance: the subject varies, and no lane
// equals it on every row (a register that broadcasts a parameter, which
// an equality states; with it, any register whose lanes stay below the
// parameter made a max).
func foldHolds(t *table, s int, ls []xorVar, op foldOp, w uint32) bool {
	m := mask(uint(w))
	varies := false
	differs := make([]bool, len(ls)) // lane k differs from the subject on some row
	for r := 0; r < t.rows; r++ {
		acc := ls[0].value(t, r, w)
		for _, l := range ls[1:] {
			acc = op.apply(acc, l.value(t, r, w), w)
		}
		v := t.cols[s][r] & m
		if acc != v {
			return false
		}
		if v != t.cols[s][0]&m {
			varies = true
		}
		for k, l := range ls {
			differs[k] = differs[k] || l.value(t, r, w) != v
		}
	}
	return varies && !slices.Contains(differs, false)
}

// foldCandidates state subject s = op(ls) at width w. A max or min is
// said as its two halves, each a candidate of its own: every lane is on
// one side of s, and s is one of the lanes. Together they are the fold;
// apart, the solver proves each for a vector loop's pass lane by lane,
// where the fold's equality asked it to see through two trees of
// comparisons at once (clang's imax, eight lanes against eight branchy
// passes of the source: past 30 s a query, then unknown).
func (tm *termer) foldCandidates(s int, ls []xorVar, op foldOp, w uint32) []Candidate {
	b := tm.b
	subj := tm.xorTerm(xorVar{s, 0}, w)
	subjName := tm.xorName(xorVar{s, 0}, w)
	var names []string
	for _, l := range ls {
		names = append(names, tm.xorName(l, w))
	}
	if op == foldAnd || op == foldOr || op == foldAdd {
		rhs := tm.xorTerm(ls[0], w)
		for _, l := range ls[1:] {
			rhs = op.term(b, rhs, tm.xorTerm(l, w))
		}
		return []Candidate{{
			Term: b.Eq(subj, rhs),
			Kind: Fold,
			Desc: fmt.Sprintf("%s = %s(%s)", subjName, foldNames[op], strings.Join(names, ", ")),
		}}
	}
	var out []Candidate
	var member []ir.Term
	for k, l := range ls {
		x := tm.xorTerm(l, w)
		member = append(member, b.Eq(subj, x))
		var le ir.Term // lane ≤ subject for a max, subject ≤ lane for a min
		rel := "≤"
		switch op {
		case foldSMax:
			le = b.Not(b.Slt(subj, x))
		case foldSMin:
			le = b.Not(b.Slt(x, subj))
			rel = "≥"
		case foldUMax:
			le = b.Not(b.Ult(subj, x))
			rel = "≤u"
		default:
			le = b.Not(b.Ult(x, subj))
			rel = "≥u"
		}
		out = append(out, Candidate{Term: le, Kind: Fold, Desc: fmt.Sprintf("%s %s %s (%s)", names[k], rel, subjName, foldNames[op])})
	}
	return append(out, Candidate{
		Term: b.Or(member...),
		Kind: Fold,
		Desc: fmt.Sprintf("%s ∈ {%s} (%s)", subjName, strings.Join(names, ", "), foldNames[op]),
	})
}
