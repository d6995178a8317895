package pair_test

import (
	"context"
	"testing"

	"eqc/align/internal/aligntest"
	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
	"eqc/x86"
)

// TestSatisfiedByRun: a run's entry state satisfies the precondition of a
// function of pointer parameters and calls (the answer the solver is
// spared), and nothing satisfies a precondition with a false premise,
// which the solver then refutes.
func TestSatisfiedByRun(t *testing.T) {
	const src = "struct s { long a, b; };\nextern void f(struct s *);\nvoid g(struct s *p, long *q)\n{\n\tf(p);\n\tp->b = *q;\n\tf(p);\n}\n"
	p := aligntest.LoadPair(t, "gcc-12", "g", src, "O0", "O2")
	p.OBVA = true
	b := p.B
	pre, _ := p.LoopFreePrecondition()
	if !p.SatisfiedByRun(pre) {
		t.Errorf("no run's entry state satisfies the precondition")
	}
	s, _, err := prove.New(prove.Options{})
	if err != nil {
		t.Skip(err)
	}
	rsp := p.SrcVar(x86.StateGPR0 + x86.RSP)
	never := b.And(pre, b.Eq(rsp, b.Const(64, 1)))
	if p.SatisfiedByRun(never) {
		t.Errorf("a run's entry state satisfies rsp = 1")
	}
	if r := p.Satisfiable(context.Background(), s, never); r.Status != smtlib.Unsat {
		t.Errorf("the precondition with rsp = 1: %v, want unsat", r.Status)
	}
}

// TestSatisfiedByRunEscapedLocal: the co-executions place an escaped
// local's block and slots where its premises say (the slots at the entry
// rsp plus their offsets, the block apart from the stack and the globals),
// so a run's entry state satisfies a precondition that has them; with the
// block's variables left to hash values none did, and the solver was asked
// instead (gnugo's tt_get: a 64-bit remainder kept it past 60 s).
func TestSatisfiedByRunEscapedLocal(t *testing.T) {
	const src = "extern void h(int *, long);\nextern int tab[64];\nint f(int n, long k)\n{\n\tint x = n;\n\th(&x, k);\n\treturn tab[x & 63] + x;\n}\n"
	for _, cc := range []string{"gcc-12", "clang-16"} {
		p := aligntest.LoadPair(t, cc, "f", src, "O0", "O2")
		p.OBVA = true
		b := p.B
		premises, err := p.EscapePremises()
		if err != nil || len(premises) == 0 {
			t.Fatalf("%s: escape premises: %v, %v", cc, premises, err)
		}
		pre, _ := p.LoopFreePrecondition()
		pre = b.And(append([]ir.Term{pre}, premises...)...)
		if !p.SatisfiedByRun(pre) {
			t.Errorf("%s: no run's entry state satisfies the precondition with the escaped local's premises", cc)
		}
	}
}
