package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"eqc/bench"
	"eqc/results"
	"eqc/ub"

	"golang.org/x/sync/errgroup"
)

// Config is one sweep.
type Config struct {
	Suite     *bench.Suite
	Compilers []string  // matrix names for bench.LookupCompiler
	SrcOpt    bench.Opt // the source side of every pair
	// SrcCompiler, when set, builds the source side of every pair with
	// this compiler, whatever compiler builds the target (cross-compiler
	// pairs, as in thesis Table 2.4); empty: each compiler's own.
	SrcCompiler string
	DstOpts     []bench.Opt // the target sides
	// UBModels are the UB models swept, each "all", "none", one model or
	// several joined with '+' ("sio+tbsa").
	UBModels []string
	Engine   string
	// Correlator is the static engine's correlator when not the
	// backtracking one: "ceg", or "" (rows record it; resume tells
	// checks apart by it).
	Correlator string
	Timeout    time.Duration // per check, passed to the worker
	// Grace is added to Timeout before the worker is killed (default 30s).
	Grace time.Duration
	Jobs  int    // checks (and compilations) at once; 0 = one per CPU
	Out   string // results directory; objects go to Out/objects, built-in sources to Out/src
	// MemBytes caps each worker's address space (prlimit --as); 0 = no cap.
	MemBytes int64
	// Shard, when not whole, runs only that part of the checks
	// (ShardOf), and names the results file after it.
	Shard Shard
	// Sample, when positive, checks only that many functions of the
	// suite, stratified by size (bench.Stratified over the source build
	// of the first compiler); the same functions with every compiler,
	// level and UB model.
	Sample int
	// Worker is the command that checks one function: argv of
	// `eqc check`, to which the sweep appends --json --func F --ub U
	// --engine E --timeout T SRC DST.
	Worker []string
	// Verifier, when set, is the argv of `eqc proof verify`: the workers
	// then write proofs under Out/proofs, and each equivalent verdict's
	// proof is rechecked with it (--json --timeout T PROOF SRC DST
	// appended); the row's proof_file and proof_verified say how it went.
	Verifier []string
	// Env is added to the environment of every worker and verifier
	// process (eqc sweep marks its workers as such: they check in
	// process, under the sweep's limits).
	Env     []string
	Version string // eqc_version of every row
	// Log receives messages and progress (stderr); Progress makes the
	// progress one updating line (a terminal) instead of a line per check.
	Log      io.Writer
	Progress bool

	prlimit string
}

// Summary is what a sweep did.
type Summary struct {
	Planned int      // checks the configuration asks for
	Resumed int      // of those, already in Out before this run
	Ran     int      // checks run (and written) by this run
	Proved  int      // this run's verdicts
	NotEq   int      //
	Unknown int      //
	Pending int      // checks left undone (interrupted)
	Failed  []string // sources that did not compile, one message each
	// Pairings count, per compiler and target setting, the functions of
	// the source builds and those without a counterpart in the optimized
	// build (over the whole suite, sampled or not).
	Pairings []Pairing
	SetAside []string // corrupt results files moved out of the way
	File     string   // the results file written ("" when no check ran)
	// Over every planned check with a row (resumed or run now).
	TotalProved, TotalNotEq, TotalUnknown int

	SetupS   float64 // before the first check: fetch, compilers, resume, compile
	ChecksS  float64 // from the first check started to the last finished
	WriteS   float64 // writing the results file
	WorkerS  float64 // sum of worker process wall times
	CheckedS float64 // sum of the workers' own wall_s
}

