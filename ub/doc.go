// Package ub states the undefined-behaviour assumptions eqc may make about the
// source program (signed overflow, strict aliasing, out-of-bounds access,
// shift bounds, division by zero, null dereference, alignment).
package ub
