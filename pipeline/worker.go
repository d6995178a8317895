package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
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
}

// Key identifies a check across runs: a row with the same key under --out
// means the check is done (resume).
type Key struct {
	Suite, Benchmark, Function, Compiler, SrcOpt, DstOpt, CFlags, UBModel, Engine string
}

func (k Key) less(o Key) bool { return k.compare(o) < 0 }

func (k Key) compare(o Key) int {
	a := [...]string{k.Suite, k.Benchmark, k.Function, k.Compiler, k.SrcOpt, k.DstOpt, k.CFlags, k.UBModel, k.Engine}
	b := [...]string{o.Suite, o.Benchmark, o.Function, o.Compiler, o.SrcOpt, o.DstOpt, o.CFlags, o.UBModel, o.Engine}
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
	ProductNodes int64   `json:"product_nodes"`
	ProductEdges int64   `json:"product_edges"`
	// The loop engines' search effort (align.Result).
	AlignmentPredicatesTried int64           `json:"alignment_predicates_tried,omitempty"`
	CorrelationsTried        int64           `json:"correlations_tried,omitempty"`
	Candidates               int64           `json:"candidates,omitempty"`
	Invariants               int64           `json:"invariants,omitempty"`
	Input                    json.RawMessage `json:"input,omitempty"`
	Observed                 []string        `json:"observed,omitempty"`
	Proof                    string          `json:"proof,omitempty"` // the proof file written (--proof)
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
	errText  string        // stderr or a description, for the error column
	// proofVerified: the worker's proof (res.Proof) was rechecked by the
	// verifier and accepted; proofNote says why not, when it was not.
	proofVerified bool
	proofNote     string
}

// errInterrupted reports a worker killed because the sweep was stopped: its
// check has no result and is left for the next run.
var errInterrupted = errors.New("pipeline: interrupted")

// memoutMarks are stderr fragments of a process that ran into its
// address-space cap (Go runtime, C++ allocators, libc).
var memoutMarks = []string{"out of memory", "cannot allocate memory", "failed to reserve", "bad_alloc"}

// runWorker runs one check in its own process group under the wall-clock
// and memory limits of cfg. A worker killed at its deadline gives an
// unknown verdict with reason "timeout", one that ran out of memory
// "memout", anything else without a result "worker-crash: ...". When ctx
// is cancelled (the sweep is interrupted) the worker is killed and
// errInterrupted returned.
func runWorker(ctx context.Context, cfg *Config, c Check) (outcome, error) {
	args := []string{"--json", "--func", c.Function, "--ub", checkUB(c.Key.UBModel),
		"--engine", c.Key.Engine, "--timeout", cfg.Timeout.String()}
	if len(cfg.Verifier) > 0 {
		args = append(args, "--proof", proofDir(cfg, c))
	}
	for _, f := range c.Context {
		args = append(args, "--context", f)
	}
	args = append(args, c.SrcFile, c.DstFile)
	p := runProcess(ctx, cfg, append(append([]string{}, cfg.Worker...), args...))
	out := outcome{procWall: p.wall}
	if ctx.Err() != nil {
		return out, errInterrupted
	}
	errText := strings.TrimSpace(p.stderr)
	out.errText = errText
	if p.timedOut {
		out.res = workerResult{Verdict: "unknown", Reason: "timeout", WallS: out.procWall.Seconds()}
		if out.errText == "" {
			out.errText = fmt.Sprintf("worker killed after %s (timeout %s + grace %s)", cfg.Timeout+cfg.Grace, cfg.Timeout, cfg.Grace)
		}
		return out, nil
	}
	err := p.err
	// Exit statuses 0, 1 and 2 come with one JSON object per function.
	if line := firstJSONLine(p.stdout); line != nil {
		if jerr := json.Unmarshal(line, &out.res); jerr == nil && out.res.Verdict != "" {
			if out.res.Verdict == "equivalent" && out.res.Proof != "" && len(cfg.Verifier) > 0 {
				if err := verifyProof(ctx, cfg, c, &out); err != nil {
					return out, err
				}
			}
			return out, nil
		}
	}
	out.res = workerResult{Verdict: "unknown", WallS: out.procWall.Seconds()}
	low := strings.ToLower(errText)
	for _, m := range memoutMarks {
		if cfg.MemBytes > 0 && strings.Contains(low, m) {
			out.res.Reason = "memout"
			return out, nil
		}
	}
	what := firstLine(errText)
	if what == "" {
		if err != nil {
			what = err.Error()
		} else {
			what = "no result from the worker"
		}
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 65 {
		out.res.Reason = "bad-input: " + what
	} else {
		out.res.Reason = "worker-crash: " + what
	}
	if out.errText == "" && err != nil {
		out.errText = err.Error()
	}
	return out, nil
}

// process is how one worker process ended.
type process struct {
	stdout   []byte
	stderr   string // the first 64 KiB
	err      error  // from Run
	wall     time.Duration
	timedOut bool // killed at its deadline (Timeout + Grace)
}

// runProcess runs argv in its own process group under the wall-clock and
// memory limits of cfg, killing the whole group (solver processes too) at
// the deadline or when ctx is cancelled.
func runProcess(ctx context.Context, cfg *Config, argv []string) process {
	wctx, cancel := context.WithTimeout(ctx, cfg.Timeout+cfg.Grace)
	defer cancel()
	if cfg.MemBytes > 0 && cfg.prlimit != "" {
		argv = append([]string{cfg.prlimit, "--as=" + strconv.FormatInt(cfg.MemBytes, 10), "--"}, argv...)
	}
	cmd := exec.CommandContext(wctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process != nil {
			return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		return nil
	}
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 64 << 10}
	start := time.Now()
	err := cmd.Run()
	return process{stdout: stdout.Bytes(), stderr: stderr.String(), err: err, wall: time.Since(start),
		timedOut: wctx.Err() != nil && ctx.Err() == nil}
}

// proofDir is where the worker writes the proof of check c: one directory
// per check under Out/proofs, named readably and made unique by a hash of
// everything that tells checks apart.
func proofDir(cfg *Config, c Check) string {
	k := c.Key
	h := sha256.Sum256([]byte(strings.Join([]string{k.Suite, k.Benchmark, k.Function, k.Compiler, k.SrcOpt, k.DstOpt,
		k.CFlags, k.UBModel, k.Engine, c.Variant, c.SrcFile, c.DstFile}, "\x00")))
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
	p := runProcess(ctx, cfg, argv) // (not in procWall, which is the check's process)
	if ctx.Err() != nil {
		return errInterrupted
	}
	var v verifierResult
	line := firstJSONLine(p.stdout)
	switch {
	case p.timedOut:
		out.proofNote = "proof not verified: the verifier was killed at the timeout"
	case line == nil || json.Unmarshal(line, &v) != nil:
		out.proofNote = "proof not verified: the verifier gave no result: " + firstLine(p.stderr)
	case !v.Verified:
		out.proofNote = "proof not verified: " + v.Reason
	default:
		out.proofVerified = true
	}
	return nil
}

// checkUB turns a sweep UB model ("all", "none", "sio", "sio+tbsa") into
// the --ub argument of eqc check ("sio,tbsa").
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
