package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"eqc/align"
	"eqc/pipeline"
	"eqc/prove"
	"eqc/ub"
	"eqc/x86"
)

// runCheck is `eqc check`: per the CLI contract, check each function pair
// and print one line (or JSON object) per function. Exit 0 when all are
// equivalent, 1 when some are not, 2 when some are unknown, 65 for a bad
// input file.
//
// Each function is checked in a worker process of its own (this binary,
// re-executed with checkWorkerEnv set) under the same limits as a sweep's
// workers (pipeline.RunCheckWorker): a session of its own, an address-space
// cap on each of its processes (--memory, prlimit --as) and a deadline of
// --timeout plus checkGrace, at which the session (solver processes too) is
// killed. A function whose worker is killed at the deadline is unknown with
// reason "timeout", one whose worker runs out of memory "memout", and the
// next function is checked all the same.
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print one JSON object per function (JSON Lines)")
	var funcs funcList
	fs.Var(&funcs, "func", "check this function (repeatable; default: every function in both files)")
	var contexts funcList
	fs.Var(&contexts, "context", "an object whose DWARF describes globals the pair uses (sizes, alignment), e.g. the file defining them (repeatable)")
	srcFunc := fs.String("src-func", "", "the source function, compared with --dst-func")
	dstFunc := fs.String("dst-func", "", "the target function, compared with --src-func")
	engine := fs.String("engine", "auto", "static, data or auto")
	correlator := fs.String("correlator", align.DefaultCorrelator, "the static engine's correlator: bt (backtracking over co-executions) or ceg (best-first, counterexample-guided)")
	ubModel := fs.String("ub", "all", "undefined-behaviour model: all, none, a list of sio,tbsa,obva,shift,div,null,align,nan,restrict, or all,-MODEL... (all but those)")
	timeout := durationFlag(fs, "timeout", 300*time.Second,
		"per function: the search gives up after this long, and the function's worker is killed at this plus\n"+
			"a grace (the timeout clamped to 1s..10s); 0 for no limit")
	memory := fs.String("memory", defaultMem, "address-space cap of each process of a function's check (prlimit --as), e.g. 4G, 512M; 0 for none")
	proofDir := fs.String("proof", "", "write a proof file DIR/FUNCTION.proof.json for each equivalent function (recheck with eqc proof verify)")
	solvers := fs.String("solver", "z3", "comma-separated SMT backends to race: z3, z3-process, cvc5, boolector")
	ccName := fs.String("cc", "gcc-12", "C sources: the compiler (gcc-12, clang-16)")
	srcOpt := fs.String("src-opt", "O0", "C sources: the optimization setting of SRC (O0..O3, or LEVEL+TARGET such as O0+ubsan)")
	dstOpt := fs.String("dst-opt", "O2", "C sources: the optimization setting of DST (O0..O3, or LEVEL+TARGET such as O2+fwrapv)")
	objDir := fs.String("obj-dir", defaultObjDir(), "C sources: where the compiled objects go (cached by compiler, flags and source)")
	witness := fs.String("witness", "", "SRC built with sanitizer traps (eqc cflags --opt O0+ubsan): decides signed overflow and shifts on a difference's input;\nbuilt by --cc for a C source")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eqc check %s\n", checkUsage)
		fmt.Fprint(fs.Output(), checkCSourcesHelp)
		fmt.Fprint(fs.Output(), checkLimitsHelp)
		fs.PrintDefaults()
	}
	pos, status, ok := parseArgs(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if len(pos) == 1 && isCSource(pos[0]) {
		pos = append(pos, pos[0]) // one C file: checked against its own optimized build
	}
	if status, ok := wantArgs(stderr, "check", pos, "SRC DST"); !ok {
		return status
	}
	usage := func(format string, a ...any) int { return usageError(stderr, "check", format, a...) }
	if err := align.ValidateEngine(*engine); err != nil {
		return usage("%v", err)
	}
	if err := align.ValidateCorrelator(*correlator); err != nil {
		return usage("--correlator: %v", err)
	}
	models, err := ub.Parse(*ubModel)
	if err != nil {
		return usage("--ub: %v", err)
	}
	memBytes, err := parseBytes(*memory)
	if err != nil {
		return usage("--memory: %v", err)
	}
	if *proofDir != "" {
		if err := proofDirReady(*proofDir); err != nil {
			return usage("--proof: %v", err)
		}
	}
	if (*srcFunc == "") != (*dstFunc == "") {
		return usage("--src-func and --dst-func go together")
	}
	for i, opt := range []string{*srcOpt, *dstOpt} {
		if !isCSource(pos[i]) {
			continue
		}
		obj, err := compileSide(context.Background(), *ccName, opt, pos[i], *objDir, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "eqc check: %s: %v\n", pos[i], err)
			return exitBadInput
		}
		if *proofDir != "" && os.Getenv(checkWorkerEnv) == "" {
			fmt.Fprintf(stderr, "eqc check: %s -%s is %s\n", pos[i], opt, obj)
		}
		if i == 0 && *witness == "" && (models.Has(ub.SIO) || models.Has(ub.Shift)) {
			*witness = compileWitness(opt, pos[i], *objDir, stderr)
		}
		pos[i] = obj
	}
	if os.Getenv(checkWorkerEnv) == "" && (!checkObject(stderr, "check", pos[0]) || pos[1] != pos[0] && !checkObject(stderr, "check", pos[1])) {
		return exitBadInput
	}
	o := checkOptions{srcPath: pos[0], dstPath: pos[1], witness: *witness, contexts: contexts, engine: *engine, correlator: *correlator, ub: *ubModel,
		timeout: *timeout, memory: *memory, memBytes: memBytes, proofDir: *proofDir, solvers: *solvers}
	switch {
	case *srcFunc != "":
		o.pairs = append(o.pairs, checkPair{*srcFunc, *dstFunc})
	case len(funcs) > 0:
		for _, f := range funcs {
			o.pairs = append(o.pairs, checkPair{f, f})
		}
	default:
		common, err := commonFunctions(o.srcPath, o.dstPath)
		if err != nil {
			fmt.Fprintf(stderr, "eqc check: %v\n", err)
			return exitBadInput
		}
		if len(common) == 0 {
			fmt.Fprintf(stderr, "eqc check: %s and %s have no function in common\n", o.srcPath, o.dstPath)
			return exitBadInput
		}
		for _, f := range common {
			o.pairs = append(o.pairs, checkPair{f, f})
		}
	}
	s, cache, err := prove.New(prove.Options{Backends: strings.Split(*solvers, ","), CacheSize: 4096})
	if err != nil {
		fmt.Fprintf(stderr, "eqc check: %v\n", err)
		return exitUsage
	}
	rep := &checkReport{w: stdout, enc: json.NewEncoder(stdout), json: *jsonOut, status: exitEquivalent}
	if !*jsonOut {
		fmt.Fprintf(stdout, "%-24s %-15s %8s %5s  %s\n", "function", "verdict", "seconds", "smt", "reason")
	}
	if os.Getenv(checkWorkerEnv) == "" {
		s.Close() // (started only to report a bad --solver as today)
		return superviseChecks(&o, rep, stderr)
	}
	defer s.Close()
	for _, pr := range o.pairs {
		testHooks(pr.src)
		var hits0 int64
		if cache != nil {
			hits0 = cache.Stats().Hits
		}
		res, err := align.Check(context.Background(), align.Request{
			SrcPath: o.srcPath, SrcFunc: pr.src, DstPath: o.dstPath, DstFunc: pr.dst, UB: o.ub, Witness: o.witness, Engine: o.engine, Correlator: o.correlator, Timeout: o.timeout, Context: o.contexts,
			Phase: phaseWriter(os.Getenv(checkPhaseEnv))}, s)
		if cache != nil {
			res.CacheHits = int(cache.Stats().Hits - hits0)
		}
		if err != nil {
			fmt.Fprintf(stderr, "eqc check: %v\n", err)
			rep.worse(exitBadInput)
			continue
		}
		if o.proofDir != "" && res.Verdict == align.Equivalent && res.Proof != nil {
			if err := writeProofFile(o.proofDir, &res); err != nil {
				fmt.Fprintf(stderr, "eqc check: writing the proof of %s: %v\n", res.Function, err)
				rep.worse(exitBadInput)
			}
		}
		rep.add(&res, nil)
	}
	return rep.status
}

