// Package ir is eqc's symbolic term language: the one vocabulary in which
// machine-code semantics, invariants and proof obligations are written.
//
// Terms are hash-consed in a Builder and named by dense ids (Term), so two
// structurally equal terms built in the same Builder are the same Term, and
// maps and slices indexed by Term are cheap. Every operator is declared once
// in the op table (ops.go): its name, arity, parameters, how its result sort
// follows from its arguments, its SMT-LIB symbol, and its concrete semantics.
// Printing, evaluation and sort checking are driven by that table, not by
// scattered switches.
//
// Sorts are booleans, bit-vectors of any positive width, and memory: an array
// from 64-bit addresses to bytes, read and written with sized little-endian
// Select(M, a, n) and Store(M, a, n, v).
//
// Rules:
//   - A Builder is not safe for concurrent use; give each goroutine its own.
//   - Constructors check sorts and panic on ill-sorted input: an ill-sorted
//     term is a bug in eqc, not bad user input.
//   - Terms are immutable; a Term is only meaningful with the Builder that made it.
package ir
