package pair

import (
	"context"

	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
)

// Satisfiable says whether the assumptions t may hold, as the loop-free
// engine, the product's escaped-locals premises and the proof checker ask
// before the obligations they make vacuous when they cannot (the loop
// engine asks the solver itself: align/engines.go says why). A model found by evaluation answers first: the entry state
// of a co-execution, with the run's interpretation of every free variable
// and uninterpreted function (hashEnv: a function of its arguments, as
// the solver's are), is an assignment, and t true under it is t
// satisfiable. Only when no run's state satisfies t is the solver asked.
// The OBVA hypotheses over a loop-free path through several calls, each
// callee's memory an uninterpreted function of the last, made a
// precondition the solver could not satisfy in a minute (lua's
// atomic2gen, clang-16 -O2), where the first run's state satisfies it.
func (p *Pair) Satisfiable(ctx context.Context, s prove.Solver, t ir.Term) prove.Result {
	if p.SatisfiedByRun(t) {
		return prove.Result{Status: smtlib.Sat}
	}
	return s.Check(ctx, prove.Query{B: p.B, Assertions: []ir.Term{t}})
}

// SatisfiedByRun says whether t, over the source's entry state (the
// target's variables renamed to it, as the precondition has them), is
// true in the entry state of one of the first co-executions.
func (p *Pair) SatisfiedByRun(t ir.Term) bool {
	for k := range satisfyRuns {
		cr := p.newCoRun(k, nil)
		ev := ir.NewEvaluator(p.B, p.Src.TFG.StateEnv(cr.Entry, cr.env))
		if v, err := ev.Eval(t); err == nil && v.Bool() {
			return true
		}
	}
	return false
}

// satisfyRuns is how many co-executions' entry states SatisfiedByRun
// tries.
const satisfyRuns = 4
