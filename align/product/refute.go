package product

import (
	"eqc/align/product/alias"
	"eqc/ir"
	"eqc/ub"
)

// Counterexamples as data (Counter §3.5, for the splitter's guesses). A
// read passes a store through another base when the node's states show
// the two apart (two arrays given by pointer), and the edge is built on
// that guess, which the facts obligation then asks the solver to confirm.
// Some guesses are wrong where the states could not show it: gcc's
// straight-line code for n ≤ 3 reads s[1] after storing d[0], and nothing
// keeps d and s apart. When the facts obligation fails, the solver's model
// is a state in which some guessed fact is false; it joins the edge's
// states, the edge is rebuilt (now those two accesses stay in order, as
// the code has them) and its obligations are checked again, Houdini's
// invariants' inductiveness included. The splitter then guesses nothing
// between two bases the counterexample puts near each other
// (alias.Samples): gcc's interleave for n ≤ 3 has a dozen pairs of a d
// store and an a or b read, each refuted by a model of its own, more than
// maxRefutations rebuilds; by bases, two rebuilds (d against a, d against
// b) settle them. The rebuilt edge assumes less, so a
// proof through it is as sound as any; only time is at stake, which
// maxRefutations bounds.

// maxRefutations bounds how often one edge is rebuilt with a new
// counterexample.
const maxRefutations = 3

// refutes reports whether model m makes one of e's guesses false: a fact
// between two addresses neither of which is in the frame, which only the
// states suggested, or one that merges several facts into their hulls,
// which the states also judged (alias.FactTerms). A stack fact on its own
// rests on the frame layout and OBVA: no state corrects it.
func (pr *Product) refutes(e *PEdge, m ir.Env) bool {
	if m == nil {
		return false
	}
	b := pr.p.B
	ev := ir.NewEvaluator(b, m)
	isFalse := func(t ir.Term) bool {
		v, err := ev.Eval(t)
		return err == nil && !v.Bool()
	}
	single := map[ir.Term]bool{} // the facts as FactTerms leaves them unmerged
	guessed := func(fs map[alias.Fact]bool) bool {
		for f := range fs {
			t := f.Term(b)
			single[pr.simp.Simplify(t)] = true
			_, frame1 := ub.FrameOffset(b, pr.rsp0, f.A1)
			_, frame2 := ub.FrameOffset(b, pr.rsp0, f.A2)
			if frame1 || frame2 {
				// A stack fact without a guard may be one the
				// splitter left unguarded for a read met in many
				// contexts: its address may then be one the run
				// never reads (a loop pass not made, a[n]).
				if f.Guard == ir.NoTerm && !e.guardCollapsed && isFalse(t) {
					e.guardCollapsed = true
					return true
				}
				continue
			}
			if isFalse(t) {
				return true
			}
		}
		return false
	}
	if guessed(e.disjoint) || guessed(e.disjointCond) {
		return true
	}
	for _, fs := range e.readFacts {
		if guessed(fs) {
			return true
		}
	}
	canon := map[ir.Term]bool{}
	for _, t := range append(append([]ir.Term(nil), e.canon...), e.canonCond...) {
		canon[t] = true
	}
	for _, t := range append(append([]ir.Term(nil), e.facts...), e.condFacts...) {
		if !single[t] && !canon[t] && isFalse(t) {
			return true
		}
	}
	return false
}
