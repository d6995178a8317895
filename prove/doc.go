// Package prove decides the queries of translation validation with SMT
// solvers, and holds the Houdini fixpoint over candidate invariants
// (houdini.go: drop every candidate a failing edge's model falsifies, until
// the rest is inductive; HoudiniWith adds an edge's own Settle judgement and
// a per-candidate Split when a query is undecided, for prove/deadblocks,
// the dead-block proof that tracer's coverage is given by its caller), and the proof file format (prooffile.go: JSON,
// versioned, binaries named by SHA-256, the product graph with invariants
// as SMT-LIB terms, the assumptions; read strictly, a malformed file is a
// *MalformedProofError). The checker that replays a proof file against
// the binaries is align/verify, since rebuilding obligations needs the
// product program.
//
// # Queries over terms
//
// A Query is a conjunction of ir terms; a Solver answers whether it is
// satisfiable. New builds the stack eqc uses: the named backends, raced in a
// Portfolio when there are several, behind a Cache, under an adapter
// (NewSolver) that prints each query canonically — variables and functions
// renamed by first occurrence, so alpha-equivalent queries share a cache
// entry — and reads a Sat model back into the query's own terms. Printing
// and model reading are package ir/smtlib's (QueryString, ParseModel); prove
// holds no SMT-LIB printer or parser of its own. Every
// model is evaluated by eqc's evaluator before it is returned: a model that
// does not satisfy the query (a disagreement between printer, solver, model
// reader and evaluator) becomes Unknown "bad-model", never a Sat the caller
// would build a counterexample from. Constants a model leaves out read as
// zero. Soundness rests on Unsat, which the adapter passes through from the
// solver unchanged.
//
// # Text-level solvers
//
// A TextSolver takes a script (an optional set-logic, then declarations,
// definitions and assertions) and returns an Answer: Sat with a model,
// Unsat, or Unknown with a Reason. The status is smtlib.Status, SMT-LIB's
// check-sat response, declared once in package ir/smtlib for every backend
// (the cgo binding prove/z3, which prove imports and which must not import
// prove, answers in it too). Solver output and scripts are read with
// smtlib's S-expression reader (output.go picks out the answer, the reason
// and the model, sliced verbatim from the solver's text). Backends:
//
//   - Z3Lib runs libz3 in-process through the cgo package prove/z3 (one Z3
//     context per goroutine at a time, pooled). It is the fastest for the
//     many small queries a proof produces, since no process is started,
//     provided the script begins with a quantifier-free (set-logic QF_...):
//     then Z3 builds only that logic's tactic (under 1 ms of setup instead
//     of 5-15 ms for the general solver used without a logic or with ALL).
//     QF_BV scripts go through a fixed pipeline (word-level
//     simplification and solve-eqs, then bit-blasting and SAT), which on
//     vectorized reductions answers in seconds where Z3 4.8.12's own QF_BV
//     tactic runs for minutes; should it give up, the logic's tactic runs.
//     The queries made array-free (below) go to the logic's own solver
//     first, for 2 million of Z3's resource units (about 250 ms, counted
//     in steps so that the answer does not depend on the load;
//     z3.WithLogicSolverFirst): on their range facts over 64-bit
//     differences it took 0.2 s where the pipeline took 49 s.
//   - Process runs z3 (-in -smt2), cvc5 (--lang smt2 --produce-models) or
//     Debian's Boolector 1.5 (--smt2 -m; the script is rewritten to the
//     older dialect — definitions become lets — and its model translated
//     back; it has no uninterpreted functions of arguments) as a fresh
//     process per query, in its own process group.
//
// A query whose memories are only read (no store, no two memories
// compared) is sent without arrays (ackermann.go): each byte read a
// constant, equal addresses implying equal bytes; a model of it gives each
// memory the bytes its reads took. Z3's array theory ran past 60 s on such
// a query of five reads that took 0.2 s reduced. A query that reads
// memories written by stores (and uses memories no other way) is first
// rewritten by the array axiom, each byte read through the stores as a
// chain of address comparisons (readoverwrite.go, at most 4096 of them),
// so that it too goes without arrays: a loop-free function's return-address
// obligation after four stores through a pointer took Z3 5.6 s as arrays.
// Not when a read's address reads through the stores itself: one read's
// cases inside another's address took Z3's simplifier seconds. A byte a
// later store wrote again is no case of the earlier store: the cases
// such a store left (never taken) took Z3 11 s on a pair of chains that
// differ by it alone. Each case compares one difference of bases with a
// constant (the difference ub.Disjoint states ranges of), the rewritten
// query is simplified (bytes read back are the stored value again), and
// it is sent as it is when no read is left or its reads are too many to
// make constants.
//
// A query with products or quotients of two non-constant bit-vectors
// (16 bits or more) is first asked weaker, each such term a fresh
// constant (nonlinear.go): unsat there is unsat for the query. When that
// one is sat it is asked stronger, every product zero beside the
// assertion that one factor of each is: a model there, checked against
// the query, is the query's. Only then is the query asked as it is. Each
// attempt has at most 2 s and half the time left; the multiplier circuits
// of a sanitizer build's overflow tests kept z3 for over 10 s on loop
// invariant queries that needed none of them.
//
// Two wrappers are TextSolvers themselves:
//
//   - Portfolio races several solvers and keeps the first definite answer,
//     cancelling the others.
//   - Cache remembers definite answers by query text, bounded by an LRU
//     limit, with hit and miss counts for the results table.
//
// # Invariants
//
//   - A solver's misbehaviour is an answer, not an error: timeouts,
//     cancellation, crashes, missing binaries, parse errors, garbage on
//     stdout and "unknown" all yield smtlib.Unknown with a Reason whose
//     kind (ReasonKind) is one of the Reason* constants. CheckText never
//     panics or returns a Go error for them; only constructors return
//     errors (ErrSolverMissing, ErrUnknownKind).
//   - Sat and Unsat are only reported when the solver printed them with no
//     error before, and exited normally; a solver that answered and then
//     died of a signal is not trusted. A definite answer is the only thing
//     the prover acts on, so Unknown is always the safe fallback.
//   - Deadlines and cancellation come from the context. CheckText returns
//     only after everything it started has stopped: solver processes (and
//     their descendants) are killed and reaped, Z3 checks interrupted,
//     portfolio racers drained. Nothing leaks across calls.
//   - Queries are independent: declarations never carry over between
//     CheckText calls, in any backend.
//   - A Model is a sequence of SMT-LIB define-fun commands, one per line
//     group, in the solver's own notation (#x or #b literals, Z3's
//     (_ as-array k!n) helpers, cvc5's store chains). Constants whose value
//     does not matter may be missing (in-process Z3 leaves them out); any
//     value works for them.
//   - The Cache keeps only Sat and Unsat answers: an Unknown depends on the
//     time allowed and the load, and may succeed on retry.
package prove
