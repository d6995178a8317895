// Package z3 is a thin cgo binding to the system libz3 (Debian libz3-dev),
// just large enough for package prove to decide SMT-LIB2 text queries
// in-process. It exists because github.com/aclements/go-z3 is not served by
// the module proxy here; it is written in that package's spirit (one context
// per solver object, reference-counted objects, errors as Go errors) but
// exposes only a text interface: a script goes in, a status (SMT-LIB's
// check-sat response, smtlib.Status, the one every backend answers in) and
// a model's SMT-LIB text come out.
//
// Invariants:
//   - Each Solver owns one Z3 context created with Z3_mk_context_rc; every
//     Z3 object it creates is inc_ref'd on creation and dec_ref'd before the
//     call that created it returns, so a Solver holds no Z3 objects between
//     queries and memory use stays flat over any number of queries.
//   - A Solver is used by one goroutine at a time (a mutex serialises misuse).
//     The only call made from another goroutine is Z3_interrupt, which Z3
//     documents as safe, and it is only made while a check is in flight.
//   - Z3's default error handler exits the process; we install a no-op
//     handler and read Z3_get_error_code after every call instead, so a Z3
//     error always becomes a Go error and never aborts the process.
//   - A context that has been interrupted is discarded and replaced before
//     the next query, so a late interrupt can never leak into a later query.
package z3

