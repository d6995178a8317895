package smtlib

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"eqc/ir"
)

// parseFixture declares the symbols the parse tests use.
func parseFixture() (*ir.Builder, *Scope) {
	b := ir.NewBuilder()
	b.Var("x", ir.BVSort(32))
	b.Var("y", ir.BVSort(32))
	b.Var("z", ir.BVSort(32))
	b.Var("p", ir.BoolSort)
	b.Var("q", ir.BoolSort)
	b.Var("r", ir.BoolSort)
	b.Var("m", ir.MemSort)
	b.Var("a", ir.BVSort(64))
	b.Var("c", ir.BVSort(8))
	b.Var("odd", ir.BVSort(7))
	b.DeclareFunc("f", []ir.Sort{ir.BVSort(32), ir.BVSort(8)}, ir.BVSort(32))
	b.DeclareFunc("k", nil, ir.BVSort(8))
	return b, &Scope{UseBuilder: true}
}

func TestParseTermOps(t *testing.T) {
	b, scope := parseFixture()
	v := func(n string) ir.Term { t, _ := b.LookupVar(n); return t }
	x, y, z, p, q, r, m, a, c := v("x"), v("y"), v("z"), v("p"), v("q"), v("r"), v("m"), v("a"), v("c")
	f, _ := b.LookupFunc("f")
	kf, _ := b.LookupFunc("k")
	cases := []struct {
		src  string
		want ir.Term
	}{
		{"true", b.True()},
		{"false", b.False()},
		{"#x0000002a", b.Const(32, 42)},
		{"#b101", b.Const(3, 5)},
		{"(_ bv42 32)", b.Const(32, 42)},
		{"(_ bv340282366920938463463374607431768211455 128)", b.ConstBV(ir.NewBVBig(128, bigOnes(128)))},
		{"(not p)", b.Not(p)},
		{"(and p q r)", b.And(b.And(p, q), r)},
		{"(or p q)", b.Or(p, q)},
		{"(xor p q r)", b.Xor(b.Xor(p, q), r)},
		{"(=> p q r)", b.Implies(p, b.Implies(q, r))},
		{"(= x y)", b.Eq(x, y)},
		{"(= x y z)", b.And(b.Eq(x, y), b.Eq(y, z))},
		{"(distinct x y z)", b.And(b.And(b.Not(b.Eq(x, y)), b.Not(b.Eq(x, z))), b.Not(b.Eq(y, z)))},
		{"(ite p x y)", b.Ite(p, x, y)},
		{"(bvadd x y z)", b.Add(b.Add(x, y), z)},
		{"(bvsub x y)", b.Sub(x, y)},
		{"(bvmul x y)", b.Mul(x, y)},
		{"(bvudiv x y)", b.UDiv(x, y)},
		{"(bvsdiv x y)", b.SDiv(x, y)},
		{"(bvurem x y)", b.URem(x, y)},
		{"(bvsrem x y)", b.SRem(x, y)},
		{"(bvneg x)", b.Neg(x)},
		{"(bvand x y)", b.BVAnd(x, y)},
		{"(bvor x y)", b.BVOr(x, y)},
		{"(bvxor x y)", b.BVXor(x, y)},
		{"(bvnot x)", b.BVNot(x)},
		{"(bvshl x y)", b.Shl(x, y)},
		{"(bvlshr x y)", b.LShr(x, y)},
		{"(bvashr x y)", b.AShr(x, y)},
		{"(concat x c)", b.Concat(x, c)},
		{"((_ extract 7 0) x)", b.Extract(x, 7, 0)},
		{"((_ zero_extend 32) x)", b.ZeroExt(x, 32)},
		{"((_ zero_extend 0) x)", x},
		{"((_ sign_extend 8) x)", b.SignExt(x, 8)},
		{"((_ rotate_left 35) x)", b.Rotl(x, b.Const(32, 3))},
		{"((_ rotate_right 1) x)", b.Rotr(x, b.Const(32, 1))},
		{"((_ repeat 3) c)", b.Concat(b.Concat(c, c), c)},
		{"(bvult x y)", b.Ult(x, y)},
		{"(bvule x y)", b.Ule(x, y)},
		{"(bvslt x y)", b.Slt(x, y)},
		{"(bvsle x y)", b.Sle(x, y)},
		{"(bvugt x y)", b.Ult(y, x)},
		{"(bvuge x y)", b.Ule(y, x)},
		{"(bvsgt x y)", b.Slt(y, x)},
		{"(bvsge x y)", b.Sle(y, x)},
		{"(bvnand x y)", b.BVNot(b.BVAnd(x, y))},
		{"(bvnor x y)", b.BVNot(b.BVOr(x, y))},
		{"(bvxnor x y)", b.BVNot(b.BVXor(x, y))},
		{"(bvcomp x y)", b.Ite(b.Eq(x, y), b.Const(1, 1), b.Const(1, 0))},
		{"(select m a)", b.Select(m, a, 1)},
		{"(store m a c)", b.Store(m, a, 1, c)},
		{"(f x c)", b.Apply(f, x, c)},
		{"k", b.Apply(kf)},
		{"(let ((x y) (y x)) (bvsub x y))", b.Sub(y, x)}, // parallel
		{"(let ((w x)) (let ((w (bvadd w w))) (bvmul w w)))", b.Mul(b.Add(x, x), b.Add(x, x))}, // shadowing
		{"(! (bvadd x y) :named s)", b.Add(x, y)},
		{"(as x (_ BitVec 32))", x},
		{"|x|", x},
	}
	for _, c := range cases {
		got, err := ParseTermString(b, c.src, scope)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.src, b.Short(got), b.Short(c.want))
		}
	}
}

