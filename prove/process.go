package prove

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"eqc/ir/smtlib"
)

// Solver kinds NewProcess knows how to drive.
const (
	KindZ3        = "z3"
	KindCVC5      = "cvc5"
	KindBoolector = "boolector"
)

// processArgs are the command-line flags per kind. All read the script from
// stdin (no temporary files) and print models in SMT-LIB form except
// Boolector 1.5, whose -m model format is translated (see boolector.go).
var processArgs = map[string][]string{
	// -in: read commands from stdin; -smt2: in SMT-LIB2. Z3 produces
	// models by default.
	KindZ3: {"-in", "-smt2"},
	// cvc5 needs --produce-models before (get-model) is allowed.
	KindCVC5: {"--lang", "smt2", "--produce-models"},
	// Debian's Boolector 1.5.118 predates --model-gen and get-model: -m
	// prints its own model format after "sat".
	KindBoolector: {"--smt2", "-m"},
}

// Output limits: a runaway solver printing forever must not exhaust memory
// before its deadline kills it.
const (
	maxStdout = 64 << 20
	maxStderr = 64 << 10
)

// Process is a TextSolver that runs a solver binary per query. Each query is
// a fresh process in its own process group, so a deadline or cancellation
// kills the solver and anything it spawned. Every kind of misbehaviour
// becomes an Unknown Answer with a precise Reason.
type Process struct {
	kind string
	path string
}

// NewProcess returns a backend running the solver of the given kind ("z3",
// "cvc5" or "boolector"). path is the binary to run, either a file path or
// a name looked up in PATH; "" means the kind's own name. A binary that
// cannot be found yields an error wrapping ErrSolverMissing.
func NewProcess(kind, path string) (*Process, error) {
	if _, ok := processArgs[kind]; !ok {
		return nil, fmt.Errorf("prove: %w %q (want z3, cvc5 or boolector)", ErrUnknownKind, kind)
	}
	if path == "" {
		path = kind
	}
	resolved, err := exec.LookPath(path)
	if err != nil {
		return nil, fmt.Errorf("prove: %w: %s: %v", ErrSolverMissing, path, err)
	}
	return &Process{kind: kind, path: resolved}, nil
}

// Name returns the solver kind.
func (p *Process) Name() string { return p.kind }

// Path returns the binary that is run.
func (p *Process) Path() string { return p.path }

// Args returns the command-line flags passed to the solver.
func (p *Process) Args() []string { return append([]string(nil), processArgs[p.kind]...) }

// Close does nothing: no process outlives a CheckText call.
func (p *Process) Close() error { return nil }

// CheckText runs the solver on script, killing it when ctx is done.
func (p *Process) CheckText(ctx context.Context, script string) Answer {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return unknown(p.kind, start, ctxReason(err))
	}
	var input string
	var decls map[string]string
	if p.kind == KindBoolector {
		var why string
		input, decls, why = boolectorInput(script)
		if why != "" {
			return unknown(p.kind, start, ReasonUnsupported+": boolector: "+why)
		}
	} else {
		// (get-info :reason-unknown) and (get-model) are sent
		// unconditionally; the one that does not apply to the answer
		// draws an (error ...) that parsing skips. That is simpler and
		// faster than a round-trip dialogue over pipes.
		input = stripSolverCommands(script) + "\n(check-sat)\n(get-info :reason-unknown)\n(get-model)\n(exit)\n"
	}

	out, errOut, state, runErr := p.run(ctx, input)
	a := p.classify(ctx, out, errOut, state, runErr, decls)
	a.Solver = p.kind
	a.Elapsed = time.Since(start)
	return a
}

// run executes the solver with input on stdin. The process is the leader of
// a new process group, and the whole group is killed when ctx is done and
// again after the leader exits, so that no descendant outlives the call.
func (p *Process) run(ctx context.Context, input string) (stdout, stderr []byte, state *processState, err error) {
	var so, se cappedBuffer
	so.max, se.max = maxStdout, maxStderr
	var cmd *exec.Cmd
	for attempt := 0; ; attempt++ {
		cmd = exec.CommandContext(ctx, p.path, processArgs[p.kind]...)
		cmd.Stdin = strings.NewReader(input)
		cmd.Stdout, cmd.Stderr = &so, &se
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		// If a descendant keeps the output pipes open after the leader
		// dies, stop waiting for it after this long (the group kill
		// below ends it).
		cmd.WaitDelay = time.Second
		err = cmd.Start()
		// ETXTBSY: the binary was just written and another goroutine's
		// fork still holds the write descriptor until its exec; it
		// clears within milliseconds.
		if errors.Is(err, syscall.ETXTBSY) && attempt < 20 && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		break
	}
	if err == nil {
		err = cmd.Wait()
	}
	if cmd.Process != nil {
		// Reap-time cleanup of any descendants left in the group; ESRCH
		// (nothing left) is the normal case.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if cmd.ProcessState != nil {
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		state = &processState{ws: ws}
	}
	return so.Bytes(), se.Bytes(), state, err
}

type processState struct{ ws syscall.WaitStatus }