// Run performs a sweep. Errors are for the sweep as a whole: a missing
// compiler (*bench.MissingToolError), an unwritable --out. A source that
// does not compile is reported on Log and in Summary.Failed, and the other
// sources are still swept. When ctx is cancelled no new check starts,
// running workers are killed, and the rows finished so far are written.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	t0 := time.Now()
	if cfg.Jobs <= 0 {
		cfg.Jobs = runtime.NumCPU()
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 30 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if len(cfg.Worker) == 0 {
		return nil, errors.New("pipeline: no worker command")
	}
	sum := &Summary{}
	compilers := map[string]*bench.Compiler{}
	for _, name := range cfg.allCompilers() {
		cc, err := bench.LookupCompiler(ctx, name)
		if err != nil {
			return nil, err
		}
		compilers[name] = cc
	}
	if _, ok := cfg.witnessOpt(); ok && compilers[bench.WitnessCompiler] == nil {
		// Without it the checks simply have no witness.
		if cc, err := bench.LookupCompiler(ctx, bench.WitnessCompiler); err == nil {
			compilers[bench.WitnessCompiler] = cc
		}
	}
	if cfg.MemBytes > 0 {
		if p, err := FindPrlimit(); err == nil {
			cfg.prlimit = p
		} else {
			fmt.Fprintf(cfg.Log, "eqc sweep: prlimit (util-linux) not found: workers run without a memory cap\n")
		}
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	if err := cfg.Suite.Fetch(ctx, cfg.Log); err != nil {
		return nil, fmt.Errorf("pipeline: suite %s: %w", cfg.Suite.Name, err)
	}
	if err := cfg.Suite.Prepare(filepath.Join(cfg.Out, "src")); err != nil {
		return nil, fmt.Errorf("pipeline: suite %s: %w", cfg.Suite.Name, err)
	}

	done, err := readDone(cfg, sum)
	if err != nil {
		return nil, err
	}
	objs, err := compile(ctx, cfg, compilers, sum)
	if err != nil {
		return nil, err
	}
	checks := ShardOf(plan(cfg, objs, sum), cfg.Shard)
	sum.Planned = len(checks)
	var todo []Check
	for _, c := range checks {
		if v, ok := done[c.Key]; ok {
			sum.Resumed++
			count(v, &sum.TotalProved, &sum.TotalNotEq, &sum.TotalUnknown)
			continue
		}
		todo = append(todo, c)
	}
	if sum.Resumed > 0 {
		fmt.Fprintf(cfg.Log, "eqc sweep: %d of %d checks already have a row under %s; running the other %d\n",
			sum.Resumed, sum.Planned, cfg.Out, len(todo))
	}
	sum.SetupS = time.Since(t0).Seconds()

	t1 := time.Now()
	rows := runChecks(ctx, cfg, todo, sum)
	sum.ChecksS = time.Since(t1).Seconds()
	sum.Ran = len(rows)
	sum.Pending = len(todo) - len(rows)
	for _, r := range rows {
		count(r.Verdict, &sum.Proved, &sum.NotEq, &sum.Unknown)
		count(r.Verdict, &sum.TotalProved, &sum.TotalNotEq, &sum.TotalUnknown)
	}

	t2 := time.Now()
	if len(rows) > 0 {
		file, err := writeRows(cfg.Out, cfg.Version, cfg.Shard, rows)
		if err != nil {
			return sum, err
		}
		sum.File = file
	}
	sum.WriteS = time.Since(t2).Seconds()
	return sum, nil
}

func count(verdict string, proved, noteq, unknown *int) {
	switch verdict {
	case "equivalent":
		*proved++
	case "not-equivalent":
		*noteq++
	default:
		*unknown++
	}
}

// readDone reads the rows already under Out and returns the verdict of each
// check key present. Corrupt files are set aside, with a line on Log.
func readDone(cfg Config, sum *Summary) (map[Key]string, error) {
	set, err := results.ReadDir(cfg.Out)
	if err != nil {
		return nil, fmt.Errorf("pipeline: reading %s: %w", cfg.Out, err)
	}
	for _, bad := range set.Bad {
		var corrupt *results.CorruptError
		if errors.As(bad, &corrupt) {
			aside, err := results.SetAside(corrupt.Path, corrupt.Error())
			if err != nil {
				fmt.Fprintf(cfg.Log, "eqc sweep: %v (and could not set it aside: %v)\n", corrupt, err)
				continue
			}
			sum.SetAside = append(sum.SetAside, aside)
			fmt.Fprintf(cfg.Log, "eqc sweep: %v; set aside as %s\n", corrupt, aside)
			continue
		}
		fmt.Fprintf(cfg.Log, "eqc sweep: skipped: %v\n", bad)
	}
	done := map[Key]string{}
	for _, latest := range results.Latest(set.Rows) {
		if latest.DstFunction != "" {
			continue
		}
		done[rowKey(&latest)] = latest.Verdict
	}
	return done, nil
}

func rowKey(r *results.Row) Key {
	return Key{r.Suite, r.Benchmark, r.Function, r.Compiler, r.SrcOpt, r.DstOpt, r.CFlags, r.UBModel, r.Engine, r.SrcCompiler, r.Correlator}
}

// objKey names one object of the sweep.
type objKey struct {
	source, compiler, opt, variant string
}

// srcCompiler is the compiler of the source side of cc's pairs.
func (cfg Config) srcCompiler(cc string) string {
	if cfg.SrcCompiler != "" {
		return cfg.SrcCompiler
	}
	return cc
}

// witnessOpt is the setting of the sources' sanitizer builds, the
// witnesses that decide signed overflow and shifts on a difference's
// input (align.Request.Witness): the source's level with
// bench.TargetUBSan, when the sources have no target of their own and
// some swept model has sio or shift.
func (cfg Config) witnessOpt() (bench.Opt, bool) {
	if cfg.SrcOpt.Target.Name != "" {
		return bench.Opt{}, false
	}
	for _, spec := range cfg.UBModels {
		if m, err := ub.Parse(checkUB(spec)); err == nil && (m.Has(ub.SIO) || m.Has(ub.Shift)) {
			return bench.Opt{Level: cfg.SrcOpt.Level, Target: bench.TargetUBSan}, true
		}
	}
	return bench.Opt{}, false
}

// allCompilers are the compilers that build some object of the sweep.
func (cfg Config) allCompilers() []string {
	out := slices.Clone(cfg.Compilers)
	if cfg.SrcCompiler != "" && !slices.Contains(out, cfg.SrcCompiler) {
		out = append(out, cfg.SrcCompiler)
	}
	return out
}

// compile builds every object the sweep needs: each source in each variant
// with each compiler at the source level and each target level. Cached
// objects are not rebuilt. A source that does not compile is reported and
// left out.
func compile(ctx context.Context, cfg Config, compilers map[string]*bench.Compiler, sum *Summary) (map[objKey]bench.Object, error) {
	opts := []bench.Opt{cfg.SrcOpt}
	for _, o := range cfg.DstOpts {
		if !slices.ContainsFunc(opts, func(p bench.Opt) bool { return p.String() == o.String() }) {
			opts = append(opts, o)
		}
	}
	type job struct {
		key     objKey
		cc      *bench.Compiler
		opt     bench.Opt
		v       bench.Variant
		src     string
		witness bool // a source's sanitizer build: optional
	}
	var jobs []job
	wopt, withWitness := cfg.witnessOpt()
	for _, src := range cfg.Suite.Sources {
		for _, v := range cfg.Suite.Variants {
			for _, name := range cfg.allCompilers() {
				for _, o := range opts {
					jobs = append(jobs, job{objKey{src, name, o.String(), v.Name}, compilers[name], o, v,
						filepath.Join(cfg.Suite.Dir, src), false})
				}
			}
			if wcc := compilers[bench.WitnessCompiler]; withWitness && wcc != nil {
				jobs = append(jobs, job{objKey{src, bench.WitnessCompiler, wopt.String(), v.Name}, wcc, wopt, v,
					filepath.Join(cfg.Suite.Dir, src), true})
			}
		}
	}
	// Support files (TSVC's globals.c) at the source level: their DWARF
	// describes the globals the kernels only declare (clang gives extern
	// arrays no DWARF at all), which the checks take as context.
	for _, src := range cfg.Suite.Support {
		for _, v := range cfg.Suite.Variants {
			for _, name := range cfg.allCompilers() {
				jobs = append(jobs, job{objKey{src, name, cfg.SrcOpt.String(), v.Name}, compilers[name], cfg.SrcOpt, v,
					filepath.Join(cfg.Suite.Dir, src), false})
			}
		}
	}
	// A suite that checks static functions builds them with clang's
	// keepsig plugin, without which clang changes their signatures.
	extra := map[string][]string{}
	for name := range compilers {
		extra[name] = cfg.Suite.CFlags
		if cfg.Suite.StaticFunctions {
			flags, err := bench.KeepSignaturesFlags(ctx, compilers[name])
			if err != nil {
				return nil, fmt.Errorf("pipeline: suite %s checks static functions: %w", cfg.Suite.Name, err)
			}
			extra[name] = append(slices.Clone(cfg.Suite.CFlags), flags...)
		}
	}
	objDir := filepath.Join(cfg.Out, "objects")
	var mu sync.Mutex
	objs := map[objKey]bench.Object{}
	failed := map[string]bool{}
	var g errgroup.Group
	g.SetLimit(cfg.Jobs)
	for _, j := range jobs {
		g.Go(func() error {
			obj, err := bench.Compile(ctx, j.cc, j.opt, j.v, j.src, objDir, extra[j.key.compiler]...)
			mu.Lock()
			defer mu.Unlock()
			var ce *bench.CompileError
			switch {
			case err == nil:
				objs[j.key] = obj
			case j.witness && ctx.Err() == nil:
				// Checked without a witness: the monitor alone then.
				fmt.Fprintf(cfg.Log, "eqc sweep: %s has no sanitizer build with %s (%v): its differences are checked for signed overflow without one\n", j.key.source, j.key.compiler, err)
			case errors.As(err, &ce):
				msg := fmt.Sprintf("%s does not compile with %s: %s", j.key.source, j.key.compiler, ce.FirstError)
				if !failed[msg] {
					failed[msg] = true
					fmt.Fprintf(cfg.Log, "eqc sweep: %s (its functions are not checked with %s)\n", msg, j.key.compiler)
				}
			case ctx.Err() != nil:
				// Interrupted: the plan simply lacks this object.
			default:
				return err
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("pipeline: compile: %w", err)
	}
	for msg := range failed {
		sum.Failed = append(sum.Failed, msg)
	}
	sort.Strings(sum.Failed)
	return objs, nil
}

// plan lists every check of the sweep, in key order, and counts in sum
// the functions that have no counterpart in the optimized build.
func plan(cfg Config, objs map[objKey]bench.Object, sum *Summary) []Check {
	sample := sampled(cfg, objs)
	seen := map[Key]bool{}
	var checks []Check
	for _, cc := range cfg.Compilers {
		for _, dopt := range cfg.DstOpts {
			scc := cfg.srcCompiler(cc)
			label := (&results.Row{Compiler: cc, SrcCompiler: scc}).CompilerLabel()
			pairing := Pairing{Compiler: label, Opt: dopt.String(), Dropped: map[string]int{}}
			for _, v := range cfg.Suite.Variants {
				for _, src := range cfg.Suite.Sources {
					so, ok1 := objs[objKey{src, scc, cfg.SrcOpt.String(), v.Name}]
					do, ok2 := objs[objKey{src, cc, dopt.String(), v.Name}]
					if !ok1 || !ok2 {
						continue
					}
					pairing.count(cfg.Suite, so, do)
					var context []string
					for _, sup := range cfg.Suite.Support {
						if o, ok := objs[objKey{sup, scc, cfg.SrcOpt.String(), v.Name}]; ok {
							context = append(context, o.Path)
						}
					}
					if cfg.Suite.Program {
						// The program's other units define what this
						// one declares (bench.Suite.Program).
						for _, unit := range cfg.Suite.Sources {
							if o, ok := objs[objKey{unit, scc, cfg.SrcOpt.String(), v.Name}]; ok && unit != src {
								context = append(context, o.Path)
							}
						}
					}
					srcFuncs := cfg.Suite.CheckedFunctions(so)
					for _, f := range cfg.Suite.CheckedFunctions(do) {
						if !slices.Contains(srcFuncs, f) {
							continue
						}
						if sample != nil && !sample[[2]string{so.Benchmark, f}] {
							continue
						}
						for _, ub := range cfg.UBModels {
							k := Key{Suite: cfg.Suite.Name, Benchmark: do.Benchmark, Function: f, Compiler: cc,
								SrcOpt: cfg.SrcOpt.String(), DstOpt: dopt.String(), CFlags: do.CFlags,
								UBModel: ub, Engine: cfg.Engine, Correlator: cfg.Correlator}
							if scc != cc {
								k.SrcCompiler = scc
							}
							if seen[k] {
								continue
							}
							seen[k] = true
							c := Check{Key: k, Variant: v.Name, SrcFile: so.Path, DstFile: do.Path, Function: f, Context: context,
								Cost: 1 + int64(so.Sizes[f]+do.Sizes[f])}
							if wopt, ok := cfg.witnessOpt(); ok {
								if w, ok := objs[objKey{src, bench.WitnessCompiler, wopt.String(), v.Name}]; ok && slices.Contains(cfg.Suite.CheckedFunctions(w), f) {
									c.Witness = w.Path
								}
							}
							checks = append(checks, c)
						}
					}
				}
			}
			sum.Pairings = append(sum.Pairings, pairing)
		}
	}
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].Key.less(checks[j].Key) })
	return checks
}

// Pairing counts, for one compiler and target setting, the functions the
// suite checks in the source builds and what became of them in the
// optimized builds.
type Pairing struct {
	Compiler, Opt string
	Functions     int            // in the source builds
	Paired        int            // of those, also in the optimized build
	Dropped       map[string]int // the others, by reason
}

// count adds one source file's functions.
func (p *Pairing) count(s *bench.Suite, so, do bench.Object) {
	dst := s.CheckedFunctions(do)
	for _, f := range s.CheckedFunctions(so) {
		p.Functions++
		if slices.Contains(dst, f) {
			p.Paired++
			continue
		}
		p.Dropped[dropReason(f, do)]++
	}
}

// dropReason says why a source function has no counterpart in the
// optimized object: the compiler renamed it (a clone or a split part,
// NAME.isra.0, NAME.constprop.0, NAME.part.0, NAME.cold), or it is not
// there at all (inlined into every caller, or removed as unused).
func dropReason(f string, do bench.Object) string {
	for _, names := range [][]string{do.Functions, do.Statics} {
		for _, g := range names {
			if rest, ok := strings.CutPrefix(g, f+"."); ok {
				kind, _, _ := strings.Cut(rest, ".")
				return "renamed by the optimizer (NAME." + kind + ")"
			}
		}
	}
	return "not in the optimized build (inlined or removed)"
}

// sampled returns the functions (benchmark, name) a sweep with Sample
// checks, or nil when it checks all.
func sampled(cfg Config, objs map[objKey]bench.Object) map[[2]string]bool {
	if cfg.Sample <= 0 {
		return nil
	}
	var all []bench.SampledFunction
	seen := map[[2]string]bool{}
	for _, cc := range cfg.Compilers {
		for _, v := range cfg.Suite.Variants {
			for _, src := range cfg.Suite.Sources {
				so, ok := objs[objKey{src, cfg.srcCompiler(cc), cfg.SrcOpt.String(), v.Name}]
				if !ok {
					continue
				}
				for _, f := range cfg.Suite.CheckedFunctions(so) {
					k := [2]string{so.Benchmark, f}
					if !seen[k] {
						seen[k] = true
						all = append(all, bench.SampledFunction{Benchmark: so.Benchmark, Name: f, Size: so.Sizes[f]})
					}
				}
			}
		}
		if len(all) > 0 {
			break // the first compiler with source objects decides
		}
	}
	out := map[[2]string]bool{}
	for _, f := range bench.Stratified(all, cfg.Sample) {
		out[[2]string{f.Benchmark, f.Name}] = true
	}
	return out
}

// runChecks runs the checks, at most Jobs at once, and returns the rows of
// those that finished. After ctx is cancelled no check starts and running
// workers are killed; their checks have no row.
func runChecks(ctx context.Context, cfg Config, todo []Check, sum *Summary) []results.Row {
	prog := newProgress(cfg.Log, cfg.Progress, len(todo))
	var mu sync.Mutex
	var rows []results.Row
	var g errgroup.Group
	g.SetLimit(cfg.Jobs)
	for _, c := range todo {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil
			}
			started := time.Now().UTC()
			out, err := runWorker(ctx, &cfg, c)
			if err != nil {
				return nil // interrupted: left for the next run
			}
			row := makeRow(cfg, c, out, started)
			mu.Lock()
			rows = append(rows, row)
			sum.WorkerS += out.procWall.Seconds()
			sum.CheckedS += out.res.WallS
			mu.Unlock()
			prog.finished(c, row)
			return nil
		})
	}
	g.Wait()
	prog.close()
	sort.SliceStable(rows, func(i, j int) bool {
		return rowKey(&rows[i]).less(rowKey(&rows[j]))
	})
	return rows
}

