package alias

import (
	"math"
	"sort"

	"eqc/ir"
)

// Samples evaluates addresses over a product node's variables on the
// concrete states the runs showed there, and on the solver's
// counterexamples to earlier guesses.
type Samples struct {
	b    *ir.Builder
	evs  []*ir.Evaluator
	vals map[ir.Term][]uint64 // nil: some state cannot evaluate it
	// cex are the states from evs[cex:] on: counterexamples.
	cex int
}

// NewSamples evaluates addresses with evs, one per state, and with cex,
// the solver's counterexamples to guesses made on earlier samples.
func NewSamples(b *ir.Builder, evs, cex []*ir.Evaluator) *Samples {
	return &Samples{b: b, evs: append(evs[:len(evs):len(evs)], cex...), vals: map[ir.Term][]uint64{}, cex: len(evs)}
}

// counterexampleReach is how near two bases must lie in a counterexample
// for Samples to guess no disjointness between them at all.
const counterexampleReach = 4096

func (as *Samples) values(a ir.Term) []uint64 {
	if vs, ok := as.vals[a]; ok {
		return vs
	}
	vs := make([]uint64, 0, len(as.evs))
	for _, ev := range as.evs {
		v, err := ev.Eval(a)
		if err != nil {
			vs = nil
			break
		}
		vs = append(vs, v.BV().Uint64())
	}
	as.vals[a] = vs
	return vs
}

// disjoint reports whether the n1 bytes at a1 and the n2 bytes at a2 are
// apart on every state: a guess for the solver to confirm, so it should
// rarely be wrong. A counterexample whose two bases lie within
// counterexampleReach bytes says the two may overlap anywhere near: the
// solver refuted one pair of accesses through them (gcc's code for n ≤ 3
// storing d[0] before reading s[1]), and another model would refute the
// next pair of the same two bases (d[1] against s[2], d[0] against
// s[2], ...), one rebuild of the edge each; no guess between them is made.
// Equal bases are the exception: y == x, which gcc's overlap check lets
// into the vectorized saxpy, overlaps only the accesses at equal offsets,
// which that state itself shows; blocking the others too made the loop's
// memory query time out.
func (as *Samples) disjoint(a1 ir.Term, n1 uint32, a2 ir.Term, n2 uint32) bool {
	v1, v2 := as.values(a1), as.values(a2)
	if v1 == nil || v2 == nil {
		return false
	}
	for i := range v1 {
		if v2[i]-v1[i] < uint64(n1) || v1[i]-v2[i] < uint64(n2) {
			return false
		}
	}
	if as.cex < len(as.evs) {
		r1, _ := as.b.BaseOffset(a1)
		r2, _ := as.b.BaseOffset(a2)
		w1, w2 := as.values(r1), as.values(r2)
		if w1 == nil || w2 == nil {
			return false
		}
		for i := as.cex; i < len(w1); i++ {
			if d := w1[i] - w2[i]; d != 0 && (d < counterexampleReach || -d < counterexampleReach) {
				return false
			}
		}
	}
	return true
}

// FactTerms returns facts as Bools. Facts between the same two bases (a +
// 4·i + 0, 4, 8, 12 against a scalar global, say) merge into one between
// the hulls of their ranges when the states show the hulls apart too: one
// fact instead of a product of them, and a stronger one, so it implies each
// it replaces.
func FactTerms(b *ir.Builder, simp *ir.Simplifier, facts map[Fact]bool, samples *Samples) []ir.Term {
	type group struct {
		b1, b2 ir.Term
		facts  []Fact
	}
	groups := map[[3]ir.Term]*group{}
	var keys [][3]ir.Term
	for f := range facts {
		if f.Guard != ir.NoTerm && facts[Fact{f.A1, f.A2, f.N1, f.N2, ir.NoTerm}] {
			continue // implied by the fact without a guard
		}
		r1, _ := b.BaseOffset(f.A1)
		r2, _ := b.BaseOffset(f.A2)
		if r1 > r2 {
			f = Fact{f.A2, f.A1, f.N2, f.N1, f.Guard}
			r1, r2 = r2, r1
		}
		k := [3]ir.Term{r1, r2, f.Guard}
		if groups[k] == nil {
			groups[k] = &group{b1: r1, b2: r2}
			keys = append(keys, k)
		}
		groups[k].facts = append(groups[k].facts, f)
	}
	sort.Slice(keys, func(i, j int) bool {
		for x := range keys[i] {
			if keys[i][x] != keys[j][x] {
				return keys[i][x] < keys[j][x]
			}
		}
		return false
	})
	var out []ir.Term
	for _, k := range keys {
		g := groups[k]
		if h, ok := hull(b, simp, g.b1, g.b2, g.facts, samples); ok {
			out = append(out, simp.Simplify(h.Term(b)))
			continue
		}
		ts := make([]ir.Term, 0, len(g.facts))
		for _, f := range g.facts {
			ts = append(ts, simp.Simplify(f.Term(b)))
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
		out = append(out, ts...)
	}
	return out
}

// maxHull bounds the size of a merged range.
const maxHull = 1 << 16

// hull merges facts between bases b1 and b2 into one, if the states show
// the hulls apart.
func hull(b *ir.Builder, simp *ir.Simplifier, b1, b2 ir.Term, facts []Fact, samples *Samples) (Fact, bool) {
	if len(facts) < 2 || samples == nil {
		return Fact{}, false
	}
	lo1, hi1 := int64(math.MaxInt64), int64(math.MinInt64)
	lo2, hi2 := lo1, hi1
	for _, f := range facts {
		_, c1 := b.BaseOffset(f.A1)
		_, c2 := b.BaseOffset(f.A2)
		lo1, hi1 = min(lo1, int64(c1)), max(hi1, int64(c1)+int64(f.N1))
		lo2, hi2 = min(lo2, int64(c2)), max(hi2, int64(c2)+int64(f.N2))
	}
	if hi1-lo1 > maxHull || hi2-lo2 > maxHull {
		return Fact{}, false
	}
	at := func(base ir.Term, off int64) ir.Term {
		return simp.Simplify(b.Add(base, b.Const(64, uint64(off))))
	}
	h := Fact{at(b1, lo1), at(b2, lo2), uint32(hi1 - lo1), uint32(hi2 - lo2), facts[0].Guard}
	if !samples.disjoint(h.A1, h.N1, h.A2, h.N2) {
		return Fact{}, false
	}
	return h, true
}
