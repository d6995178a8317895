package prove

import (
	"context"
	"errors"
	"strings"
	"time"
)

// Portfolio races several TextSolvers on each query and returns the first
// definite (sat or unsat) answer, cancelling the rest. Solvers differ
// wildly per query (the thesis raced two for this reason), so the race
// usually costs little more than the fastest.
type Portfolio struct {
	solvers []TextSolver
}

// NewPortfolio races the given solvers. It takes ownership: Close closes
// them.
func NewPortfolio(solvers ...TextSolver) *Portfolio {
	if len(solvers) == 0 {
		panic("prove: NewPortfolio needs at least one solver")
	}
	return &Portfolio{solvers: solvers}
}

// Name lists the members, e.g. "portfolio(z3-lib,cvc5)".
func (p *Portfolio) Name() string {
	names := make([]string, len(p.solvers))
	for i, s := range p.solvers {
		names[i] = s.Name()
	}
	return "portfolio(" + strings.Join(names, ",") + ")"
}

// Close closes every member.
func (p *Portfolio) Close() error {
	var errs []error
	for _, s := range p.solvers {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// CheckText returns the first definite answer, with Solver naming the
// winner. If every member answers Unknown, so does the portfolio: if ctx
// ended, Reason says so; otherwise Reason joins the members' reasons behind
// their common kind, or behind "solver-unknown" if they differ, e.g.
// "solver-unknown: z3: solver-unknown: z3: incomplete; cvc5: solver-crash: ...". CheckText waits for the losers to stop
// before returning, so nothing outlives the call; the wait is only as long
// as a member takes to notice cancellation.
func (p *Portfolio) CheckText(ctx context.Context, script string) Answer {
	start := time.Now()
	race, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan Answer, len(p.solvers)) // buffered: senders never block
	for _, s := range p.solvers {
		go func() { answers <- s.CheckText(race, script) }()
	}
	var winner *Answer
	var reasons []string
	kind := ""
	for range p.solvers {
		a := <-answers
		if winner != nil {
			continue // draining the losers
		}
		if a.Status.Definite() {
			winner = &a
			cancel()
			continue
		}
		reasons = append(reasons, a.Solver+": "+a.Reason)
		switch k := ReasonKind(a.Reason); {
		case kind == "":
			kind = k
		case kind != k:
			kind = ReasonUnknown
		}
	}
	if winner != nil {
		winner.Elapsed = time.Since(start)
		return *winner
	}
	a := Answer{Solver: p.Name(), Elapsed: time.Since(start)}
	if err := ctx.Err(); err != nil {
		a.Reason = ctxReason(err)
	} else {
		a.Reason = kind + ": " + strings.Join(reasons, "; ")
	}
	return a
}
