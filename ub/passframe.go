package ub

import "eqc/ir"

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
// PassFrameStores returns hyps rewritten by SkipFrameStores with the
// accesses an unconditional conjunct of hyps places outside the frame
// (MissesFrame) as the misses. The conjunction of the result is
// equivalent to that of hyps: where the unconditional conjuncts hold,
// each rewritten read has the original's value, and where one fails both
// conjunctions are false.
func PassFrameStores(b *ir.Builder, simp *ir.Simplifier, hyps []ir.Term, rsp0 ir.Term) []ir.Term {
	lo := simp.Simplify(b.Sub(rsp0, b.Const(64, StackLimit)))
	known := map[ir.Term]bool{} // the unconditional conjuncts, at every level
	var flatten func(t ir.Term)
	flatten = func(t ir.Term) {
		known[t] = true
		if b.Op(t) == ir.OpAnd {
			for _, a := range b.Args(t) {
				flatten(a)
			}
		}
	}
	for _, h := range hyps {
		flatten(h)
	}
	misses := Misses{}
	for _, t := range b.PostOrder(hyps...) {
		if op := b.Op(t); op != ir.OpSelect && op != ir.OpStore {
			continue
		}
		n, _ := b.Params(t)
		a := b.Arg(t, 1)
		for _, m := range []uint32{n, 8, 16, 32, 64} {
			if m >= n && known[simp.Simplify(MissesFrame(b, a, m, lo))] {
				misses.add(b, a, m)
				break
			}
		}
	}
	return SkipFrameStores(b, simp, rsp0, misses, hyps)
}
