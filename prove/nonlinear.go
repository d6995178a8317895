package prove

import (
	"context"
	"fmt"
	"time"

	"eqc/ir"
)

// Nonlinear terms abstracted first. A product or quotient of two
// non-constant bit-vectors is bit-blasted into a multiplier circuit, and
// a query that carries one the answer does not depend on can still keep
// the SAT solver in it: a loop-invariant query along clang's Horner loop
// (r = r·x + c[i], four passes a step) against the source's sanitizer
// build, whose path condition says that r·x does not overflow, asked
// whether the counter stays ≠ 1 and ran past 10 s; with the overflow
// test a free Boolean it was unsat in 0.2 s.
//
// So a query with such terms is first asked with each of them replaced by
// a fresh constant of its sort (the same term by the same constant, so
// the two sides' one product is still one value). That query is weaker:
// a model of the original gives one of it (each constant the value of
// its term), so when it is unsat the original is too. When it is sat
// (the answer needs what the operation computes, or a model of the
// weaker query is no model of the original), a stronger query is asked,
// with every product zero (restrictNonlinear): a model of it is one of
// the original, checked as such. Only when neither settles it is the
// original asked. Each attempt has its own small budget.

// minNonlinearWidth is the narrowest operation abstracted: an 8-bit
// multiplier is small, and byte arithmetic is where abstracting would
// lose most.
const minNonlinearWidth = 16

// maxNonlinearAttempt bounds the abstracted query's time, beside half of
// what the caller's context leaves (a Houdini query split candidate by
// candidate has under 4 s, and its abstraction may need one).
const maxNonlinearAttempt = 2 * time.Second

// nonlinear reports whether t is an operation abstracted: a product of
// two non-constant terms, or a division or remainder by a non-constant.
func nonlinear(b *ir.Builder, t ir.Term) bool {
	switch b.Op(t) {
	case ir.OpMul:
		x, y := b.Arg(t, 0), b.Arg(t, 1)
		return !b.IsConst(x) && !b.IsConst(y) && b.Width(t) >= minNonlinearWidth
	case ir.OpUDiv, ir.OpSDiv, ir.OpURem, ir.OpSRem:
		return !b.IsConst(b.Arg(t, 1)) && b.Width(t) >= minNonlinearWidth
	}
	return false
}

// abstractNonlinear returns q with its nonlinear terms replaced by fresh
// constants, or false when it has none.
func abstractNonlinear(q Query) (Query, bool) {
	b := q.B
	m := map[ir.Term]ir.Term{}
	for _, t := range b.PostOrder(q.Assertions...) {
		if nonlinear(b, t) {
			m[t] = b.Var(fmt.Sprintf("nl!%d", t), b.Sort(t))
		}
	}
	if len(m) == 0 {
		return q, false
	}
	sub := ir.NewSubstituter(b, m)
	out := Query{B: b, Assertions: make([]ir.Term, len(q.Assertions))}
	for i, a := range q.Assertions {
		out.Assertions[i] = sub.Apply(a)
	}
	return out, true
}

// restrictNonlinear returns q strengthened so that every nonlinear
// product is zero: each product x·y is replaced by 0 and x = 0 ∨ y = 0 is
// asserted (with the same replacement inside), or false when q has no
// product. A model of it is a model of q (under it each product is 0),
// found without a multiplier circuit: a candidate invariant about a
// counter that some state breaks is broken by one whose data are zero
// as well, and the solver that looks for such a state through the
// products of the data may not find one in seconds.
func restrictNonlinear(q Query) (Query, bool) {
	b := q.B
	m := map[ir.Term]ir.Term{}
	var products []ir.Term
	for _, t := range b.PostOrder(q.Assertions...) {
		if b.Op(t) == ir.OpMul && nonlinear(b, t) {
			m[t] = b.ConstBV(ir.ZeroBV(b.Width(t)))
			products = append(products, t)
		}
	}
	if len(m) == 0 {
		return q, false
	}
	sub := ir.NewSubstituter(b, m)
	out := Query{B: b}
	for _, a := range q.Assertions {
		out.Assertions = append(out.Assertions, sub.Apply(a))
	}
	for _, t := range products {
		x, y := b.Arg(t, 0), b.Arg(t, 1)
		zero := m[t]
		out.Assertions = append(out.Assertions, b.Or(b.Eq(sub.Apply(x), zero), b.Eq(sub.Apply(y), zero)))
	}
	return out, true
}

// nonlinearBudget is the abstracted query's time within ctx.
func nonlinearBudget(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return min(maxNonlinearAttempt, time.Until(d)/2)
	}
	return maxNonlinearAttempt
}
