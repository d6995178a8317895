// Package learn turns concrete machine states (counterexamples or traces) into
// candidate invariants: affine equalities over Z/2^64, bounds, congruences and
// memory equality outside a set of regions.
package learn
