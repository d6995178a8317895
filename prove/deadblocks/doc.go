// Package deadblocks proves blocks of a function dead: blocks of its CFG
// that no execution reaches, decided with an SMT solver, so that block
// coverage (package tracer) need not count code the compiler emitted but
// can never run (gcc's vectorized loops, for instance, keep scalar
// epilogue blocks for a remainder count that the vector loop's trip count
// rules out). It owns the proof (deadblocks.go) and the concrete samples
// that prune its candidate invariants before any query (sample.go); the
// fixpoint over those candidates is prove's Houdini (prove.HoudiniWith),
// the project's only one.
//
// It imports ir, x86 and prove, never tracer: the tracer runs code
// natively and imports no solver, and whoever asks for coverage (eqc
// trace) calls Prove on the blocks no vector reached and hands the dead
// ones to tracer.Coverage.SetDead. A block some vector reached is never
// asked about, so it is never subtracted from coverage's denominator.
//
// # What "dead" means
//
// A block B of a function F is dead when no execution of F that starts at
// its entry, in any machine state whatsoever (any registers, flags and
// memory, any addresses of the globals, any results and memory effects of
// the functions F calls, even different ones for equal arguments), reaches
// B's first instruction. Nothing about the caller is assumed: not the SysV
// ABI, not the DWARF types of the arguments, not the tracer's driver or
// stubs. The executions considered are those of the lifted semantics
// (package x86), whose CFG lets every call return and follows both ways of
// every branch: the claim is as good as the lifter, which the tracer's
// semantics cross-check tests against the CPU, and the tests of this
// package check it against native runs (no block a run reaches may be
// reported dead).
//
// # How it is proved, and why that is sound
//
// The function is lifted into a TFG (x86.BuildTFG). If anything in it
// could not be lifted (an indirect jump, bad bytes, an unsupported
// instruction: Function.Unsupported or TFG.Unsupported non-empty), some
// edge stands for "the rest of the run, unknown", and nothing is proved.
// Nor is anything when a term mentions a variable other than the state
// components, the lifter's fresh values and the addresses of globals
// (foreignVar): its meaning across nodes would be unknown.
//
// Calls are over-approximated: every application of a callee's
// uninterpreted function (its result, the memory after it) is replaced by
// a variable of the edge that makes the call (abstractCalls), exactly like
// the lifter's fresh values for undefined results: a callee may return
// anything and leave any memory behind.
//
// Cut points are the targets of the TFG's retreating edges (every cycle
// has one; the entry too when an edge goes back to it). A segment is a
// path from a cut point, or from the entry at the start of the run, that
// passes through no cut point before its end, so it takes each edge at
// most once and each fresh variable names one value; the segments from one
// node to another are one composite edge, built over the DAG left when
// the retreating edges are cut (ir.TFG.Seq and Par; paths that part at a
// branch are exclusive, so the ite-merged transfer is exact).
//
// Each cut point H gets an invariant I_H: a conjunction of candidate
// facts about the state σ at H and a ghost copy G of the state at the
// entry (a constant of the run), kept by prove's Houdini fixpoint:
//
//   - false (H is never reached), unless a concrete sample or the solver
//     shows the segments from the start of the run to H satisfiable;
//   - for every state component x (GPRs, xmm, flags, memory),
//     x = T_x(G), where T_x is x's value at H after the segments from the
//     start of the run to H (none when there are none);
//   - each top-level conjunct of those segments' condition, over G.
//
// The fresh values inside T and the conditions become ghost constants too
// (a segment from the start is taken at most once per run, so each names
// one value of the run; the others are unconstrained). The candidates other
// than false hold by construction when H is first reached from the start;
// false does when the start-to-H condition is unsatisfiable. Houdini then
// drops every candidate that some segment H' → H does not preserve — the
// solver does not answer unsat to I_H'(σ) ∧ cond(σ) ∧ ¬c(transfer(σ)) —
// until every segment preserves every survivor. The survivors are then an
// inductive invariant: by induction over the cut points a run visits
// (each visit is reached by one segment from the previous visit, or from
// the start), every visit to H satisfies I_H, whatever the values of the
// ghosts the run leaves free.
//
// Dropping a candidate is always sound, which the segments' Settle
// (prove.HoudiniEdge) uses before each query: a candidate whose post is
// one of I_H' as it stands, or true, is implied and left out of the query;
// candidates over flags, xmm registers and memory are kept only while
// every segment preserves them syntactically (a solver would mostly
// bit-blast multipliers to refute them), and before any query (Houdini
// applies every Settle first); and concrete samples (sample.go: the
// first-arrival state, through one segment) refute many candidates before
// any query. A query whose premise holds false (from a cut point whose
// false survives) is unsat without asking the solver. None of these ever
// keeps a candidate: only an unsat answer does. A query the solver leaves
// undecided is asked again about each candidate alone
// (prove.HoudiniOptions.Split), and what is not proved is dropped.
//
// A block B is then dead when, for every segment from the start of the
// run or from a cut point H to B, the solver answers unsat to
// I_H(σ) ∧ cond(σ) (for the start: cond alone); a cut point is dead when
// false survives in its invariant. Any run reaching B has a last cut point
// visit before B (or none: then it came from the start) and followed one of
// those segments from it, in a state satisfying I_H — which the solver says
// is impossible. A timeout, a solver unknown or the query budget proves
// nothing: the block stays live.
//
// Havocking the loop heads (I_H = true) is too weak for gcc's epilogues:
// the relation between the loop's trip count and the remainder lives in
// registers the vector loop never writes (in TSVC s3251, n-1 in r8d and
// n-2 in edi), and those relations are what the x = T_x(G) candidates keep.
package deadblocks
