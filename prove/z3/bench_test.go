package z3

import (
	"context"
	"testing"

	"eqc/ir/smtlib"
)

const small = `(declare-const x (_ BitVec 64)) (declare-const y (_ BitVec 64))
(assert (not (= (bvsub (bvadd x y) y) x)))`

// BenchmarkCheckSmallUnsat shows the per-query cost of the two solver
// kinds mkSolver chooses between.
func BenchmarkCheckSmallUnsat(b *testing.B) {
	for _, c := range []struct{ name, prefix string }{
		{"general", ""},
		{"QF_BV", "(set-logic QF_BV)\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			s, err := New()
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for b.Loop() {
				if st, _, _, err := s.Check(context.Background(), c.prefix+small); err != nil || st != smtlib.Unsat {
					b.Fatal(st, err)
				}
			}
		})
	}
}