func TestParseTermErrors(t *testing.T) {
	b, scope := parseFixture()
	for _, c := range []struct {
		src, msg    string
		unsupported bool
	}{
		{"(bvadd x c)", "argument", false},
		{"(bvadd x)", "at least 2", false},
		{"(and p x)", "Bool", false},
		{"(ite x y z)", "condition", false},
		{"(select m x)", "select", false},
		{"(store m a x)", "store", false},
		{"((_ extract 40 0) x)", "extract", false},
		{"((_ extract 0 1) x)", "extract", false},
		{"nope", "unknown symbol", false},
		{"(nope x)", "unknown function", false},
		{"(f x)", "takes 2", false},
		{"(f x x)", "argument 1", false},
		{"(_ bv1 0)", "width", false},
		{"(_ bv1 99999999999)", "range", false},
		{"((_ zero_extend 99999999) x)", "more than", false},
		{"(let ((w x) (w y)) w)", "twice", false},
		{"(let ((w x)) (w y))", "let", false},
		{"()", "empty", false},
		{"42", "numeral", false},
		{"(lambda ((i (_ BitVec 64))) #x00)", "lambda", true},
		{"((as const (Array (_ BitVec 64) (_ BitVec 8))) #x00)", "constant array", true},
		{"(_ as-array g)", "as-array", true},
		{"(forall ((i Bool)) i)", "forall", true},
		{"(as x (Array Bool Bool))", "array sort", true},
	} {
		_, err := ParseTermString(b, c.src, scope)
		if err == nil {
			t.Errorf("%s: no error", c.src)
			continue
		}
		var ue *UnsupportedError
		if errors.As(err, &ue) != c.unsupported || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v (%T), want …%s… unsupported=%v", c.src, err, err, c.msg, c.unsupported)
		}
		if !strings.Contains(err.Error(), "1:") {
			t.Errorf("%s: error %q has no position", c.src, err)
		}
	}
}

const handScript = `; a hand-written query
(set-logic QF_AUFBV)
(set-option :produce-models true)
(declare-const x (_ BitVec 32))
(declare-fun y () (_ BitVec 32))
(declare-fun |odd name| () (_ BitVec 8))
(declare-fun mem () (Array (_ BitVec 64) (_ BitVec 8)))
(declare-fun f ((_ BitVec 32) (_ BitVec 8)) (_ BitVec 32))
(define-fun two () (_ BitVec 32) #x00000002)
(define-fun twice ((v (_ BitVec 32))) (_ BitVec 32) (bvmul v two))
(define-fun load2 ((m (Array (_ BitVec 64) (_ BitVec 8))) (a (_ BitVec 64))) (_ BitVec 16)
  (concat (select m (bvadd a #x0000000000000001)) (select m a)))
(assert (= (twice x) (bvadd y two)))
(assert (bvult (f (twice y) |odd name|) #x00000010))
(assert (= (load2 (store mem #x0000000000001000 |odd name|) #x0000000000000fff) #xab00))
(check-sat)
(get-model)
(exit)
`

