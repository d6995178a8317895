package main

import (
	"context"
	"eqc/align"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"eqc/bench"
	"eqc/pipeline"
)

// exitInterrupted is the status of a sweep stopped by SIGINT or SIGTERM
// (after its finished rows were written).
const exitInterrupted = 130

// runSweep is `eqc sweep`: compile a suite, check every function pair in a
// worker process each (`eqc check --json` re-executed from this binary),
// and write this run's rows to one new Parquet file under --out, skipping
// checks that already have a row there. Progress goes to stderr; a
// summary to stdout. Exit status: over every planned check (resumed or
// run now) 0 all equivalent, 1 some not-equivalent, 2 some unknown; 64 a
// usage error or unknown suite; 65 a missing compiler or a source that
// did not compile (after the other sources were swept); 130 interrupted.
func runSweep(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	f := defineSweepFlags(fs)
	suiteArg, ccList, optList, srcOpt, ub, engine := f.suite, f.cc, f.opt, f.srcOpt, f.ub, f.engine
	timeout, jobs, out, mem, sample := f.timeout, f.jobs, f.out, f.mem, f.sample
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eqc sweep %s\n", sweepUsage)
		fs.PrintDefaults()
	}
	pos, status, ok := parseArgs(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	usage := func(format string, a ...any) int { return usageError(stderr, "sweep", format, a...) }
	if len(pos) != 0 {
		return usage("unexpected argument %q", pos[0])
	}
	if *suiteArg == "" {
		return usage("--suite is required")
	}
	if err := align.ValidateCorrelator(*f.correlator); err != nil {
		return usage("--correlator: %v", err)
	}
	// Rows name the correlator only when it is not the backtracking one,
	// which every row before it was named used.
	correlator := *f.correlator
	if correlator == align.CorrelatorBacktracking {
		correlator = ""
	}
	if err := align.ValidateEngine(*engine); err != nil {
		return usage("%v", err)
	}
	if *timeout <= 0 {
		return usage("--timeout must be positive")
	}
	if *jobs < 0 {
		return usage("--jobs must be >= 0")
	}
	if *sample < 0 {
		return usage("--sample must be >= 0")
	}
	memBytes, err := parseBytes(*mem)
	if err != nil {
		return usage("--mem: %v", err)
	}
	shard := pipeline.Shard{}
	if *f.shard != "" {
		if shard, err = pipeline.ParseShard(*f.shard); err != nil {
			return usage("--shard: %v", err)
		}
	}
	ubModels, err := pipeline.ParseUBModels(*ub)
	if err != nil {
		return usage("--ub: %v", err)
	}
	suites, err := bench.OpenAll(*suiteArg, bench.OpenOptions{Warn: stderr, SpecCFlags: strings.Fields(*f.specCFlags)})
	if err != nil {
		var unknown *bench.UnknownSuiteError
		if errors.As(err, &unknown) {
			return usage("%v", err)
		}
		fmt.Fprintf(stderr, "eqc sweep: %v\n", err)
		return exitBadInput
	}
	if *f.variant != "" {
		if err := keepVariants(suites, *f.variant); err != nil {
			return usage("--variant: %v", err)
		}
	}
	suite := suites[0]
	targets := slices.Clone(bench.BuiltinTargets)
	for _, o := range suite.Matrix.Opts {
		if o.Target.Name != "" {
			targets = append(targets, o.Target)
		}
	}
	src, err := bench.ParseOpt(*srcOpt, targets)
	if err != nil {
		return usage("--src-opt: %v", err)
	}
	var dsts []bench.Opt
	for _, s := range strings.Split(*optList, ",") {
		o, err := bench.ParseOpt(strings.TrimSpace(s), targets)
		if err != nil {
			return usage("--opt: %v", err)
		}
		dsts = append(dsts, o)
	}
	compilers := suite.Matrix.Compilers
	if *ccList != "" {
		compilers = nil
		for _, c := range strings.Split(*ccList, ",") {
			if c = strings.TrimSpace(c); c != "" {
				compilers = append(compilers, c)
			}
		}
	}
	if len(compilers) == 0 {
		compilers = []string{"gcc-12", "clang-16"}
	}
	outDir := *out
	if outDir == "" {
		outDir = filepath.Join("results", filepath.Base(filepath.Clean(*suiteArg)))
		if len(suites) == 1 {
			outDir = filepath.Join("results", suite.Name)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "eqc sweep: cannot find the eqc binary for the workers: %v\n", err)
		return exitUsage
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal kills the sweep at once
	}()
	var total pipeline.Summary
	failed := false
	for _, suite := range suites {
		if ctx.Err() != nil {
			break
		}
		sum, err := pipeline.Run(ctx, pipeline.Config{
			Suite: suite, Compilers: compilers, SrcCompiler: *f.srcCC, SrcOpt: src, DstOpts: dsts, UBModels: ubModels,
			Engine: *engine, Correlator: correlator, Timeout: *timeout, Jobs: *jobs, Out: outDir, MemBytes: memBytes, Sample: *sample, Shard: shard,
			Worker: []string{exe, "check"}, Verifier: []string{exe, "proof", "verify"}, Env: []string{checkWorkerEnv + "=1"},
			Version: version, Log: stderr, Progress: isTerminal(stderr),
		})
		if err != nil {
			failed = true
			var missing *bench.MissingToolError
			if errors.As(err, &missing) {
				fmt.Fprintf(stderr, "eqc sweep: missing %s: %v\n", missing.Tool, err)
			} else {
				fmt.Fprintf(stderr, "eqc sweep: %v\n", err)
			}
			if sum == nil {
				continue // the next suite may still run
			}
		}
		printSummary(stdout, suite.Name, outDir, sum)
		failed = failed || len(sum.Failed) > 0
		total.Pending += sum.Pending
		total.TotalNotEq += sum.TotalNotEq
		total.TotalUnknown += sum.TotalUnknown
	}
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "eqc sweep: interrupted: %d check(s) not run; run the same command again to resume\n", total.Pending)
		return exitInterrupted
	case failed:
		return exitBadInput
	case total.TotalNotEq > 0:
		return exitNotEquivalent
	case total.TotalUnknown > 0:
		return exitUnknown
	}
	return exitEquivalent
}