// checkUsage is the argument synopsis of eqc check.
const checkUsage = "[--json] [--cc NAME] [--src-opt O0] [--dst-opt O2] [--func NAME]... [--src-func NAME --dst-func NAME] [--engine static|data|auto] [--correlator bt|ceg] [--ub LIST] [--timeout DURATION] [--memory SIZE] [--proof DIR] [--context FILE]... SRC DST | FILE.c"

// checkCSourcesHelp says, in eqc check --help, how C sources are checked.
const checkCSourcesHelp = `SRC and DST are relocatable x86-64 objects (gcc or clang, -g; eqc cflags prints the flags that keep
functions comparable), or C sources: a .c argument is compiled with those flags by --cc, SRC at --src-opt
and DST at --dst-opt; one .c file alone is checked against its own optimized build (eqc check f.c).
`

// checkLimitsHelp says, in eqc check --help, how each function's check is
// bounded.
const checkLimitsHelp = `Each function is checked in a worker process of its own (a session: the worker, its solver processes
and the binaries it runs). With --timeout T, the search gives up at T and reports unknown, reason timeout;
a worker still running at T+G after it started, G = T clamped to 1s..10s, is killed with every process of
its session, and the function is unknown, reason timeout. With --memory M, each of those processes may map
at most M bytes of address space; a worker that dies out of memory gives unknown, reason memout. Either
way the next function is checked, so a whole run takes at most about (number of functions) x (T+G).
`

