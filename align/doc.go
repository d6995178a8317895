// Package align builds product programs: pairs of program points joined by
// pairs of path sets. It holds both builders eqc has: the static,
// counterexample-guided correlator (thesis Algorithm 1, Counter) and the
// data-driven program alignment automata (PLDI 2019).
package align
