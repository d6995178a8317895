// Package ir is eqc's symbolic term language: the one vocabulary in which
// machine-code semantics, invariants and proof obligations are written.
//
// Terms are hash-consed in a Builder and named by dense ids (Term), so two
// structurally equal terms built in the same Builder are the same Term, and
// maps and slices indexed by Term are cheap. Every operator is declared once
// in the op table (ops.go): its name, arity, parameters, how its result sort
// follows from its arguments (ResultSort), its SMT-LIB symbol and how SMT-LIB
// chains it, and its concrete semantics (Eval). Evaluation, sort checking and
// package smtlib's printing and reading are driven by that table, not by
// scattered switches.
//
// Sorts are booleans, bit-vectors of any positive width, and memory: an array
// from 64-bit addresses to bytes, read and written with sized little-endian
// Select(M, a, n) and Store(M, a, n, v).
//
// # Evaluation
//
// The concrete evaluator (eval.go) gives every op its meaning through a
// table indexed by Op, built on the BV methods of bvops.go: SMT-LIB
// semantics at any width (division by zero included), allocation-free up to
// 64 bits. It is iterative and memoised per Env, evaluates Ite lazily, and
// returns *UnboundError or *EnvSortError when the Env is incomplete or gives
// a value of the wrong sort. Op.Eval applies the same table to values
// directly, sort-checked, for code that computes without terms (smtlib's
// model interpreter). Concrete memories (Mem) are persistent treaps:
// a store costs O(log n) and leaves the old memory intact.
//
// # Simplification
//
// The simplifier (simplify.go, simplify_rules.go) rewrites bottom-up to a
// normal form with a table of small named rules per op, which reads like a
// rules file and counts how often each rule fires. Constant folding goes
// through the evaluator's table, so folding and evaluation cannot disagree,
// and every rule is an equivalence at every width: checked against the
// evaluator on random terms from ir/irtest here, and proved by Z3 on a
// sample in package prove. In normal form an address is a base plus at most
// one constant, so select(store(M,a,n,v),a',n') short-circuits to
// select(M,a',n') when a and a' share a base and the byte ranges are
// disjoint modulo 2^64, and reads exactly the bytes of v when they overlap
// (thesis §2.4.3).
//
// # SMT-LIB
//
// SMT-LIB text is package ir/smtlib, which imports ir (ir imports nothing of
// ours): the printer, the one S-expression reader, the term, script and
// model parsers. It takes the meaning of every SMT-LIB symbol from the op
// table (SMT, Chain, Params) and every op's value from Op.Eval, so this
// package holds the facts and smtlib holds no second copy of them. Sort and
// BV print themselves in SMT-LIB syntax (String), which smtlib relies on.
//
// # Transfer function graphs
//
// A TFG (tfg.go; thesis §2.2.2) has program points as nodes: entry, exit,
// halt (every abnormal end), loop heads, call sites and plain block heads.
// An edge carries a Bool condition, a transfer function (one term per state
// component, over the state variables at the from-node, which are the same
// variables at every node), the calls it makes in order, each with a guard,
// and a fault condition, with the part of it that is undefined behaviour
// by a library's contract (UB: a memcpy of overlapping regions), which an
// engine may assume away on the source under a model and must otherwise
// read as the fault it is part of. Sequential composition substitutes the first
// edge's transfer into the second's terms (Substitute, subst.go: iterative
// and memoized). Parallel composition is c1 ∨ c2 with ite(c1, T1, T2); it is
// exact because the out-edges of a node are pairwise exclusive and
// exhaustive and path sets only merge paths that part at some branch.
// PathSet and Collapse build composite edges by dynamic programming over
// the graph unrolled by retreating-edge count (μ) and arrivals at the
// target, never by enumerating paths; a PathExpr keeps the series-parallel
// structure. Anchors (§2.4.1) are the entry, exit and halt nodes, every
// retreating edge's target, the call sites, and the loop exits a caller
// marked (MarkLoopExits, loopexits.go: blocks after a loop whose paths
// load and store through registers). EvalStep and Run execute a
// TFG concretely (tfg_eval.go) and report any node where not exactly one
// edge is taken.
//
// Rules:
//   - A Builder is not safe for concurrent use; give each goroutine its own.
//   - Constructors check sorts and panic on ill-sorted input: an ill-sorted
//     term is a bug in eqc, not bad user input.
//   - Terms are immutable; a Term is only meaningful with the Builder that made it.
package ir