// defaultMem is the default address-space cap of a worker process, for
// eqc check --memory and eqc sweep --mem.
const defaultMem = "4G"

// checkWorkerEnv, set in its environment, makes `eqc check` a worker: it
// checks in this process, its supervisor (eqc check itself, or eqc sweep)
// enforcing the limits, instead of supervising workers of its own.
const checkWorkerEnv = "EQC_CHECK_WORKER"

// checkGrace is how long a function's worker may run past --timeout before
// it is killed: the timeout itself, at least 1s and at most 10s. The search
// stops at the timeout by itself; the grace lets it report, and bounds a
// check that does not stop.
func checkGrace(timeout time.Duration) time.Duration {
	return min(max(timeout, time.Second), 10*time.Second)
}

// checkOptions are the parsed arguments of one eqc check.
type checkOptions struct {
	srcPath, dstPath string
	witness          string // the source with sanitizer traps, or ""
	pairs            []checkPair
	contexts         []string
	engine, ub       string
	correlator       string
	timeout          time.Duration
	memory           string // --memory as given
	memBytes         int64
	proofDir         string
	solvers          string
}

// checkPair is one source function and the target function compared
// with it.
type checkPair struct{ src, dst string }

// checkReport prints results in eqc check's formats and keeps the exit
// status.
type checkReport struct {
	w      io.Writer
	enc    *json.Encoder
	json   bool
	status int
}

// worse raises the exit status to code if code is worse.
func (r *checkReport) worse(code int) {
	rank := map[int]int{exitEquivalent: 0, exitUnknown: 1, exitNotEquivalent: 2, exitBadInput: 3}
	if rank[code] > rank[r.status] {
		r.status = code
	}
}

// add counts res in the exit status and prints it: as line, the JSON a
// worker printed for it, when given (--json).
func (r *checkReport) add(res *align.Result, line []byte) {
	switch res.Verdict {
	case align.NotEquivalent:
		r.worse(exitNotEquivalent)
	case align.Unknown:
		r.worse(exitUnknown)
	}
	if r.json {
		if line != nil {
			r.w.Write(append(line, '\n'))
			return
		}
		r.enc.Encode(res)
		return
	}
	name := res.Function
	if res.DstFunction != "" {
		name += "/" + res.DstFunction
	}
	fmt.Fprintf(r.w, "%-24s %-15s %8.2f %5d  %s\n", name, res.Verdict, res.WallS, res.SMTQueries, res.Reason)
	if res.ProofPath != "" {
		fmt.Fprintf(r.w, "%24s proof: %s\n", "", res.ProofPath)
	}
	if cx := res.Counterexample; cx != nil {
		writeCounterexample(r.w, res.Function, cx)
	} else if res.Input != nil {
		fmt.Fprintf(r.w, "%24s input: args %#x", "", res.Input.Args)
		for g, data := range res.Input.Globals {
			fmt.Fprintf(r.w, " %s=%s", g, data)
		}
		fmt.Fprintln(r.w)
		for _, d := range res.Observed {
			fmt.Fprintf(r.w, "%24s observed: %s\n", "", d)
		}
	}
}

