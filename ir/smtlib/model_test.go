package smtlib

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"eqc/ir"
)

var updateModels = flag.Bool("update-models", false, "rewrite testdata/models/*.txt from the solvers")

// modelSolverCmd is how the model tests run each solver as a process.
// Boolector 1.5 knows neither set-option nor get-model nor define-fun nor
// uninterpreted functions; -m prints its own model format after "sat".
var modelSolverCmd = map[string][]string{
	"z3":        {"z3", "-in", "-smt2"},
	"cvc5":      {"cvc5", "--lang", "smt2", "--produce-models"},
	"boolector": {"boolector", "--smt2", "-m"},
}

// solveForModel runs solver on script and returns its whole output, which
// must start with sat.
func solveForModel(t testing.TB, solver, script string) string {
	t.Helper()
	argv := modelSolverCmd[solver]
	if _, err := exec.LookPath(argv[0]); err != nil {
		t.Fatalf("%s is not installed: %v", argv[0], err)
	}
	tail := "(check-sat)\n(get-model)\n(exit)\n"
	if solver == "boolector" {
		tail = "(check-sat)\n(exit)\n"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(script + tail)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run() // boolector exits 10 on sat
	if !regexp.MustCompile(`(?m)^sat$`).MatchString(out.String()) {
		t.Fatalf("%s did not answer sat (err %v):\n%s\nstdout: %s\nstderr: %s", solver, err, script, out.String(), errb.String())
	}
	return out.String()
}

// checkModel checks that model satisfies every assertion of the query, two
// ways: the ir evaluator on the parsed terms, and the model interpreter on
// the assertions' S-expressions with the parsed values substituted.
func checkModel(t *testing.T, label, query, output string, b *ir.Builder, sc *Script, model *Model) {
	t.Helper()
	for i, a := range sc.Asserts {
		v, err := ir.Eval(b, a, model.Completed())
		if err != nil {
			t.Errorf("%s: assert %d: eval: %v\nquery:\n%s\nmodel:\n%s", label, i, err, query, output)
			return
		}
		if !v.Bool() {
			t.Errorf("%s: assert %d is false under the parsed model: %s\nquery:\n%s\nmodel:\n%s", label, i, b.Short(a), query, output)
			return
		}
	}
	// Independent of the ir evaluator: substitute the parsed values into the
	// assertion text and evaluate it with the model interpreter, whose
	// function calls go to the model's own definitions.
	cmds, err := ReadSExprs(query)
	if err != nil {
		t.Fatal(err)
	}
	mc := &modelCtx{defs: make(map[string]*SExpr), cache: make(map[string]sval), busy: make(map[string]bool)}
	if sxs, err := ReadSExprs(strings.TrimPrefix(strings.TrimSpace(output), "sat")); err == nil {
		for i := range sxs {
			for j := range sxs[i].List {
				if d := &sxs[i].List[j]; d.Head() == "define-fun" && len(d.List) == 5 && len(d.List[2].List) > 0 {
					mc.defs[d.List[1].Atom] = d
				}
			}
		}
	}
	env := &venv{vars: make(map[string]sval)}
	for name, tm := range sc.Names.Vars {
		v, _ := model.Completed().VarValue(b, tm)
		env.vars[name] = fromValue(v)
	}
	for _, f := range sc.Names.Funcs {
		if _, ok := model.Func(f); !ok {
			t.Errorf("%s: no interpretation of %s", label, f.Name)
		}
	}
	n := 0
	for i := range cmds {
		if cmds[i].Head() != "assert" {
			continue
		}
		in := &interp{mc: mc}
		ok, err := in.evalBool(&cmds[i].List[1], env, 0)
		if err != nil {
			t.Errorf("%s: interpreting assert %d: %v", label, n, err)
		} else if !ok {
			t.Errorf("%s: assert %d is false in the interpreter:\n%s\nmodel:\n%s", label, n, cmds[i].String(), output)
		}
		n++
	}
}

// queryGen writes random satisfiable queries over bit-vectors of widths 1,
// 8, 32, 64 and 128, booleans, memories and uninterpreted functions. Every
// random term is absorbed by a fresh variable ((= (bvadd T z) c) or (= p B)
// with z, p used nowhere else), so the query is satisfiable whatever T is,
// yet the model must give every variable in T the value the solver chose.
type queryGen struct {
	r     *rand.Rand
	decls strings.Builder
	body  strings.Builder
	fresh int
	funcs bool
}

var genWidths = []uint32{1, 8, 32, 64, 128}

func (g *queryGen) lit(w uint32) string {
	x := ir.NewBVBig(w, new(big.Int).Rand(g.r, new(big.Int).Lsh(big.NewInt(1), uint(w))))
	return x.String()
}

func (g *queryGen) freshVar(s ir.Sort) string {
	g.fresh++
	name := fmt.Sprintf("z%d", g.fresh)
	fmt.Fprintf(&g.decls, "(declare-fun %s () %s)\n", name, s)
	return name
}

// bv returns a random term of width w.
func (g *queryGen) bv(w uint32, depth int) string {
	r := g.r
	if depth <= 0 || r.Intn(5) == 0 {
		switch {
		case w == 8 && r.Intn(3) == 0:
			return fmt.Sprintf("(select mem%d %s)", r.Intn(2), ir.NewBV(64, uint64(0x1000+r.Intn(8))))
		case r.Intn(4) == 0:
			return g.lit(w)
		}
		for _, gw := range genWidths {
			if gw == w {
				return fmt.Sprintf("v%d_%d", w, r.Intn(2))
			}
		}
		return g.lit(w)
	}
	d := depth - 1
	switch r.Intn(12) {
	case 0, 1:
		ops := []string{"bvadd", "bvsub", "bvand", "bvor", "bvxor", "bvshl", "bvlshr", "bvashr", "bvnand", "bvnor", "bvxnor",
			"bvmul", "bvudiv", "bvurem", "bvsdiv", "bvsrem", "bvsmod"}
		if w > 32 {
			ops = ops[:11] // wide multiplication and division make slow queries
		}
		return fmt.Sprintf("(%s %s %s)", ops[r.Intn(len(ops))], g.bv(w, d), g.bv(w, d))
	case 2:
		return fmt.Sprintf("(%s %s)", []string{"bvnot", "bvneg"}[r.Intn(2)], g.bv(w, d))
	case 3:
		return fmt.Sprintf("(ite %s %s %s)", g.boolean(d), g.bv(w, d), g.bv(w, d))
	case 4:
		wide := genWidths[r.Intn(len(genWidths))]
		if wide < w {
			wide = w
		}
		lo := uint32(r.Intn(int(wide - w + 1)))
		return fmt.Sprintf("((_ extract %d %d) %s)", lo+w-1, lo, g.bv(wide, d))
	case 5:
		if w == 1 {
			return fmt.Sprintf("(bvcomp %s %s)", g.bv(8, d), g.bv(8, d))
		}
		k := 1 + uint32(r.Intn(int(w-1)))
		ext := []string{"zero_extend", "sign_extend"}[r.Intn(2)]
		return fmt.Sprintf("((_ %s %d) %s)", ext, w-k, g.bv(k, d))
	case 6:
		if w == 1 {
			return g.bv(w, d)
		}
		k := 1 + uint32(r.Intn(int(w-1)))
		return fmt.Sprintf("(concat %s %s)", g.bv(w-k, d), g.bv(k, d))
	case 7:
		return fmt.Sprintf("((_ %s %d) %s)", []string{"rotate_left", "rotate_right"}[r.Intn(2)], r.Intn(2*int(w)+1), g.bv(w, d))
	case 8:
		if w%2 == 0 {
			return fmt.Sprintf("((_ repeat 2) %s)", g.bv(w/2, d))
		}
	case 9:
		if g.funcs && w == 32 {
			return fmt.Sprintf("(f1 %s %s)", g.bv(32, d), g.bv(8, d))
		}
		if g.funcs && w == 8 {
			return fmt.Sprintf("(f2 %s)", g.bv(64, d))
		}
	case 10:
		if w == 16 || w == 32 {
			// A little-endian multi-byte load, as the printer writes one.
			a := ir.NewBV(64, uint64(0x2000+r.Intn(4)))
			s := fmt.Sprintf("(select mem0 %s)", a)
			for i := uint32(1); i < w/8; i++ {
				s = fmt.Sprintf("(concat (select mem0 (bvadd %s %s)) %s)", a, ir.NewBV(64, uint64(i)), s)
			}
			return s
		}
	}
	return g.bv(w, d)
}

// boolean returns a random boolean term.
func (g *queryGen) boolean(depth int) string {
	r := g.r
	if depth <= 0 || r.Intn(4) == 0 {
		return fmt.Sprintf("p%d", r.Intn(3))
	}
	d := depth - 1
	switch r.Intn(7) {
	case 0:
		w := genWidths[r.Intn(len(genWidths))]
		ops := []string{"bvult", "bvule", "bvslt", "bvsle", "bvugt", "bvuge", "bvsgt", "bvsge", "=", "distinct"}
		return fmt.Sprintf("(%s %s %s)", ops[r.Intn(len(ops))], g.bv(w, d), g.bv(w, d))
	case 1:
		return fmt.Sprintf("(not %s)", g.boolean(d))
	case 2:
		ops := []string{"and", "or", "xor", "=>", "="}
		return fmt.Sprintf("(%s %s %s)", ops[r.Intn(len(ops))], g.boolean(d), g.boolean(d))
	case 3:
		return fmt.Sprintf("(and %s %s %s)", g.boolean(d), g.boolean(d), g.boolean(d))
	case 4:
		if g.funcs {
			return fmt.Sprintf("(h %s)", g.bv(8, d))
		}
	case 5:
		return fmt.Sprintf("(ite %s %s %s)", g.boolean(d), g.boolean(d), g.boolean(d))
	}
	return fmt.Sprintf("(distinct %s %s %s)", g.bv(8, d), g.bv(8, d), g.bv(8, d))
}

// query returns a random satisfiable query.
func (g *queryGen) query() string {
	for _, w := range genWidths {
		for i := 0; i < 2; i++ {
			fmt.Fprintf(&g.decls, "(declare-fun v%d_%d () (_ BitVec %d))\n", w, i, w)
		}
	}
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&g.decls, "(declare-fun p%d () Bool)\n", i)
	}
	g.decls.WriteString("(declare-fun mem0 () (Array (_ BitVec 64) (_ BitVec 8)))\n(declare-fun mem1 () (Array (_ BitVec 64) (_ BitVec 8)))\n")
	if g.funcs {
		g.decls.WriteString("(declare-fun f1 ((_ BitVec 32) (_ BitVec 8)) (_ BitVec 32))\n(declare-fun f2 ((_ BitVec 64)) (_ BitVec 8))\n(declare-fun h ((_ BitVec 8)) Bool)\n")
		g.decls.WriteString("(declare-fun g ((Array (_ BitVec 64) (_ BitVec 8)) (_ BitVec 64)) (_ BitVec 64))\n")
		// f2 must take two values at two distinct points.
		g.body.WriteString("(assert (= (f2 v64_0) #x05))\n(assert (= (f2 v64_1) #x07))\n(assert (distinct v64_0 v64_1))\n")
		// g must tell two memories apart.
		g.body.WriteString("(assert (= (g mem0 #x0000000000000010) #x0000000000000001))\n(assert (= (g mem1 #x0000000000000010) #x0000000000000002))\n")
	}
	// Specific bytes at specific addresses, and a second memory equal to
	// the first but for one store.
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&g.body, "(assert (= (select mem0 %s) %s))\n", ir.NewBV(64, uint64(0x1000+8*i+g.r.Intn(8))), g.lit(8))
	}
	fmt.Fprintf(&g.body, "(assert (= mem1 (store mem0 #x0000000000003000 %s)))\n", g.lit(8))
	for i := 0; i < 6; i++ {
		w := genWidths[g.r.Intn(len(genWidths))]
		z := g.freshVar(ir.BVSort(w))
		fmt.Fprintf(&g.body, "(assert (= (bvadd %s %s) %s))\n", g.bv(w, 4), z, g.lit(w))
	}
	for i := 0; i < 2; i++ {
		fmt.Fprintf(&g.body, "(assert (= %s %s))\n", g.freshVar(ir.BoolSort), g.boolean(4))
	}
	return g.decls.String() + g.body.String()
}

