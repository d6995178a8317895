package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Check is one check of a sweep: one function of one source file, the
// source-side object against the target-side object, under one UB model.
type Check struct {
	Key      Key
	Variant  string
	SrcFile  string // source-side object
	DstFile  string // target-side object
	Function string
	// Context are objects whose DWARF describes the pair's globals (the
	// suite's support files), for eqc check --context.
	Context []string
	// Witness is the source's sanitizer build (eqc check --witness), or "".
	Witness string
	// Cost is the check's expected cost, for dealing checks out to
	// shards: the two functions' code size in bytes (at least 1).
	Cost int64
}

// Key identifies a check across runs: a row with the same key under --out
// means the check is done (resume).
type Key struct {
	Suite, Benchmark, Function, Compiler, SrcOpt, DstOpt, CFlags, UBModel, Engine string
	// SrcCompiler is the source side's compiler when not Compiler ("").
	SrcCompiler string
	// Correlator is the static engine's correlator when not the
	// backtracking one ("").
	Correlator string
}

func (k Key) less(o Key) bool { return k.compare(o) < 0 }

func (k Key) compare(o Key) int {
	a := [...]string{k.Suite, k.Benchmark, k.Function, k.Compiler, k.SrcOpt, k.DstOpt, k.CFlags, k.UBModel, k.Engine, k.SrcCompiler, k.Correlator}
	b := [...]string{o.Suite, o.Benchmark, o.Function, o.Compiler, o.SrcOpt, o.DstOpt, o.CFlags, o.UBModel, o.Engine, o.SrcCompiler, o.Correlator}
	for i := range a {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// workerResult is the JSON object `eqc check --json` prints per function
// (the fields of align.Result the sweep records).
type workerResult struct {
	Function     string  `json:"function"`
	Verdict      string  `json:"verdict"`
	Reason       string  `json:"reason"`
	Engine       string  `json:"engine"`
	WallS        float64 `json:"wall_s"`
	SMTQueries   int64   `json:"smt_queries"`
	SMTS         float64 `json:"smt_s"`
	ProductNodes int64   `json:"product_nodes"`
	ProductEdges int64   `json:"product_edges"`
	// The loop engines' search effort (align.Result).
	AlignmentPredicatesTried int64           `json:"alignment_predicates_tried,omitempty"`
	CorrelationsTried        int64           `json:"correlations_tried,omitempty"`
	CandidatesExpanded       int64           `json:"candidates_expanded,omitempty"`
	CandidatesPruned         int64           `json:"candidates_pruned,omitempty"`
	Counterexamples          int64           `json:"counterexamples,omitempty"`
	Candidates               int64           `json:"candidates,omitempty"`
	Invariants               int64           `json:"invariants,omitempty"`
	Input                    json.RawMessage `json:"input,omitempty"`
	Observed                 []string        `json:"observed,omitempty"`
	Proof                    string          `json:"proof,omitempty"` // the proof file written (--proof)
	ALOCSrc                  int64           `json:"aloc_src,omitempty"`
	ALOCDst                  int64           `json:"aloc_dst,omitempty"`
	LoopsSrc                 int64           `json:"loops_src,omitempty"`
	LoopsDst                 int64           `json:"loops_dst,omitempty"`
	CallsSrc                 int64           `json:"calls_src,omitempty"`
	CallsDst                 int64           `json:"calls_dst,omitempty"`
	CompositeEdgesDst        int64           `json:"composite_edges_dst,omitempty"`
	TestVectors              int64           `json:"test_vectors,omitempty"`
	CacheHits                int64           `json:"cache_hits,omitempty"`
}

// verifierResult is the JSON object `eqc proof verify --json` prints.
type verifierResult struct {
	Verified bool   `json:"verified"`
	Reason   string `json:"reason"`
}

// outcome is what one worker run gave: the worker's result, or why there
// is none, and the wall time of the whole process.
type outcome struct {
	res      workerResult
	procWall time.Duration // worker process, start to exit
	procCPU  time.Duration // its CPU time and that of what it waited for
	errText  string        // stderr or a description, for the error column
	// proofVerified: the worker's proof (res.Proof) was rechecked by the
	// verifier and accepted; proofNote says why not, when it was not.
	proofVerified bool
	proofNote     string
}

// errInterrupted reports a worker killed because the sweep was stopped: its
// check has no result and is left for the next run.
var errInterrupted = errors.New("pipeline: interrupted")

// runWorker runs one check in a session of its own under the wall-clock
// and memory limits of cfg (RunCheckWorker). A worker killed at its
// deadline gives an unknown verdict with reason "timeout", one that ran out
// of memory "memout", anything else without a result "worker-crash: ...".
// When ctx is cancelled (the sweep is interrupted) the worker is killed and
// errInterrupted returned.
func runWorker(ctx context.Context, cfg *Config, c Check) (outcome, error) {
	args := []string{"--json", "--func", c.Function, "--ub", checkUB(c.Key.UBModel),
		"--engine", c.Key.Engine, "--timeout", cfg.Timeout.String()}
	// A key's empty correlator is the backtracking one, which rows named
	// by leaving it empty before the correlator was a choice.
	args = append(args, "--correlator", cmp.Or(c.Key.Correlator, "bt"))
	if len(cfg.Verifier) > 0 {
		args = append(args, "--proof", proofDir(cfg, c))
	}
	for _, f := range c.Context {
		args = append(args, "--context", f)
	}
	if c.Witness != "" {
		args = append(args, "--witness", c.Witness)
	}
	args = append(args, c.SrcFile, c.DstFile)
	w := RunCheckWorker(ctx, cfg.limits(), append(append([]string{}, cfg.Worker...), args...))
	out := outcome{procWall: w.Wall, procCPU: w.CPU}
	if ctx.Err() != nil {
		return out, errInterrupted
	}
	out.errText = strings.TrimSpace(w.Stderr)
	reason := w.Reason
	if w.Result != nil {
		err := json.Unmarshal(w.Result, &out.res)
		if err == nil {
			if out.res.Verdict == "equivalent" && out.res.Proof != "" && len(cfg.Verifier) > 0 {
				if err := verifyProof(ctx, cfg, c, &out); err != nil {
					return out, err
				}
			}
			return out, nil
		}
		reason = "worker-crash: unreadable result: " + err.Error()
	}
	out.res = workerResult{Verdict: "unknown", Reason: reason, WallS: out.procWall.Seconds()}
	if out.errText == "" {
		switch {
		case w.TimedOut:
			out.errText = fmt.Sprintf("worker killed after %s (timeout %s + grace %s)", cfg.Timeout+cfg.Grace, cfg.Timeout, cfg.Grace)
		case w.Err != nil:
			out.errText = w.Err.Error()
		}
	}
	return out, nil
}

// limits are the bounds of every worker and verifier process of the sweep.
func (cfg *Config) limits() Limits {
	return Limits{Deadline: cfg.Timeout + cfg.Grace, MemBytes: cfg.MemBytes, Prlimit: cfg.prlimit, Env: cfg.Env}
}

// Limits bound one worker process (RunProcess).
type Limits struct {
	// Deadline is the wall-clock bound of the process: when it has passed,
	// the process's whole session (its solver processes too) is killed. 0
	// is no bound.
	Deadline time.Duration
	// MemBytes caps the address space of the process, and of each of its
	// descendants, which inherit the cap (`prlimit --as`, with Prlimit); 0
	// is no cap. A cap above the hard
	// limit the caller already runs under is lowered to it.
	MemBytes int64
	// Prlimit is the path of prlimit (util-linux, FindPrlimit); "" runs
	// the process without the cap.
	Prlimit string
	// Env is added to the environment the process inherits.
	Env []string
}

// FindPrlimit returns the path of prlimit (util-linux), which caps a
// worker's address space, or an error when it is not installed.
func FindPrlimit() (string, error) { return exec.LookPath("prlimit") }

// Process is how one worker process ended.
type Process struct {
	Stdout []byte
	Stderr string // the first 64 KiB
	Err    error  // from exec.Cmd.Run
	Wall   time.Duration
	// CPU is the user and system time of the process and of the
	// descendants it waited for (solver processes, traced binaries).
	CPU      time.Duration
	TimedOut bool // killed at its Deadline
}

// ExitCode is the process's exit status, or -1 when it did not exit (it
// was killed by a signal, or did not start).
func (p *Process) ExitCode() int {
	var exit *exec.ExitError
	switch {
	case p.Err == nil:
		return 0
	case errors.As(p.Err, &exit):
		return exit.ExitCode()
	}
	return -1
}

// RunProcess runs argv under lim as the leader of a session of its own, and
// kills the whole session — every descendant, whatever its process group,
// such as solver processes (each the leader of a group of its own) and
// traced binaries — at the deadline, when ctx is cancelled, and once the
// process has ended, so that nothing it started outlives the call. The
// process is also sent SIGKILL if the caller dies first (Pdeathsig, which
// fires when the thread that started it exits: callers are supervisors,
// with no goroutine that exits locked to its thread).
func RunProcess(ctx context.Context, lim Limits, argv []string) Process {
	wctx, cancel := ctx, context.CancelFunc(func() {})
	if lim.Deadline > 0 {
		wctx, cancel = context.WithTimeout(ctx, lim.Deadline)
	}
	defer cancel()
	if mem := capBelowHard(lim.MemBytes); mem > 0 && lim.Prlimit != "" {
		argv = append([]string{lim.Prlimit, "--as=" + strconv.FormatInt(mem, 10), "--"}, argv...)
	}
	cmd := exec.CommandContext(wctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if len(lim.Env) > 0 {
		cmd.Env = append(os.Environ(), lim.Env...)
	}
	cmd.Cancel = func() error {
		killSession(cmd.Process.Pid)
		return nil
	}
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: stderrLimit()}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.Process != nil {
		killSession(cmd.Process.Pid) // what it left running
	}
	var cpu time.Duration
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return Process{Stdout: stdout.Bytes(), Stderr: stderr.String(), Err: err, Wall: wall, CPU: cpu,
		TimedOut: wctx.Err() != nil && ctx.Err() == nil}
}

// killSession sends SIGKILL to every live process of session sid (a worker
// started with Setsid is its leader; its descendants stay in it), scanning
// /proc until none is left, for at most a second. While a process of the
// session exists its number cannot be reused, so no other process is hit.
func killSession(sid int) {
	for round := 0; round < 100; round++ {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		live := false
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if s, ok := sessionOf(pid); ok && s == sid {
				syscall.Kill(pid, syscall.SIGKILL)
				live = true
			}
		}
		if !live {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sessionOf reads the session of a live (not zombie) process from
// /proc/PID/stat.
func sessionOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid pgrp session ...; comm may hold anything.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	sid, err := strconv.Atoi(f[3])
	return sid, err == nil
}

// capBelowHard lowers an address-space cap to the hard limit this process
// already runs under (prlimit cannot raise it), keeping 0 (no cap) as is.
func capBelowHard(mem int64) int64 {
	var rl syscall.Rlimit
	if mem <= 0 || syscall.Getrlimit(syscall.RLIMIT_AS, &rl) != nil {
		return mem
	}
	if rl.Max < uint64(mem) { // (RLIM_INFINITY is the largest uint64)
		return int64(rl.Max)
	}
	return mem
}

// CheckRun is how one `eqc check --json` worker ended: the JSON line of
// its result, or why there is none.
type CheckRun struct {
	Process
	// Result is the first line of Stdout that is a JSON object with a
	// non-empty "verdict" (the worker checks one function); nil when
	// there is none.
	Result []byte
	// Reason, when Result is nil, is the unknown reason of the check:
	// "timeout" (killed at the deadline), "memout" (died with an
	// out-of-memory message under a memory cap), "bad-input: <first stderr
	// line>" (exit status 65) or "worker-crash: <first stderr line, or how
	// it ended>".
	Reason string
}

// memoutMarks are stderr fragments of a process that ran into its
// address-space cap (Go runtime, C++ allocators, libc).
var memoutMarks = []string{"out of memory", "cannot allocate memory", "failed to reserve", "bad_alloc"}

// RunCheckWorker runs argv, an `eqc check --json` for one function, with
// RunProcess under lim, and classifies how it ended. A worker killed at the
// deadline has reason "timeout" even if it printed a result.
func RunCheckWorker(ctx context.Context, lim Limits, argv []string) CheckRun {
	w := CheckRun{Process: RunProcess(ctx, lim, argv)}
	if w.TimedOut {
		w.Reason = "timeout"
		return w
	}
	if line := firstJSONLine(w.Stdout); line != nil {
		var v struct {
			Verdict string `json:"verdict"`
		}
		if json.Unmarshal(line, &v) == nil && v.Verdict != "" {
			w.Result = line
			return w
		}
	}
	errText := strings.TrimSpace(w.Stderr)
	low := strings.ToLower(errText)
	for _, m := range memoutMarks {
		if lim.MemBytes > 0 && strings.Contains(low, m) {
			w.Reason = "memout"
			return w
		}
	}
	what := firstLine(errText)
	if what == "" {
		if w.Err != nil {
			what = w.Err.Error()
		} else {
			what = "no result from the worker"
		}
	}
	if w.ExitCode() == 65 {
		w.Reason = "bad-input: " + what
	} else {
		w.Reason = "worker-crash: " + what
	}
	return w
}

// proofDir is where the worker writes the proof of check c: one directory
// per check under Out/proofs, named readably and made unique by a hash of
// everything that tells checks apart.
func proofDir(cfg *Config, c Check) string {
	k := c.Key
	h := sha256.Sum256([]byte(strings.Join([]string{k.Suite, k.Benchmark, k.Function, k.Compiler, k.SrcOpt, k.DstOpt,
		k.CFlags, k.UBModel, k.Engine + k.Correlator, c.Variant, c.SrcFile, c.DstFile}, "\x00")))
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '/' || r == '\x00' || r == ' ' {
				return '_'
			}
			return r
		}, s)
	}
	name := fmt.Sprintf("%s.%s.%s-%s.%s.%x", clean(k.Benchmark), clean(k.Compiler), clean(k.SrcOpt), clean(k.DstOpt),
		clean(strings.ReplaceAll(k.UBModel, ",", "+")), h[:4])
	out := cfg.Out
	if abs, err := filepath.Abs(out); err == nil {
		out = abs // the row names the proof wherever the report runs from
	}
	return filepath.Join(out, "proofs", clean(k.Suite), name)
}