// writeCounterexample prints a counterexample in the source's terms,
// indented under its function's line:
//
//	input:   poly(int a = 7, int b = 0, int c = 0)
//	memory:  A[3] = -7, A[4] = 2
//	return:  src 46, dst 47
//	A[4]:    src 1, dst 2
func writeCounterexample(w io.Writer, fn string, cx *align.Counterexample) {
	const indent = "    "
	var params []string
	for _, p := range cx.Params {
		v := p.Name + " = " + p.Value
		switch {
		case strings.HasSuffix(p.Type, "*"):
			v = p.Type + v
		case p.Type != "":
			v = p.Type + " " + v
		}
		params = append(params, v)
	}
	width := 8
	for _, d := range cx.Differences {
		width = max(width, len(d.What)+2)
	}
	line := func(label, text string) {
		fmt.Fprintf(w, "%s%-*s %s\n", indent, width, label, text)
	}
	line("input:", fn+"("+strings.Join(params, ", ")+")")
	// Memory, as many elements to a line as fit in 100 columns.
	var cur []string
	label := "memory:"
	flush := func() {
		if len(cur) > 0 {
			line(label, strings.Join(cur, ", "))
			cur, label = nil, ""
		}
	}
	n := 0
	for _, m := range cx.Memory {
		item := m.Name + " = " + m.Value
		if strings.HasPrefix(m.Value, "and ") {
			item = m.Value
		}
		if n+len(item) > 100-len(indent)-width-1 {
			flush()
			n = 0
		}
		cur, n = append(cur, item), n+len(item)+2
	}
	flush()
	for _, d := range cx.Differences {
		switch {
		case d.Dst == "":
			line(d.What+":", d.Src)
		default:
			line(d.What+":", "src "+d.Src+", dst "+d.Dst)
		}
	}
}

