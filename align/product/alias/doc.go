// Package alias rewrites the terms of a product edge so that the solver
// sees few store chains, and says what each rewrite assumed.
//
//   - Splitter lets a read pass a store when the two cannot overlap: both
//     at constant offsets from the entry rsp and apart; one in the frame
//     and one not (an -O0 local against a[i]); or, guided by concrete
//     states (Samples), two addresses the states never show overlapping.
//     All but the first are assumptions: each is recorded as a Fact, the
//     N1 bytes at A1 apart from the N2 bytes at A2, guarded by the context
//     in which the read's value matters (a conjunct after those before it
//     hold, a disjunct after those before it fail, an ite arm where its
//     condition chooses it).
//   - FactTerms turns facts into Bool terms, merging the facts between two
//     bases into one between their hulls when the states show the hulls
//     apart.
//   - Contexts gives, for given subterms, the condition in which each
//     one's value matters to the terms above (the same walk as the
//     splitter's guards): package align/product guards its canonical
//     addresses' facts with it.
//
// The rules: a rewrite never changes a term's value in a state where its
// facts hold, and the caller proves every fact (align/product states them
// as obligations); this package calls no solver.
package alias