// verifyProof rechecks the proof an equivalent verdict came with, in a
// process of its own under the same limits: `eqc proof verify` rebuilds
// every obligation from the binaries and the proof file, without the
// search. The verdict stands either way (the search's obligations were
// discharged); the row records whether the proof was verified and why not.
func verifyProof(ctx context.Context, cfg *Config, c Check, out *outcome) error {
	argv := append(append([]string{}, cfg.Verifier...), "--json", "--timeout", cfg.Timeout.String(), out.res.Proof, c.SrcFile, c.DstFile)
	p := RunProcess(ctx, cfg.limits(), argv) // (not in procWall, which is the check's process)
	if ctx.Err() != nil {
		return errInterrupted
	}
	var v verifierResult
	line := firstJSONLine(p.Stdout)
	switch {
	case p.TimedOut:
		out.proofNote = "proof not verified: the verifier was killed at the timeout"
	case line == nil || json.Unmarshal(line, &v) != nil:
		out.proofNote = "proof not verified: the verifier gave no result: " + firstLine(p.Stderr)
	case !v.Verified:
		out.proofNote = "proof not verified: " + v.Reason
	default:
		out.proofVerified = true
	}
	return nil
}

// checkUB turns a sweep UB model ("all", "none", "sio,tbsa", "all,-sio",
// or "sio+tbsa" as older rows spell it) into the --ub argument of eqc
// check ("sio,tbsa").
func checkUB(model string) string { return strings.ReplaceAll(model, "+", ",") }

func firstJSONLine(b []byte) []byte {
	for _, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] == '{' {
			return line
		}
	}
	return nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	const max = 200
	if len(s) > max {
		s = s[:max] + "..."
	}
	return s
}

// stderrLimit is how much of a worker's stderr is kept: 64 KiB, so that a
// runaway stack cannot fill a sweep's memory, but 256 MiB under EQC_DEBUG,
// whose trace of one loop check runs to megabytes: at 64 KiB it stopped
// mid-line after a loop's first edges, and the obligations that took the
// time never showed.
func stderrLimit() int {
	if os.Getenv("EQC_DEBUG") != "" {
		return 256 << 20
	}
	return 64 << 10
}

// limitedBuffer keeps the first max bytes written to it and drops the rest,
// so a worker printing a runaway stack cannot fill the sweep's memory.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		if len(p) > room {
			l.buf.Write(p[:room])
		} else {
			l.buf.Write(p)
		}
	}
	return len(p), nil
}
