package x86

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"eqc/ir"
	"eqc/ir/smtlib"
)

// compileSource compiles C text with cc and flags into an object under the
// test binary's build directory.
func compileSource(t testing.TB, cc, name, src string, flags ...string) string {
	t.Helper()
	needTool(t, cc)
	dir := filepath.Join(buildDir, "tfg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c := filepath.Join(dir, name+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name+"."+cc+".o")
	args := append(append(strings.Fields(cflags), flags...), "-c", "-o", out, c)
	if msg, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, msg)
	}
	return out
}

// liftNamed lifts function name of the object at path into b.
func liftNamed(t testing.TB, b *ir.Builder, path, name string, names StateNames) (*Function, *ir.TFG) {
	t.Helper()
	f := mustOpen(t, path)
	fn := mustFunction(t, f, name)
	g := f.TFG(b, fn, names)
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	if len(g.Unsupported) > 0 {
		t.Fatalf("%s: unsupported %v", name, g.Unsupported)
	}
	return fn, g
}

// edgeRoots are the terms of g's edges: transfers, conditions, faults.
func edgeRoots(g *ir.TFG) []ir.Term {
	var roots []ir.Term
	for _, e := range g.Edges {
		roots = append(roots, e.Transfer...)
		roots = append(roots, e.Cond, e.Fault)
	}
	return roots
}

// poolAddrsLeft are the addresses of read-only sections and constant
// pools (&.rodata…, &.LC…) that g's terms still name.
func poolAddrsLeft(b *ir.Builder, g *ir.TFG) []string {
	var out []string
	for v := range varsOf(b, edgeRoots(g)...) {
		if strings.HasPrefix(v, "&.rodata") || strings.HasPrefix(v, "&.LC") {
			out = append(out, v)
		}
	}
	return out
}

// varsOf lists the names of the free variables of ts.
func varsOf(b *ir.Builder, ts ...ir.Term) map[string]bool {
	out := map[string]bool{}
	for _, u := range b.PostOrder(ts...) {
		if b.Op(u) == ir.OpVar {
			out[b.VarName(u)] = true
		}
	}
	return out
}

// funcsOf lists the uninterpreted functions applied in ts.
func funcsOf(b *ir.Builder, ts ...ir.Term) map[string]bool {
	out := map[string]bool{}
	for _, u := range b.PostOrder(ts...) {
		if b.Op(u) == ir.OpApply {
			out[b.FuncOf(u).Name] = true
		}
	}
	return out
}

// exitTerm is the value of component i on the unique edge into the exit of
// a straight-line function.
func exitTerm(t testing.TB, g *ir.TFG, i int) ir.Term {
	t.Helper()
	c := g.Collapse(nil)
	var in []*ir.Edge
	for _, e := range c.Edges {
		if c.Nodes[e.To].Kind == ir.NodeExit {
			in = append(in, e)
		}
	}
	if len(in) != 1 {
		t.Fatalf("%d edges into the exit", len(in))
	}
	return ir.Simplify(g.B, in[0].Transfer[i])
}

const globalsSrc = `
int g, h[16];
int get(void) { return g + h[3]; }
void put(int i, int v) { h[i] = v; }
`

// TestTFGSymbolicGlobals: globals are addressed through "&sym" variables,
// never through the numbers a layout gives them, so gcc's and clang's
// objects (different layouts and relocations) give the same terms.
func TestTFGSymbolicGlobals(t *testing.T) {
	b := ir.NewBuilder()
	var rax []ir.Term
	for _, cc := range []string{"gcc", "clang-16"} {
		obj := compileSource(t, cc, "globals", globalsSrc, "-O2")
		_, g := liftNamed(t, b, obj, "get", StateNames{})
		r := exitTerm(t, g, StateGPR0+RAX)
		vars := varsOf(b, r)
		if !vars["&g"] || !vars["&h"] || !vars["mem"] {
			t.Errorf("%s: get returns %s, want a load through &g and &h", cc, b.Short(r))
		}
		rax = append(rax, ir.Simplify(b, b.Extract(r, 31, 0)))
		_, g = liftNamed(t, b, obj, "put", StateNames{})
		m := exitTerm(t, g, StateMem)
		if !varsOf(b, m)["&h"] {
			t.Errorf("%s: put's store %s does not go through &h", cc, b.Short(m))
		}
	}
	if rax[0] != rax[1] {
		// Operand order may differ; the evaluator decides.
		env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{}}
		for i, name := range []string{"&g", "&h"} {
			v, _ := b.LookupVar(name)
			env.Vars[v] = ir.BVValue(ir.NewBV(64, uint64(0x1000*(i+1))))
		}
		m := ir.NewMem(0).With(0x1000, []byte{1, 2, 3, 4}).With(0x200c, []byte{5, 6, 7, 8})
		mv, _ := b.LookupVar("mem")
		env.Vars[mv] = ir.MemValue(m)
		x, err1 := ir.Eval(b, rax[0], env)
		y, err2 := ir.Eval(b, rax[1], env)
		if err1 != nil || err2 != nil || !x.Equal(y) {
			t.Errorf("gcc and clang disagree: %s = %v, %s = %v (%v %v)", b.Short(rax[0]), x, b.Short(rax[1]), y, err1, err2)
		}
	}
}

