// Package align builds product programs: pairs of program points joined by
// pairs of path sets. It will hold both builders eqc has — the static,
// counterexample-guided correlator (thesis Algorithm 1, Counter) and the
// data-driven program alignment automata (PLDI 2019).
//
// What exists now is the loop-free form of the static engine
// (loopfree.go) and the check driver (check.go):
//
//   - LoadPair lifts the source and target functions into one Builder, the
//     source's state variables prefixed "src." and the target's "dst.", and
//     maps the target's entry state onto the source's: both start from the
//     same machine state (arguments, stack pointer, memory).
//   - CheckLoopFree handles functions with no loop and no call: each
//     collapses to one composite edge from entry to exit (and one to halt),
//     and equivalence is a handful of proof obligations, each discharged
//     when the solver answers Unsat: both return normally on the same inputs
//     (or both end abnormally); when both return, the return value at its
//     DWARF width, rsp and the callee-saved registers agree; and memory
//     agrees outside the stack region [rsp−StackLimit, rsp+8), checked at a
//     fresh address so every query stays quantifier-free. Assumptions about
//     the calling context (rsp ≡ 8 mod 16, globals outside the stack and
//     pairwise disjoint) are stated in the precondition and listed in the
//     Outcome. Anything else — a loop, a call, an unsupported instruction,
//     a solver that cannot decide — is "unknown" with the reason.
//   - Check runs a pair and, when an obligation fails with a model, turns
//     the model into a concrete input and runs both binaries on it
//     (tracer.Confirm). Only a difference seen in those real runs becomes
//     "not-equivalent", and only under the UB model "none" until UB checks
//     exist; a model the runs do not confirm leaves the verdict unknown.
//
// The verdict contract of DESIGN.md is the invariant: "equivalent" only
// when every obligation is Unsat, "not-equivalent" only with a confirmed
// input.
package align
