package z3

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"eqc/ir/smtlib"
)

func TestCheckBasic(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cases := []struct {
		name, script string
		want         smtlib.Status
	}{
		{"sat", "(declare-const x (_ BitVec 8)) (assert (= (bvadd x #x01) #x00))", smtlib.Sat},
		{"unsat", "(declare-const x (_ BitVec 8)) (assert (not (= (bvadd x x) (bvshl x #x01))))", smtlib.Unsat},
		{"logic, check-sat and get-model ignored", "(set-logic QF_BV) (set-option :produce-models true) (declare-fun x () (_ BitVec 8)) (assert (= x #x07)) (check-sat) (get-model) (exit)", smtlib.Sat},
		{"array", "(declare-const m (Array (_ BitVec 64) (_ BitVec 8))) (declare-const a (_ BitVec 64)) (assert (not (= (select (store m a #x01) a) #x01)))", smtlib.Unsat},
		{"uf", "(declare-fun f ((_ BitVec 8)) (_ BitVec 8)) (declare-const x (_ BitVec 8)) (assert (not (= (f x) (f (bvor x x)))))", smtlib.Unsat},
		{"declarations do not persist", "(declare-const x Bool) (assert x)", smtlib.Sat},
		// QF_BV goes through blastPipeline: models come back through its
		// model converters, solve-eqs included.
		{"QF_BV sat", "(set-logic QF_BV) (declare-fun x () (_ BitVec 8)) (declare-fun y () (_ BitVec 8)) (assert (= y (bvadd x #x03))) (assert (= (bvmul y #x05) #x0f))", smtlib.Sat},
		{"QF_BV conditional sum", "(set-logic QF_BV)" + conditionalSum, smtlib.Unsat},
		// A script that misstates its logic: the pipeline cannot bit-blast
		// an array and gives up, and the logic's own solver answers.
		{"QF_BV with an array", "(set-logic QF_BV) (declare-const m (Array (_ BitVec 64) (_ BitVec 8))) (declare-const a (_ BitVec 64)) (assert (not (= (select (store m a #x01) a) #x01)))", smtlib.Unsat},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, model, reason, err := s.Check(context.Background(), c.script)
			if err != nil {
				t.Fatal(err)
			}
			if st != c.want {
				t.Fatalf("status %v (reason %q), want %v", st, reason, c.want)
			}
			if st == smtlib.Sat && !strings.Contains(model, "define-fun") {
				t.Errorf("model %q has no define-fun", model)
			}
		})
	}
}

// conditionalSum is a vectorized conditional reduction's step (the
// thesis's sum_positive): an accumulator s adds a_k when a_k > 0, four lanes
// add a_k masked by pcmpgt, and s ≡ x0 + x1 + x2 + x3 before and after.
const conditionalSum = `
(declare-fun s () (_ BitVec 32)) (declare-fun x0 () (_ BitVec 32)) (declare-fun x1 () (_ BitVec 32))
(declare-fun x2 () (_ BitVec 32)) (declare-fun x3 () (_ BitVec 32))
(declare-fun a0 () (_ BitVec 32)) (declare-fun a1 () (_ BitVec 32)) (declare-fun a2 () (_ BitVec 32)) (declare-fun a3 () (_ BitVec 32))
(define-fun m0 () (_ BitVec 32) (ite (bvslt #x00000000 a0) a0 #x00000000))
(define-fun m1 () (_ BitVec 32) (ite (bvslt #x00000000 a1) a1 #x00000000))
(define-fun m2 () (_ BitVec 32) (ite (bvslt #x00000000 a2) a2 #x00000000))
(define-fun m3 () (_ BitVec 32) (ite (bvslt #x00000000 a3) a3 #x00000000))
(define-fun s4 () (_ BitVec 32) (bvadd (bvadd (bvadd (bvadd s (ite (bvsle a0 #x00000000) #x00000000 a0)) (ite (bvsle a1 #x00000000) #x00000000 a1)) (ite (bvsle a2 #x00000000) #x00000000 a2)) (ite (bvsle a3 #x00000000) #x00000000 a3)))
(assert (= x3 (bvsub (bvsub (bvsub s x0) x1) x2)))
(assert (not (= (bvadd x3 m3) (bvsub (bvsub (bvsub s4 (bvadd x0 m0)) (bvadd x1 m1)) (bvadd x2 m2)))))`