const callsSrc = `
int ext(int);
double extd(double, long);
int twice(int x) { return ext(x + 1) * 2; }
double fl(double d) { return extd(d, 7) + 1.0; }
int tail(int x) { return ext(x); }
int def(int a, short b) { return a + b; }
int usedef(int x) { return def(x, 3) + 1; }
`

// TestTFGCalls: a call is a call-site node whose edge records the call and
// gives rax the callee's uninterpreted result; a sibling call is a tail
// call on the edge into the exit.
func TestTFGCalls(t *testing.T) {
	for _, cc := range []string{"gcc", "clang-16"} {
		obj := compileSource(t, cc, "calls", callsSrc, "-O2", "-foptimize-sibling-calls")
		b := ir.NewBuilder()
		_, g := liftNamed(t, b, obj, "twice", StateNames{})
		c := g.Collapse(nil)
		var calls []ir.Call
		sites := 0
		for _, n := range c.Nodes {
			if n.Kind == ir.NodeCallSite {
				sites++
			}
		}
		for _, e := range c.Edges {
			calls = append(calls, e.Calls...)
		}
		if sites != 1 || len(calls) != 1 || calls[0].Callee != "ext" || calls[0].Tail {
			t.Fatalf("%s twice: %d call sites, calls %+v", cc, sites, calls)
		}
		r := exitTerm(t, g, StateGPR0+RAX)
		if !funcsOf(b, r)["call:ext/1.rax"] {
			t.Errorf("%s twice returns %s", cc, b.Short(r))
		}

		_, g = liftNamed(t, b, obj, "tail", StateNames{})
		var tails []ir.Call
		for _, e := range g.Edges {
			if g.Nodes[e.To].Kind == ir.NodeExit {
				tails = append(tails, e.Calls...)
			}
		}
		if len(tails) != 1 || !tails[0].Tail || tails[0].Callee != "ext" {
			t.Errorf("%s tail: calls into the exit %+v", cc, tails)
		}

		_, g = liftNamed(t, b, obj, "fl", StateNames{})
		r = exitTerm(t, g, StateXMM0)
		if !funcsOf(b, r)["call:extd/2.xmm0"] {
			t.Errorf("%s fl returns %s", cc, b.Short(r))
		}

		// def is defined here with DWARF: its call passes two widened
		// arguments, the stack pointer and the memory.
		_, g = liftNamed(t, b, obj, "usedef", StateNames{})
		for _, e := range g.Edges {
			for _, call := range e.Calls {
				if call.Callee == "def" && len(call.Args) != 4 {
					t.Errorf("%s usedef: def gets %d arguments", cc, len(call.Args))
				}
			}
		}
	}
}

const vecSrc = `
int a[1024];
void addc(void) { for (int i = 0; i < 1024; i++) a[i] = a[i] * 3 + 0x01020304; }
`

// TestTFGConstantPool: vector constants loaded from .rodata.cst16 are
// folded into the terms, their 16-byte alignment checks too (the pool's
// section is 16-byte aligned); no address of a constant pool survives,
// not even in a fault condition.
func TestTFGConstantPool(t *testing.T) {
	for _, cc := range []string{"gcc", "clang-16"} {
		obj := compileSource(t, cc, "vec", vecSrc, "-O3")
		b := ir.NewBuilder()
		fn, g := liftNamed(t, b, obj, "addc", StateNames{})
		pool := false
		for _, in := range fn.Insts {
			for _, r := range in.Refs {
				if strings.HasPrefix(r.Symbol, ".rodata") || strings.HasPrefix(r.Symbol, ".LC") {
					pool = true
				}
			}
		}
		for _, v := range poolAddrsLeft(b, g) {
			t.Errorf("%s: constant pool address %s left in the TFG", cc, v)
		}
		if !pool {
			t.Logf("%s: no constant pool in addc", cc)
		}
	}
}

