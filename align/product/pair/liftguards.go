package pair

import (
	"context"
	"time"

	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
)

// Lifting the frame reads' case splits out of a query (liftguards.go).
//
// frameReadGuard writes a read as ite(c, fast, read): c says the read
// misses the stores it passes (an atom of address arithmetic), fast is the
// read past them, read the read as it was. The solver gets the whole term
// and instantiates its array axioms for the slow arm too: a pop of rbx
// past the 74 bytes a call model replays (lua's atomic2gen, clang-16 -O2)
// read as ite(c, rbx, read) still ran to the check's 20 s timeout, though
// c follows from the precondition's address facts alone (unsplit, the
// query ran past 30 s in both Z3 and cvc5, even without the precondition).
//
// liftGuards asks two smaller questions instead. Let Φ be a query's
// assertions, F those of its conjuncts that read no memory (no term of
// memory sort: address facts, argument ranges), C the conditions of the
// splits in Φ and Φ' the assertions with each split replaced by its fast
// arm. If F ∧ ¬C is unsatisfiable, every state that satisfies Φ satisfies
// C, where each split equals its fast arm, so it satisfies Φ' too: Φ' unsat
// proves Φ unsat; and a model of Φ' satisfies F ⊆ Φ', hence C, hence Φ —
// the answer to Φ' is the answer to Φ. When F does not give C, the query
// is asked whole. Only splits whose conditions read no memory are lifted
// (any subset of them may be: the argument holds for each): F, which
// reads none, says nothing of a value read from memory.

// guardedRead is one split: its condition and its fast arm.
type guardedRead struct{ cond, fast ir.Term }

// frameGuards are the splits a frameReadGuard made, by the ite term.
type frameGuards map[ir.Term]guardedRead

// maxLiftRounds bounds the rounds of replacing: a fast arm may hold
// splits of its own (a read through a pointer read past the frame).
const maxLiftRounds = 4

// liftBudget bounds the question F ∧ ¬C, a question about addresses.
const liftBudget = 2 * time.Second

// lift returns the conditions of the splits in assertions and the
// assertions with them replaced by their fast arms (simplified); no
// conditions when there is no split.
func (fg frameGuards) lift(b *ir.Builder, simp *ir.Simplifier, assertions []ir.Term) (conds, lifted []ir.Term) {
	lifted = assertions
	for range maxLiftRounds {
		m := map[ir.Term]ir.Term{}
		for _, t := range b.PostOrder(lifted...) {
			if g, ok := fg[t]; ok && !readsMemory(b, g.cond) {
				m[t] = g.fast
				conds = append(conds, g.cond)
			}
		}
		if len(m) == 0 {
			break
		}
		lifted = simp.SimplifyAll(ir.NewSubstituter(b, m).ApplyAll(lifted))
	}
	return conds, lifted
}

// readsMemory says whether t has a term of memory sort in it.
func readsMemory(b *ir.Builder, t ir.Term) bool {
	for _, u := range b.PostOrder(t) {
		if b.Sort(u).Kind == ir.KindMem {
			return true
		}
	}
	return false
}

// memoryFreeConjuncts are the conjuncts of ts (And flattened) with no
// term of memory sort in them.
func memoryFreeConjuncts(b *ir.Builder, ts []ir.Term) []ir.Term {
	var out []ir.Term
	for _, t := range ts {
		for _, c := range b.Conjuncts(t) {
			if !readsMemory(b, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// checkLifted answers q by liftGuards's two questions when its
// assertions hold splits of fg and their conditions follow from the
// memory-free conjuncts; ok false when they do not (q is to be asked
// whole). queries counts the solver calls made.
func (fg frameGuards) checkLifted(ctx context.Context, s prove.Solver, simp *ir.Simplifier, q prove.Query) (r prove.Result, queries int, ok bool) {
	if len(fg) == 0 {
		return r, 0, false
	}
	b := q.B
	conds, lifted := fg.lift(b, simp, q.Assertions)
	if len(conds) == 0 {
		return r, 0, false
	}
	facts := append(memoryFreeConjuncts(b, q.Assertions), b.Not(b.And(conds...)))
	fctx, cancel := context.WithTimeout(ctx, liftBudget)
	fr := s.Check(fctx, prove.Query{B: b, Assertions: facts})
	cancel()
	if fr.Status != smtlib.Unsat {
		return r, 1, false
	}
	return s.Check(ctx, prove.Query{B: b, Assertions: lifted}), 2, true
}
