// Package inputs owns how eqc chooses the inputs it runs code on: one
// reading of a function's signature (which register carries which
// parameter, and what a pointer points to), the value primitives (boundary
// values, sign extension, float bit patterns), the placement of strings,
// and the two fixed schedules of inputs — the differential test's plan
// (native runs of both binaries), followed by its dictionary inputs made of
// the code's own constants (dict.go), and the co-execution's argument schedule
// (the evaluator's runs of both lifted functions, which correlations and
// invariants are learned from).
//
// Three consumers draw on it, each with its own strategy: the
// coverage-guided vector search (tracer/layout.go and vectors.go: Classify,
// PointeeOf, Extend, Boundaries, FloatBits), the differential test
// (align/difftest.go: Classify, the Plan with Fill and Arg, the string
// placement) and co-execution (align/product/pair/coexec.go:
// RegisterParams, CoArg, the string placement). What an input is — which
// register carries which parameter, what a pointer points to, how a value
// is extended, where a string starts and ends — is decided here once.
//
// The package runs nothing and imports only x86 (for DWARF types), so that
// both the tracer and the product program (which the proof checker builds
// on, and which must not import the tracer) can use it.
package inputs
