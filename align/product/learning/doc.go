// Package learning is the product program's invariant learning: it
// answers the product's learning tables (align/product's Learning, a
// table of columns and the aligned states' values of them) with package
// learn. It owns the choice of what is learned for what:
//
//   - Candidates, a product node's candidate invariants: affine
//     equalities, congruences (odd moduli up to 5, between two columns
//     only powers of two), constant bounds and pairwise orders, all of
//     which go through Houdini;
//   - Equalities, the affine equalities alone, from which the discharge
//     proposes a loop exit's pins (align/product's pin.go), each proved
//     before an edge is rebuilt with it.
//
// The engines build their products with Search (both). The proof checker
// (align/verify) must not depend on learn: it builds products with no
// candidates, and its caller may hand it Equalities for the pins, which it
// proves like any other obligation. This package is therefore the only
// edge from align/product/... to learn, and align/verify never imports it.
package learning
