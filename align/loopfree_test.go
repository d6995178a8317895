package align

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
	"eqc/bench"
	"eqc/prove"
)

var update = flag.Bool("update", false, "rewrite testdata/loopfree.golden from this run")

// The golden cases: testdata/loopfree/base.c compiled by gcc-12 and
// clang-16, each function at -O0 and -O1 checked against -O3 (expected
// equivalent), and for each line of mutants.txt, function F of the base at
// -O0 checked against the mutated source at -O3 (expected not-equivalent, with an input
// the tracer confirmed). The verdicts are recorded in
// testdata/loopfree.golden; `go test ./align -run Golden -update` rewrites
// it. Independently of the file, a mutant must never be equivalent and a
// base pair never not-equivalent.

var compilers = []string{"gcc-12", "clang-16"}

type goldenCase struct {
	cc, srcOpt, dstOpt, fn, dstFile string
}

func (c goldenCase) key() string {
	return fmt.Sprintf("%s %s->%s %s %s", c.cc, c.srcOpt, c.dstOpt, c.dstFile, c.fn)
}

// mutantLine is one line of a testdata mutants.txt: its number, its text
// and its tab-separated fields.
type mutantLine struct {
	n      int
	text   string
	fields []string
}

// readMutantSpec reads testdata's base.c and the lines of its mutants.txt
// (blank lines and # comments left out).
func readMutantSpec(t *testing.T, testdata string) (string, []mutantLine) {
	t.Helper()
	base, err := os.ReadFile(filepath.Join(testdata, "base.c"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile(filepath.Join(testdata, "mutants.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []mutantLine
	for i, line := range strings.Split(string(spec), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, mutantLine{i + 1, line, strings.Split(line, "\t")})
		}
	}
	return string(base), out
}

// writeMutant writes the source of mutant name into dir as mutant_name.c.
func writeMutant(t *testing.T, dir, name, src string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "mutant_"+name+".c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeMutants writes mutant_F.c into dir for every line of
// testdata/mutants.txt, and returns the functions.
func writeMutants(t *testing.T, testdata, dir string) []string {
	t.Helper()
	base, lines := readMutantSpec(t, testdata)
	var fns []string
	for _, l := range lines {
		f := l.fields
		if len(f) != 3 || strings.Count(base, f[1]) != 1 {
			t.Fatalf("mutants.txt:%d: want FUNCTION<tab>TEXT<tab>REPLACEMENT with TEXT occurring once in base.c: %q", l.n, l.text)
		}
		writeMutant(t, dir, f[0], strings.Replace(base, f[1], f[2], 1))
		fns = append(fns, f[0])
	}
	return fns
}

// compileAll compiles base.c and the mutants with both compilers at the
// levels used, through package bench so the flags are the suite's. It
// returns the objects by "compiler level file" and the mutated functions.
func compileAll(t *testing.T, testdata string, baseLevels []string) (map[string]string, []string) {
	t.Helper()
	return compileAllTo(t, testdata, baseLevels, "O3")
}

// compileAllTo is compileAll with the mutants at dstLevel.
func compileAllTo(t *testing.T, testdata string, baseLevels []string, dstLevel string) (map[string]string, []string) {
	t.Helper()
	srcDir := t.TempDir()
	base, _ := filepath.Abs(filepath.Join(testdata, "base.c"))
	mutated := writeMutants(t, testdata, srcDir)
	srcs := []string{base}
	for _, fn := range mutated {
		srcs = append(srcs, filepath.Join(srcDir, "mutant_"+fn+".c"))
	}
	return compileSources(t, base, srcs, baseLevels, dstLevel), mutated
}

// compileSources compiles base at baseLevels and every other source at
// dstLevel with both compilers. It returns the objects by "compiler level
// file".
func compileSources(t *testing.T, base string, srcs, baseLevels []string, dstLevel string) map[string]string {
	t.Helper()
	var builds []aligntest.Build
	for _, name := range compilers {
		for _, src := range srcs {
			levels := []string{dstLevel}
			if src == base {
				levels = baseLevels
			}
			for _, lvl := range levels {
				builds = append(builds, aligntest.Build{CC: name, Src: src, Lvl: lvl})
			}
		}
	}
	objs := map[string]string{}
	for bd, path := range aligntest.CompileBuilds(t, builds, bench.DefaultVariant) {
		objs[bd.CC+" "+bd.Lvl+" "+filepath.Base(bd.Src)] = path
	}
	return objs
}

func TestGoldenLoopFree(t *testing.T) {
	goldenLoopFree(t, "testdata/loopfree", "testdata/loopfree.golden", []string{"O0", "O1"}, 60*time.Second)
}

// TestGoldenLoopFreeCalls is the same test on loop-free functions that make
// calls (testdata/loopfreecalls): externs with and without prototypes,
// variadic and with stack arguments, tail calls, recursion, sequences.
func TestGoldenLoopFreeCalls(t *testing.T) {
	// 40 s: errno's and the ctype table's reads go past the frame's
	// stores in the solver (keeperr, digit: 7-12 s on an idle machine).
	goldenLoopFree(t, "testdata/loopfreecalls", "testdata/loopfreecalls.golden", []string{"O0"}, 40*time.Second)
}

// TestGoldenSwitches is the same test on switches compiled to jump tables
// (testdata/switches): dense and masked indices, fall-through, a switch in
// a loop; built with eqc's flags (tables of addresses) and as Debian's
// compilers build by default, position independent (tables of offsets).
func TestGoldenSwitches(t *testing.T) {
	got := map[string]string{}
	for _, pic := range []string{"", "+pie"} {
		objs, mutated := compileAllTo(t, "testdata/switches", []string{"O0" + pic, "O3" + pic}, "O3"+pic)
		maps.Copy(got, runGoldenCasesTo(t, objs, mutated, []string{"O0" + pic}, "O3"+pic, []string{"all"}, 30*time.Second))
	}
	compareGolden(t, "testdata/switches.golden", got)
}

// goldenLoopFree runs the golden test of testdata against golden: base.c
// at each of srcOpts against -O3, and the mutants, each check within
// timeout, under each of models (none and all when not given).
func goldenLoopFree(t *testing.T, testdata, golden string, srcOpts []string, timeout time.Duration, models ...string) {
	if len(models) == 0 {
		models = []string{"none", "all"}
	}
	objs, mutated := compileAll(t, testdata, append(append([]string(nil), srcOpts...), "O3"))
	compareGolden(t, golden, runGoldenCases(t, objs, mutated, srcOpts, models, timeout))
}

// runGoldenCases checks, under each of models, every function of base.c
// at each of srcOpts against -O3, and under the last model every mutant
// against base.c -O0,
// with both compilers, two checks at a time (each with a solver of its
// own), and returns the verdicts by golden key.
func runGoldenCases(t *testing.T, objs map[string]string, mutated, srcOpts, models []string, timeout time.Duration) map[string]string {
	return runGoldenCasesTo(t, objs, mutated, srcOpts, "O3", models, timeout)
}

// runGoldenCasesTo is runGoldenCases against dstOpt, the mutants against
// base.c at the first of srcOpts.
func runGoldenCasesTo(t *testing.T, objs map[string]string, mutated, srcOpts []string, dstOpt string, models []string, timeout time.Duration) map[string]string {
	funcs, err := commonNames(objs["gcc-12 "+srcOpts[0]+" base.c"])
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, cc := range compilers {
		for _, fn := range funcs {
			for _, srcOpt := range srcOpts {
				cases = append(cases, goldenCase{cc, srcOpt, dstOpt, fn, "base.c"})
			}
		}
		for _, fn := range mutated {
			cases = append(cases, goldenCase{cc, srcOpts[0], dstOpt, fn, "mutant_" + fn + ".c"})
		}
	}
	got := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan bool, 2)
	for _, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			defer func() { <-sem }()
			s, _, err := prove.New(prove.Options{CacheSize: 256})
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			one := map[string]string{}
			ms := models
			if strings.HasPrefix(c.dstFile, "mutant_") {
				// A mutant under the last model only: the one with the
				// most premises, under which a proof of a mutant, the
				// failure the mutants are there to catch, is likeliest.
				ms = models[len(models)-1:]
			}
			for _, model := range ms {
				checkGoldenLoopFree(t, objs, c, model, timeout, s, one)
			}
			mu.Lock()
			maps.Copy(got, one)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return got
}

// checkGoldenLoopFree checks one case under one UB model, recording the
// verdict in got under the case's key (suffixed with the model unless it
// is none).
func checkGoldenLoopFree(t *testing.T, objs map[string]string, c goldenCase, model string, timeout time.Duration, s prove.Solver, got map[string]string) {
	src := objs[c.cc+" "+c.srcOpt+" base.c"]
	dst := objs[c.cc+" "+c.dstOpt+" "+c.dstFile]
	res, err := Check(context.Background(), Request{SrcPath: src, SrcFunc: c.fn, DstPath: dst, DstFunc: c.fn, UB: model, Timeout: timeout}, s)
	if err != nil {
		t.Errorf("%s: %v", c.key(), err)
		return
	}
	key := c.key()
	if model != "none" {
		key += " --ub " + model
	}
	got[key] = res.Verdict
	if res.WallS > 5 {
		t.Logf("slow: %s: %.1fs %s (%s)", key, res.WallS, res.Verdict, res.Reason)
	}
	{
		mutant := c.dstFile != "base.c"
		switch {
		case mutant && res.Verdict == Equivalent:
			t.Errorf("UNSOUND: %s is a mutant but was proved equivalent", c.key())
		case !mutant && res.Verdict == NotEquivalent:
			t.Errorf("%s: same source found not-equivalent on input %+v: %v", c.key(), res.Input, res.Observed)
		case res.Verdict == NotEquivalent && (res.Input == nil || len(res.Observed) == 0):
			t.Errorf("%s: not-equivalent without a confirmed input", c.key())
		}
		if res.Verdict != Equivalent {
			t.Logf("%s: %s (%s) %v", key, res.Verdict, res.Reason, res.Observed)
		}
	}
}

// commonNames lists the functions defined in an object.
func commonNames(path string) ([]string, error) {
	p, err := bench.GlobalFunctions(path)
	return p, err
}

// compareGolden compares the verdicts got with the golden file at path
// (-update rewrites it). A golden line may allow several verdicts,
// "KEY: not-equivalent|unknown", where the outcome rests on which
// counterexample the solvers' race returns first (a mutant whose
// differing inputs mostly have undefined behaviour under --ub all): any
// of them passes, and -update keeps such a line while the verdict is
// among them.
func compareGolden(t *testing.T, path string, got map[string]string) {
	t.Helper()
	const header = "# compiler src->dst file function [--ub model]: verdict (eqc check --ub none, unless a model is named); verdicts separated by | are each accepted; regenerate with -update\n"
	allowed := map[string][]string{}
	data, err := os.ReadFile(path)
	if err != nil && !*update {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, ": "); ok {
			allowed[k] = strings.Split(v, "|")
		}
	}
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	sb.WriteString(header)
	for _, k := range keys {
		v := got[k]
		if slices.Contains(allowed[k], v) {
			v = strings.Join(allowed[k], "|")
		} else if !*update {
			t.Errorf("golden mismatch: %s: got %s, want %s", k, got[k], strings.Join(allowed[k], "|"))
		}
		fmt.Fprintf(&sb, "%s: %s\n", k, v)
	}
	for k, v := range allowed {
		if _, ok := got[k]; !ok && !*update {
			t.Errorf("golden mismatch: %s: want %s, not checked", k, strings.Join(v, "|"))
		}
	}
	if *update {
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGoldenEscapedLocals is the same test on functions that pass the
// addresses of their locals to callees (testdata/escaped).
func TestGoldenEscapedLocals(t *testing.T) {
	goldenLoopFree(t, "testdata/escaped", "testdata/escaped.golden", []string{"O0"}, 20*time.Second)
}