func TestSolverModels(t *testing.T) {
	const n = 16
	for _, solver := range []string{"z3", "cvc5", "boolector"} {
		for i := 0; i < n; i++ {
			t.Run(fmt.Sprintf("%s/%d", solver, i), func(t *testing.T) {
				t.Parallel()
				solverModelCase(t, solver, i)
			})
		}
	}
}

func solverModelCase(t *testing.T, solver string, i int) {
	g := &queryGen{r: rand.New(rand.NewSource(int64(1000*i + 7))), funcs: solver != "boolector"}
	query := g.query()
	// The query as written, with its own names.
	b := ir.NewBuilder()
	sc, err := ParseScript(b, query)
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	out := solveForModel(t, solver, query)
	label := fmt.Sprintf("%s/%d", solver, i)
	model, err := ParseModel(b, out, sc.Names)
	if err != nil {
		t.Fatalf("%s: %v\nmodel:\n%s", label, err, out)
	}
	checkModel(t, label, query, out, b, sc, model)

	// The same assertions printed by the printer, read back through the
	// printer's names.
	printed, names := QueryString(b, sc.Asserts, PrintOptions{Let: solver == "boolector"})
	out2 := solveForModel(t, solver, printed)
	model2, err := ParseModel(b, out2, names)
	if err != nil {
		t.Fatalf("%s printed: %v\nmodel:\n%s", label, err, out2)
	}
	for j, a := range sc.Asserts {
		v, err := ir.Eval(b, a, model2.Completed())
		if err != nil || !v.Bool() {
			t.Errorf("%s printed: assert %d: %v %v\nquery:\n%s\nmodel:\n%s", label, j, v, err, printed, out2)
			break
		}
	}
}

