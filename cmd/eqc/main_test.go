package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// eqc runs the command in process and returns its exit status and output.
func eqc(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestHelpListsEverySubcommand(t *testing.T) {
	code, out, _ := eqc("--help")
	if code != 0 {
		t.Fatalf("--help exited %d", code)
	}
	for _, name := range []string{"check", "lift", "trace", "sweep", "report", "proof", "version"} {
		if !strings.Contains(out, "eqc "+name) {
			t.Errorf("--help does not list %q:\n%s", name, out)
		}
	}
}

func TestUsageErrorsExit64(t *testing.T) {
	for _, args := range [][]string{nil, {"frobnicate"}, {"lift"}, {"lift", "--no-such-flag", "x"}} {
		if code, _, _ := eqc(args...); code != exitUsage {
			t.Errorf("eqc %q exited %d, want %d", args, code, exitUsage)
		}
	}
	// A subcommand that is not built yet says so and exits 64.
	for _, c := range commands() {
		if c.run != nil {
			continue
		}
		code, _, errOut := eqc(c.name)
		if code != exitUsage || !strings.Contains(errOut, "not built yet") {
			t.Errorf("eqc %s: exit %d, stderr %q; want 64 and 'not built yet'", c.name, code, errOut)
		}
	}
}

func TestLift(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "f.c")
	obj := filepath.Join(dir, "f.o")
	os.WriteFile(src, []byte("int sum(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }\n"+
		"static int twice(int x) { return 2 * x; }\nint use(int x) { return twice(x); }\n"), 0o644)
	if out, err := exec.Command("gcc", "-g", "-O2", "-fno-inline", "-c", src, "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	code, out, errOut := eqc("lift", "--json", obj)
	if code != 0 {
		t.Fatalf("lift exited %d: %s", code, errOut)
	}
	got := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("not JSON Lines: %q: %v", line, err)
		}
		for _, k := range []string{"file", "function", "instructions", "blocks", "loops", "unsupported"} {
			if _, ok := row[k]; !ok {
				t.Errorf("row %q lacks %q", line, k)
			}
		}
		got[row["function"].(string)] = row
	}
	for _, fn := range []string{"sum", "twice", "use"} {
		if got[fn] == nil {
			t.Errorf("function %s not lifted; got %v", fn, got)
		}
	}
	if l := got["sum"]["loops"]; l != float64(1) {
		t.Errorf("sum has %v loops, want 1", l)
	}
}

func TestLiftBadFileExit65(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "notelf.o")
	os.WriteFile(bad, []byte("hello"), 0o644)
	code, _, errOut := eqc("lift", bad)
	if code != exitBadInput {
		t.Errorf("exit %d, want %d", code, exitBadInput)
	}
	if lines := strings.Split(strings.TrimSpace(errOut), "\n"); len(lines) != 1 || !strings.Contains(errOut, bad) {
		t.Errorf("want one line naming %s, got %q", bad, errOut)
	}
}

func TestSMT(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	sat := write("sat.smt2", "(declare-fun x () (_ BitVec 8))\n(assert (= (bvmul x #x03) #x01))\n")
	unsat := write("unsat.smt2", "(declare-fun x () (_ BitVec 8))\n(assert (not (= (bvsub (bvadd x x) x) x)))\n")
	bad := write("bad.smt2", "(assert (frobnicate))\n")
	for _, solver := range []string{"z3", "cvc5", "boolector", "z3,cvc5"} {
		code, out, errOut := eqc("smt", "--solver", solver, sat)
		if code != 0 || !strings.HasPrefix(out, "sat\n") || !strings.Contains(out, "x = #xab") {
			t.Errorf("%s on sat: exit %d, out %q, err %q", solver, code, out, errOut)
		}
		if code, out, _ := eqc("smt", "--solver", solver, unsat); code != 0 || !strings.HasPrefix(out, "unsat\n") {
			t.Errorf("%s on unsat: exit %d, out %q", solver, code, out)
		}
	}
	if code, _, errOut := eqc("smt", bad); code != exitBadInput || !strings.Contains(errOut, bad) {
		t.Errorf("bad file: exit %d, err %q; want 65 naming the file", code, errOut)
	}
	if code, _, _ := eqc("smt", "--solver", "yices", sat); code != exitUsage {
		t.Errorf("unknown solver: exit %d, want 64", code)
	}
}

