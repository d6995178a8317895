// Package correlate is the static loop engine (--engine static): thesis
// Algorithm 1, guided by co-execution as Counter is by counterexamples.
// Target steps between anchors are paired with source path sets where the
// runs' memories agree. Two correlators search that space (--correlator):
// bt backtracks depth-first in the candidates' static order when a choice
// stops fitting a later use of the step in some run (correlate.go); ceg
// searches best-first over partial alignments, ranked by how many live
// values of each side no affine relation on the aligned states ties to
// the other side (Counter §3.9–3.11, Figure 6; ceg.go). The runs are the
// counterexamples: the seeded co-executions and those from the solver's
// models after a failed round (align/engines.go). Their alignments go
// through the same product, learning and obligations as the data-driven
// engine's (align/product).
package correlate
