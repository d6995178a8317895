// Package ub states the undefined-behaviour assumptions eqc may make about
// the source program (signed overflow, strict aliasing, out-of-bounds
// access, shift bounds, division by zero, null dereference, alignment),
// and holds what checking under them takes that is not the checker's own:
//
//   - Parse reads a model spec (--ub, a proof file's ub_model) into a Set,
//     the one parser of it: eqc check, eqc sweep and eqc proof verify all
//     go through it.
//   - FrameTaint is the analysis behind the OBVA model: which values of a
//     program, given as ir terms over its edges, may be derived from the
//     entry stack pointer (frametaint.go). The product program attaches
//     what the model then lets a proof assume to its edges
//     (align/product).
package ub