// TestTFGUnsupported: what the semantics cannot lift is recorded, ends the
// path at the halt node and shows in the lift summary, by mnemonic.
func TestTFGUnsupported(t *testing.T) {
	// rdtsc; ret
	fn := BuildCFG("f", 0x1000, DecodeBytes([]byte{0x0f, 0x31, 0xc3}, 0x1000))
	g := BuildTFG(ir.NewBuilder(), fn, TFGOptions{})
	if len(g.Unsupported) != 1 || UnsupportedMnemonic(g.Unsupported[0]) != "RDTSC" {
		t.Fatalf("unsupported %v", g.Unsupported)
	}
	s := SummaryOf(fn, g)
	if len(s.Unsupported) != 1 || s.Unsupported[0] != "RDTSC" {
		t.Fatalf("summary unsupported %v", s.Unsupported)
	}
	var halt *ir.Edge
	for _, e := range g.Edges {
		if e.To == g.Halt {
			halt = e
		}
	}
	if halt == nil || halt.Unsupported == "" {
		t.Fatalf("no unsupported edge to the halt node")
	}
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestTFGDivFault: a division's #DE is the edge's fault condition.
func TestTFGDivFault(t *testing.T) {
	// mov eax, edi; cdq; idiv esi; ret
	fn := BuildCFG("f", 0, DecodeBytes([]byte{0x89, 0xf8, 0x99, 0xf7, 0xfe, 0xc3}, 0))
	b := ir.NewBuilder()
	g := BuildTFG(b, fn, TFGOptions{})
	if len(g.Edges) != 1 {
		t.Fatalf("%d edges", len(g.Edges))
	}
	f := g.Edges[0].Fault
	env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{}}
	for _, sv := range g.State {
		env.Vars[sv.Var] = ir.Value{}
	}
	rdi, _ := b.LookupVar("rdi")
	rsi, _ := b.LookupVar("rsi")
	for _, c := range []struct {
		x, y  uint64
		fault bool
	}{{7, 2, false}, {7, 0, true}, {0x80000000, 0xffffffff, true}, {0x80000000, 1, false}} {
		env.Vars[rdi] = ir.BVValue(ir.NewBV(64, c.x))
		env.Vars[rsi] = ir.BVValue(ir.NewBV(64, c.y))
		v, err := ir.Eval(b, f, env)
		if err != nil {
			t.Fatal(err)
		}
		if v.Bool() != c.fault {
			t.Errorf("idiv %#x / %#x: fault %v", c.x, c.y, v.Bool())
		}
	}
}

// TestConstPoolLoadWithIndexIsNotFolded: a load from a constant pool at a
// register-indexed address (clang -O3 moves small tables into mergeable
// sections and indexes them) must read memory, not the pool's first bytes.
// Folding it once made `sq[i & 7]` a constant.
func TestConstPoolLoadWithIndexIsNotFolded(t *testing.T) {
	src := "static const unsigned char sq[8] = {0, 1, 4, 9, 16, 25, 36, 49};\nint square(int i) { return sq[i & 7] + 1; }\n"
	dir := t.TempDir()
	c := filepath.Join(dir, "sq.c")
	o := filepath.Join(dir, "sq.o")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("clang-16", "-g", "-O3", "-fno-inline", "-fno-pie", "-c", c, "-o", o).CombinedOutput(); err != nil {
		t.Fatalf("clang-16: %v\n%s", err, out)
	}
	f, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	fn, err := f.Function("square")
	if err != nil {
		t.Fatal(err)
	}
	b := ir.NewBuilder()
	g := f.TFG(b, fn, StateNames{})
	e := g.PathSet(g.Entry, g.Exit, ir.PathOptions{})
	rax := e.Transfer[StateGPR0+RAX]
	selects := 0
	for _, u := range b.PostOrder(rax) {
		if b.Op(u) == ir.OpSelect {
			selects++
		}
	}
	if selects == 0 {
		t.Errorf("rax = %s reads no memory: the indexed table load was folded to a constant", smtlib.TermString(b, rax))
	}
}