func makeRow(cfg Config, c Check, out outcome, started time.Time) results.Row {
	k := c.Key
	r := results.Row{
		Suite: k.Suite, Benchmark: k.Benchmark, Function: k.Function, Compiler: k.Compiler, SrcCompiler: k.SrcCompiler,
		SrcOpt: k.SrcOpt, DstOpt: k.DstOpt, CFlags: k.CFlags, UBModel: k.UBModel, Engine: k.Engine, Correlator: k.Correlator,
		Verdict: out.res.Verdict, Reason: out.res.Reason,
		WallS: out.res.WallS, SMTQueries: out.res.SMTQueries, SMTS: out.res.SMTS,
		ProductNodes: out.res.ProductNodes, ProductEdges: out.res.ProductEdges,
		AlignmentPredicatesTried: out.res.AlignmentPredicatesTried, CorrelationsTried: out.res.CorrelationsTried,
		CandidatesExpanded: out.res.CandidatesExpanded, CandidatesPruned: out.res.CandidatesPruned,
		Counterexamples: out.res.Counterexamples,
		Candidates:      out.res.Candidates, Invariants: out.res.Invariants,
		ALOCSrc: out.res.ALOCSrc, ALOCDst: out.res.ALOCDst, LoopsSrc: out.res.LoopsSrc, LoopsDst: out.res.LoopsDst,
		CallsSrc: out.res.CallsSrc, CallsDst: out.res.CallsDst,
		CompositeEdgesDst: out.res.CompositeEdgesDst, TestVectors: out.res.TestVectors, CacheHits: out.res.CacheHits,
		CPUS: out.procCPU.Seconds(), TimeoutS: cfg.Timeout.Seconds(), EQCVersion: cfg.Version, StartedAt: started,
		SrcFile: c.SrcFile, DstFile: c.DstFile, Variant: c.Variant,
	}
	switch r.Verdict {
	case "equivalent", "not-equivalent", "unknown":
	default:
		r.Reason = fmt.Sprintf("worker-crash: verdict %q", r.Verdict)
		r.Verdict = "unknown"
	}
	if r.Verdict == "unknown" && r.Reason == "" {
		r.Reason = "no-reason-given"
	}
	if r.Verdict == "not-equivalent" && len(out.res.Input) > 0 {
		r.CexInput = string(out.res.Input)
		if len(out.res.Observed) > 0 {
			if b, err := json.Marshal(out.res.Observed); err == nil {
				r.Error = "observed: " + string(b)
			}
		}
	}
	if r.Verdict == "unknown" && out.errText != "" {
		r.Error = out.errText
	}
	if r.Verdict == "equivalent" {
		r.ProofFile, r.ProofVerified, r.Error = out.res.Proof, out.proofVerified, out.proofNote
	}
	if r.WallS < 0 || r.WallS != r.WallS {
		r.WallS = 0
	}
	return r
}

