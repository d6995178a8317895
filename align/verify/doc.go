// Package verify is the independent proof checker, `eqc proof verify`.
// With the binaries matching the proof's hashes, Verify recomputes the
// assumptions, reruns the deterministic co-executions (the seeded ones and
// those the proof records from counterexamples), rebuilds the
// product from the recorded alignment (align/product) with no search and
// no learned candidates, requires the same graph, parses the recorded
// invariants over the rebuilt nodes (entry state and the node's own
// variables only) and discharges every obligation, including that the
// invariants hold at the entry and are preserved by every edge.
//
// It trusts no engine: it imports the product program (align/product and
// align/product/pair), the solver and the UB models, but no engine (align,
// align/correlate, align/paa), no learning (learn, align/product/learning)
// and no native runs, not even through another package. Pins are not
// recorded in proofs, so the discharge proposes them again from the runs:
// constants itself, affine terms only through the equality learner its
// caller hands it (Request.PinEqualities: the CLI passes the search's,
// align/product/learning.Equalities). Every pin is proved before an edge
// is rebuilt with it, so whatever proposes them is not trusted.
package verify
