package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
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
	Function     string          `json:"function"`
	Verdict      string          `json:"verdict"`
	Reason       string          `json:"reason"`
	Engine       string          `json:"engine"`
	WallS        float64         `json:"wall_s"`
	SMTQueries   int64           `json:"smt_queries"`
	ProductNodes int64           `json:"product_nodes"`
	ProductEdges int64           `json:"product_edges"`
	Input        json.RawMessage `json:"input,omitempty"`
	Observed     []string        `json:"observed,omitempty"`
}

// outcome is what one worker run gave: the worker's result, or why there
// is none, and the wall time of the whole process.
type outcome struct {
	res      workerResult
	procWall time.Duration // worker process, start to exit
	errText  string        // stderr or a description, for the error column
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
	deadline := cfg.Timeout + cfg.Grace
	wctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()

	args := []string{"--json", "--func", c.Function, "--ub", checkUB(c.Key.UBModel),
		"--engine", c.Key.Engine, "--timeout", cfg.Timeout.String(), c.SrcFile, c.DstFile}
	argv := append(append([]string{}, cfg.Worker...), args...)
	if cfg.MemBytes > 0 && cfg.prlimit != "" {
		argv = append([]string{cfg.prlimit, "--as=" + strconv.FormatInt(cfg.MemBytes, 10), "--"}, argv...)
	}
	cmd := exec.CommandContext(wctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The whole group: solver processes the worker started go too.
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
	out := outcome{procWall: time.Since(start)}
	if ctx.Err() != nil {
		return out, errInterrupted
	}
	errText := strings.TrimSpace(stderr.String())
	out.errText = errText
	if wctx.Err() != nil {
		out.res = workerResult{Verdict: "unknown", Reason: "timeout", WallS: out.procWall.Seconds()}
		if out.errText == "" {
			out.errText = fmt.Sprintf("worker killed after %s (timeout %s + grace %s)", deadline, cfg.Timeout, cfg.Grace)
		}
		return out, nil
	}
	// Exit statuses 0, 1 and 2 come with one JSON object per function.
	if line := firstJSONLine(stdout.Bytes()); line != nil {
		if jerr := json.Unmarshal(line, &out.res); jerr == nil && out.res.Verdict != "" {
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
