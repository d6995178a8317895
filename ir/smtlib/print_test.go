package smtlib

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"os/exec"
	"strings"
	"testing"
	"time"

	"eqc/ir"
)

// solverCmd is how the tests run each installed solver on a script on stdin.
var solverCmd = map[string][]string{
	"z3":        {"z3", "-in", "-smt2"},
	"cvc5":      {"cvc5", "--lang", "smt2"},
	"boolector": {"boolector", "--smt2"},
}

// runSolver runs solver on script followed by check-sat and returns its
// first output line. A missing solver fails the test: `make deps` installs them.
func runSolver(t *testing.T, solver, script string) string {
	t.Helper()
	argv := solverCmd[solver]
	if _, err := exec.LookPath(argv[0]); err != nil {
		t.Fatalf("%s is not installed (run `make deps`): %v", argv[0], err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(script + "(check-sat)\n(exit)\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	first := strings.TrimSpace(strings.SplitN(out.String(), "\n", 2)[0])
	// Boolector exits 10 on sat and 20 on unsat; the answer line decides.
	if first != "sat" && first != "unsat" {
		t.Fatalf("%s rejected the script (err %v):\n%s\nstdout: %s\nstderr: %s", solver, err, script, out.String(), errb.String())
	}
	return first
}

// sampleTerms builds, for every op of the table, terms that use it, over a
// few variables. It is the printer's coverage table: a new op without a
// sample fails TestSampleCoversEveryOp.
func sampleTerms(b *ir.Builder) map[ir.Op][]ir.Term {
	x8, y8 := b.Var("x8", ir.BVSort(8)), b.Var("y8", ir.BVSort(8))
	x32, y32 := b.Var("x32", ir.BVSort(32)), b.Var("y32", ir.BVSort(32))
	x7 := b.Var("x7", ir.BVSort(7))
	x128 := b.Var("x128", ir.BVSort(128))
	p, q := b.Var("p", ir.BoolSort), b.Var("q", ir.BoolSort)
	m := b.Var("mem", ir.MemSort)
	a := b.Var("addr", ir.BVSort(64))
	f := b.DeclareFunc("f", []ir.Sort{ir.BVSort(32), ir.BVSort(8)}, ir.BVSort(32))
	g := b.DeclareFunc("g", []ir.Sort{ir.BVSort(64), ir.MemSort}, ir.MemSort)
	h := b.DeclareFunc("h", nil, ir.BVSort(8))
	s := map[ir.Op][]ir.Term{
		ir.OpVar:     {x8, p},
		ir.OpConst:   {b.Const(8, 0xa5), b.Const(7, 3), b.ConstBV(ir.NewBVBig(128, bigOnes(100)))},
		ir.OpTrue:    {b.True()},
		ir.OpFalse:   {b.False()},
		ir.OpNot:     {b.Not(p)},
		ir.OpAnd:     {b.And(p, q)},
		ir.OpOr:      {b.Or(p, q)},
		ir.OpXor:     {b.Xor(p, q)},
		ir.OpImplies: {b.Implies(p, q)},
		ir.OpEq:      {b.Eq(x8, y8), b.Eq(m, m), b.Eq(p, q)},
		ir.OpIte:     {b.Ite(p, x8, y8), b.Ite(q, m, m)},
		ir.OpAdd:     {b.Add(x32, y32), b.Add(x128, x128)},
		ir.OpSub:     {b.Sub(x8, y8)},
		ir.OpMul:     {b.Mul(x32, y32)},
		ir.OpUDiv:    {b.UDiv(x8, y8)},
		ir.OpSDiv:    {b.SDiv(x8, y8)},
		ir.OpURem:    {b.URem(x8, y8)},
		ir.OpSRem:    {b.SRem(x8, y8)},
		ir.OpNeg:     {b.Neg(x7)},
		ir.OpBVAnd:   {b.BVAnd(x8, y8)},
		ir.OpBVOr:    {b.BVOr(x8, y8)},
		ir.OpBVXor:   {b.BVXor(x8, y8)},
		ir.OpBVNot:   {b.BVNot(x8)},
		ir.OpShl:     {b.Shl(x32, y32)},
		ir.OpLShr:    {b.LShr(x32, y32)},
		ir.OpAShr:    {b.AShr(x32, y32)},
		ir.OpRotl:    {b.Rotl(x32, y32), b.Rotl(x8, b.Const(8, 11)), b.Rotl(x7, b.Const(7, 3))},
		ir.OpRotr:    {b.Rotr(x32, y32), b.Rotr(x8, b.Const(8, 3))},
		ir.OpConcat:  {b.Concat(x8, x7)},
		ir.OpExtract: {b.Extract(x32, 15, 8), b.Extract(x128, 127, 64)},
		ir.OpZeroExt: {b.ZeroExt(x8, 24)},
		ir.OpSignExt: {b.SignExt(x7, 1)},
		ir.OpUlt:     {b.Ult(x8, y8)},
		ir.OpUle:     {b.Ule(x8, y8)},
		ir.OpSlt:     {b.Slt(x8, y8)},
		ir.OpSle:     {b.Sle(x8, y8)},
		ir.OpSelect:  {b.Select(m, a, 1), b.Select(m, a, 4), b.Select(b.Store(m, a, 2, b.Extract(x32, 15, 0)), a, 16)},
		ir.OpStore:   {b.Store(m, a, 1, x8), b.Store(m, b.Add(a, b.Const(64, 8)), 4, x32)},
		ir.OpApply:   {b.Apply(f, x32, x8), b.Apply(g, a, m), b.Apply(h)},
	}
	return s
}

// bigOnes is 2^n − 1.
func bigOnes(n uint) *big.Int {
	one := big.NewInt(1)
	return new(big.Int).Sub(new(big.Int).Lsh(one, n), one)
}

func TestSampleCoversEveryOp(t *testing.T) {
	s := sampleTerms(ir.NewBuilder())
	for _, op := range ir.Ops() {
		if len(s[op]) == 0 {
			t.Errorf("no sample term for %v: add one to sampleTerms", op)
		}
	}
}

// TestPrinterAcceptedBySolvers prints, for every sample term t, the query
// t ≠ t, which every solver must parse and find unsat. Boolector 1.5 gets
// the let style and only queries without uninterpreted functions of
// arguments, which it cannot declare.
func TestPrinterAcceptedBySolvers(t *testing.T) {
	b := ir.NewBuilder()
	samples := sampleTerms(b)
	for _, op := range ir.Ops() {
		for i, term := range samples[op] {
			q := b.Not(b.Eq(term, term))
			for _, solver := range []string{"z3", "cvc5", "boolector"} {
				opts := PrintOptions{Canonical: i%2 == 0}
				if solver == "boolector" {
					if usesFunc(b, q) {
						continue
					}
					opts.Let = true
				}
				t.Run(fmt.Sprintf("%v/%d/%s", op, i, solver), func(t *testing.T) {
					script, _ := QueryString(b, []ir.Term{q}, opts)
					if got := runSolver(t, solver, script); got != "unsat" {
						t.Errorf("%s says %s for t≠t, t = %s:\n%s", solver, got, b.Short(term), script)
					}
				})
			}
		}
	}
}

func usesFunc(b *ir.Builder, t ir.Term) bool {
	for _, u := range b.PostOrder(t) {
		if b.Op(u) == ir.OpApply && len(b.Args(u)) > 0 {
			return true
		}
	}
	return false
}

// TestCanonicalText checks the property the query cache relies on: queries
// that differ only in the names of their variables and functions print the
// same canonical text, and queries that differ in structure do not.
func TestCanonicalText(t *testing.T) {
	build := func(b *ir.Builder, x, y, fn string, c uint64) ir.Term {
		xv, yv := b.Var(x, ir.BVSort(32)), b.Var(y, ir.BVSort(32))
		f := b.DeclareFunc(fn, []ir.Sort{ir.BVSort(32)}, ir.BVSort(32))
		return b.Eq(b.Apply(f, b.Add(xv, yv)), b.Const(32, c))
	}
	b1, b2 := ir.NewBuilder(), ir.NewBuilder()
	b2.Var("unrelated", ir.BoolSort) // different term ids in b2
	q1 := build(b1, "a", "b", "f", 7)
	q2 := build(b2, "rdi", "rsi", "callee", 7)
	q3 := build(b2, "rdi", "rsi", "callee", 8)
	s1, n1 := QueryString(b1, []ir.Term{q1}, PrintOptions{Canonical: true})
	s2, n2 := QueryString(b2, []ir.Term{q2}, PrintOptions{Canonical: true})
	s3, _ := QueryString(b2, []ir.Term{q3}, PrintOptions{Canonical: true})
	if s1 != s2 {
		t.Errorf("alpha-equivalent queries print differently:\n%s\n%s", s1, s2)
	}
	if s2 == s3 {
		t.Errorf("different queries print the same:\n%s", s2)
	}
	if n1.Vars["v0"] != b1.Var("a", ir.BVSort(32)) || n2.Vars["v0"] != b2.Var("rdi", ir.BVSort(32)) {
		t.Errorf("names do not map v0 back: %v %v", n1.Vars, n2.Vars)
	}
	if n2.Funcs["f0"].Name != "callee" {
		t.Errorf("names do not map f0 back: %v", n2.Funcs)
	}
}

// TestAwkwardNames prints variables whose names are not SMT-LIB simple
// symbols, or clash with the printer's own names or reserved words.
func TestAwkwardNames(t *testing.T) {
	b := ir.NewBuilder()
	var conj []ir.Term
	for i, name := range []string{"rsp.0", "$t0", "a b", "bvadd", "x|y", "3start", "ite", "π"} {
		v := b.Var(name, ir.BVSort(8))
		conj = append(conj, b.Eq(v, b.Const(8, uint64(i))))
	}
	shared := b.Add(b.Var("$t0", ir.BVSort(8)), b.Var("a b", ir.BVSort(8)))
	conj = append(conj, b.Eq(b.Mul(shared, shared), b.Const(8, 9))) // (1+2)²
	script, names := QueryString(b, conj, PrintOptions{})
	for _, solver := range []string{"z3", "cvc5"} {
		if got := runSolver(t, solver, script); got != "sat" {
			t.Errorf("%s: %s, want sat:\n%s", solver, got, script)
		}
	}
	if len(names.Vars) != 8 {
		t.Errorf("names has %d variables, want 8: %v", len(names.Vars), names.Vars)
	}
	for name, v := range names.Vars {
		if b.Op(v) != ir.OpVar {
			t.Errorf("name %q maps to non-variable %s", name, b.Short(v))
		}
	}
}

// TestDeepChainPrints prints a chain of 20,000 stores, deeper than any
// recursive printer or solver parser would survive inline, and has z3
// decide a 300-store prefix of it (z3's array reasoning, not parsing,
// makes the whole chain slow).
func TestDeepChainPrints(t *testing.T) {
	b := ir.NewBuilder()
	m := b.Var("mem", ir.MemSort)
	a := b.Var("a", ir.BVSort(64))
	x := b.Var("x", ir.BVSort(32))
	var short ir.Term
	for i := 0; i < 20000; i++ {
		m = b.Store(m, b.Add(a, b.Const(64, uint64(4*(i%64)))), 4, b.Add(x, b.Const(32, uint64(i))))
		if i == 300 {
			short = m
		}
	}
	q := b.Not(b.Eq(b.Select(m, a, 4), b.Select(m, a, 4)))
	script, _ := QueryString(b, []ir.Term{q}, PrintOptions{Canonical: true})
	depth, maxDepth := 0, 0
	for _, c := range script {
		switch c {
		case '(':
			depth++
			if depth > maxDepth {
				maxDepth = depth
			}
		case ')':
			depth--
		}
	}
	if maxDepth > 4*maxInlineDepth+16 {
		t.Errorf("printed nesting depth %d; the printer should name deep subterms", maxDepth)
	}
	qs := b.Not(b.Eq(b.Select(short, a, 4), b.Select(short, a, 4)))
	script, _ = QueryString(b, []ir.Term{qs}, PrintOptions{Canonical: true})
	if got := runSolver(t, "z3", script); got != "unsat" {
		t.Errorf("z3: %s, want unsat", got)
	}
}

// TestLetAbove: define-funs while a query names at most LetAbove
// subterms, lets beyond.
func TestLetAbove(t *testing.T) {
	b := ir.NewBuilder()
	x := b.Var("x", ir.BVSort(32))
	t1 := b.Add(x, x)
	t2 := b.Mul(t1, t1)
	asserts := []ir.Term{b.Eq(b.Add(t2, t2), t1)}
	for _, tc := range []struct {
		above int
		let   bool
	}{{0, false}, {1, true}, {100, false}} {
		text, _ := QueryString(b, asserts, PrintOptions{LetAbove: tc.above})
		if got := strings.Contains(text, "(let "); got != tc.let || got == strings.Contains(text, "define-fun") {
			t.Errorf("LetAbove %d: let form %v, want %v:\n%s", tc.above, got, tc.let, text)
		}
	}
}
