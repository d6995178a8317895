// Package correlate is the static loop engine (--engine static): thesis
// Algorithm 1, guided by co-execution as Counter is by counterexamples.
// Target steps between anchors are paired with source path sets where the
// runs' memories agree, backtracking when a choice stops fitting a later
// use of the step in some run (correlate.go). Its alignments go through
// the same product, learning and obligations as the data-driven engine's
// (align/product).
package correlate
