package prove

import (
	"context"
	"testing"

	"eqc/ir/smtlib"
)

// benchQuery is a small QF_BV obligation of the kind translation
// validation produces by the thousand: an instruction-level identity.
const benchQuery = `(set-logic QF_BV)
(declare-const x (_ BitVec 64))
(declare-const y (_ BitVec 64))
(assert (not (= (bvsub x y) (bvadd x (bvadd (bvnot y) #x0000000000000001)))))
`

func benchSolver(b *testing.B, s TextSolver) {
	defer s.Close()
	for b.Loop() {
		if a := s.CheckText(context.Background(), benchQuery); a.Status != smtlib.Unsat {
			b.Fatalf("%v %q", a.Status, a.Reason)
		}
	}
}

func BenchmarkSmallQFBV(b *testing.B) {
	b.Run("z3-lib", func(b *testing.B) {
		lib, err := NewZ3Lib()
		if err != nil {
			b.Fatal(err)
		}
		benchSolver(b, lib)
	})
	for _, kind := range []string{KindZ3, KindCVC5, KindBoolector} {
		b.Run(kind+"-process", func(b *testing.B) {
			p, err := NewProcess(kind, "")
			if err != nil {
				b.Skip(err)
			}
			benchSolver(b, p)
		})
	}
	b.Run("cached-z3-lib", func(b *testing.B) {
		lib, err := NewZ3Lib()
		if err != nil {
			b.Fatal(err)
		}
		benchSolver(b, NewCache(lib, 16))
	})
	b.Run("portfolio-z3-lib-cvc5", func(b *testing.B) {
		lib, err := NewZ3Lib()
		if err != nil {
			b.Fatal(err)
		}
		p, err := NewProcess(KindCVC5, "")
		if err != nil {
			b.Skip(err)
		}
		benchSolver(b, NewPortfolio(lib, p))
	})
}
