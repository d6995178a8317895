package prove

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"eqc/ir/smtlib"
)

// goroutinesSettle waits for the goroutine count to return to at most n,
// failing the test if it does not: a leaked racer would keep it higher.
func goroutinesSettle(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want <= %d\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPortfolioFastWinsOverHang(t *testing.T) {
	base := runtime.NumGoroutine()
	pidFile := filepath.Join(t.TempDir(), "hang.pid")
	hang := fakeSolver(t, "echo $$ > "+pidFile+"; sleep 1000")
	z3p, err := NewProcess(KindZ3, "")
	if err != nil {
		t.Fatalf("%v (run `make deps`)", err)
	}
	lib, err := NewZ3Lib()
	if err != nil {
		t.Fatal(err)
	}
	p := NewPortfolio(hang, z3p, lib)
	defer p.Close()
	for _, q := range queries()[:4] {
		start := time.Now()
		a := p.CheckText(context.Background(), q.script())
		if a.Status != q.want {
			t.Fatalf("%s: got %v %q, want %v", q.name, a.Status, a.Reason, q.want)
		}
		if a.Solver != KindZ3 && a.Solver != "z3-lib" {
			t.Errorf("winner %q", a.Solver)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("%s took %v", q.name, el)
		}
	}
	// The file is missing if the fake was killed before it wrote it.
	if b, err := os.ReadFile(pidFile); err == nil {
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if !pidGone(pid) {
			t.Errorf("the hanging solver (pid %d) outlived the portfolio query", pid)
		}
	}
	goroutinesSettle(t, base)
}

func TestPortfolioAllUnknown(t *testing.T) {
	base := runtime.NumGoroutine()
	crash := fakeSolver(t, "kill -SEGV $$")
	garbage := fakeSolver(t, "echo hello")
	p := NewPortfolio(crash, garbage)
	a := p.CheckText(context.Background(), tinySat)
	if a.Status != smtlib.Unknown || ReasonKind(a.Reason) != ReasonUnknown ||
		!strings.Contains(a.Reason, "solver-crash: z3 exited with signal 11") || !strings.Contains(a.Reason, "solver-garbage") {
		t.Errorf("got %v %q", a.Status, a.Reason)
	}

	// Members that agree on the kind keep it.
	hang1, hang2 := fakeSolver(t, "sleep 1000"), fakeSolver(t, "sleep 1000")
	p2 := NewPortfolio(hang1, hang2)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	a = p2.CheckText(ctx, tinySat)
	if a.Status != smtlib.Unknown || a.Reason != ReasonTimeout {
		t.Errorf("got %v %q", a.Status, a.Reason)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("took %v", el)
	}
	goroutinesSettle(t, base)
}

// TestPortfolioCancelsRealSolver races in-process Z3 against a z3 process
// on a query only a trivial fake answers: the real solvers must be
// interrupted, and the in-process context recovers for the next query.
func TestPortfolioCancelsRealSolver(t *testing.T) {
	base := runtime.NumGoroutine()
	lib, err := NewZ3Lib()
	if err != nil {
		t.Fatal(err)
	}
	z3p, err := NewProcess(KindZ3, "")
	if err != nil {
		t.Fatalf("%v (run `make deps`)", err)
	}
	oracle := fakeSolver(t, "cat >/dev/null; sleep 0.2; echo unsat")
	p := NewPortfolio(lib, z3p, oracle)
	defer p.Close()
	start := time.Now()
	a := p.CheckText(context.Background(), pigeonhole(16, 15))
	if a.Status != smtlib.Unsat || a.Solver != KindZ3 { // the fake runs with z3's name
		t.Fatalf("got %v from %q (%q)", a.Status, a.Solver, a.Reason)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v", el)
	}
	if a := lib.CheckText(context.Background(), tinySat); a.Status != smtlib.Sat {
		t.Errorf("z3-lib after interrupt: %v %q", a.Status, a.Reason)
	}
	goroutinesSettle(t, base)
}
