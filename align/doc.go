// Package align builds product programs: pairs of program points joined by
// pairs of path sets. It will hold both builders eqc has — the static,
// counterexample-guided correlator (thesis Algorithm 1, Counter) and the
// data-driven program alignment automata (PLDI 2019).
//
// What exists now is the static engine in two forms, loop-free
// (loopfree.go) and with loops (loops.go and the files it names), and the
// check driver (check.go):
//
//   - LoadPair lifts the source and target functions into one Builder, the
//     source's state variables prefixed "src." and the target's "dst.", and
//     maps the target's entry state onto the source's: both start from the
//     same machine state (arguments, stack pointer, memory).
//
//   - CheckLoopFree handles functions with no loop and no call: each
//     collapses to one composite edge from entry to exit (and one to halt),
//     and equivalence is a handful of proof obligations, each discharged
//     when the solver answers Unsat: both return normally on the same inputs
//     (or both end abnormally); when both return, the return value agrees
//     (at its DWARF width; every return register for small structs and
//     for types DWARF does not give), and so do rsp, the callee-saved
//     registers and the return address; and memory agrees outside the
//     stack region [rsp−StackLimit, rsp+8), checked at a fresh address so
//     every query stays quantifier-free. The precondition states what
//     every calling context and linked binary guarantees (rsp ≡ 8 mod 16;
//     globals outside the stack and pairwise disjoint; addresses behind
//     32-bit relocations fit them; read-only data holds its file contents)
//     and is listed in the Outcome; it must itself be satisfiable, so no
//     proof is vacuous. Read-only data that the two files define
//     differently, a call (unsupported:calls),
//     an unsupported instruction or a solver that cannot decide gives
//     "unknown" with the reason.
//
//   - CheckLoops takes the functions with loops (still no calls). Both
//     lifted TFGs are co-executed with the evaluator from shared concrete
//     entry states (coexec.go; a char pointer parameter gets a
//     NUL-terminated string, at every alignment and with its NUL at every
//     place of its word over the first eight runs); target edges between anchors are paired
//     with source path sets where the runs' memories agree, backtracking
//     when a choice stops fitting (correlate.go); product nodes get their
//     own variables, definitions over the entry state for components the
//     runs show fixed, and one shared memory overlaid with each side's
//     stack slots (product.go, liveness.go); candidates learned from the
//     aligned states (learn.Learn, over the node's variables, the entry's,
//     the low halves of int arguments and the values the entry path
//     computed into registers the loop keeps, such as a vector loop's trip
//     count (n − 1) >> 2, entryterms.go; plus searches the affine learner
//     cannot do: a register mirroring memory at G + p + c, mirror.go, and a
//     pointer G + c·ext(x) + d, based.go) go through Houdini
//     (prove.Houdini). Before any query,
//     each edge's terms are rewritten so that the solver sees few store
//     chains (stackalias.go, canon.go): stack reads pass computed-address
//     stores; addresses are canonicalized to a base plus a constant; then
//     any read passes a store the from-node's states show apart from it (a
//     scalar global after an array store, one array after another), and
//     the same is done for the target node's stack slots, its candidates'
//     reads of globals and the exit observables. Each rewrite rests on a
//     fact (disjointness, merged per pair of bases into one between the
//     hulls; A = R + c, R preferring the node's pointer shapes G + p),
//     guarded by the context it is needed in (the ite arms, conjuncts and
//     disjuncts before it, as rewritten) and proved from the
//     from-node's invariants: those behind the path conditions under the
//     target's own path condition, the others under both (every
//     obligation about post-states is about states that take the edge).
//     After Houdini, an edge whose runs show a loop counter (or a pointer
//     G + c, or an affine function of the entry values, such as a vector
//     loop's end minus one stride) with one value wherever they take it,
//     typically a loop exit,
//     is rebuilt with those variables pinned to that value once the solver
//     shows the value follows from the invariants and the target's path
//     condition (pin.go): the last iteration and a scalar tail then meet
//     at constant addresses. A pinned edge that fails an obligation, or
//     whose obligations take more than a minute, is checked again as
//     first built.
//     A source path set's loop bound (mu) is the most passes any use of
//     the edge in the runs makes, so a scalar tail of 0 to 3 elements
//     after a vector loop pairs with one path set of up to 7 iterations.
//     Under the OBVA model, for a source that takes a pointer, every
//     source access through an address not derived from the entry rsp is
//     taken to miss the frame wherever the source makes it (obva.go): a
//     hypothesis per path prefix, listed among the assumptions.
//     Co-executions vary the
//     arguments (unit strides, 2 and 3 for short tails, values just below
//     the target's largest compared constant, garbage above narrow
//     parameters and in registers no parameter uses), so that definitions
//     and candidates do not overfit. Every pairing, definition, memory form, fact and exit
//     observable is an obligation the solver must answer Unsat; the runs
//     only suggest. EQC_DEBUG=1 prints the products and queries, and
//     EQC_DEBUG_QUERIES=DIR writes them (Houdini's too) as SMT-LIB.
//
//   - An equivalent verdict carries its proof (Outcome.Proof, a
//     prove.ProofFile: the product graph, invariants, assumptions,
//     obligations; verify_proof.go records it). Verify (verify.go) is the
//     independent checker: with the binaries matching the proof's hashes it
//     recomputes the assumptions, reruns the deterministic co-executions,
//     rebuilds the product from the recorded alignment with no search and
//     no learning, requires the same graph, parses the recorded invariants
//     over the rebuilt nodes (entry state and the node's own variables
//     only) and discharges every obligation, including that the invariants
//     hold at the entry and are preserved by every edge.
//
//   - Before the loop engine, Check runs both binaries natively on a few
//     generated inputs (difftest.go: random, small, zero, ramp values;
//     one link, then a millisecond or two per input); a confirmed
//     difference is "not-equivalent" at once under --ub none.
//
//   - Check runs a pair and, when an obligation fails with a model, turns
//     the model into a concrete input and runs both binaries on it
//     (tracer.Confirm). Only a difference seen in those real runs becomes
//     "not-equivalent", and only under the UB model "none" until UB checks
//     exist; a model the runs do not confirm leaves the verdict unknown.
//
//   - The data-driven engine (predicates.go, --engine data; PLDI'19) builds
//     the same kind of alignment another way: alignment predicates
//     cs·vs − cd·vd ± base = k (one per target loop anchor; base is an
//     argument's entry value, a global's address or a target register the
//     loop does not change) pair each
//     target arrival with the first later source arrival where the
//     predicate holds (and, at the first few arrivals at each anchor, the
//     memories agree; when no alignment comes out so, a second round
//     drops that); consecutive pairs give each
//     product edge its source path set, which may be empty (the source
//     stays while the target steps; buildProduct refuses a cycle of such
//     edges). A target step whose runs pair it with several source path
//     sets is split by via sets (PLDI'19 Figure 3's parallel
//     transitions): each source path set goes with the target paths that
//     take only the edges its uses took, and the paths outside all of
//     them get an edge that must be impossible; a use whose path lies in
//     another set's via set means the split fails, and the alignment
//     overfits. An alignment held-out co-executions do not follow is
//     rejected; the rest goes through the same product, learning and
//     obligations. --engine auto (race.go) races the two engines, each
//     on its own load of the pair: the first proof wins and cancels the
//     other, and an alignment both find is proved once, by the engine
//     that claims it first.
//
// The verdict contract of DESIGN.md is the invariant: "equivalent" only
// when every obligation is Unsat, "not-equivalent" only with a confirmed
// input.
package align