// writeRows writes the rows of this run to a new file under dir through the
// atomic writer: the name appears only when the file is complete.
func writeRows(dir, version string, shard Shard, rows []results.Row) (string, error) {
	base := "run-" + time.Now().UTC().Format("20060102T150405Z")
	if !shard.Whole() {
		base += fmt.Sprintf("-shard-%d-of-%d", shard.Index, shard.Count)
	}
	for i := 0; ; i++ {
		name := base
		if i > 0 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		path := filepath.Join(dir, name+".parquet")
		w, err := results.Create(path, results.Version(version))
		var exists *results.ExistsError
		if errors.As(err, &exists) {
			continue
		}
		if err != nil {
			return "", err
		}
		if err := w.Write(rows...); err != nil {
			w.Abort()
			return "", err
		}
		if err := w.Close(); err != nil {
			if errors.As(err, &exists) {
				continue
			}
			return "", err
		}
		return path, nil
	}
}

// progress reports finished checks on Log: one updating line on a
// terminal, one line per check otherwise.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	total   int
	done    int
	proved  int
	unknown int
	noteq   int
	start   time.Time
}

func newProgress(w io.Writer, tty bool, total int) *progress {
	return &progress{w: w, tty: tty, total: total, start: time.Now()}
}

func (p *progress) finished(c Check, r results.Row) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	count(r.Verdict, &p.proved, &p.noteq, &p.unknown)
	if !p.tty {
		reason := ""
		if r.Reason != "" {
			reason = " (" + r.Reason + ")"
		}
		fmt.Fprintf(p.w, "[%d/%d] %s %s %s %s→%s %s ub=%s: %s%s %.2fs\n", p.done, p.total, r.Benchmark, r.Function,
			r.CompilerLabel(), r.SrcOpt, r.DstOpt, c.Variant, r.UBModel, r.Verdict, reason, r.WallS)
		return
	}
	eta := "?"
	if p.done > 0 {
		left := time.Duration(float64(time.Since(p.start)) / float64(p.done) * float64(p.total-p.done))
		eta = left.Round(time.Second).String()
	}
	line := fmt.Sprintf("%d/%d checks, %d proved, %d unknown", p.done, p.total, p.proved, p.unknown)
	if p.noteq > 0 {
		line += fmt.Sprintf(", %d not-equivalent", p.noteq)
	}
	fmt.Fprintf(p.w, "\r\033[K%s, ETA %s", line, eta)
}

func (p *progress) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.done > 0 {
		fmt.Fprintln(p.w)
	}
}

// ParseUBModels reads the values of --ub, one check per value and
// function: each is a model spec as eqc check takes it (ub.Parse: all,
// none, a list such as sio,obva, or all,-sio for all but SIO); '+' may
// stand for the comma, as in rows written before --ub could be repeated.
// No value at all is "all". The ablation of the UB paper is one sweep:
// --ub all --ub all,-sio --ub all,-tbsa --ub all,-obva --ub none.
func ParseUBModels(specs []string) ([]string, error) {
	if len(specs) == 0 {
		return []string{"all"}, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range specs {
		m = strings.TrimSpace(m)
		if _, err := ub.Parse(checkUB(m)); err != nil {
			return nil, err
		}
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out, nil
}
