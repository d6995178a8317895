package prove

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"eqc/ir/smtlib"
)

// A query is one row of the table shared by every backend. Expected
// statuses are safe to hard-code because each query is an algebraic
// identity (negated: unsat) or a deliberately perturbed one (negated: sat).
type query struct {
	name   string
	logic  string
	decls  string
	assert string // the body of the single (assert ...)
	want   smtlib.Status
	uf     bool // uses uninterpreted functions of arity > 0
	quant  bool // uses quantifiers
}

func (q query) script() string {
	return fmt.Sprintf("(set-logic %s)\n%s\n(assert %s)\n", q.logic, q.decls, q.assert)
}

const (
	bv64    = "(_ BitVec 64)"
	memSort = "(Array (_ BitVec 64) (_ BitVec 8))"
	one64   = "#x0000000000000001"
	two64   = "#x0000000000000002"
	three64 = "#x0000000000000003"
	eight64 = "#x0000000000000008"
)

// identity is e1 = e2 for all values; perturbed is an e2 that differs.
type identity struct {
	name, logic, decls, e1, e2, perturbed string
	uf, quant                             bool
}

var xy = "(declare-const x " + bv64 + ")\n(declare-fun y () " + bv64 + ")"
var memDecls = "(declare-const m " + memSort + ")\n(declare-const a " + bv64 + ")\n(declare-const v (_ BitVec 8))\n(declare-const w (_ BitVec 8))"

var identities = []identity{
	{name: "sub-as-add-neg", logic: "QF_BV", decls: xy,
		e1: "(bvsub x y)", e2: "(bvadd x (bvneg y))", perturbed: "(bvadd x (bvnot y))"},
	{name: "mul2-as-shl", logic: "QF_BV", decls: xy,
		e1: "(bvmul x " + two64 + ")", e2: "(bvshl x " + one64 + ")", perturbed: "(bvshl x " + two64 + ")"},
	{name: "xor-as-or-minus-and", logic: "QF_BV", decls: xy,
		e1: "(bvxor x y)", e2: "(bvsub (bvor x y) (bvand x y))", perturbed: "(bvadd (bvor x y) (bvand x y))"},
	{name: "de-morgan", logic: "QF_BV", decls: xy,
		e1: "(bvnot (bvand x y))", e2: "(bvor (bvnot x) (bvnot y))", perturbed: "(bvand (bvnot x) (bvnot y))"},
	{name: "add-via-carries", logic: "QF_BV", decls: xy,
		e1: "(bvadd x y)", e2: "(bvadd (bvxor x y) (bvshl (bvand x y) " + one64 + "))", perturbed: "(bvadd (bvxor x y) (bvand x y))"},
	{name: "low-half-of-sum", logic: "QF_BV", decls: xy,
		e1: "((_ extract 31 0) (bvadd x y))", e2: "(bvadd ((_ extract 31 0) x) ((_ extract 31 0) y))",
		perturbed: "(bvadd ((_ extract 32 1) x) ((_ extract 31 0) y))"},
	{name: "udiv8-as-lshr", logic: "QF_BV", decls: xy,
		e1: "(bvudiv x " + eight64 + ")", e2: "(bvlshr x " + three64 + ")", perturbed: "(bvashr x " + three64 + ")"},
	{name: "movsxd", logic: "QF_BV", decls: xy,
		e1: "((_ sign_extend 32) ((_ extract 31 0) x))", e2: "(bvashr (bvshl x #x0000000000000020) #x0000000000000020)",
		perturbed: "(bvlshr (bvshl x #x0000000000000020) #x0000000000000020)"},
	{name: "read-over-write", logic: "QF_ABV", decls: memDecls,
		e1: "(select (store m a v) a)", e2: "v", perturbed: "(select (store m a v) (bvadd a " + one64 + "))"},
	{name: "stores-commute", logic: "QF_ABV", decls: memDecls,
		e1: "(store (store m a v) (bvadd a " + one64 + ") w)", e2: "(store (store m (bvadd a " + one64 + ") w) a v)",
		perturbed: "(store (store m a w) a v)"},
	{name: "little-endian-load", logic: "QF_ABV", decls: memDecls,
		e1: "(concat (select (store (store m a v) (bvadd a " + one64 + ") w) (bvadd a " + one64 + ")) (select (store (store m a v) (bvadd a " + one64 + ") w) a))",
		e2: "(concat w v)", perturbed: "(concat v w)"},
	{name: "uf-congruence", logic: "QF_UFBV", uf: true,
		decls: xy + "\n(declare-fun f (" + bv64 + ") " + bv64 + ")",
		e1:    "(f (bvadd x y))", e2: "(f (bvadd y x))", perturbed: "(f (bvsub y x))"},
	{name: "uf-of-memory", logic: "QF_AUFBV", uf: true,
		decls: memDecls + "\n(declare-fun g (" + memSort + " " + bv64 + ") " + bv64 + ")",
		e1:    "(g (store m a (select m a)) a)", e2: "(g m a)", perturbed: "(g (store m a v) a)"},
	{name: "quantified", logic: "ALL", quant: true, decls: xy,
		e1: "true", e2: "(forall ((z (_ BitVec 8))) (= (bvadd z ((_ extract 7 0) x)) (bvadd ((_ extract 7 0) x) z)))",
		perturbed: "(forall ((z (_ BitVec 8))) (= (bvsub z ((_ extract 7 0) x)) (bvsub ((_ extract 7 0) x) z)))"},
}

