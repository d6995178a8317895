package prove

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"eqc/ir/smtlib"
)

// fakeSolver writes an executable shell script standing in for a solver
// and returns a Process driving it with z3's protocol.
func fakeSolver(t *testing.T, body string) *Process {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake-solver")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := NewProcess(KindZ3, path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const tinySat = "(declare-const b Bool)\n(assert b)\n"

func TestNewProcessMissing(t *testing.T) {
	if _, err := NewProcess(KindBoolector, "eqc-no-such-solver-7f3a"); !errors.Is(err, ErrSolverMissing) {
		t.Errorf("bogus name: err = %v, want ErrSolverMissing", err)
	}
	t.Setenv("PATH", t.TempDir())
	for _, kind := range []string{KindZ3, KindCVC5, KindBoolector} {
		_, err := NewProcess(kind, "")
		if !errors.Is(err, ErrSolverMissing) {
			t.Errorf("%s with empty PATH: err = %v, want ErrSolverMissing", kind, err)
		}
	}
	if _, err := NewProcess("yices", "/bin/sh"); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("unknown kind: err = %v", err)
	}
}

// pidGone reports whether pid no longer names a live process (a zombie
// awaiting its reaper counts as gone: it runs nothing).
func pidGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] == "Z"
}

func TestProcessMisbehaviour(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		timeout time.Duration
		status  smtlib.Status
		reason  string // expected Reason prefix
	}{
		{"crash", "kill -SEGV $$", 0, smtlib.Unknown, "solver-crash: z3 exited with signal 11 (segmentation fault)"},
		{"answer-then-crash", "echo unsat; kill -ABRT $$", 0, smtlib.Unknown, "solver-crash: z3 exited with signal 6"},
		{"hang", "sleep 1000", 200 * time.Millisecond, smtlib.Unknown, "timeout"},
		{"garbage", "echo 'Segmentation fault (core dumped) but cheerful'", 0, smtlib.Unknown, "solver-garbage: z3 printed"},
		{"unbalanced", "echo '((('", 0, smtlib.Unknown, "solver-garbage: z3 printed"},
		{"silent", "exit 0", 0, smtlib.Unknown, "solver-garbage: z3 printed nothing"},
		{"error-exit", "echo 'license expired' >&2; exit 3", 0, smtlib.Unknown, "solver-error: z3 exited with status 3: license expired"},
		{"error-before-answer", `echo '(error "line 3: unknown constant y")'; echo sat; echo '()'`, 0, smtlib.Unknown, "solver-error: z3: line 3: unknown constant y"},
		{"unknown-with-reason", `echo unknown; echo '(:reason-unknown "(incomplete quantifiers)")'`, 0, smtlib.Unknown, "solver-unknown: z3: (incomplete quantifiers)"},
		{"unsat-then-error", `cat >/dev/null; echo unsat; echo '(error "model is not available")'; exit 1`, 0, smtlib.Unsat, ""},
		{"sat-with-old-model-syntax", `cat >/dev/null; echo sat; echo '(model (define-fun b () Bool true))'`, 0, smtlib.Sat, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := fakeSolver(t, c.body)
			ctx := context.Background()
			if c.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.timeout)
				defer cancel()
			}
			start := time.Now()
			a := p.CheckText(ctx, tinySat)
			if el := time.Since(start); el > c.timeout+5*time.Second {
				t.Errorf("took %v", el)
			}
			if a.Status != c.status || !strings.HasPrefix(a.Reason, c.reason) {
				t.Fatalf("got %v %q, want %v %q", a.Status, a.Reason, c.status, c.reason)
			}
			if a.Status == smtlib.Sat && !strings.Contains(a.Model, "(define-fun b () Bool true)") {
				t.Errorf("model %q", a.Model)
			}
		})
	}
}

// TestHangKillsProcessGroup checks that a timed-out solver's descendants
// die with it: the fake solver's work happens in a child it forks.
func TestHangKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	p := fakeSolver(t, "sleep 1000 & echo $! > "+pidFile+"; wait")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	a := p.CheckText(ctx, tinySat)
	if a.Status != smtlib.Unknown || a.Reason != ReasonTimeout {
		t.Fatalf("got %v %q", a.Status, a.Reason)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("timeout took %v", el)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(2 * time.Second)
	for !pidGone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d survived the timeout", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBinaryVanished(t *testing.T) {
	p := fakeSolver(t, "echo sat")
	if err := os.Remove(p.Path()); err != nil {
		t.Fatal(err)
	}
	a := p.CheckText(context.Background(), tinySat)
	if a.Status != smtlib.Unknown || ReasonKind(a.Reason) != ReasonMissing {
		t.Fatalf("got %v %q", a.Status, a.Reason)
	}
}

// TestRealSolverErrors feeds real solvers a script with an undeclared
// symbol: each must report a solver-error, and none may answer.
func TestRealSolverErrors(t *testing.T) {
	for _, s := range backends(t) {
		a := s.CheckText(context.Background(), "(declare-const x (_ BitVec 8))\n(assert (= x y))\n")
		if a.Status != smtlib.Unknown || ReasonKind(a.Reason) != ReasonError {
			t.Errorf("%s: got %v %q, want solver-error", s.Name(), a.Status, a.Reason)
		} else {
			t.Logf("%s: %s", s.Name(), a.Reason)
		}
	}
}

// TestRealSolverTimeout cuts off a query no solver finishes quickly.
func TestRealSolverTimeout(t *testing.T) {
	hard := pigeonhole(16, 15)
	for _, s := range backends(t) {
		t.Run(s.Name(), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			start := time.Now()
			a := s.CheckText(ctx, hard)
			if a.Status != smtlib.Unknown || a.Reason != ReasonTimeout {
				t.Fatalf("got %v %q", a.Status, a.Reason)
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("took %v", el)
			}
		})
	}
}

func TestCheckSatTolerated(t *testing.T) {
	for _, s := range backends(t) {
		a := s.CheckText(context.Background(), "(set-logic QF_BV)\n"+tinySat+"(check-sat)\n(get-model)\n(exit)\n")
		if a.Status != smtlib.Sat {
			t.Errorf("%s: got %v %q", s.Name(), a.Status, a.Reason)
		}
	}
}

func TestCanceledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, s := range backends(t) {
		if a := s.CheckText(ctx, tinySat); a.Status != smtlib.Unknown || a.Reason != ReasonCanceled {
			t.Errorf("%s: got %v %q", s.Name(), a.Status, a.Reason)
		}
	}
}

// pigeonhole is the pigeonhole principle for n+1 pigeons in n holes as
// Boolean constraints: unsat and exponentially hard for the resolution
// search in every SMT solver.
func pigeonhole(pigeons, holes int) string {
	var b strings.Builder
	v := func(p, h int) string { return "p" + strconv.Itoa(p) + "_" + strconv.Itoa(h) }
	for p := 0; p < pigeons; p++ {
		for h := 0; h < holes; h++ {
			b.WriteString("(declare-fun " + v(p, h) + " () Bool)\n")
		}
	}
	for p := 0; p < pigeons; p++ {
		b.WriteString("(assert (or")
		for h := 0; h < holes; h++ {
			b.WriteString(" " + v(p, h))
		}
		b.WriteString("))\n")
	}
	for h := 0; h < holes; h++ {
		for p := 0; p < pigeons; p++ {
			for q := p + 1; q < pigeons; q++ {
				b.WriteString("(assert (not (and " + v(p, h) + " " + v(q, h) + ")))\n")
			}
		}
	}
	return b.String()
}