// TestLiftSuiteSummary compiles a suite of the user's own (a directory of C
// files, no manifest) with both compilers at every level and lifts it.
func TestLiftSuiteSummary(t *testing.T) {
	dir := t.TempDir()
	suite := filepath.Join(dir, "mysuite")
	os.Mkdir(suite, 0o755)
	os.WriteFile(filepath.Join(suite, "k.c"), []byte("int k(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i] * 3; return s; }\n"), 0o644)
	code, out, errOut := eqc("lift", "--suite", suite, "--summary", "--json", "--out", filepath.Join(dir, "obj"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	groups := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var g liftGroup
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		groups++
		if g.Objects != 1 || g.Functions != 1 || g.Lifted != 1 || g.Loops < 1 { // vectorized code adds epilogue loops
			t.Errorf("group %s %s %s: %+v, want one fully lifted function with a loop", g.Compiler, g.Opt, g.Variant, g)
		}
	}
	if groups != 12 { // 2 compilers × O0 O1 O2 O3 O2+sse4.2 O3+sse4.2
		t.Errorf("%d groups, want 12:\n%s", groups, out)
	}
	if code, _, errOut := eqc("lift", "--suite", "no-such-suite", "--summary"); code != exitUsage || errOut == "" {
		t.Errorf("unknown suite: exit %d, stderr %q; want 64 and a message", code, errOut)
	}
}

// TestCheckExitCodes runs eqc check on a loop-free function, its -O3 build
// and a mutant, through every exit status of the contract.
func TestCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	build := func(name, src, opt string) string {
		c := filepath.Join(dir, name+".c")
		o := filepath.Join(dir, name+"."+opt+".o")
		os.WriteFile(c, []byte(src), 0o644)
		if out, err := exec.Command("gcc", "-g", "-"+opt, "-fno-inline", "-fno-pie", "-fno-stack-protector", "-fcf-protection=none", "-c", c, "-o", o).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		return o
	}
	good := "int f(int x, int y) { return (x + y) * 3 - y; }\n"
	o0 := build("good", good, "O0")
	o3 := build("good", good, "O3")
	bad := build("bad", "int f(int x, int y) { return (x + y) * 3 + y; }\n", "O3")
	if code, out, errOut := eqc("check", "--json", o0, o3); code != exitEquivalent || !strings.Contains(out, `"verdict":"equivalent"`) {
		t.Errorf("equivalent pair: exit %d, out %s, err %s", code, out, errOut)
	}
	if code, out, _ := eqc("check", "--json", "--ub", "none", o0, bad); code != exitNotEquivalent || !strings.Contains(out, `"input"`) {
		t.Errorf("mutant with --ub none: exit %d, out %s; want 1 with an input", code, out)
	}
	// Under a UB model (the default, all) too, on an input on which the
	// source's monitored run has no undefined behaviour.
	if code, out, _ := eqc("check", "--json", o0, bad); code != exitNotEquivalent || !strings.Contains(out, `"input"`) {
		t.Errorf("mutant with --ub all: exit %d, out %s; want 1 with an input", code, out)
	}
	// An unknown model is a usage error naming the valid ones.
	if code, _, errOut := eqc("check", "--ub", "all,-nosuch", o0, o3); code != exitUsage || !strings.Contains(errOut, "sio, tbsa, obva") {
		t.Errorf("--ub all,-nosuch: exit %d, err %q; want 64 naming the models", code, errOut)
	}
	for _, args := range [][]string{{"--engine", "magic", o0, o3}, {"--correlator", "dfs", o0, o3}, {"--proof", "/dev/null/proofs", o0, o3}, {"--ub", "bogus", o0, o3}, {o0}} {
		if code, _, _ := eqc(append([]string{"check"}, args...)...); code != exitUsage {
			t.Errorf("check %v: exit %d, want 64", args, code)
		}
	}
	if code, _, errOut := eqc("check", "--func", "nosuch", o0, o3); code != exitBadInput || !strings.Contains(errOut, "nosuch") {
		t.Errorf("missing function: exit %d, err %q; want 65 naming it", code, errOut)
	}
}