// superviseChecks checks each pair of o in a worker process of its own
// (this binary, `eqc check --json` for one pair, with checkWorkerEnv set)
// under the limits of o, through the sweep's worker runner, and reports
// the results as the worker would have. A worker killed at its deadline,
// or dead of the memory cap or of a crash, gives an unknown result with
// that reason; a worker that exits 65 without a result (the function is
// not in a file) gives no result and exit status 65, as a check in process
// would. SIGINT, SIGTERM and SIGHUP kill the running worker and every
// process of its session, then this process with the same signal.
func superviseChecks(o *checkOptions, rep *checkReport, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "eqc check: cannot find the eqc binary for the workers: %v\n", err)
		return exitUsage
	}
	grace := checkGrace(o.timeout)
	lim := pipeline.Limits{MemBytes: o.memBytes, Env: []string{checkWorkerEnv + "=1"}}
	if o.timeout > 0 {
		lim.Deadline = o.timeout + grace
	}
	if o.memBytes > 0 {
		if p, err := pipeline.FindPrlimit(); err == nil {
			lim.Prlimit = p
		} else {
			fmt.Fprintf(stderr, "eqc check: prlimit (util-linux) not found: checking without a memory cap\n")
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	caught := make(chan os.Signal, 1)
	go func() {
		select {
		case sig := <-sigs:
			caught <- sig
			cancel()
		case <-ctx.Done():
		}
	}()

	var phases *phaseFile
	if isTerminal(stderr) {
		if phases, err = newPhaseFile(); err == nil {
			defer phases.remove()
			lim.Env = append(lim.Env, checkPhaseEnv+"="+phases.path)
		}
	}
	for i, pr := range o.pairs {
		stop := phases.show(stderr, pr.src, i+1, len(o.pairs))
		argv := []string{exe, "check", "--json", "--src-func", pr.src, "--dst-func", pr.dst, "--engine", o.engine,
			"--correlator", o.correlator, "--ub", o.ub, "--timeout", o.timeout.String(), "--solver", o.solvers}
		if o.proofDir != "" {
			argv = append(argv, "--proof", o.proofDir)
		}
		for _, c := range o.contexts {
			argv = append(argv, "--context", c)
		}
		if o.witness != "" {
			argv = append(argv, "--witness", o.witness)
		}
		argv = append(argv, "--", o.srcPath, o.dstPath)
		w := pipeline.RunCheckWorker(ctx, lim, argv)
		stop()
		if ctx.Err() != nil {
			return dieOf(<-caught)
		}
		name := pr.src
		if pr.dst != pr.src {
			name += "/" + pr.dst
		}
		reason := w.Reason
		if w.Result != nil {
			var res align.Result
			err := json.Unmarshal(w.Result, &res)
			if err == nil {
				io.WriteString(stderr, w.Stderr)
				if w.ExitCode() == exitBadInput { // (the proof file could not be written)
					rep.worse(exitBadInput)
				}
				rep.add(&res, w.Result)
				continue
			}
			reason = "worker-crash: unreadable result: " + err.Error()
		}
		switch {
		case strings.HasPrefix(reason, "bad-input: "):
			io.WriteString(stderr, w.Stderr)
			rep.worse(exitBadInput)
			continue
		case reason == "timeout":
			// What the worker wrote before it was killed (EQC_DEBUG's
			// trace), then why.
			io.WriteString(stderr, w.Stderr)
			fmt.Fprintf(stderr, "eqc check: %s: killed after %.1fs (--timeout %s + grace %s)\n", name, w.Wall.Seconds(), o.timeout, grace)
		case reason == "memout":
			fmt.Fprintf(stderr, "eqc check: %s: out of memory under --memory %s: %s\n", name, o.memory, firstStderrLine(w.Stderr))
		default:
			io.WriteString(stderr, w.Stderr)
		}
		res := align.Result{Function: pr.src, Verdict: align.Unknown, Reason: reason, Engine: o.engine, WallS: w.Wall.Seconds()}
		if pr.dst != pr.src {
			res.DstFunction = pr.dst
		}
		rep.add(&res, nil)
	}
	select {
	case sig := <-caught: // after the last worker ended
		return dieOf(sig)
	default:
	}
	return rep.status
}

// dieOf ends this process with sig, as it would have ended without the
// handler; 128+sig should that not happen.
func dieOf(sig os.Signal) int {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return exitInterrupted
	}
	signal.Reset(s)
	syscall.Kill(os.Getpid(), s)
	time.Sleep(time.Second)
	return 128 + int(s)
}

func firstStderrLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// Test hooks, read by workers only: they make one function's check exceed
// its limits for real, for the tests of eqc check's limits.
const (
	// hookStall=F: the worker of F waits, before checking F, on a child
	// process that runs for 30s (longer than any test waits), in a process
	// group of its own and holding the worker's stdout and stderr, as a
	// hung solver process would.
	hookStall = "EQC_TESTHOOK_STALL"
	// hookAlloc=F: the worker of F allocates 4 GiB (untouched) before
	// checking F.
	hookAlloc = "EQC_TESTHOOK_ALLOC"
)

var hookSink [][]byte

func testHooks(fn string) {
	if os.Getenv(hookStall) == fn {
		cmd := exec.Command("sleep", "30")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if cmd.Run() != nil {
			time.Sleep(30 * time.Second)
		}
	}
	if os.Getenv(hookAlloc) == fn {
		for range 16 {
			hookSink = append(hookSink, make([]byte, 256<<20))
		}
	}
}

// commonFunctions lists, sorted, the functions both files define.
func commonFunctions(srcPath, dstPath string) ([]string, error) {
	src, err := x86.Open(srcPath)
	if err != nil {
		return nil, err
	}
	dst, err := x86.Open(dstPath)
	if err != nil {
		return nil, err
	}
	in := map[string]bool{}
	for _, f := range dst.Functions {
		in[f.Name] = true
	}
	var out []string
	for _, f := range src.Functions {
		if in[f.Name] {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}