// classify turns what the solver did into an Answer. The order matters: a
// missing binary and a crash are reported as such even when ctx ended
// meanwhile, and a complete answer from a solver that exited normally is
// accepted even if the deadline passed while we were reading it.
func (p *Process) classify(ctx context.Context, out, errOut []byte, st *processState, runErr error, decls map[string]string) Answer {
	if st == nil { // never started
		var ee *exec.Error
		if errors.Is(runErr, fs.ErrNotExist) || errors.As(runErr, &ee) {
			return Answer{Reason: fmt.Sprintf("%s: %s not found: %v", ReasonMissing, p.path, runErr)}
		}
		if ctx.Err() != nil {
			return Answer{Reason: ctxReason(ctx.Err())}
		}
		return Answer{Reason: fmt.Sprintf("%s: %s did not start: %v", ReasonError, p.kind, runErr)}
	}
	var a Answer
	if p.kind == KindBoolector {
		a = parseBoolectorOutput(string(out), decls)
	} else {
		a = parseSMTOutput(p.kind, string(out))
	}
	if st.ws.Signaled() {
		if ctx.Err() != nil {
			return Answer{Reason: ctxReason(ctx.Err())}
		}
		// Even if an answer was printed, a solver that then crashed is
		// not trusted.
		sig := st.ws.Signal()
		return Answer{Reason: fmt.Sprintf("%s: %s exited with signal %d (%v)", ReasonCrash, p.kind, int(sig), sig)}
	}
	if a.Status.Definite() {
		return a
	}
	if ctx.Err() != nil {
		return Answer{Reason: ctxReason(ctx.Err())}
	}
	if a.Reason == "" { // nothing recognisable on stdout
		switch code := st.ws.ExitStatus(); {
		case code != 0:
			a.Reason = fmt.Sprintf("%s: %s exited with status %d%s", ReasonError, p.kind, code, firstLine(errOut, out))
		case len(bytes.TrimSpace(out)) == 0:
			a.Reason = fmt.Sprintf("%s: %s printed nothing%s", ReasonGarbage, p.kind, firstLine(errOut, nil))
		default:
			a.Reason = fmt.Sprintf("%s: %s printed %q", ReasonGarbage, p.kind, snippet(out))
		}
	}
	return a
}

// parseSMTOutput reads the answers to check-sat, get-info :reason-unknown
// and get-model. An (error ...) before the check-sat answer makes the
// answer Unknown: Z3 carries on after an error in an assertion, so its
// verdict would be about a different formula.
func parseSMTOutput(kind, out string) Answer {
	forms, perr := smtlib.ReadSExprs(out)
	var status smtlib.Status
	answered := false
	var firstErr, reason string
	var model []smtlib.SExpr
	for i := range forms {
		f := &forms[i]
		if !answered {
			switch st, ok := smtlib.ReadStatus(f); {
			case ok:
				status, answered = st, true
			case f.IsWord("success"):
			case f.Head() == "error":
				if firstErr == "" {
					firstErr = errorText(f)
				}
			default:
				return Answer{Reason: fmt.Sprintf("%s: %s printed %q", ReasonGarbage, kind, snippet([]byte(out[f.Off:])))}
			}
			continue
		}
		if isReasonUnknown(f) {
			if r := &f.List[1]; r.IsList() {
				reason = r.Text(out)
			} else {
				reason = r.Atom
			}
		} else if m, ok := modelForms(f); ok && model == nil {
			model = m
		}
	}
	switch {
	case firstErr != "":
		return Answer{Reason: fmt.Sprintf("%s: %s: %s", ReasonError, kind, firstErr)}
	case !answered && perr != nil:
		return Answer{Reason: fmt.Sprintf("%s: %s printed %q (%v)", ReasonGarbage, kind, snippet([]byte(out)), perr)}
	case !answered:
		return Answer{} // no answer at all; classify explains
	case status == smtlib.Sat:
		return Answer{Status: smtlib.Sat, Model: modelText(out, model)}
	case status == smtlib.Unsat:
		return Answer{Status: smtlib.Unsat}
	}
	switch reason {
	case "timeout", "canceled", "resourceout":
		return Answer{Reason: ReasonTimeout + ": " + kind + " " + reason}
	case "":
		return Answer{Reason: ReasonUnknown + ": " + kind}
	}
	return Answer{Reason: ReasonUnknown + ": " + kind + ": " + reason}
}

// isReasonUnknown recognises the response to (get-info :reason-unknown):
// (:reason-unknown "timeout").
func isReasonUnknown(f *smtlib.SExpr) bool {
	return f.IsList() && len(f.List) > 1 && f.List[0].Kind == smtlib.SKeyword && f.List[0].Atom == ":reason-unknown"
}

// stripSolverCommands removes top-level commands that backends issue
// themselves, so that a script written with (check-sat) still gets exactly
// one answer. Scripts that cannot contain them are returned untouched
// without parsing.
func stripSolverCommands(script string) string {
	if !strings.Contains(script, "check-sat") && !strings.Contains(script, "get-model") &&
		!strings.Contains(script, "exit") && !strings.Contains(script, "get-info") {
		return script
	}
	forms, err := smtlib.ReadSExprs(script)
	if err != nil {
		return script // let the solver report the syntax error
	}
	var b strings.Builder
	for i := range forms {
		switch forms[i].Head() {
		case "check-sat", "get-model", "exit", "get-info", "get-value":
			continue
		}
		b.WriteString(forms[i].Text(script))
		b.WriteByte('\n')
	}
	return b.String()
}

// cappedBuffer keeps the first max bytes written and discards the rest,
// while reporting success so that the solver is not killed by EPIPE.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		if len(p) > room {
			c.Buffer.Write(p[:room])
		} else {
			c.Buffer.Write(p)
		}
	}
	return len(p), nil
}

func snippet(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 80 {
		b = b[:80]
	}
	return string(b)
}

// firstLine returns ": " and the first non-empty line of the first
// non-empty of bs, for error messages.
func firstLine(bs ...[]byte) string {
	for _, b := range bs {
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				if len(l) > 160 {
					l = l[:160]
				}
				return ": " + l
			}
		}
	}
	return ""
}
