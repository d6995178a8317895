// Package inputs owns how eqc chooses the inputs it runs code on: one
// reading of a function's signature (which register carries which
// parameter, and what a pointer points to), the value primitives (boundary
// values, sign extension, float bit patterns), the placement of strings,
// and the two fixed schedules of inputs — the differential test's plan
// (native runs of both binaries) and the co-execution's argument schedule
// (the evaluator's runs of both lifted functions, which correlations and
// invariants are learned from).
//
// Three consumers draw on it: the coverage-guided vector search
// (tracer/vectors.go, which mutates inputs natively), the differential
// test (align/difftest.go) and co-execution (align/product/pair/coexec.go).
// They differ in purpose, not in what an input is: the same parameter
// gets the same kind of value, a char pointer the same string shape, an
// int the same boundaries, whichever asks.
//
// The package runs nothing and imports only x86 (for DWARF types), so that
// both the tracer and the product program (which the proof checker builds
// on, and which must not import the tracer) can use it.
package inputs
