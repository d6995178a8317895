package ub

import (
	"slices"

	"eqc/ir"
)

// Reads the hypotheses themselves place outside the frame. A later
// block's hypothesis is an implication whose premise is the path's
// condition up to it, and an -O0 condition reads memory through the
// frame's stores: in `while (*a && *a == *b)` the access through b
// happens only when the byte at a, read from a memory where a and b sit
// in frame slots stored on top, is not zero. The first block's
// hypothesis, which holds unconditionally, already says that a misses
// the frame, so that read passes every store inside the frame; left as
// it is, the solver must find that out through each byte of each slot
// (z3 gave up after 60 s on one such premise, cvc5 took 35 s).
//
// A loop's hypotheses are conditional all the way down: in an -O0
// `for (i = 0; i < n; i++) y[i] = ...` unrolled k times, the access to
// y[i] of the second pass is `i < n ∧ i+1 < n → y+4(i+1) misses the
// frame`, where i+1, n and y are read back from frame slots through the
// first pass's store to y[i] — which the first pass's own hypothesis,
// `i < n → y+4i misses the frame`, places outside the frame wherever the
// second premise can hold (its premise is a conjunct of the second's).
// Passing those stores makes the later hypotheses free of frame reads;
// kept, they made the query that proves the loop's disjointness facts
// take 15–30 s per edge (gcc-12's saxpy at -O3).
//
// PassFrameStores returns hyps rewritten by SkipFrameStores, each with the
// accesses its premises guarantee to miss the frame: an unconditional
// hypothesis's everywhere; one whose premise P is a conjunct of hypothesis
// j's premise in j's conclusion, and in j's premise too when P is a proper
// conjunct of it (P's own premise rewritten, and conjoined, so that where
// P is false the rewritten premise is false too). In every state where
// the hypotheses hold, the result means what they mean: where a premise
// holds, each access it guarantees misses the frame and every rewritten
// read has the original's value; where it fails, both hypotheses are
// vacuously true. Where the original hypotheses fail the result may still
// hold, which is sound: hypotheses are premises, and weaker premises ask
// more of a proof.
func PassFrameStores(b *ir.Builder, simp *ir.Simplifier, hyps []ir.Term, rsp0 ir.Term) []ir.Term {
	lo := simp.Simplify(b.Sub(rsp0, b.Const(64, StackLimit)))
	// A term's conjuncts at every level, the conjunctions among them
	// included (b.Conjuncts gives the leaves only): a loop's third pass
	// has the second pass's whole premise as one conjunct.
	conjuncts := map[ir.Term]map[ir.Term]bool{}
	conjunctsOf := func(t ir.Term) map[ir.Term]bool {
		if c, ok := conjuncts[t]; ok {
			return c
		}
		c := map[ir.Term]bool{}
		var flatten func(ir.Term)
		flatten = func(t ir.Term) {
			if c[t] {
				return
			}
			c[t] = true
			if b.Op(t) == ir.OpAnd {
				for _, a := range b.Args(t) {
					flatten(a)
				}
			}
		}
		flatten(t)
		conjuncts[t] = c
		return c
	}
	// Each hypothesis as premise → conclusion (premise true when it is
	// unconditional), and the accesses each premise guarantees.
	truth := b.Bool(true)
	premise := make([]ir.Term, len(hyps))
	conclusion := make([]ir.Term, len(hyps))
	candidates := frameMissCandidates(b, simp, hyps, lo)
	guaranteed := map[ir.Term][]frameAccess{}
	for i, h := range hyps {
		premise[i], conclusion[i] = truth, h
		if b.Op(h) == ir.OpImplies {
			premise[i], conclusion[i] = b.Arg(h, 0), b.Arg(h, 1)
		}
		known := conjunctsOf(conclusion[i])
		for _, c := range candidates {
			if known[c.miss] {
				guaranteed[premise[i]] = append(guaranteed[premise[i]], c.frameAccess)
			}
		}
	}
	// missesUnder collects the accesses guaranteed wherever p holds: the
	// unconditional ones and those of the premises among p's conjuncts
	// (p itself only when self).
	missesUnder := func(p ir.Term, self bool) Misses {
		ms := Misses{}
		for _, a := range guaranteed[truth] {
			ms.add(b, a.addr, a.n)
		}
		for q, as := range guaranteed {
			if q == truth || !conjunctsOf(p)[q] || (q == p && !self) {
				continue
			}
			for _, a := range as {
				ms.add(b, a.addr, a.n)
			}
		}
		return ms
	}
	rewritten := map[ir.Term]ir.Term{truth: truth}
	var rewritePremise func(p ir.Term) ir.Term
	rewritePremise = func(p ir.Term) ir.Term {
		if r, ok := rewritten[p]; ok {
			return r
		}
		var earlier []ir.Term // in term order: the same hypotheses, the same terms
		for q := range conjunctsOf(p) {
			if _, ok := guaranteed[q]; ok && q != p && q != truth {
				earlier = append(earlier, q)
			}
		}
		slices.Sort(earlier)
		parts := []ir.Term{SkipFrameStores(b, simp, rsp0, missesUnder(p, false), []ir.Term{p})[0]}
		for _, q := range earlier {
			parts = append(parts, rewritePremise(q))
		}
		r := p
		if len(parts) > 1 || parts[0] != p {
			r = simp.Simplify(b.And(parts...))
		}
		rewritten[p] = r
		return r
	}
	// One rewrite per premise: the conclusions that share it share terms.
	byPremise := map[ir.Term][]int{}
	var order []ir.Term
	for i, p := range premise {
		if _, ok := byPremise[p]; !ok {
			order = append(order, p)
		}
		byPremise[p] = append(byPremise[p], i)
	}
	out := make([]ir.Term, len(hyps))
	for _, p := range order {
		idx := byPremise[p]
		xs := make([]ir.Term, len(idx))
		for k, i := range idx {
			xs[k] = conclusion[i]
		}
		xs = SkipFrameStores(b, simp, rsp0, missesUnder(p, true), xs)
		rp := rewritePremise(p)
		for k, i := range idx {
			switch {
			case p == truth:
				out[i] = xs[k]
			case rp == p && xs[k] == conclusion[i]:
				out[i] = hyps[i]
			default:
				out[i] = simp.Simplify(b.Implies(rp, xs[k]))
			}
		}
	}
	return out
}

// frameAccess is n bytes at addr.
type frameAccess struct {
	addr ir.Term
	n    uint32
}

// missCandidate is an access with the term that says it misses the frame.
type missCandidate struct {
	frameAccess
	miss ir.Term
}

// frameMissCandidates returns the accesses of the reads and stores in
// hyps, each in the widths a hypothesis may state it in, with their
// MissesFrame terms as the simplifier leaves them.
func frameMissCandidates(b *ir.Builder, simp *ir.Simplifier, hyps []ir.Term, lo ir.Term) []missCandidate {
	var out []missCandidate
	for _, u := range b.PostOrder(hyps...) {
		if op := b.Op(u); op != ir.OpSelect && op != ir.OpStore {
			continue
		}
		n, _ := b.Params(u)
		a := b.Arg(u, 1)
		for _, m := range []uint32{n, 8, 16, 32, 64} {
			if m >= n {
				out = append(out, missCandidate{frameAccess{a, m}, simp.Simplify(MissesFrame(b, a, m, lo))})
			}
		}
	}
	return out
}