/*
#cgo LDFLAGS: -lz3
#include <stdlib.h>
#include <z3.h>

// Installed instead of Z3's default handler, which prints and exits.
// Errors are read back with Z3_get_error_code after each call.
static void eqc_z3_ignore_error(Z3_context c, Z3_error_code e) { (void)c; (void)e; }

static void eqc_z3_install_handler(Z3_context c) {
	Z3_set_error_handler(c, eqc_z3_ignore_error);
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"eqc/ir/smtlib"
)

// Error is an error reported by Z3 through its error code.
type Error struct {
	Op   string // the Z3 API call that failed
	Code int    // Z3_error_code
	Msg  string // Z3_get_error_msg
}

func (e *Error) Error() string {
	return fmt.Sprintf("z3: %s: %s (code %d)", e.Op, e.Msg, e.Code)
}

// ErrClosed is returned by Check on a closed Solver.
var ErrClosed = errors.New("z3: solver is closed")

// Solver decides SMT-LIB2 scripts with one private Z3 context.
type Solver struct {
	mu  sync.Mutex // held for the whole of Check and Close
	ctx C.Z3_context

	// intr guards interrupting: the watcher goroutine calls Z3_interrupt
	// only while inCheck is true, and Check clears it before returning, so
	// Z3_interrupt is never called on a context that is being replaced.
	intr    sync.Mutex
	inCheck bool

	// tainted is set when an interrupt was delivered or Z3 reported an
	// error; the context is then replaced before the next query.
	tainted atomic.Bool
}

// New creates a Solver with its own Z3 context.
func New() (*Solver, error) {
	c, err := newContext()
	if err != nil {
		return nil, err
	}
	return &Solver{ctx: c}, nil
}

func newContext() (C.Z3_context, error) {
	cfg := C.Z3_mk_config()
	if cfg == nil {
		return nil, errors.New("z3: Z3_mk_config failed")
	}
	defer C.Z3_del_config(cfg)
	setCfg(cfg, "model", "true")
	c := C.Z3_mk_context_rc(cfg)
	if c == nil {
		return nil, errors.New("z3: Z3_mk_context_rc failed")
	}
	C.eqc_z3_install_handler(c)
	// Without this, Z3_model_to_string prints "x -> #x05" rather than
	// SMT-LIB define-fun commands.
	C.Z3_set_ast_print_mode(c, C.Z3_PRINT_SMTLIB2_COMPLIANT)
	return c, nil
}

func setCfg(cfg C.Z3_config, k, v string) {
	ck, cv := C.CString(k), C.CString(v)
	defer C.free(unsafe.Pointer(ck))
	defer C.free(unsafe.Pointer(cv))
	C.Z3_set_param_value(cfg, ck, cv)
}

// Close frees the Z3 context. It is safe to call more than once.
func (s *Solver) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx != nil {
		C.Z3_del_context(s.ctx)
		s.ctx = nil
	}
	return nil
}

// errOf returns the pending Z3 error of the context, if any.
func (s *Solver) errOf(op string) error {
	code := C.Z3_get_error_code(s.ctx)
	if code == C.Z3_OK {
		return nil
	}
	// Not every Z3 entry point resets the error code, so a stale code
	// would make later calls look failed; start afresh with a new context.
	s.tainted.Store(true)
	return &Error{Op: op, Code: int(code), Msg: strings.TrimSpace(C.GoString(C.Z3_get_error_msg(s.ctx, code)))}
}

// Check decides the conjunction of the assertions in script, which holds
// SMT-LIB2 declarations, definitions and assertions. The script is parsed
// with Z3_parse_smtlib2_string, which starts from an empty symbol table on
// every call (declarations do not carry over between queries) and ignores
// set-logic, set-option, check-sat, get-model and exit, so scripts written
// for a solver process are accepted unchanged.
//
// On sat, model is Z3_model_to_string's text: a sequence of define-fun
// commands. On unknown, reason is Z3_solver_get_reason_unknown (for example
// "timeout" or "canceled"). A deadline on ctx becomes Z3's "timeout"
// parameter, and cancelling ctx interrupts the running check; both yield
// Unknown, not an error. err is reserved for parse errors and Z3 failures.
func (s *Solver) Check(ctx context.Context, script string) (status smtlib.Status, model, reason string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil {
		return smtlib.Unknown, "", "", ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return smtlib.Unknown, "", ctxReason(err), nil
	}
	if s.tainted.Load() {
		C.Z3_del_context(s.ctx)
		s.ctx = nil
		c, err := newContext()
		if err != nil {
			return smtlib.Unknown, "", "", err
		}
		s.ctx = c
		s.tainted.Store(false)
	}
	c := s.ctx

	cs := C.CString(script)
	defer C.free(unsafe.Pointer(cs))
	vec := C.Z3_parse_smtlib2_string(c, cs, 0, nil, nil, 0, nil, nil)
	if err := s.errOf("parse"); err != nil {
		// The context, with anything the failed parse left in it, is
		// deleted before the next query (errOf marked it tainted).
		return smtlib.Unknown, "", "", err
	}
	C.Z3_ast_vector_inc_ref(c, vec)
	defer C.Z3_ast_vector_dec_ref(c, vec)

	logic := setLogic(script)
	if logic == "QF_BV" {
		if ctx.Value(logicFirstKey{}) != nil {
			// The logic's own solver first, for a moment
			// (WithLogicSolverFirst).
			st, model, reason, err := s.checkWithin(ctx, vec, s.mkSolver(logic), quickLogicRlimit)
			if err != nil || st != smtlib.Unknown || ctx.Err() != nil {
				return st, model, reason, err
			}
		}
		st, model, reason, err := s.checkWith(ctx, vec, s.mkBlastSolver())
		if err != nil || st != smtlib.Unknown || ctx.Err() != nil || reason == "timeout" || reason == "canceled" {
			return st, model, reason, err
		}
		// The pipeline gave up for another reason (a tactic that does not
		// apply): the logic's own solver decides.
	}
	return s.checkWith(ctx, vec, s.mkSolver(logic))
}

// checkWith asserts vec into sol (which it takes ownership of) and checks.
func (s *Solver) checkWith(ctx context.Context, vec C.Z3_ast_vector, sol C.Z3_solver) (status smtlib.Status, model, reason string, err error) {
	return s.checkWithin(ctx, vec, sol, 0)
}

// checkWithin is checkWith with Z3's resource limit rlimit on the check
// (0: none): a count of the solver's steps, not of time, so the answer
// does not depend on the machine's load.
func (s *Solver) checkWithin(ctx context.Context, vec C.Z3_ast_vector, sol C.Z3_solver, rlimit uint) (status smtlib.Status, model, reason string, err error) {
	c := s.ctx
	if err := s.errOf("mk_solver"); err != nil {
		return smtlib.Unknown, "", "", err
	}
	C.Z3_solver_inc_ref(c, sol)
	defer C.Z3_solver_dec_ref(c, sol)

	if dl, ok := ctx.Deadline(); ok {
		ms := time.Until(dl).Milliseconds()
		if ms < 1 {
			return smtlib.Unknown, "", "timeout", nil
		}
		if ms > 1<<31 {
			ms = 1 << 31 // Z3's timeout is an unsigned int of milliseconds
		}
		if err := s.setUint(sol, "timeout", uint(ms)); err != nil {
			return smtlib.Unknown, "", "", err
		}
	}
	if rlimit > 0 {
		if err := s.setUint(sol, "rlimit", rlimit); err != nil {
			return smtlib.Unknown, "", "", err
		}
	}

	n := C.Z3_ast_vector_size(c, vec)
	for i := C.uint(0); i < n; i++ {
		C.Z3_solver_assert(c, sol, C.Z3_ast_vector_get(c, vec, i))
		if err := s.errOf("solver_assert"); err != nil {
			return smtlib.Unknown, "", "", err
		}
	}

	res, err := s.checkInterruptible(ctx, sol)
	if err != nil {
		return smtlib.Unknown, "", "", err
	}
	switch res {
	case C.Z3_L_TRUE:
		m := C.Z3_solver_get_model(c, sol)
		if err := s.errOf("solver_get_model"); err != nil {
			return smtlib.Unknown, "", "", err
		}
		C.Z3_model_inc_ref(c, m)
		defer C.Z3_model_dec_ref(c, m)
		text := C.GoString(C.Z3_model_to_string(c, m))
		if err := s.errOf("model_to_string"); err != nil {
			return smtlib.Unknown, "", "", err
		}
		return smtlib.Sat, text, "", nil
	case C.Z3_L_FALSE:
		return smtlib.Unsat, "", "", nil
	default:
		if err := ctx.Err(); err != nil {
			return smtlib.Unknown, "", ctxReason(err), nil
		}
		r := C.GoString(C.Z3_solver_get_reason_unknown(c, sol))
		if err := s.errOf("solver_get_reason_unknown"); err != nil {
			return smtlib.Unknown, "", "", err
		}
		return smtlib.Unknown, "", strings.TrimSpace(r), nil
	}
}

// mkSolver picks the Z3 solver for the script's (set-logic L). For a
// quantifier-free logic L, Z3_mk_solver_for_logic builds only L's tactic
// (QF_BV scripts try mkBlastSolver first); without a logic, or
// with ALL, Z3_mk_solver builds the general one the z3 binary uses, which
// probes the formula first. Measured on Z3 4.8.12, the general solver's
// setup costs 5-15 ms per query, the logic-specific one well under 1 ms;
// the simple solver (SMT core only, no bit-blasting tactic) was cheaper
// still but 2.5x slower on a 64-bit arithmetic identity, the typical
// obligation, so it is not used.
func (s *Solver) mkSolver(logic string) C.Z3_solver {
	c := s.ctx
	if !strings.HasPrefix(logic, "QF_") {
		return C.Z3_mk_solver(c)
	}
	cl := C.CString(logic)
	defer C.free(unsafe.Pointer(cl))
	return C.Z3_mk_solver_for_logic(c, C.Z3_mk_string_symbol(c, cl))
}

// quickLogicRlimit is how much work Check lets the logic's own solver do
// on a QF_BV script before blastPipeline's, under WithLogicSolverFirst:
// Z3 resource units, about a quarter of a second on these machines (6 to 9
// million a second on the queries measured). It was 250 ms of wall time,
// which made the answer, and so the model a counterexample run is made
// from, depend on the load: clang's atoi_dec proved alone and not beside
// other tests.
const quickLogicRlimit = 2_000_000

type logicFirstKey struct{}

// WithLogicSolverFirst returns ctx with a mark that makes Check try a
// QF_BV script with the logic's own solver for quickLogicRlimit before
// blastPipeline. Neither is better everywhere: on range facts over 64-bit
// differences (an address outside the frame, given another's; the
// queries prove's array-free reduction makes) the logic's solver answered
// in 0.2 s where the pipeline took 49 s, and on a vectorized reduction's
// obligations it is the one that runs for minutes — there even the 250 ms
// first try on every query slowed the kernels' proofs by a third.
func WithLogicSolverFirst(ctx context.Context) context.Context {
	return context.WithValue(ctx, logicFirstKey{}, true)
}

// blastPipeline is the tactic mkBlastSolver runs on QF_BV scripts:
// word-level simplification, value propagation, equation solving and
// unconstrained-term elimination, then straight to bit-blasting and SAT. Z3 4.8.12's own QF_BV tactic, on the obligations of
// a vectorized reduction (lane sums against an -O0 accumulator, linear
// invariants with small coefficients), ran past 100 s where this pipeline
// answers in 9 s, and a Houdini query of the same pair took 15 s against
// 0.2 s (z3 binary, check-sat against check-sat-using, on queries dumped
// with EQC_DEBUG_QUERIES from gcc-12's dsum). max-bv-sharing (one shared
// term per associative-commutative subterm before bit-blasting) cut the
// loop kernels' queries (bench/kernels, 272 dumped from dot, sum, scale2,
// sad and maxv) from 120 s to 34 s in all, gcc-12's dot "stack slots and
// computed addresses do not overlap" from 10 s to 0.9 s, and left those
// of TSVC's sum1d, vdotr and s3251 as they were (8.6 s against 8.5 s).
var blastPipeline = []string{"simplify", "propagate-values", "solve-eqs", "elim-uncnstr", "simplify", "max-bv-sharing", "bit-blast", "sat"}

// mkBlastSolver builds a solver from blastPipeline.
func (s *Solver) mkBlastSolver() C.Z3_solver {
	c := s.ctx
	var t C.Z3_tactic
	for _, name := range blastPipeline {
		cn := C.CString(name)
		next := C.Z3_mk_tactic(c, cn)
		C.free(unsafe.Pointer(cn))
		C.Z3_tactic_inc_ref(c, next)
		if t == nil {
			t = next
			continue
		}
		both := C.Z3_tactic_and_then(c, t, next)
		C.Z3_tactic_inc_ref(c, both)
		C.Z3_tactic_dec_ref(c, t)
		C.Z3_tactic_dec_ref(c, next)
		t = both
	}
	sol := C.Z3_mk_solver_from_tactic(c, t)
	C.Z3_tactic_dec_ref(c, t)
	return sol
}

// setLogic returns L from a leading "(set-logic L)" in script, or "".
func setLogic(script string) string {
	first, err := smtlib.NewSExprReader(script).Next()
	if err != nil || first.Head() != "set-logic" || len(first.List) != 2 || first.List[1].Kind != smtlib.SSymbol {
		return ""
	}
	return first.List[1].Atom
}

// setUint sets solver parameter name to v ("timeout", "rlimit").
func (s *Solver) setUint(sol C.Z3_solver, name string, v uint) error {
	c := s.ctx
	p := C.Z3_mk_params(c)
	C.Z3_params_inc_ref(c, p)
	defer C.Z3_params_dec_ref(c, p)
	key := C.CString(name)
	defer C.free(unsafe.Pointer(key))
	C.Z3_params_set_uint(c, p, C.Z3_mk_string_symbol(c, key), C.uint(v))
	C.Z3_solver_set_params(c, sol, p)
	return s.errOf("solver_set_params")
}

// checkInterruptible runs Z3_solver_check while a watcher goroutine waits for
// ctx; if ctx ends first the watcher calls Z3_interrupt. The watcher has
// exited by the time this returns.
func (s *Solver) checkInterruptible(ctx context.Context, sol C.Z3_solver) (C.Z3_lbool, error) {
	c := s.ctx
	s.intr.Lock()
	s.inCheck = true
	s.intr.Unlock()

	done := make(chan struct{})
	watcherExited := make(chan struct{})
	go func() {
		defer close(watcherExited)
		select {
		case <-ctx.Done():
			s.intr.Lock()
			if s.inCheck {
				C.Z3_interrupt(c)
				s.tainted.Store(true)
			}
			s.intr.Unlock()
		case <-done:
		}
	}()

	res := C.Z3_solver_check(c, sol)
	err := s.errOf("solver_check")

	s.intr.Lock()
	s.inCheck = false
	s.intr.Unlock()
	close(done)
	<-watcherExited

	if err != nil {
		// An interrupted or timed-out check may surface as an exception
		// ("canceled"); that is an Unknown answer, not a failure.
		if ctx.Err() != nil {
			return C.Z3_L_UNDEF, nil
		}
		var ze *Error
		if errors.As(err, &ze) && (ze.Msg == "canceled" || ze.Msg == "timeout") {
			return C.Z3_L_UNDEF, nil
		}
		return C.Z3_L_UNDEF, err
	}
	return res, nil
}

func ctxReason(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return "canceled"
}

// Version reports the linked libz3's version, e.g. "4.8.12.0".
func Version() string {
	var major, minor, build, rev C.uint
	C.Z3_get_version(&major, &minor, &build, &rev)
	return fmt.Sprintf("%d.%d.%d.%d", major, minor, build, rev)
}

// AllocatedBytes is Z3's own count of the bytes its memory manager has
// allocated and not yet freed, over all contexts in the process. Unlike
// the resident set size it does not depend on how the C allocator caches
// freed memory, so it is what the leak test watches; callers can use it
// for memory caps.
func AllocatedBytes() uint64 {
	return uint64(C.Z3_get_estimated_alloc_size())
}
