package prove

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"eqc/ir/smtlib"
	"eqc/prove/z3"
)

// Z3Lib is a TextSolver backed by libz3 in-process (package prove/z3). A
// z3.Solver serves one goroutine at a time, so Z3Lib keeps a small pool:
// each CheckText takes an idle solver or makes a new one, and gives it back.
type Z3Lib struct {
	mu     sync.Mutex
	idle   []*z3.Solver
	closed bool
}

// maxIdleZ3 bounds the pool of idle Z3 contexts kept between queries (each
// holds a few megabytes); extra ones are freed.
const maxIdleZ3 = 4

// NewZ3Lib creates the in-process Z3 backend.
func NewZ3Lib() (*Z3Lib, error) {
	s, err := z3.New()
	if err != nil {
		return nil, err
	}
	return &Z3Lib{idle: []*z3.Solver{s}}, nil
}

// Name is "z3-lib", to tell it apart from the z3 process backend.
func (l *Z3Lib) Name() string { return "z3-lib" }

// Close frees the idle Z3 contexts; ones in use are freed when their query
// ends.
func (l *Z3Lib) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.idle {
		s.Close()
	}
	l.idle, l.closed = nil, true
	return nil
}

func (l *Z3Lib) get() (*z3.Solver, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, z3.ErrClosed
	}
	if n := len(l.idle); n > 0 {
		s := l.idle[n-1]
		l.idle = l.idle[:n-1]
		l.mu.Unlock()
		return s, nil
	}
	l.mu.Unlock()
	return z3.New()
}

func (l *Z3Lib) put(s *z3.Solver) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || len(l.idle) >= maxIdleZ3 {
		s.Close()
		return
	}
	l.idle = append(l.idle, s)
}

// CheckText decides script with libz3. A Z3 error (for example a parse
// error) becomes Unknown with a solver-error reason.
func (l *Z3Lib) CheckText(ctx context.Context, script string) Answer {
	start := time.Now()
	const name = "z3-lib"
	s, err := l.get()
	if err != nil {
		return unknown(name, start, ReasonError+": "+name+": "+err.Error())
	}
	st, model, reason, err := s.Check(ctx, script)
	l.put(s)
	a := Answer{Solver: name}
	switch {
	case err != nil:
		var ze *z3.Error
		msg := err.Error()
		if errors.As(err, &ze) {
			msg = ze.Msg
			// Z3 wraps parse errors as (error "..."); keep the message
			// alone, as the process backends do.
			if forms, perr := smtlib.ReadSExprs(msg); perr == nil && len(forms) == 1 && forms[0].Head() == "error" {
				msg = errorText(&forms[0])
			}
		}
		a.Reason = ReasonError + ": " + name + ": " + msg
	case st == smtlib.Sat:
		a.Status, a.Model = smtlib.Sat, normalizeModel(model)
	case st == smtlib.Unsat:
		a.Status = smtlib.Unsat
	case ctx.Err() != nil:
		a.Reason = ctxReason(ctx.Err())
	case reason == "timeout" || reason == "canceled":
		a.Reason = ReasonTimeout + ": " + name + " " + reason
	case reason == "":
		a.Reason = ReasonUnknown + ": " + name
	default:
		a.Reason = ReasonUnknown + ": " + name + ": " + reason
	}
	a.Elapsed = time.Since(start)
	return a
}

// normalizeModel puts Z3_model_to_string's define-funs one per line, as the
// process backends do; text it cannot parse is passed on unchanged.
func normalizeModel(m string) string {
	forms, err := smtlib.ReadSExprs(m)
	if err != nil {
		return m
	}
	for i := range forms {
		if h := forms[i].Head(); !strings.HasPrefix(h, "define-") && !strings.HasPrefix(h, "declare-") {
			return m
		}
	}
	return modelText(m, forms)
}
