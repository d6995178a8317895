package product

import (
	"context"
	"time"

	"eqc/ir"
)

// Case splits of value obligations. At an exit reached through a scalar
// epilogue, each side's return value is an if-then-else over its paths:
// the target's over the epilogue's early exits, the source's over its
// loop passes, each leaf a sum of the vector lanes and a few more terms.
// Asked whole, "these differ" is a SAT problem over adder chains that
// pair only under the right paths, and z3 and cvc5 both ran for minutes
// on gcc-12's sumn (a 10-way unrolled epilogue against eight source path
// counts); asked path by path, each case took 0.3 s. So a value
// obligation whose sides branch is asked whole within a budget first,
// then once for each target leaf (its guard assumed, the source's value
// against the leaf's), and a target case still undecided once for each
// source leaf in it. The leaves' guards cover every state and the source
// leaf a case picks is the source's value there, so the obligation holds
// exactly when every case does: a sat case's model is a model of the
// whole, and any case the solver cannot decide leaves it unknown. A
// target case gets a quarter of the whole's budget: the cases that
// settle do so in tens of milliseconds, and those that do not are the
// ones the source's leaves settle (sumn: 4 of 10 target cases).

// maxValueCases bounds the leaves of one side's split: beyond it the
// side is asked about whole.
const maxValueCases = 32

// minCaseBudget is the least time caseBudget gives a query.
const minCaseBudget = 2 * time.Second

// caseBudget bounds a query that a split may replace: an eighth of the
// time left to the check, at least minCaseBudget.
func caseBudget(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(minCaseBudget, time.Until(d)/8)
	}
	return 4 * minCaseBudget
}

// checker asks the product's obligations (Product.Discharge).
type checker struct {
	// check asks one obligation with the check's whole time and records
	// its answer: true when unsat.
	check func(name string, assertions ...ir.Term) bool
	// attempt asks one within budget; undecided when the budget ran out
	// (or the solver gave up) first, and then nothing is recorded.
	attempt func(budget time.Duration, name string, assertions ...ir.Term) (ok, undecided bool)
	// budget is caseBudget of the check's context.
	budget func() time.Duration
}

// equal checks that src and dst agree wherever base holds, by cases when
// they branch.
func (ck checker) equal(b *ir.Builder, name string, base []ir.Term, src, dst ir.Term) bool {
	with := func(parts ...[]ir.Term) []ir.Term {
		out := append([]ir.Term(nil), base...)
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	differ := func(x, y ir.Term) []ir.Term { return []ir.Term{b.Not(b.Eq(x, y))} }
	ds, ss := valueCases(b, dst), valueCases(b, src)
	if len(ds) == 1 && len(ss) == 1 {
		return ck.check(name, with(differ(src, dst))...)
	}
	if ok, undecided := ck.attempt(ck.budget(), name, with(differ(src, dst))...); !undecided {
		return ok
	}
	for _, d := range ds {
		if len(ds) > 1 {
			ok, undecided := ck.attempt(max(minCaseBudget/4, ck.budget()/4), name+" (by the target's paths)", with(d.guards, differ(src, d.value))...)
			if !undecided {
				if !ok {
					return false
				}
				continue
			}
		}
		for _, s := range ss {
			if !ck.check(name+" (by both sides' paths)", with(d.guards, s.guards, differ(s.value, d.value))...) {
				return false
			}
		}
	}
	return true
}

// valueCase is one leaf of a value's if-then-else tree: value is what the
// whole is where every guard holds.
type valueCase struct {
	guards []ir.Term
	value  ir.Term
}

// valueCases returns the leaves of t's if-then-else tree, looking through
// extracts and extensions (a 32-bit return value is the low half of an
// ite of 64-bit registers); t alone when it has more than maxValueCases.
func valueCases(b *ir.Builder, t ir.Term) []valueCase {
	if cs, ok := valueLeaves(b, t); ok {
		return cs
	}
	return []valueCase{{value: t}}
}

func valueLeaves(b *ir.Builder, t ir.Term) ([]valueCase, bool) {
	switch b.Op(t) {
	case ir.OpIte:
		c := b.Arg(t, 0)
		th, ok1 := valueLeaves(b, b.Arg(t, 1))
		el, ok2 := valueLeaves(b, b.Arg(t, 2))
		if !ok1 || !ok2 || len(th)+len(el) > maxValueCases {
			return nil, false
		}
		out := make([]valueCase, 0, len(th)+len(el))
		for _, x := range th {
			out = append(out, valueCase{append([]ir.Term{c}, x.guards...), x.value})
		}
		for _, x := range el {
			out = append(out, valueCase{append([]ir.Term{b.Not(c)}, x.guards...), x.value})
		}
		return out, true
	case ir.OpExtract, ir.OpZeroExt, ir.OpSignExt:
		in, ok := valueLeaves(b, b.Arg(t, 0))
		if !ok || len(in) == 1 {
			return []valueCase{{value: t}}, ok
		}
		for i := range in {
			in[i].value = b.WithArgs(t, []ir.Term{in[i].value})
		}
		return in, true
	}
	return []valueCase{{value: t}}, true
}
