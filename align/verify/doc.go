// Package verify is the independent proof checker, `eqc proof verify`.
// With the binaries matching the proof's hashes, Verify recomputes the
// assumptions, reruns the deterministic co-executions, rebuilds the
// product from the recorded alignment (align/product) with no search and
// no learning, requires the same graph, parses the recorded invariants
// over the rebuilt nodes (entry state and the node's own variables only)
// and discharges every obligation, including that the invariants hold at
// the entry and are preserved by every edge.
//
// It trusts no engine: it imports the product program (align/product and
// align/product/pair), the solver and the UB models, but no engine (align,
// align/correlate, align/paa), no learning and no native runs.
package verify