func TestParseErrorIsError(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, script := range []string{"(assert (= y #x00))", "(assert (bvadd", "(declare-const x Bool) (declare-const x Bool)"} {
		_, _, _, err := s.Check(context.Background(), script)
		var ze *Error
		if !errors.As(err, &ze) {
			t.Errorf("%q: err = %v, want *Error", script, err)
		} else {
			t.Logf("%q: %v", script, err)
		}
	}
	// The solver is still usable after errors.
	st, _, _, err := s.Check(context.Background(), "(declare-const b Bool) (assert b)")
	if err != nil || st != smtlib.Sat {
		t.Fatalf("after errors: %v %v", st, err)
	}
}

// hard is the pigeonhole principle for 11 pigeons in 10 holes: unsat, and
// exponentially hard for the resolution-based search inside every SMT
// solver, so it runs far longer than any test waits and must be cut off.
var hard = pigeonhole(11, 10)

func pigeonhole(pigeons, holes int) string {
	var b strings.Builder
	v := func(p, h int) string { return fmt.Sprintf("p%d_%d", p, h) }
	for p := 0; p < pigeons; p++ {
		for h := 0; h < holes; h++ {
			fmt.Fprintf(&b, "(declare-const %s Bool)\n", v(p, h))
		}
	}
	for p := 0; p < pigeons; p++ { // every pigeon sits in some hole
		b.WriteString("(assert (or")
		for h := 0; h < holes; h++ {
			b.WriteString(" " + v(p, h))
		}
		b.WriteString("))\n")
	}
	for h := 0; h < holes; h++ { // no two pigeons share a hole
		for p := 0; p < pigeons; p++ {
			for q := p + 1; q < pigeons; q++ {
				fmt.Fprintf(&b, "(assert (not (and %s %s)))\n", v(p, h), v(q, h))
			}
		}
	}
	return b.String()
}

func TestTimeoutAndCancel(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	st, _, reason, err := s.Check(ctx, hard)
	if err != nil || st != smtlib.Unknown || reason != "timeout" {
		t.Fatalf("deadline: %v %q %v", st, reason, err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("timeout took %v", el)
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel2() }()
	start = time.Now()
	st, _, reason, err = s.Check(ctx2, hard)
	if err != nil || st != smtlib.Unknown || reason != "canceled" {
		t.Fatalf("cancel: %v %q %v", st, reason, err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("cancel took %v", el)
	}

	// The interrupted context was replaced; the next query is unaffected.
	st, _, _, err = s.Check(context.Background(), "(declare-const b Bool) (assert (not b))")
	if err != nil || st != smtlib.Sat {
		t.Fatalf("after interrupt: %v %v", st, err)
	}
}

func TestClosed(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s.Close()
	if _, _, _, err := s.Check(context.Background(), ""); !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v", err)
	}
}

// TestNoLeak runs thousands of queries (sat ones, so that models are
// built and printed, and unsat ones) and some context lifetimes, and checks
// Z3's own count of live allocated bytes, which must come back to where it
// was: every object a query creates is released when it returns. (The
// resident set size is too noisy for this: glibc keeps freed memory, and
// the first few dozen contexts raise it by ~17 MB once.) A leaked model,
// solver or AST vector would leave the count higher by kilobytes per query.
func TestNoLeak(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := func(n, contexts int) {
		for i := 0; i < n; i++ {
			script := "(set-logic QF_ABV) (declare-const x (_ BitVec 8)) (declare-const m (Array (_ BitVec 64) (_ BitVec 8)))" +
				"(assert (= (select m ((_ zero_extend 56) x)) (bvnot x)))" +
				fmt.Sprintf("(assert (= x #x%02x))", i%256)
			if i%2 == 1 {
				script += "(assert (= (bvand x #x01) (bvand (bvnot x) #x01)))"
			}
			if i%10 == 0 {
				script = script[len("(set-logic QF_ABV)"):] // the general solver
			}
			st, _, _, err := s.Check(context.Background(), script)
			if err != nil || st == smtlib.Unknown {
				t.Fatalf("query %d: %v %v", i, st, err)
			}
		}
		for i := 0; i < contexts; i++ {
			s2, err := New()
			if err != nil {
				t.Fatal(err)
			}
			if _, _, _, err := s2.Check(context.Background(), "(declare-const b Bool) (assert b)"); err != nil {
				t.Fatal(err)
			}
			s2.Close()
		}
	}
	run(100, 5) // let Z3 build its global tables
	before := AllocatedBytes()
	run(1000, 10)
	after := AllocatedBytes()
	t.Logf("Z3 live allocation %d -> %d bytes over 1000 queries and 10 contexts", before, after)
	if after > before+256<<10 {
		t.Errorf("Z3 holds %d more bytes after 1000 queries", after-before)
	}
}
