package deadblocks_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"eqc/bench"
	"eqc/prove"
	"eqc/prove/deadblocks"
	"eqc/tracer"
	"eqc/x86"
)

// The proof is tested against native runs (package tracer, an oracle
// only tests import): no block a run reached may be reported dead.

// deadSrc holds functions whose dead and live blocks are known by hand.
const deadSrc = `
int a[1000], b[1000], c[1000], d[1000], e[1000];

/* TSVC s3251: gcc -O3 vectorizes by four and unrolls the scalar epilogue
   for up to six remaining iterations, of which at most three can remain. */
int epilogue(int n)
{
	for (int i = 0; i < n - 1; i++) {
		a[i + 1] = b[i] + c[i];
		b[i] = c[i] * e[i];
		d[i] = a[i] * e[i];
	}
	return 0;
}

/* At -O0 gcc keeps the inner test, which can never hold. */
int contra(int x)
{
	if (x > 5) {
		if (x < 3)
			return x * 7;
		return 1;
	}
	return 0;
}

/* Live blocks that only a long run reaches (the loop head's first state,
   i == 0, is not an invariant), or only a callee that returns different
   values for equal arguments (the tracer's stubs never do). */
int late(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++) {
		if (i == 1000)
			s += 7 * n;
		s += i;
	}
	return s;
}

int ext(void);
void note(void);
int twice(void)
{
	int x = ext();
	int y = ext();
	if (x != y)
		note();
	return x;
}
`

// compile writes src to a C file and compiles it with cc into an object.
func compile(t testing.TB, cc, name, src string, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath(cc); err != nil {
		t.Fatalf("%s not installed (run `make deps`)", cc)
	}
	dir := t.TempDir()
	c := filepath.Join(dir, name+".c")
	o := filepath.Join(dir, name+".o")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-g", "-fno-pie", "-c", "-o", o, c}, flags...)
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	return o
}