// sweepUsage is the argument synopsis of eqc sweep.
const sweepUsage = "--suite NAME|DIR [--cc LIST] [--opt LIST] [--src-opt O0] [--src-cc NAME] [--ub SPEC]... [--engine E] [--timeout D] [--jobs N] [--out DIR] [--mem BYTES] [--sample N] [--variant LIST] [--shard I/N] [--spec-cflags FLAGS]"

// sweepFlags are eqc sweep's flags; eqc slurm defines them too and passes
// them on to each array task's sweep.
type sweepFlags struct {
	suite, cc, opt, srcOpt, engine, out, mem, shard *string
	correlator                                      *string
	variant, srcCC, specCFlags                      *string
	ub                                              *specList
	timeout                                         *time.Duration
	jobs, sample                                    *int
}

func defineSweepFlags(fs *flag.FlagSet) *sweepFlags {
	f := &sweepFlags{ub: &specList{}}
	f.suite = fs.String("suite", "", "built-in suite name (tsvc, corpus, kernels), spec (every recipe), a recipe's program (bzip2, lua, ...), a suite directory, or an installed SPEC CPU tree (its integer C benchmarks) or one benchmark directory in it")
	f.specCFlags = fs.String("spec-cflags", "", "blank-separated flags added to every build of a SPEC CPU benchmark (portability flags of your own)")
	f.cc = fs.String("cc", "", "comma-separated compilers (default: the suite's, gcc-12,clang-16)")
	f.opt = fs.String("opt", "O3", "comma-separated target optimization settings (O3, O2+sse4.2, O2+fwrapv, O2+fno-strict-aliasing, ...)")
	f.srcOpt = fs.String("src-opt", "O0", "optimization setting of the source side")
	f.srcCC = fs.String("src-cc", "", "compiler of the source side of every pair (default: each --cc compiler's own); another one makes cross-compiler pairs, e.g. --src-cc gcc-12 --cc clang-16")
	fs.Var(f.ub, "ub", "UB model spec to sweep, as eqc check takes it (all, none, sio,obva, all,-sio); repeat for one row per spec and function (default all)")
	f.engine = fs.String("engine", "auto", "static, data or auto")
	f.correlator = fs.String("correlator", align.DefaultCorrelator, "the static engine's correlator: bt (backtracking over co-executions) or ceg (best-first, counterexample-guided)")
	f.timeout = durationFlag(fs, "timeout", 300*time.Second, "per-check timeout")
	f.jobs = fs.Int("jobs", 0, "checks at once (0: one per CPU)")
	f.out = fs.String("out", "", "results directory (default: results/<suite>)")
	f.mem = fs.String("mem", defaultMem, "address-space cap of each worker (prlimit --as), e.g. 4G, 512M; 0 for none")
	f.sample = fs.Int("sample", 0, "check only N functions of each suite, stratified by size (0: all)")
	f.variant = fs.String("variant", "", "comma-separated variants of the suite to sweep (tsvc: fixed, param; default: all of them)")
	f.shard = fs.String("shard", "", "run only shard I of N (I/N, 0 <= I < N): a deterministic part of the checks, balanced by size; shards share --out")
	return f
}

