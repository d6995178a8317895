// Package paa is the data-driven loop engine (--engine data): program
// alignment automata (PLDI 2019), found from co-executions.
//
// Alignment predicates cs·vs − cd·vd ± base = k (one per target loop
// anchor; base is an argument's entry value, a global's address or a
// target register the loop does not change) pair each target arrival with
// the first later source arrival where the predicate holds (and, at the
// first few arrivals at each anchor, the memories agree; when no alignment
// comes out so, a second round drops that); consecutive pairs give each
// product edge its source path set, which may be empty (the source stays
// while the target steps; product.Build refuses a cycle of such edges).
// A target step whose runs pair it with several source path sets is split
// by via sets (PLDI'19 Figure 3's parallel transitions): each source path
// set goes with the target paths that take only the edges its uses took,
// and the paths outside all of them get an edge that must be impossible;
// a use whose path lies in another set's via set means the split fails,
// and the alignment overfits. An alignment held-out co-executions do not
// follow is rejected; the rest goes through the same product, learning
// and obligations as the static engine's (align/product).
package paa
