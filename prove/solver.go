package prove

import (
	"context"
	"errors"
	"strings"
	"time"

	"eqc/ir/smtlib"
)

// Answer is the outcome of one query. Solver misbehaviour (a crash, a
// timeout, unparsable output, a missing binary) is an Unknown Answer with a
// Reason, never a Go error: to the prover it is just a query it could not
// discharge.
type Answer struct {
	Status smtlib.Status // the check-sat response; the zero value is Unknown
	// Model is set on Sat: a sequence of SMT-LIB define-fun commands, one
	// per declared symbol the solver chose to report, without the
	// enclosing "(model ...)" or "(...)" that some solvers print.
	Model string
	// Reason is set on Unknown. It starts with one of the Reason* kinds
	// below; after a colon comes detail for humans.
	Reason string
	// Solver names the backend that produced the answer (for a portfolio,
	// the winner).
	Solver  string
	Elapsed time.Duration
	// Cached is set when the answer came from a Cache rather than a solver.
	Cached bool
}

// Kinds of Unknown reasons. A Reason is exactly one of these or one of
// these followed by ": " and detail.
const (
	ReasonTimeout     = "timeout"        // the context's deadline passed
	ReasonCanceled    = "canceled"       // the context was cancelled (e.g. another solver won)
	ReasonUnknown     = "solver-unknown" // the solver answered unknown
	ReasonCrash       = "solver-crash"   // the solver died from a signal
	ReasonMissing     = "solver-missing" // the solver's binary is gone
	ReasonError       = "solver-error"   // the solver reported an error (e.g. a parse error)
	ReasonGarbage     = "solver-garbage" // the solver's output made no sense
	ReasonUnsupported = "unsupported"    // the backend cannot express the query
)

// TextSolver decides SMT-LIB2 scripts. A script is an optional
// (set-logic ...) followed by declarations, definitions and assertions; it
// must not contain check-sat, get-model, push, pop or exit, because each
// backend appends what it needs (backends tolerate check-sat, get-model and
// exit by ignoring them). Declarations do not carry over between calls.
//
// CheckText never returns before the work it started has stopped: no
// goroutine or process outlives the call. It is safe for concurrent use.
type TextSolver interface {
	Name() string
	CheckText(ctx context.Context, script string) Answer
	Close() error
}

// ErrSolverMissing is returned (wrapped) by NewProcess when the solver's
// binary cannot be found.
var ErrSolverMissing = errors.New("solver binary not found")

// ErrUnknownKind is returned (wrapped) by NewProcess for a solver kind it
// does not know how to drive.
var ErrUnknownKind = errors.New("unknown solver kind")

// ReasonKind returns the kind of an Unknown reason: its text before the
// first ": ", e.g. "solver-crash" for "solver-crash: cvc5 exited with ...".
func ReasonKind(reason string) string {
	k, _, _ := strings.Cut(reason, ": ")
	return k
}

// ctxReason turns a finished context's error into an Unknown reason.
func ctxReason(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return ReasonTimeout
	}
	return ReasonCanceled
}

func unknown(solver string, start time.Time, reason string) Answer {
	return Answer{Status: smtlib.Unknown, Reason: reason, Solver: solver, Elapsed: time.Since(start)}
}