// queries expands each identity into an unsat query and a sat one, plus a
// few plain satisfiability queries.
func queries() []query {
	var qs []query
	for _, id := range identities {
		qs = append(qs,
			query{name: id.name, logic: id.logic, decls: id.decls, uf: id.uf, quant: id.quant, want: smtlib.Unsat,
				assert: fmt.Sprintf("(not (= %s %s))", id.e1, id.e2)},
			query{name: id.name + "-perturbed", logic: id.logic, decls: id.decls, uf: id.uf, quant: id.quant, want: smtlib.Sat,
				assert: fmt.Sprintf("(not (= %s %s))", id.e1, id.perturbed)})
	}
	qs = append(qs,
		query{name: "bool-and-bv", logic: "QF_BV", want: smtlib.Sat,
			decls:  "(declare-const b Bool)\n(declare-const x (_ BitVec 8))",
			assert: "(and b (= (bvmul x #x03) #x01))"},
		query{name: "no-inverse-of-2", logic: "QF_BV", want: smtlib.Unsat,
			decls:  "(declare-const x (_ BitVec 8))",
			assert: "(= (bvmul x #x02) #x01)"},
	)
	return qs
}

// backends returns every TextSolver to run the table against; process
// backends whose binary is not installed are reported and left out.
func backends(t testing.TB) []TextSolver {
	t.Helper()
	lib, err := NewZ3Lib()
	if err != nil {
		t.Fatal(err)
	}
	out := []TextSolver{lib}
	for _, kind := range []string{KindZ3, KindCVC5, KindBoolector} {
		p, err := NewProcess(kind, "")
		if err != nil {
			t.Logf("skipping %s: %v", kind, err)
			continue
		}
		out = append(out, p)
	}
	t.Cleanup(func() {
		for _, s := range out {
			s.Close()
		}
	})
	return out
}

func TestQueryTable(t *testing.T) {
	qs := queries()
	for _, s := range backends(t) {
		t.Run(s.Name(), func(t *testing.T) {
			t.Parallel()
			for _, q := range qs {
				t.Run(q.name, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					a := s.CheckText(ctx, q.script())
					if s.Name() == KindBoolector && (q.uf || q.quant) {
						// Boolector 1.5 has neither uninterpreted
						// functions nor quantifiers; the backend must
						// say so rather than run and fail.
						if a.Status != smtlib.Unknown || ReasonKind(a.Reason) != ReasonUnsupported {
							t.Fatalf("boolector on %s: %v %q, want unknown unsupported", q.name, a.Status, a.Reason)
						}
						return
					}
					if a.Status != q.want {
						t.Fatalf("%v (reason %q), want %v\n%s", a.Status, a.Reason, q.want, q.script())
					}
					if a.Solver != s.Name() {
						t.Errorf("Solver = %q", a.Solver)
					}
					if a.Status == smtlib.Sat {
						checkModel(t, q, a.Model)
					}
				})
			}
		})
	}
}

// checkModel cross-checks a model: it must define some declared symbol,
// and substituting its definitions for the declarations (leaving symbols
// it omits free: in-process Z3 leaves out constants whose value does not
// matter) must leave the assertion satisfiable, as decided by the z3 binary
// (an oracle independent of the backend under test, for the process
// backends, and of the cgo binding for z3-lib).
func checkModel(t *testing.T, q query, model string) {
	t.Helper()
	if strings.TrimSpace(model) == "" {
		t.Fatal("sat without a model")
	}
	forms, err := smtlib.ReadSExprs(model)
	if err != nil {
		t.Fatalf("model does not parse: %v\n%s", err, model)
	}
	defined := map[string]bool{}
	for _, f := range forms {
		if f.Head() == "define-fun" && len(f.List) > 1 {
			defined[f.List[1].Atom] = true
		}
	}
	decls, _ := smtlib.ReadSExprs(q.decls)
	mentioned := false
	for _, d := range decls {
		mentioned = mentioned || defined[d.List[1].Atom]
	}
	if !mentioned {
		t.Errorf("model defines none of the declared symbols:\n%s", model)
	}
	if strings.Contains(model, "as-array") {
		// The z3 binary refuses to read back Z3's own (_ as-array k!0)
		// helper references, so such a model cannot be substituted.
		return
	}
	// Z3 may define an array as (_ as-array k!0) before defining k!0;
	// put helper functions (with parameters) first.
	var fns, consts []string
	for _, f := range forms {
		text := f.Text(model)
		if len(f.List) > 2 && f.List[2].IsList() && len(f.List[2].List) > 0 {
			fns = append(fns, text)
		} else {
			consts = append(consts, text)
		}
	}
	var undeclared []string
	for _, d := range decls {
		if !defined[d.List[1].Atom] {
			undeclared = append(undeclared, d.Text(q.decls))
		}
	}
	check := "(set-logic ALL)\n" + strings.Join(undeclared, "\n") + "\n" + strings.Join(fns, "\n") + "\n" +
		strings.Join(consts, "\n") + "\n(assert " + q.assert + ")\n(check-sat)\n"
	z3path, err := exec.LookPath("z3")
	if err != nil {
		t.Log("no z3 binary to check the model with")
		return
	}
	cmd := exec.Command(z3path, "-in", "-smt2", "-T:20")
	cmd.Stdin = strings.NewReader(check)
	out, _ := cmd.CombinedOutput()
	if strings.TrimSpace(string(out)) != "sat" {
		t.Errorf("model does not satisfy the query: z3 says %q\n%s", out, check)
	}
}