// declsOnly parses just the declarations of a script, for fixtures whose
// assertions the term language cannot express (quantifiers, lambdas).
func declsOnly(t testing.TB, b *ir.Builder, script string) *Script {
	t.Helper()
	cmds, err := ReadSExprs(script)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, c := range cmds {
		if h := c.Head(); h == "declare-fun" || h == "declare-const" {
			sb.WriteString(c.String() + "\n")
		}
	}
	sc, err := ParseScript(b, sb.String())
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// fixtureSolver says which solver wrote a saved model and how.
func fixtureSolver(name string) (solver string, args []string) {
	switch {
	case strings.HasPrefix(name, "z3_"):
		return "z3", []string{"-T:10", "-smt2"}
	case strings.HasPrefix(name, "cvc5_"):
		return "cvc5", []string{"--produce-models", "--tlimit=10000"}
	case name == "boolector_hex":
		return "boolector", []string{"--smt2", "-m", "-x"}
	case strings.HasPrefix(name, "boolector_"):
		return "boolector", []string{"--smt2", "-m"}
	}
	return "", nil
}

// TestModelFixtures reads every saved solver output under
// testdata/models (rewritten with -update-models) and checks it satisfies
// its query.
func TestModelFixtures(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "models", "*.smt2"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, qp := range paths {
		name := strings.TrimSuffix(filepath.Base(qp), ".smt2")
		query, err := os.ReadFile(qp)
		if err != nil {
			t.Fatal(err)
		}
		op := strings.TrimSuffix(qp, ".smt2") + ".txt"
		if solver, args := fixtureSolver(name); *updateModels && solver != "" {
			cmd := exec.Command(solver, append(args, qp)...)
			out, _ := cmd.Output()
			if err := os.WriteFile(op, out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		output, err := os.ReadFile(op)
		if err != nil {
			t.Fatal(err)
		}
		b := ir.NewBuilder()
		sc, err := ParseScript(b, string(query))
		full := err == nil
		if !full {
			var ue *UnsupportedError
			if !errors.As(err, &ue) {
				t.Fatalf("%s: %v", name, err)
			}
			b = ir.NewBuilder()
			sc = declsOnly(t, b, string(query))
		}
		model, err := ParseModel(b, string(output), sc.Names)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if full {
			checkModel(t, name, string(query), string(output), b, sc, model)
		}
	}
}

func fixtureModel(t *testing.T, name string) (*ir.Builder, *Script, *Model) {
	t.Helper()
	q, err := os.ReadFile(filepath.Join("testdata", "models", name+".smt2"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join("testdata", "models", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	b := ir.NewBuilder()
	sc := declsOnly(t, b, string(q))
	m, err := ParseModel(b, string(out), sc.Names)
	if err != nil {
		t.Fatal(err)
	}
	return b, sc, m
}

// TestModelLambdaRanges: z3's model of a quantified memory is a lambda over
// address ranges; every byte for addresses 0..15 is forced by the query.
func TestModelLambdaRanges(t *testing.T) {
	b, sc, m := fixtureModel(t, "z3_lambda_ranges")
	mem, p := sc.Names.Vars["m"], sc.Names.Vars["p"]
	mv, ok := m.VarValue(b, mem)
	if !ok {
		t.Fatal("no value for m")
	}
	for i := uint64(0); i < 16; i++ {
		if got := mv.Mem().Load(i); got != byte(i) {
			t.Errorf("m[%d] = %#x, want %#x", i, got, i)
		}
	}
	pv, _ := m.VarValue(b, p)
	if got, _ := m.MemByte(mem, pv.BV().Uint64()); got != 0x22 {
		t.Errorf("m[p] = %#x, want 0x22", got)
	}
	if got := mv.Mem().Load(pv.BV().Uint64()); got != 0x22 {
		t.Errorf("materialized m[p] = %#x, want 0x22", got)
	}
	if got, _ := m.MemByte(mem, 0x100); got != 0x23 {
		t.Errorf("m[0x100] = %#x, want 0x23", got)
	}
	if got := mv.Mem().Load(0x100); got != 0x23 {
		t.Errorf("materialized m[0x100] = %#x, want 0x23", got)
	}
	// The model holds 0x23 on [0x100, 2^62): too long to materialize.
	if m.Exact(mem) {
		t.Error("a memory with a 2^62-byte run was reported exact")
	}
	// Wherever the Mem holds a byte, it is the lambda's.
	for _, a := range mv.Mem().Written() {
		want, _ := m.MemByte(mem, a)
		if got := mv.Mem().Load(a); got != want {
			t.Errorf("materialized m[%#x] = %#x, lambda says %#x", a, got, want)
		}
	}
}

func TestModelLambdaArith(t *testing.T) {
	b, sc, m := fixtureModel(t, "z3_lambda_arith")
	mem, p := sc.Names.Vars["m"], sc.Names.Vars["p"]
	pv, _ := m.VarValue(b, p)
	mv, _ := m.VarValue(b, mem)
	a := pv.BV().Uint64()
	if got := mv.Mem().Load(a); got != 0x22 {
		t.Errorf("m[p] = %#x, want 0x22", got)
	}
	if got, _ := m.MemByte(mem, 0x1234); got != 0x37 {
		t.Errorf("m[0x1234] = %#x, want 0x37", got)
	}
	if m.Exact(mem) {
		t.Error("a lambda computing on its address was reported exact")
	}
}

// synthetic model shapes the installed solvers do not print but others do.
func TestModelShapes(t *testing.T) {
	b := ir.NewBuilder()
	sc, err := ParseScript(b, `(declare-fun x () (_ BitVec 32))
(declare-fun bb () Bool)
(declare-fun m () (Array (_ BitVec 64) (_ BitVec 8)))
(declare-fun m2 () (Array (_ BitVec 64) (_ BitVec 8)))
(declare-fun f ((_ BitVec 32)) (_ BitVec 32))
(declare-fun missing () (_ BitVec 8))`)
	if err != nil {
		t.Fatal(err)
	}
	v := sc.Names.Vars
	f := sc.Names.Funcs["f"]
	for _, c := range []struct{ name, text string }{
		{"old z3 with model keyword and as-array", `sat
(model
  (define-fun x () (_ BitVec 32) #x00000007)
  (define-fun bb () Bool false)
  (define-fun k!0 ((x!1 (_ BitVec 64))) (_ BitVec 8)
    (ite (= x!1 #x0000000000000010) #x11 (ite (= x!1 #x0000000000000011) #x22 #x05)))
  (define-fun m () (Array (_ BitVec 64) (_ BitVec 8)) (_ as-array k!0))
  (define-fun m2 () (Array (_ BitVec 64) (_ BitVec 8)) (store (_ as-array k!0) #x0000000000000012 #x33))
  (define-fun f!3 ((x!1 (_ BitVec 32))) (_ BitVec 32) (bvadd x!1 x))
  (define-fun f ((x!1 (_ BitVec 32))) (_ BitVec 32) (ite (= x!1 #x00000001) #x0000000a (f!3 x!1)))
  (declare-fun U!val!0 () U)
)`},
		{"bare define-funs, boolector 3 style memory as a function", `
(define-fun x () (_ BitVec 32) (_ bv7 32))
(define-fun bb () Bool (not true))
(define-fun m ((m_x0 (_ BitVec 64))) (_ BitVec 8) (ite (= m_x0 #x0000000000000010) #x11 (ite (= #x0000000000000011 m_x0) #x22 #x05)))
(define-fun m2 () (Array (_ BitVec 64) (_ BitVec 8)) (lambda ((i (_ BitVec 64))) (ite (= i #x0000000000000012) #x33 (ite (bvult i #x0000000000000010) #x05 (ite (bvugt i #x0000000000000011) #x05 (ite (= i #x0000000000000010) #x11 #x22))))))
(define-fun f ((a (_ BitVec 32))) (_ BitVec 32) (let ((t (= a #x00000001))) (ite t #x0000000a (bvadd a x))))
`},
	} {
		m, err := ParseModel(b, c.text, sc.Names)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if xv, _ := m.VarValue(b, v["x"]); !xv.Equal(ir.BVValue(ir.NewBV(32, 7))) {
			t.Errorf("%s: x = %v", c.name, xv)
		}
		if bv, _ := m.VarValue(b, v["bb"]); !bv.Equal(ir.BoolValue(false)) {
			t.Errorf("%s: bb = %v", c.name, bv)
		}
		if _, ok := m.VarValue(b, v["missing"]); ok {
			t.Errorf("%s: a constant missing from the model has a value", c.name)
		}
		want := ir.NewMem(5).With(0x10, []byte{0x11, 0x22})
		if mv, _ := m.VarValue(b, v["m"]); !mv.Mem().Equal(want) || !m.Exact(v["m"]) {
			t.Errorf("%s: m = %v (exact %v), want %v", c.name, mv, m.Exact(v["m"]), want)
		}
		want2 := want.With(0x12, []byte{0x33})
		if mv, _ := m.VarValue(b, v["m2"]); !mv.Mem().Equal(want2) || !m.Exact(v["m2"]) {
			t.Errorf("%s: m2 = %v (exact %v), want %v", c.name, mv, m.Exact(v["m2"]), want2)
		}
		for _, in := range []uint64{1, 2, 0xfffffff0} {
			got, ok := m.ApplyFunc(f, []ir.Value{ir.BVValue(ir.NewBV(32, in))})
			want := ir.NewBV(32, in+7)
			if in == 1 {
				want = ir.NewBV(32, 10)
			}
			if !ok || !got.BV().Equal(want) {
				t.Errorf("%s: f(%d) = %v %v, want %v", c.name, in, got, ok, want)
			}
		}
	}
}

func TestModelErrors(t *testing.T) {
	b := ir.NewBuilder()
	sc, err := ParseScript(b, `(declare-fun x () (_ BitVec 32)) (declare-fun m () (Array (_ BitVec 64) (_ BitVec 8))) (declare-fun f ((_ BitVec 32)) (_ BitVec 32))`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ text, msg string }{
		{"unsat", "unsat"},
		{`(error "line 3: unknown constant")`, "solver error"},
		{"((define-fun x () (_ BitVec 8) #x00))", "want (_ BitVec 32)"},
		{"((define-fun x () (_ BitVec 32) #x00))", "declared"},
		{"((define-fun x () (_ BitVec 32) y) (define-fun y () (_ BitVec 32) x))", "itself"},
		{"((define-fun x () (_ BitVec 32) (bvadd #x00000001 #x01)))", "argument"},
		{"((define-fun x () (_ BitVec 32) (frob #x00000001)))", "unknown"},
		{"((define-fun m () (Array (_ BitVec 64) (_ BitVec 8)) #x00))", "its value is (_ BitVec 8)"},
		{"((define-fun f ((a (_ BitVec 8))) (_ BitVec 32) #x00000000))", "in the query"},
		{"((define-fun x () (_ BitVec 32) #x0000", "unclosed"},
		{"x 0101", "32-bit"},
		{"m[01] 00000000", "64-bit"},
	} {
		_, err := ParseModel(b, c.text, sc.Names)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: got %v, want …%s…", c.text, err, c.msg)
		}
	}
	// A function whose body cannot be evaluated on some argument reports false.
	m, err := ParseModel(b, "((define-fun f ((a (_ BitVec 32))) (_ BitVec 32) (ite (= a #x00000000) (bvadd a #x01) a)))", sc.Names)
	if err != nil {
		t.Fatal(err)
	}
	f := sc.Names.Funcs["f"]
	if _, ok := m.ApplyFunc(f, []ir.Value{ir.BVValue(ir.NewBV(32, 0))}); ok {
		t.Error("ill-sorted body evaluated")
	}
	if v, ok := m.ApplyFunc(f, []ir.Value{ir.BVValue(ir.NewBV(32, 3))}); !ok || v.BV().Uint64() != 3 {
		t.Errorf("f(3) = %v %v", v, ok)
	}
}

// fuzzNames are the names the fuzzed models are read against.
func fuzzNames(t testing.TB) (*ir.Builder, *Names) {
	b := ir.NewBuilder()
	paths, _ := filepath.Glob(filepath.Join("testdata", "models", "*.smt2"))
	names := &Names{Vars: make(map[string]ir.Term), Funcs: make(map[string]*ir.Func)}
	sort.Strings(paths)
	for _, p := range paths {
		q, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		nb := ir.NewBuilder()
		sc := declsOnly(t, nb, string(q))
		for n, tm := range sc.Names.Vars {
			if _, dup := names.Vars[n]; !dup {
				if old, ok := b.LookupVar(n); !ok || b.Sort(old) == nb.Sort(tm) {
					names.Vars[n] = b.Var(n, nb.Sort(tm))
				}
			}
		}
		for n, f := range sc.Names.Funcs {
			if _, dup := names.Funcs[n]; !dup {
				if g, err := b.TryDeclareFunc(n, f.Args, f.Result); err == nil {
					names.Funcs[n] = g
				}
			}
		}
	}
	return b, names
}

func FuzzParseModel(f *testing.F) {
	for _, s := range modelSeeds(f) {
		f.Add(s)
	}
	b, names := fuzzNames(f)
	f.Fuzz(func(t *testing.T, text string) {
		m, err := ParseModel(b, text, names)
		if err != nil {
			return
		}
		// Whatever was accepted can be used: every function applies (or
		// reports false) on some arguments without panicking.
		for _, fn := range names.Funcs {
			args := make([]ir.Value, len(fn.Args))
			for i, s := range fn.Args {
				args[i] = ir.ZeroValue(s)
			}
			if v, ok := m.ApplyFunc(fn, args); ok && v.Sort() != fn.Result {
				t.Fatalf("%s returned a %v", fn.Name, v.Sort())
			}
		}
		for _, tm := range names.Vars {
			if v, ok := m.VarValue(b, tm); ok && v.Sort() != b.Sort(tm) {
				t.Fatalf("%s has a %v value", b.VarName(tm), v.Sort())
			}
		}
	})
}

// BenchmarkParseModel parses a z3-style model of 1,000 64-bit constants.
func BenchmarkParseModel(bm *testing.B) {
	b := ir.NewBuilder()
	names := &Names{Vars: make(map[string]ir.Term)}
	var sb strings.Builder
	sb.WriteString("sat\n(\n")
	for i := 0; i < 1000; i++ {
		n := fmt.Sprintf("v%d", i)
		names.Vars[n] = b.Var(n, ir.BVSort(64))
		fmt.Fprintf(&sb, "  (define-fun %s () (_ BitVec 64)\n    %s)\n", n, ir.NewBV(64, uint64(i)*0x9e3779b97f4a7c15))
	}
	sb.WriteString(")\n")
	text := sb.String()
	bm.SetBytes(int64(len(text)))
	bm.ReportAllocs()
	for bm.Loop() {
		m, err := ParseModel(b, text, names)
		if err != nil || len(m.Vars()) != 1000 {
			bm.Fatal(err)
		}
	}
}

// TestModelBudget: hostile or huge models end quickly, with an error or
// with the right answer.
func TestModelBudget(t *testing.T) {
	b := ir.NewBuilder()
	sc, err := ParseScript(b, "(declare-fun x () (_ BitVec 32)) (declare-fun m () (Array (_ BitVec 64) (_ BitVec 8)))")
	if err != nil {
		t.Fatal(err)
	}
	// Exponentially many calls of wide arithmetic.
	var sb strings.Builder
	sb.WriteString("((define-fun k0 ((y (_ BitVec 4096))) (_ BitVec 4096) (bvudiv (bvmul y y) (bvadd y ((_ zero_extend 4094) #b11))))\n")
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&sb, "(define-fun k%d ((y (_ BitVec 4096))) (_ BitVec 4096) (k%d (k%d y)))\n", i, i-1, i-1)
	}
	sb.WriteString("(define-fun x () (_ BitVec 32) ((_ extract 31 0) (k39 ((_ repeat 4096) #b1)))))")
	start := time.Now()
	if _, err := ParseModel(b, sb.String(), sc.Names); err == nil || !strings.Contains(err.Error(), "steps") {
		t.Errorf("got %v, want a step-budget error", err)
	}
	// A lambda of 3,000 points is read exactly, in linear time.
	var lam strings.Builder
	lam.WriteString("((define-fun m () (Array (_ BitVec 64) (_ BitVec 8)) (lambda ((i (_ BitVec 64))) ")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&lam, "(ite (= i %s) #x%02x ", ir.NewBV(64, uint64(i*1000)), i%255+1)
	}
	lam.WriteString("#x00" + strings.Repeat(")", 3000) + ")))")
	m, err := ParseModel(b, lam.String(), sc.Names)
	if err != nil {
		t.Fatal(err)
	}
	mv, _ := m.VarValue(b, sc.Names.Vars["m"])
	if !m.Exact(sc.Names.Vars["m"]) || len(mv.Mem().Written()) != 3000 || mv.Mem().Load(2999000) != byte(2999%255+1) || mv.Mem().Load(1) != 0 {
		t.Errorf("lambda of 3000 points read as %d bytes", len(mv.Mem().Written()))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestVectorLanes: a 128-bit variable is printed as four 32-bit lanes and a
// define-fun (a let in the let form), and z3's and cvc5's models of the lanes give back the vector.
func TestVectorLanes(t *testing.T) {
	b := ir.NewBuilder()
	x := b.Var("x", ir.BVSort(128))
	want := ir.NewBVBig(128, new(big.Int).SetBytes([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}))
	asserts := []ir.Term{b.Eq(x, b.ConstBV(want))}
	text, names := QueryString(b, asserts, PrintOptions{})
	if len(names.Lanes[x]) != 4 || !strings.Contains(text, "(define-fun x () (_ BitVec 128) (concat $lane0.3 (concat $lane0.2 (concat $lane0.1 $lane0.0))))") {
		t.Fatalf("x is not split into lanes:\n%s", text)
	}
	ctext, cnames := QueryString(b, asserts, PrintOptions{Canonical: true})
	if len(cnames.Vars) != 0 || !strings.Contains(ctext, "(define-fun $vec0 () (_ BitVec 128) (concat") {
		t.Errorf("canonical text names the vector like a constant:\n%s", ctext)
	}
	// The let form (boolector's, and the one the solvers are sent) binds
	// the vector in a let.
	ltext, lnames := QueryString(b, asserts, PrintOptions{Canonical: true, Let: true})
	if len(lnames.Lanes) != 1 || strings.Contains(ltext, "define-fun") || !strings.Contains(ltext, "(let (($vec0 (concat") {
		t.Errorf("let form does not bind the lanes' vector in a let:\n%s", ltext)
	}
	for _, solver := range []string{"z3", "cvc5"} {
		for _, q := range []struct {
			text  string
			names *Names
		}{{text, names}, {ctext, cnames}, {ltext, lnames}} {
			m, err := ParseModel(b, solveForModel(t, solver, q.text), q.names)
			if err != nil {
				t.Fatalf("%s: %v", solver, err)
			}
			if v, ok := m.VarValue(b, x); !ok || !v.BV().Equal(want) {
				t.Errorf("%s: x = %v (%v), want %v", solver, v, ok, want)
			}
		}
	}
}
