// Package pair holds a source and a target function as a checker sees
// them before any product program: lifted side by side, run side by side,
// and aligned.
//
//   - Load lifts the source and target functions into one Builder, the
//     source's state variables prefixed "src." and the target's "dst.",
//     and maps the target's entry state onto the source's: both start from
//     the same machine state (arguments, stack pointer, memory).
//
//   - Precondition states what every calling context and linked binary
//     guarantees (rsp ≡ 8 mod 16; globals outside the stack and pairwise
//     disjoint; addresses behind 32-bit relocations fit them; read-only
//     data holds its file contents) and lists it for the proof; it must
//     itself be satisfiable, so no proof is vacuous.
//
//   - CheckLoopFree is the loop-free engine, for functions with no loop:
//     each collapses to one composite edge from entry to exit
//     (and one to halt), and equivalence is a handful of proof obligations,
//     each discharged when the solver answers Unsat: both return normally
//     on the same inputs (or both end abnormally); when both return, the
//     return value agrees (at its DWARF width; every return register for
//     small structs and for types DWARF does not give), and so do rsp, the
//     callee-saved registers and the return address; and memory agrees
//     outside the stack region [rsp−StackLimit, rsp+8), checked at a fresh
//     address so every query stays quantifier-free. Calls are proved in
//     the C calling convention's model of callees (calls.go), locals
//     whose addresses both sides pass to callees moved to one fresh
//     block each (escaped.go). Read-only
//     data that the two files define differently, a call that model does
//     not cover (unsupported:calls), an unsupported instruction or a solver that cannot decide gives
//     "unknown" with the reason; a loop gives Outcome.HasLoops, for the
//     loop engines. Outcome, Obligation and Counterexample are every
//     engine's answer.
//
//   - Co-execution (coexec.go): both lifted TFGs run with the evaluator
//     from shared concrete entry states, deterministic (seeded), which is
//     what lets the proof checker rebuild a product from a recorded
//     alignment. The runs vary the arguments (unit strides, 2 and 3 for
//     short tails, values just below the target's largest compared
//     constant, garbage above narrow parameters and in registers no
//     parameter uses; a char pointer parameter gets a NUL-terminated
//     string, at every alignment and with its NUL at every place of its
//     word over the first eight runs), so that what is learned from them
//     does not overfit. CoExecuteAll are the runs learned from;
//     HeldOutCoRuns are more, which an engine may test on.
//
//   - Alignments (alignment.go): an Alignment pairs every target step
//     between anchors (EdgeKey; split by via sets when its paths pair
//     with different source path sets) with a source path set (SrcSpec:
//     where it ends, at which arrival, around loops at most Mu times), and
//     lists the aligned visits of every run. Walk follows an alignment
//     along a run, comparing memories at each path set's first uses, and
//     names the first step it pairs nothing with, with the source path
//     sets that fit it. A path set's Mu is the most passes any use of the
//     step makes, so a scalar tail of 0 to 3 elements after a vector loop
//     pairs with one path set of up to 7 iterations.
//
//   - LoopGate and ModelPrecondition are what every loop engine requires
//     and assumes of a pair (under OBVA, for a source that takes a
//     pointer, the model's assumption too); LoopFreePrecondition adds the
//     premises of a source's sanitizer checks (sanitizer.go) for the
//     loop-free engine, which also states OBVA's hypotheses over its one
//     edge; liveness.go gives the components live at each anchor.
//
// EQC_DEBUG=1 (Debug) prints the loop engines' products and queries, and
// EQC_DEBUG_QUERIES=DIR writes every query (Houdini's too) as SMT-LIB.
package pair
