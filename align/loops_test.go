package align

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"eqc/align/product/learning"
	"eqc/align/product/pair"
	"eqc/align/verify"
	"eqc/bench"
	"eqc/prove"
)

// The loop engine on testdata/loops/base.c (the seeds' loop examples and
// element-wise kernels over fixed-length global arrays; gcc-12 and clang-16
// vectorize them at -O3) and its mutants (testdata/loops/mutants.txt).
// A base pair shows no difference on any differential-test input; the
// pairs testdata/loops/expected.txt lists reach their verdict (with a
// generous budget: it is the engine's reach, not its speed, that is
// pinned); and every mutant is never equivalent and, unless mutants.txt
// expects otherwise, not-equivalent with an input the real runs
// confirmed.
func TestLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves loops: minutes")
	}
	objs, mutants := compileLoops(t, "testdata/loops")
	funcs, err := bench.GlobalFunctions(objs["gcc-12 O0 base.c"])
	if err != nil {
		t.Fatal(err)
	}
	request := func(cc, fn, dstFile string, timeout time.Duration) Request {
		return Request{SrcPath: objs[cc+" O0 base.c"], SrcFunc: fn, DstPath: objs[cc+" O3 "+dstFile], DstFunc: fn, UB: "none", Timeout: timeout}
	}

	// Base pairs: the same source never differs on real runs. Two at a
	// time, as everything below: each run is one thread.
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan bool, 2)
	for _, cc := range compilers {
		for _, fn := range funcs {
			req := request(cc, fn, "base.c", 0)
			p, err := pair.Load(req.SrcPath, req.SrcFunc, req.DstPath, req.DstFunc)
			if err != nil {
				t.Fatalf("%s %s: %v", cc, fn, err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- true
				defer func() { <-sem }()
				d := diffTest(context.Background(), req, 0, p)
				t.Logf("%s O0->O3 base.c %s: %s", cc, fn, d)
				if d.c != nil {
					t.Errorf("%s %s: the same source differs at -O0 and -O3 on input %+v: %q", cc, fn, shownInput(d.in, d.c), d.c.Differences)
				}
				if d.note != "" {
					t.Errorf("%s %s: differential test stopped: %s", cc, fn, d.note)
				}
			}()
		}
	}
	wg.Wait()

	// Goldens (expected.txt) and mutants, two at a time (each solver call
	// is one thread).
	for _, g := range readLoopGoldens(t, "testdata/loops", funcs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			defer func() { <-sem }()
			req := request(g.cc, g.fn, "base.c", 4*time.Minute)
			req.UB, req.Engine = g.ub, g.engine
			checkGolden(t, &mu, fmt.Sprintf("%s %s -O0 vs -O3 base.c --ub %s --engine %s", g.cc, g.fn, g.ub, g.engine), req, g.want)
		}()
	}
	wg.Wait()

	for _, cc := range compilers {
		for _, m := range mutants {
			key := cc + " O0->O3 mutant_" + m.name + ".c " + m.fn
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- true
				defer func() { <-sem }()
				checkMutant(t, &mu, key, m, request(cc, m.fn, "mutant_"+m.name+".c", 30*time.Second))
			}()
		}
	}
	wg.Wait()
}

// loopGolden is one line of testdata/loops/expected.txt.
type loopGolden struct{ cc, fn, want, ub, engine string }

