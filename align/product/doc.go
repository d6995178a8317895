// Package product builds and proves the product program of an alignment
// (align/product/pair): nodes pair a source anchor with a target anchor,
// edges pair a target path set with a source path set. Both loop engines'
// alignments become products here, and the proof checker rebuilds them
// here.
//
//   - Build makes the product of an alignment: product nodes get their own
//     variables, definitions over the entry state for components the runs
//     show fixed (rsp from the code's stack height, pair.StackHeights, where
//     too few runs reach the node), and one shared memory overlaid with each side's stack
//     slots (product.go); every target step out of every node is an edge
//     (a step split by via sets also gets an edge that must be impossible,
//     for the paths outside them), and a cycle of edges on which the
//     source stays is refused (build.go).
//
//   - Candidates are learned from the aligned states by the caller's
//     learner (Learning, learner.go: the product lays out the table, over
//     the node's variables, the entry's, the low halves of int arguments
//     and the values the entry path computed into registers the loop
//     keeps, such as a vector loop's trip count (n − 1) >> 2, and the
//     values loaded before the loop that a register keeps, over the
//     node's memory (v->a + 4·v->n, *limit: hoisted values),
//     entryterms.go; align/product/learning answers it with learn.Learn),
//     plus searches the affine learner cannot do, which are the product's
//     own: a register mirroring memory at G + p + c, mirror.go, a pointer
//     G + c·ext(x) + d, based.go, and the conditions of the ways into the
//     node rewritten over its state (a rotated loop's bottom test,
//     arrivalguards.go). They go through Houdini
//     (prove.Houdini).
//
//   - Before any query, each edge's terms are rewritten so that the solver
//     sees few store chains (align/product/alias, canon.go): stack reads pass
//     computed-address stores, and computed reads the frame's stores, even
//     below a store the read may overlap (which it keeps, in order: s[i]
//     after d[i] = v, the -O0 counter's stores beneath); addresses are
//     canonicalized to a base plus a constant; then any read passes a
//     store the from-node's states show apart from it (a scalar global
//     after an array store, one array after another), and the same is
//     done for the target node's stack slots, its candidates' reads of
//     globals and the exit observables. Each
//     rewrite rests on a fact (disjointness, merged per pair of bases into
//     one between the hulls; A = R + c, R preferring the node's pointer
//     shapes G + p), guarded by the context it is needed in (the ite arms,
//     conjuncts and disjuncts before it, as rewritten) and proved from the
//     from-node's invariants: those behind the path conditions under the
//     target's own path condition, the others under both (every obligation
//     about post-states is about states that take the edge). A canonical
//     address's fact is guarded by the contexts the address is met in,
//     the facts that name it included (canon.go: a scalar epilogue's
//     a[i−2] wraps where its path is not taken), and goes with the path
//     conditions' facts when one of those names it. The facts of the
//     to-node's candidate reads are kept per read, and only the reads of
//     the candidates Houdini keeps are obligations (liveFacts).
//
//   - After Houdini, an edge whose runs show a loop counter (or a pointer
//     G + c, or an affine function of the entry values, such as a vector
//     loop's end minus one stride) with one value wherever they take it,
//     typically a loop exit, is rebuilt with those variables pinned to that
//     value once the solver shows the value follows from the invariants
//     and the target's path condition (pin.go): the last iteration and a
//     scalar tail then meet at constant addresses. Constants and globals
//     plus constants are found here; affine terms only with the caller's
//     Learning.Equalities. A proposal is dropped when an invariant ties its
//     variable to one no pin replaces (untiedPins). Every edge is also
//     rebuilt with the variables the from-node's invariant equalities
//     define (invpins.go), the target's over the source's, so that the
//     two sides' equal computations are one hash-consed term; those pins
//     need no new proof that the edge keeps the to-node's invariants. A
//     pinned edge that fails an obligation, or whose obligations take
//     more than a minute, is checked again as first built.
//
//   - Calls on an edge are rewritten into the C calling convention's
//     model of callees (calls.go, x86.CallConvention), both sides with one
//     memo, so that equal arguments and memory outside the stack give one
//     application; Build refuses the product when an address in either
//     side's frame may reach a callee (the frame taint over its edges).
//
//   - Under the OBVA model, every source
//     access through an address not derived from the entry rsp
//     (ub.FrameTaint) is taken to miss the frame wherever the source makes
//     it (obva.go): a hypothesis per path prefix, listed among the
//     assumptions; an edge whose stack-slot facts fail without them is
//     rebuilt with those of the source paths out of its to-node too, over
//     the state it leaves (the source's next accesses, which a target
//     running a step ahead makes on the edge itself). Under the restrict
//     model each edge also assumes that
//     the source's path violates no library contract (ir.Edge.UB: its
//     memcpy calls copy between regions that do not overlap).
//
//   - The obligations (obligations.go): at every edge, the source takes its
//     paired paths when the target takes its own, and faults exactly when
//     the target does; the target node's definitions hold and its memory
//     form is kept; at the exit the observables agree; a target edge with
//     no source partner is impossible. Every pairing, definition, memory
//     form, fact and exit observable is an obligation the solver must
//     answer Unsat; the runs only suggest. Prove runs Houdini and
//     discharges them; Discharge with inductive set also proves the
//     invariants (the proof checker's way).
//
//   - An equivalent product is recorded as a prove.ProofFile (proof.go):
//     the product graph, invariants, assumptions, obligations.
//
// The package does not import learn, so that the proof checker, which
// builds products too, does not depend on it even through this package:
// what learns is handed in (Learning), and nothing learned is believed.
package product
