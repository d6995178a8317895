package prove

import (
	"context"
	"fmt"
	"time"

	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove/z3"
)

// Query asks whether the conjunction of Assertions, boolean terms of B, is
// satisfiable. A proof obligation "P implies Q" is the Query P ∧ ¬Q, which
// is discharged when the answer is Unsat.
type Query struct {
	B          *ir.Builder
	Assertions []ir.Term
}

// Result is a solver's answer to a Query.
type Result struct {
	Status smtlib.Status
	// Model gives, on Sat, values to the query's free constants and
	// uninterpreted functions. It has been checked: the evaluator finds
	// every assertion true under it (constants the solver left out, which
	// may take any value, are read as zero).
	Model   ir.Env
	Reason  string // on Unknown: starts with one of the Reason* kinds
	Solver  string
	Elapsed time.Duration
	Cached  bool
}

// Solver decides Queries. Check never returns an error: a solver that fails
// gives Unknown with a Reason.
type Solver interface {
	Name() string
	Check(ctx context.Context, q Query) Result
	Close() error
}

// ReasonBadModel is the Unknown kind for a Sat answer whose model does not
// satisfy the query under eqc's own evaluator: a disagreement between the
// printer, the solver, the model reader or the evaluator, reported rather
// than trusted.
const ReasonBadModel = "bad-model"

// NewSolver returns a Solver that prints each query canonically (variables
// renamed by first occurrence, so a Cache underneath keys alpha-equivalent
// queries alike), sends it to ts, and reads the model back into ir terms.
func NewSolver(ts TextSolver) Solver { return &textSolver{ts: ts} }

// MaxDefineFuns is the most subterms a query names with define-funs;
// beyond it, lets (smtlib.PrintOptions.LetAbove). z3 parsed the first
// 150 definitions of clang fclamp's chain in 0.04 s, 200 in 0.37 s, 300
// in 1.6 s, all 1810 in over 100 s.
const MaxDefineFuns = 200

type textSolver struct{ ts TextSolver }

func (s *textSolver) Name() string { return s.ts.Name() }
func (s *textSolver) Close() error { return s.ts.Close() }

func (s *textSolver) Check(ctx context.Context, q Query) Result {
	var spent time.Duration
	attempt := func(aq Query) Result {
		actx, cancel := context.WithTimeout(ctx, nonlinearBudget(ctx))
		defer cancel()
		r := s.check(actx, aq)
		spent += r.Elapsed
		return r
	}
	if aq, ok := abstractNonlinear(q); ok {
		r := attempt(aq)
		if r.Status == smtlib.Unsat {
			r.Elapsed = spent
			return r
		}
		if rq, ok := restrictNonlinear(q); ok && r.Status == smtlib.Sat {
			if r := attempt(rq); r.Status == smtlib.Sat && modelSatisfies(q, r.Model) == nil {
				r.Elapsed = spent
				return r
			}
		}
	}
	r := s.check(ctx, q)
	r.Elapsed += spent
	return r
}

// check asks q as it is (nonlinear.go says why Check may ask another
// query first).
func (s *textSolver) check(ctx context.Context, q Query) Result {
	sent := q
	ak, reduced := reduceReads(q)
	arrayFree := reduced
	if !reduced {
		if xq, ok := expandStores(q); ok {
			ak, reduced = reduceReads(xq)
			if !reduced {
				// Reads of memory variables alone are left (too many
				// to make constants, beside uninterpreted functions),
				// which the array theory decides at once: clang's
				// vec3 add, a return-address read through its result
				// block, took Z3 55 s as stores and 4.6 s so. Or none is
				// left: every read was of a byte a store wrote, and any
				// memory completes a model of xq.
				sent, arrayFree = xq, !readsMemory(xq)
			}
		}
	}
	if reduced {
		sent = ak.q
	}
	if arrayFree || reduced {
		ctx = z3.WithLogicSolverFirst(ctx)
	}
	text, names := smtlib.QueryString(q.B, sent.Assertions, smtlib.PrintOptions{Canonical: true, LetAbove: MaxDefineFuns})
	a := s.ts.CheckText(ctx, text)
	r := Result{Status: a.Status, Reason: a.Reason, Solver: a.Solver, Elapsed: a.Elapsed, Cached: a.Cached}
	if a.Status != smtlib.Sat {
		return r
	}
	m, err := smtlib.ParseModel(q.B, a.Model, names)
	if err != nil {
		return Result{Status: smtlib.Unknown, Reason: fmt.Sprintf("%s: model: %v", ReasonGarbage, err),
			Solver: a.Solver, Elapsed: a.Elapsed, Cached: a.Cached}
	}
	env := m.Completed()
	if reduced {
		env = ak.model(env)
	}
	if err := modelSatisfies(q, env); err != nil {
		return Result{Status: smtlib.Unknown, Reason: fmt.Sprintf("%s: %v", ReasonBadModel, err),
			Solver: a.Solver, Elapsed: a.Elapsed, Cached: a.Cached}
	}
	r.Model = env
	return r
}

// modelSatisfies evaluates every assertion of q under env.
func modelSatisfies(q Query, env ir.Env) error {
	ev := ir.NewEvaluator(q.B, env)
	for _, t := range q.Assertions {
		v, err := ev.Eval(t)
		if err != nil {
			return fmt.Errorf("evaluating %s: %v", q.B.Short(t), err)
		}
		if !v.Bool() {
			return fmt.Errorf("assertion %s is false under the model", q.B.Short(t))
		}
	}
	return nil
}

// Options choose the backends of a default solver stack.
type Options struct {
	// Backends names the solvers to race: "z3" (libz3 in process),
	// "z3-process", "cvc5", "boolector". Empty means z3 alone.
	Backends []string
	// CacheSize bounds the query cache; 0 means no cache.
	CacheSize int
}

// New builds the solver stack eqc uses: the named backends, raced in a
// Portfolio when there is more than one, behind a query cache. A backend
// that cannot be started (a missing binary) is an error naming it.
func New(opts Options) (Solver, *Cache, error) {
	names := opts.Backends
	if len(names) == 0 {
		names = []string{"z3"}
	}
	var members []TextSolver
	closeAll := func() {
		for _, m := range members {
			m.Close()
		}
	}
	for _, name := range names {
		var ts TextSolver
		var err error
		switch name {
		case "z3":
			ts, err = NewZ3Lib()
		case "z3-process":
			ts, err = NewProcess(KindZ3, "")
		case KindCVC5, KindBoolector:
			ts, err = NewProcess(name, "")
		default:
			err = fmt.Errorf("%w: %q (want z3, z3-process, cvc5 or boolector)", ErrUnknownKind, name)
		}
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		members = append(members, ts)
	}
	var ts TextSolver = members[0]
	if len(members) > 1 {
		ts = NewPortfolio(members...)
	}
	var cache *Cache
	if opts.CacheSize > 0 {
		cache = NewCache(ts, opts.CacheSize)
		ts = cache
	}
	return NewSolver(ts), cache, nil
}

// readsMemory reports whether a memory term occurs in q.
func readsMemory(q Query) bool {
	for _, t := range q.B.PostOrder(q.Assertions...) {
		if q.B.Sort(t) == ir.MemSort {
			return true
		}
	}
	return false
}