func TestParseScript(t *testing.T) {
	b := ir.NewBuilder()
	sc, err := ParseScript(b, handScript)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Asserts) != 3 {
		t.Fatalf("%d asserts", len(sc.Asserts))
	}
	x, y := b.Var("x", ir.BVSort(32)), b.Var("y", ir.BVSort(32))
	odd := b.Var("odd name", ir.BVSort(8))
	mem := b.Var("mem", ir.MemSort)
	f, _ := b.LookupFunc("f")
	two := b.Const(32, 2)
	a := b.Const(64, 0xfff)
	st := b.Store(mem, b.Const(64, 0x1000), 1, odd)
	want := []ir.Term{
		b.Eq(b.Mul(x, two), b.Add(y, two)),
		b.Ult(b.Apply(f, b.Mul(y, two), odd), b.Const(32, 16)),
		b.Eq(b.Concat(b.Select(st, b.Add(a, b.Const(64, 1)), 1), b.Select(st, a, 1)), b.Const(16, 0xab00)),
	}
	for i, w := range want {
		if sc.Asserts[i] != w {
			t.Errorf("assert %d: got %s, want %s", i, b.Short(sc.Asserts[i]), b.Short(w))
		}
	}
	if sc.Names.Vars["odd name"] != odd || sc.Names.Funcs["f"] != f {
		t.Errorf("names: %v", sc.Names)
	}
	// Printing the asserts with the lead's printer and parsing them back in
	// the same builder gives the same terms.
	text, names := QueryString(b, sc.Asserts, PrintOptions{})
	b2 := b
	sc2, err := ParseScript(b2, text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for i := range sc.Asserts {
		if sc2.Asserts[i] != sc.Asserts[i] {
			t.Errorf("round trip of assert %d: %s became %s", i, b.Short(sc.Asserts[i]), b.Short(sc2.Asserts[i]))
		}
	}
	if len(names.Vars) != len(sc2.Names.Vars) {
		t.Errorf("printer names %v, parser names %v", names.Vars, sc2.Names.Vars)
	}
}

func TestParseScriptErrors(t *testing.T) {
	for _, c := range []struct{ src, msg string }{
		{"(declare-fun x () (_ BitVec 8)) (declare-fun x () (_ BitVec 8))", "twice"},
		{"(declare-fun x () Int)", "sort"},
		{"(assert #x00)", "asserting"},
		{"(push 1)", "push"},
		{"(define-fun d () (_ BitVec 8) #x0000)", "declared"},
		{"(define-fun d ((v Bool) (v Bool)) Bool v)", "twice"},
		{"(define-fun d ((v Bool)) Bool v) (assert (d #x00))", "argument 0"},
		{"(define-fun d ((v Bool)) Bool v) (assert (d true true))", "takes 1"},
		{"(assert (undefined))", "unknown"},
		{"x", "not a command"},
		{"(declare-fun", "unclosed"},
	} {
		_, err := ParseScript(ir.NewBuilder(), c.src)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want …%s…", c.src, err, c.msg)
		}
	}
	// A name the builder already has at another sort is an error, not a panic.
	b := ir.NewBuilder()
	b.Var("x", ir.BoolSort)
	if _, err := ParseScript(b, "(declare-fun x () (_ BitVec 8))"); err == nil {
		t.Error("redeclaring a builder variable at another sort was accepted")
	}
}

// TestParseMacroBlowup: macros that double at each level must hit the
// parser's budget or its memo, not run for ever.
func TestParseMacroBlowup(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("(declare-fun x () (_ BitVec 8))\n(define-fun m0 ((v (_ BitVec 8))) (_ BitVec 8) (bvadd v #x01))\n")
	for i := 1; i <= 60; i++ {
		sb.WriteString("(define-fun m" + itoa(i) + " ((v (_ BitVec 8))) (_ BitVec 8) (m" + itoa(i-1) + " (m" + itoa(i-1) + " v)))\n")
	}
	sb.WriteString("(assert (= (m60 x) x))\n")
	_, err := ParseScript(ir.NewBuilder(), sb.String())
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("got %v, want a budget error", err)
	}
}

func itoa(i int) string {
	const d = "0123456789"
	if i < 10 {
		return d[i : i+1]
	}
	return itoa(i/10) + d[i%10:i%10+1]
}

// TestParsePrinterRoundTrip prints every sample term of the printer's tests
// and parses it back: the result is the same term or, where the printer
// expands an op (multi-byte select/store, rotations), one z3 proves equal.
func TestParsePrinterRoundTrip(t *testing.T) {
	b := ir.NewBuilder()
	samples := sampleTerms(b)
	scope := &Scope{UseBuilder: true}
	var differ []ir.Term
	for _, op := range ir.Ops() {
		for _, tm := range samples[op] {
			text := TermString(b, tm)
			got, err := ParseTermString(b, text, scope)
			if err != nil {
				t.Errorf("%v: %s: %v", op, text, err)
				continue
			}
			if got != tm {
				differ = append(differ, b.Not(b.Eq(tm, got)))
			}
		}
	}
	if len(differ) == 0 {
		return
	}
	q, _ := QueryString(b, []ir.Term{b.Or(differ...)}, PrintOptions{})
	if ans := runSolver(t, "z3", q); ans != "unsat" {
		t.Errorf("z3 says a reparsed term differs from the original:\n%s", q)
	}
}

func FuzzParseScript(f *testing.F) {
	f.Add(handScript)
	paths, _ := filepath.Glob(filepath.Join("testdata", "models", "*.smt2"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, text string) {
		b := ir.NewBuilder()
		sc, err := ParseScript(b, text)
		if err != nil {
			return
		}
		for _, a := range sc.Asserts {
			if b.Sort(a) != ir.BoolSort {
				t.Fatalf("assert of sort %v", b.Sort(a))
			}
		}
	})
}