func printSummary(w io.Writer, suite, out string, s *pipeline.Summary) {
	fmt.Fprintf(w, "sweep %s: %d checks planned, %d already done, %d run now (%d equivalent, %d not-equivalent, %d unknown)",
		suite, s.Planned, s.Resumed, s.Ran, s.Proved, s.NotEq, s.Unknown)
	if s.Pending > 0 {
		fmt.Fprintf(w, ", %d not run (interrupted)", s.Pending)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "all planned checks with a row: %d equivalent, %d not-equivalent, %d unknown\n",
		s.TotalProved, s.TotalNotEq, s.TotalUnknown)
	if len(s.Failed) > 0 {
		fmt.Fprintf(w, "%d source(s) did not compile (see stderr)\n", len(s.Failed))
	}
	for _, p := range s.Pairings {
		fmt.Fprintf(w, "functions %s %s: %d of the source build's %d are in the optimized build", p.Compiler, p.Opt, p.Paired, p.Functions)
		reasons := make([]string, 0, len(p.Dropped))
		for r := range p.Dropped {
			reasons = append(reasons, r)
		}
		slices.Sort(reasons)
		for i, r := range reasons {
			sep := "; "
			if i == 0 {
				sep = "; dropped: "
			}
			fmt.Fprintf(w, "%s%d %s", sep, p.Dropped[r], r)
		}
		fmt.Fprintln(w)
	}
	if s.File != "" {
		fmt.Fprintf(w, "wrote %s\n", s.File)
	} else {
		fmt.Fprintf(w, "no new rows; nothing written under %s\n", out)
	}
	overhead := 0.0
	if s.Ran > 0 {
		overhead = (s.WorkerS - s.CheckedS) / float64(s.Ran)
	}
	fmt.Fprintf(w, "time: setup %.2fs (compilers, resume, compile), checks %.2fs, write %.2fs; worker overhead %.3fs per check (process wall minus the check's wall_s)\n",
		s.SetupS, s.ChecksS, s.WriteS, overhead)
	fmt.Fprintf(w, "tables: eqc report %s\n", out)
}

// parseBytes reads 4G, 512M, 64K or a plain byte count.
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(strings.ToUpper(s))
	mult := int64(1)
	for suffix, m := range map[string]int64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40} {
		if strings.HasSuffix(s, suffix) {
			s, mult = strings.TrimSuffix(s, suffix), m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// specList is a flag given once per value.
type specList []string

func (l *specList) String() string     { return strings.Join(*l, " ") }
func (l *specList) Set(v string) error { *l = append(*l, v); return nil }

// keepVariants keeps in each suite only the variants list names; a name no
// suite has is an error that lists the ones they have.
func keepVariants(suites []*bench.Suite, list string) error {
	want := map[string]bool{}
	for _, v := range strings.Split(list, ",") {
		if v = strings.TrimSpace(v); v != "" {
			want[v] = true
		}
	}
	have := map[string]bool{}
	for _, s := range suites {
		var kept []bench.Variant
		for _, v := range s.Variants {
			have[v.Name] = true
			if want[v.Name] {
				kept = append(kept, v)
			}
		}
		s.Variants = kept
	}
	for v := range want {
		if !have[v] {
			return fmt.Errorf("no suite has variant %q (have %s)", v, strings.Join(slices.Sorted(maps.Keys(have)), ", "))
		}
	}
	return nil
}
