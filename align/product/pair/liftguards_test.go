package pair

import (
	"context"
	"testing"

	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
	"eqc/ub"
)

// TestLiftGuards: a pop of a saved register past a store through a
// pointer parameter is a split frame read; where the premise keeps the
// pointer off the frame, the lifted query answers as the whole one does
// (unsat for the register's own value, sat with a model of the whole
// query for another), and without the premise nothing is lifted.
func TestLiftGuards(t *testing.T) {
	s, _, err := prove.New(prove.Options{})
	if err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	b := ir.NewBuilder()
	simp := ir.NewSimplifier(b)
	rsp := b.Var("rsp", ir.BVSort(64))
	p := b.Var("p", ir.BVSort(64))
	rbx := b.Var("rbx", ir.BVSort(64))
	v := b.Var("v", ir.BVSort(64))
	slot := b.Add(rsp, b.Const(64, ^uint64(15)))
	m := b.Store(b.Var("m", ir.MemSort), slot, 8, rbx)
	m = b.Store(m, b.Add(p, b.Const(64, 0x28)), 8, v)
	guards := frameGuards{}
	guard := (&Pair{B: b}).frameReadGuard(rsp, simp, func(ir.Term, uint32) bool { return false }, guards)
	pop := guard(b.Select(m, slot, 8))
	if len(guards) != 1 {
		t.Fatalf("the pop past the store was not split: %s", b.Short(pop))
	}
	lo := b.Sub(rsp, b.Const(64, ub.StackLimit+ParamReach))
	premise := b.And(b.Uge(b.Sub(p, lo), b.Const(64, ub.StackLimit+ParamReach+8)), b.Uge(rsp, b.Const(64, 1<<32)), b.Ult(rsp, b.Const(64, 1<<48)))
	for _, c := range []struct {
		name   string
		as     []ir.Term
		lifted bool
		want   smtlib.Status
	}{
		{"rbx restored", []ir.Term{premise, b.Not(b.Eq(pop, rbx))}, true, smtlib.Unsat},
		{"rbx plus one", []ir.Term{premise, b.Not(b.Eq(pop, b.Add(rbx, b.Const(64, 1))))}, true, smtlib.Sat},
		{"no premise", []ir.Term{b.Not(b.Eq(pop, rbx))}, false, smtlib.Sat},
	} {
		q := prove.Query{B: b, Assertions: c.as}
		r, _, ok := guards.checkLifted(ctx, s, simp, q)
		if ok != c.lifted {
			t.Errorf("%s: lifted %v, want %v", c.name, ok, c.lifted)
			continue
		}
		if !ok {
			r = s.Check(ctx, q)
		}
		if r.Status != c.want {
			t.Errorf("%s: %v, want %v", c.name, r.Status, c.want)
		}
		if r.Status == smtlib.Sat {
			// The model satisfies the whole query, not just the lifted one.
			ev := ir.NewEvaluator(b, r.Model)
			for _, a := range c.as {
				if got, err := ev.Eval(a); err != nil || !got.Bool() {
					t.Errorf("%s: the model does not satisfy %s (%v)", c.name, b.Short(a), err)
				}
			}
		}
	}
}