// readLoopGoldens parses expected.txt; every function must be one of funcs.
func readLoopGoldens(t *testing.T, testdata string, funcs []string) []loopGolden {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(testdata, "expected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []loopGolden
	for i, line := range strings.Split(string(text), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 3 || len(f) > 5 || !slices.Contains(compilers, f[0]) || !slices.Contains(funcs, f[1]) || (f[2] != Equivalent && f[2] != Unknown && f[2] != NotEquivalent) {
			t.Fatalf("expected.txt:%d: want COMPILER<tab>FUNCTION<tab>VERDICT[<tab>UB[<tab>ENGINE]] of base.c: %q", i+1, line)
		}
		g := loopGolden{f[0], f[1], f[2], "none", EngineStatic}
		if len(f) >= 4 {
			g.ub = f[3]
		}
		if len(f) == 5 {
			g.engine = f[4]
			if g.engine != EngineStatic && g.engine != EngineData {
				t.Fatalf("expected.txt:%d: engine %q is not %s or %s", i+1, g.engine, EngineStatic, EngineData)
			}
		}
		out = append(out, g)
	}
	return out
}

// loopMutant is one line of testdata/loops/mutants.txt.
type loopMutant struct {
	name, fn, from, to string
	expected           string // the verdict required
}

// parseMutant reads the fields NAME FUNCTION TEXT REPLACEMENT [EXPECTED]
// of one mutants line (where names it in messages); seen holds the names
// read so far.
func parseMutant(t *testing.T, where string, f []string, seen map[string]bool) loopMutant {
	t.Helper()
	if len(f) != 4 && len(f) != 5 {
		t.Fatalf("%s: want NAME<tab>FUNCTION<tab>TEXT<tab>REPLACEMENT[<tab>EXPECTED]: %q", where, strings.Join(f, "\t"))
	}
	m := loopMutant{name: f[0], fn: f[1], from: f[2], to: f[3], expected: NotEquivalent}
	if len(f) == 5 {
		m.expected = f[4]
	}
	if seen[m.name] || (m.expected != NotEquivalent && m.expected != Unknown) {
		t.Fatalf("%s: name %q used twice or expected verdict %q not %s or %s", where, m.name, m.expected, NotEquivalent, Unknown)
	}
	seen[m.name] = true
	return m
}

// checkGolden checks one pair against want: a verdict, and for unknown
// the start of the reason after a space. An equivalent verdict must come
// from the engine req asks for (either, for auto), with a proof the proof
// checker accepts.
// It returns the proof when one of its target steps is split by via sets.
func checkGolden(t *testing.T, mu *sync.Mutex, key string, req Request, want string) *prove.ProofFile {
	ps, _, err := prove.New(prove.Options{CacheSize: 256})
	if err != nil {
		t.Error(err)
		return nil
	}
	defer ps.Close()
	res, err := Check(context.Background(), req, ps)
	if err != nil {
		t.Errorf("%s: %v", key, err)
		return nil
	}
	verified := "-"
	var v verify.Verification
	if res.Verdict == Equivalent && res.Proof != nil {
		v, err = verify.Verify(context.Background(), verify.Request{Proof: res.Proof, SrcPath: req.SrcPath, DstPath: req.DstPath, Timeout: req.Timeout, PinEqualities: learning.Equalities}, ps)
		if err != nil {
			t.Errorf("%s: %v", key, err)
			return nil
		}
		verified = fmt.Sprintf("%v in %.1fs", v.Verified, v.WallS)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%s: %s by %s (%s) %.1fs, %d queries, %d nodes, %d edges, %d test vectors, %d predicate assignments, %d/%d invariants kept; proof verified: %s", key, res.Verdict, res.Engine, res.Reason, res.WallS, res.SMTQueries, res.ProductNodes, res.ProductEdges, res.TestVectors, res.AlignmentPredicatesTried, res.Invariants, res.Candidates, verified)
	verdict, reason, _ := strings.Cut(want, " ")
	if res.Verdict != verdict || !strings.HasPrefix(res.Reason, reason) {
		t.Errorf("%s: %s (%s), want %s", key, res.Verdict, res.Reason, want)
	}
	if strings.HasPrefix(res.Reason, "no-alignment-predicate") && !strings.HasSuffix(res.Reason, "(nor without heap equality)") {
		t.Errorf("%s: %s: the search did not go on without heap equality", key, res.Reason)
	}
	provedBy := res.Engine == req.Engine || req.Engine == EngineAuto && (res.Engine == EngineStatic || res.Engine == EngineData)
	if res.Verdict == Equivalent && (!provedBy || res.Proof == nil || !v.Verified) {
		t.Errorf("%s: proved by the %s engine, proof verified %v (%s)", key, res.Engine, v.Verified, v.Reason)
	}
	if res.Proof != nil {
		for _, e := range res.Proof.Product.Edges {
			if len(e.DstVia) > 0 {
				return res.Proof
			}
		}
	}
	return nil
}

// checkMutant checks mutant m with req (its own solver) and reports under
// mu: never equivalent; the expected verdict, where unknown also accepts a
// confirmed difference (the confirming runs fitted after all); a
// not-equivalent verdict with its input and observed differences.
func checkMutant(t *testing.T, mu *sync.Mutex, key string, m loopMutant, req Request) {
	ps, _, err := prove.New(prove.Options{CacheSize: 64})
	if err != nil {
		t.Error(err)
		return
	}
	defer ps.Close()
	res, err := Check(context.Background(), req, ps)
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		t.Errorf("%s: %v", key, err)
		return
	}
	t.Logf("%s: %s (%s) %.1fs, %d test vectors, observed %q", key, res.Verdict, res.Reason, res.WallS, res.TestVectors, res.Observed)
	switch {
	case res.Verdict == Equivalent:
		t.Errorf("UNSOUND: %s is a mutant but was proved equivalent", key)
	case res.Verdict == NotEquivalent && (res.Input == nil || len(res.Observed) == 0):
		t.Errorf("%s: not-equivalent without a confirmed input", key)
	case res.Verdict != m.expected && !(m.expected == Unknown && res.Verdict == NotEquivalent):
		t.Errorf("%s: %s (%s), want %s", key, res.Verdict, res.Reason, m.expected)
	}
}

// readLoopMutants parses mutants.txt and writes mutant_NAME.c into dir for
// each mutant.
func readLoopMutants(t *testing.T, testdata, dir string) []loopMutant {
	t.Helper()
	base, lines := readMutantSpec(t, testdata)
	var out []loopMutant
	seen := map[string]bool{}
	for _, l := range lines {
		m := parseMutant(t, fmt.Sprintf("mutants.txt:%d", l.n), l.fields, seen)
		lo, hi := definition(base, m.fn)
		if lo < 0 || strings.Count(base[lo:hi], m.from) != 1 {
			t.Fatalf("mutants.txt:%d: %q must occur once in the definition of %s in base.c", l.n, m.from, m.fn)
		}
		at := lo + strings.Index(base[lo:hi], m.from)
		writeMutant(t, dir, m.name, base[:at]+m.to+base[at+len(m.from):])
		out = append(out, m)
	}
	return out
}

// definition is the byte range of function fn's definition in C source
// written in the style of base.c (the name at the start of a line's
// declarator, the body ending with a "}" line); -1 when there is none.
func definition(src, fn string) (int, int) {
	loc := regexp.MustCompile(`(?m)^[A-Za-z].*\b` + regexp.QuoteMeta(fn) + `\(`).FindStringIndex(src)
	if loc == nil {
		return -1, -1
	}
	end := strings.Index(src[loc[0]:], "\n}\n")
	if end < 0 {
		return -1, -1
	}
	return loc[0], loc[0] + end + 3
}

// compileLoops compiles base.c at -O0 and -O3 and every mutant at -O3 with
// both compilers, through package bench so the flags are the suite's. It
// returns the objects by "compiler level file" and the mutants.
func compileLoops(t *testing.T, testdata string) (map[string]string, []loopMutant) {
	t.Helper()
	srcDir := t.TempDir()
	base, _ := filepath.Abs(filepath.Join(testdata, "base.c"))
	mutants := readLoopMutants(t, testdata, srcDir)
	srcs := []string{base}
	for _, m := range mutants {
		srcs = append(srcs, filepath.Join(srcDir, "mutant_"+m.name+".c"))
	}
	return compileSources(t, base, srcs, []string{"O0", "O3"}, "O3"), mutants
}