// benchObject compiles C text with the bench package's flags for the
// compiler cc at level, into its object cache.
func benchObject(t testing.TB, cc, level, name, src string) string {
	t.Helper()
	ctx := context.Background()
	comp, err := bench.LookupCompiler(ctx, cc)
	if err != nil {
		t.Skipf("%v", err)
	}
	c := filepath.Join(t.TempDir(), name+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	obj, err := bench.Compile(ctx, comp, bench.Opt{Level: level}, bench.DefaultVariant, c, filepath.Join(bench.CacheDir(), "obj"))
	if err != nil {
		t.Fatal(err)
	}
	return obj.Path
}

// tsvcObjects builds (or finds in the cache) the TSVC objects of the
// given kernels, compilers, settings and variants (nil: all of them).
func tsvcObjects(t testing.TB, kernels, compilers, opts, variants []string) []bench.Object {
	t.Helper()
	s, err := bench.Builtin("tsvc")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Prepare(filepath.Join(bench.CacheDir(), "src")); err != nil {
		t.Fatal(err)
	}
	keep := func(list []string, x string) bool { return list == nil || slices.Contains(list, x) }
	var jobs []bench.Job
	for _, j := range s.Jobs() {
		k := strings.TrimSuffix(filepath.Base(j.Source), ".c")
		if keep(kernels, k) && keep(compilers, j.Compiler) && keep(opts, j.Opt.String()) && keep(variants, j.Variant.Name) {
			jobs = append(jobs, j)
		}
	}
	for _, cc := range s.Matrix.Compilers {
		if _, err := bench.LookupCompiler(context.Background(), cc); err != nil {
			t.Skipf("%v", err)
		}
	}
	objs, err := bench.CompileAll(context.Background(), jobs, filepath.Join(bench.CacheDir(), "obj"), 0)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// deadSolver is one solver for a test.
func deadSolver(t testing.TB) prove.Solver {
	t.Helper()
	s, _, err := prove.New(prove.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// prover is Prove with solver s, as tracer's coverage takes it.
func prover(s prove.Solver) tracer.DeadProver {
	return func(ctx context.Context, t *tracer.Target, missed []int) ([]int, string, error) {
		rep, err := deadblocks.Prove(ctx, t.File, t.CFG, missed, deadblocks.Options{Solver: s})
		return rep.Dead, rep.Undecided(), err
	}
}

// deadRun is one function traced natively and analysed.
type deadRun struct {
	t        *tracer.Target
	vs       *tracer.VectorSet
	rep      *deadblocks.Report // over every block of the CFG
	gen, dur time.Duration
}

func (r *deadRun) addrs(blocks []int) []string {
	var out []string
	for _, b := range blocks {
		out = append(out, fmt.Sprintf("%#x", r.t.CFG.Blocks[b].Start))
	}
	return out
}

// traceDead links obj, generates vectors for each function, proves
// dead every block of its CFG, and checks the oracle: no block that a run
// reached is reported dead. Unless strict, a function without vectors is
// left out of the result.
func traceDead(t testing.TB, s prove.Solver, obj string, funcs []string, gen tracer.GenerateOptions, strict bool) map[string]*deadRun {
	t.Helper()
	exe, err := tracer.Link(obj, tracer.LinkOptions{Dir: t.TempDir()})
	if err != nil && !strict {
		t.Logf("%s: not linked: %v", filepath.Base(obj), err)
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	file, err := x86.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tracer.Start(exe, tracer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	out := map[string]*deadRun{}
	for _, name := range funcs {
		tg, err := tracer.NewTarget(file, exe, name)
		if err != nil && !strict {
			t.Logf("%s %s: %v", filepath.Base(obj), name, err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		tg.Proc = p
		t0 := time.Now()
		vs, err := tracer.Generate(context.Background(), []*tracer.Target{tg}, gen)
		t1 := time.Now()
		if err != nil && !strict {
			t.Logf("%s %s: no vectors: %v", filepath.Base(obj), name, err)
			continue
		}
		if err != nil {
			t.Fatalf("%s %s: %v", filepath.Base(obj), name, err)
		}
		rep, err := deadblocks.Prove(context.Background(), file, tg.CFG, nil, deadblocks.Options{Solver: s})
		if err != nil {
			t.Fatalf("%s %s: %v", filepath.Base(obj), name, err)
		}
		r := &deadRun{t: tg, vs: vs, rep: rep, gen: t1.Sub(t0), dur: time.Since(t1)}
		c := &vs.Coverage[0]
		for i, b := range c.Blocks {
			if c.Hits[i] > 0 && slices.Contains(rep.Dead, b) {
				t.Errorf("%s %s: block %#x reported dead but %d runs reached it", filepath.Base(obj), name,
					tg.CFG.Blocks[b].Start, c.Hits[i])
			}
		}
		if rep.Unknown > 0 {
			t.Logf("%s %s: %d of %d queries undecided", filepath.Base(obj), name, rep.Unknown, rep.Queries)
		}
		out[name] = r
	}
	return out
}

func TestProveDeadSmallFunctions(t *testing.T) {
	s := deadSolver(t)
	funcs := []string{"epilogue", "contra", "late", "twice"}
	for _, level := range []string{"O0", "O3"} {
		obj := benchObject(t, "gcc-12", level, "dead", deadSrc)
		runs := traceDead(t, s, obj, funcs, tracer.GenerateOptions{Vectors: 32, Seed: 1}, true)
		for _, name := range funcs {
			r := runs[name]
			t.Logf("gcc-12 %s %-8s blocks %2d dead %v queries %d invariants %d %s", level, name,
				len(r.t.CFG.RPO), r.addrs(r.rep.Dead), r.rep.Queries, r.rep.Invariants, r.rep.Reason)
		}
		// No block of these is dead, whatever the optimization level.
		for _, name := range []string{"late", "twice"} {
			if d := runs[name].rep.Dead; len(d) > 0 {
				t.Errorf("gcc-12 %s %s: live blocks %v reported dead", level, name, runs[name].addrs(d))
			}
		}
		switch level {
		case "O0":
			if len(runs["contra"].rep.Dead) != 1 {
				t.Errorf("gcc-12 -O0 contra: dead %v, want the block of x < 3", runs["contra"].addrs(runs["contra"].rep.Dead))
			}
		case "O3":
			r := runs["epilogue"]
			c := &r.vs.Coverage[0]
			if note := c.ProveMissedDead(context.Background(), r.t, prover(s)); note != "" {
				t.Logf("gcc-12 -O3 epilogue: %s", note)
			}
			if len(c.Dead) == 0 || c.Fraction() < 0.95 || c.FractionAll() >= c.Fraction() {
				t.Errorf("gcc-12 -O3 epilogue: dead %v of missed %v, coverage %.2f (all blocks %.2f)",
					r.addrs(c.Dead), r.addrs(c.Missed()), c.Fraction(), c.FractionAll())
			}
		}
	}
}

// TestProveDeadUnsupported: a function with a jump table (an indirect
// jump, lifted as the end of what is known) is not analysed.
func TestProveDeadUnsupported(t *testing.T) {
	const src = `
int table(int k, int x)
{
	switch (k) {
	case 0: return x + 1;
	case 1: return x * 3;
	case 2: return x - 7;
	case 3: return x ^ 5;
	case 4: return x << 2;
	case 5: return x >> 1;
	case 6: return x * x;
	default: return 0;
	}
}
`
	obj := compile(t, "gcc", "table", src, "-O2")
	file, err := x86.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	fn, err := file.Function("table")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(fn.Unsupported, "indirect-jump") {
		t.Skipf("gcc -O2 made no jump table (unsupported: %v)", fn.Unsupported)
	}
	rep, err := deadblocks.Prove(context.Background(), file, fn, nil, deadblocks.Options{Solver: deadSolver(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Dead) > 0 || rep.Reason != "unsupported:indirect-jump" || rep.Queries > 0 {
		t.Errorf("jump table: %+v", rep)
	}
}

// TestProveDeadS3251Param: the one TSVC build below 95% block coverage is reached
// by exactly the blocks the analysis proves dead.
func TestProveDeadS3251Param(t *testing.T) {
	s := deadSolver(t)
	objs := tsvcObjects(t, []string{"s3251"}, []string{"gcc-12"}, []string{"O3"}, []string{"param"})
	if len(objs) != 1 {
		t.Fatalf("%d objects", len(objs))
	}
	r := traceDead(t, s, objs[0].Path, []string{"s3251"}, tracer.GenerateOptions{Vectors: 64, Seed: 1}, true)["s3251"]
	c := &r.vs.Coverage[0]
	missed := c.Missed()
	if c.FractionAll() >= 0.95 {
		t.Logf("vectors alone reach %.2f", c.FractionAll())
	}
	rep, err := deadblocks.Prove(context.Background(), r.t.File, r.t.CFG, missed, deadblocks.Options{Solver: s})
	if err != nil {
		t.Fatal(err)
	}
	c.SetDead(rep.Dead)
	t.Logf("missed %v, dead %v, coverage %.3f (all blocks %.3f), %d queries, %d invariants",
		r.addrs(missed), r.addrs(c.Dead), c.Fraction(), c.FractionAll(), rep.Queries, rep.Invariants)
	if !slices.Equal(c.Dead, missed) || len(missed) != 3 {
		t.Errorf("dead %v, missed %v: want the three epilogue blocks, proved", r.addrs(c.Dead), r.addrs(missed))
	}
	// 95% exactly when the proof holds: without it, coverage stays below.
	if (c.Fraction() >= 0.95) != (len(c.Dead) == len(missed)) || c.FractionAll() >= 0.95 {
		t.Errorf("coverage %.3f with dead blocks left out, %.3f without", c.Fraction(), c.FractionAll())
	}
	// The whole-CFG analysis agrees with the one over missed blocks.
	if !slices.Equal(r.rep.Dead, c.Dead) {
		t.Errorf("dead over all blocks %v, over missed ones %v", r.addrs(r.rep.Dead), r.addrs(c.Dead))
	}
}

// TestProveDeadOracleTSVC checks the analysis against native runs over
// TSVC objects: no block any vector reached may be reported dead. By
// default it runs the s3251 and vpvtv builds at O0 and O3; with
// EQC_DEAD_ORACLE=all, every kernel at every setting of the suite's matrix
// (minutes), and then also reports the block coverage of the O0 and O3
// builds with dead blocks left out.
func TestProveDeadOracleTSVC(t *testing.T) {
	s := deadSolver(t)
	kernels, opts := []string{"s3251", "vpvtv"}, []string{"O0", "O3"}
	all := os.Getenv("EQC_DEAD_ORACLE") == "all"
	if all {
		kernels, opts = nil, nil
	}
	objs := tsvcObjects(t, kernels, nil, opts, nil)
	dead, blocks := 0, 0
	for _, o := range objs {
		fn := o.Benchmark
		r := traceDead(t, s, o.Path, []string{fn}, tracer.GenerateOptions{Vectors: 64, Seed: 1}, true)[fn]
		c := &r.vs.Coverage[0]
		blocks += len(c.Blocks)
		dead += len(r.rep.Dead)
		c.Dead = nil
		for _, b := range r.rep.Dead {
			if slices.Contains(c.Missed(), b) {
				c.Dead = append(c.Dead, b)
			}
		}
		name := fmt.Sprintf("%s.%s.%s.%s", o.Benchmark, o.Compiler, o.Opt, o.Variant)
		if len(r.rep.Dead) > 0 || r.rep.Reason != "" {
			t.Logf("%-28s dead %v %s", name, r.addrs(r.rep.Dead), r.rep.Reason)
		}
		if all && (o.Opt.String() == "O0" || o.Opt.String() == "O3") && c.Fraction() < 0.95 {
			t.Errorf("%s: coverage %.3f, missed %v, dead %v", name, c.Fraction(), r.addrs(c.Missed()), r.addrs(c.Dead))
		}
	}
	t.Logf("%d objects, %d blocks, %d proved dead", len(objs), blocks, dead)
}

// TestProveDeadOracleCorpus runs the oracle of TestProveDeadOracleTSVC over
// every function of the built-in corpus programs and the csmith programs
// (bench.Corpus, gcc-12 and clang-16 at O0..O3): code with calls,
// switches and pointer chasing. It takes minutes, so it runs only with
// EQC_DEAD_ORACLE=corpus.
func TestProveDeadOracleCorpus(t *testing.T) {
	if os.Getenv("EQC_DEAD_ORACLE") != "corpus" {
		t.Skip("set EQC_DEAD_ORACLE=corpus")
	}
	s := deadSolver(t)
	objs, err := bench.Corpus(context.Background(), bench.CacheDir())
	if err != nil {
		t.Skipf("%v", err)
	}
	funcs, dead, unsupported := 0, 0, 0
	for _, o := range objs {
		if o.Suite == "tsvc" || len(o.Functions) == 0 {
			continue
		}
		runs := traceDead(t, s, o.Path, o.Functions,
			tracer.GenerateOptions{Vectors: 16, Seed: 1, MaxRuns: 400, RunTimeout: 200 * time.Millisecond}, false)
		for _, name := range o.Functions {
			r := runs[name]
			if r == nil {
				continue
			}
			funcs++
			dead += len(r.rep.Dead)
			if r.rep.Reason != "" {
				unsupported++
			}
			if len(r.rep.Dead) > 0 || r.dur > 5*time.Second {
				t.Logf("%s %s.%s.%s %s: dead %v (%d queries, %d undecided, %v)", o.Benchmark, o.Compiler, o.Opt, o.Variant,
					name, r.addrs(r.rep.Dead), r.rep.Queries, r.rep.Unknown, r.dur.Round(time.Millisecond))
			}
		}
	}
	t.Logf("%d functions (%d not analysed), %d blocks proved dead", funcs, unsupported, dead)
}

// TestProveDeadEntryLoop: the entry is itself a loop head, so the run's
// start is a visit of a cut point; the block after the loop is live, the
// one behind a test the loop's exit already decided is dead.
func TestProveDeadEntryLoop(t *testing.T) {
	const src = `
__asm__(".text\n.globl spin\n.type spin,@function\nspin:\n"
	"\ttest %dil, %dil\n\tjz 1f\n\tdec %dil\n\tjmp spin\n"
	"1:\tcmp $0, %dil\n\tjne 2f\n\tmov $7, %eax\n\tret\n"
	"2:\tmov $1, %eax\n\tret\n.size spin, .-spin\n");
`
	obj := compile(t, "gcc", "spin", src, "-O0")
	runs := traceDead(t, deadSolver(t), obj, []string{"spin"}, tracer.GenerateOptions{Vectors: 8, Seed: 1}, true)
	r := runs["spin"]
	if r.rep.CutPoints != 1 || len(r.rep.Dead) != 1 || r.rep.Reason != "" {
		t.Fatalf("report %+v", r.rep)
	}
	if got := r.addrs(r.rep.Dead); got[0] != fmt.Sprintf("%#x", r.t.CFG.Blocks[len(r.t.CFG.Blocks)-1].Start) {
		t.Errorf("dead %v, want the last block (mov $1, %%eax)", got)
	}
	if c := r.vs.Coverage[0]; c.Covered() != len(c.Blocks)-1 {
		t.Errorf("runs reached %d of %d blocks", c.Covered(), len(c.Blocks))
	}
}
