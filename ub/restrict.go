package ub

import "eqc/ir"

// The restrict hypotheses (C11 6.7.3.1). A restrict-qualified pointer
// parameter p promises that, while the function runs, an object reached
// through p and modified (by any means) is reached only through pointers
// based on p. Compilers use the promise: gcc and clang vectorize
// d[i] = a[i] + b[i] with d, a and b restrict and no overlap check, which
// differs from the source wherever the arrays overlap.
//
// The rule the model states, for pointer parameters p and q, p restrict
// and q any other: an access the source makes through p and one through
// q, at least one of them a write, never overlap. Both accesses are the
// source's own, on one run, so an overlap is the undefined behaviour the
// standard names (the object written or read through q is reached
// through p too, and modified). Reads on both sides are left out: an
// object only read may be shared. So are accesses through pointers the
// function loads or computes otherwise, and a callee's accesses.
//
// "Through p": the address is p's value plus integer offsets (constants,
// values scaled by a constant, values narrower than a pointer, extended),
// p read from the register it came in or reloaded from the frame slot the
// -O0 code spilled it to, as the tbsa model takes it, and no offset
// computes with a parameter's entry value: q + (p − q) is based on p in
// C's terms. A value loaded from memory counts as an integer whatever
// address it was loaded from (*p is no pointer based on p); so does one
// the source computed from a pointer and kept in memory where the
// simplifier cannot see the store it reads (C's "based on" would count
// it; GCC's and LLVM's alias analyses, like this model, take pointer
// arithmetic as based on its pointer operand only). The hypotheses are
// stated per prefix of each source path (paramaccess.go), like the tbsa
// model's.

// RestrictParam is a pointer parameter of the source: the variable holding
// it at the entry and whether it is restrict-qualified.
type RestrictParam struct {
	Var      ir.Term
	Restrict bool
	Label    string // for the assumption's line: "d (int *restrict)"
}

// maxRestrictHypotheses bounds the hypotheses of one path set.
const maxRestrictHypotheses = 256

// RestrictInput is one path set of the source to state hypotheses for.
type RestrictInput struct {
	OBVAInput
	Params []RestrictParam
	// OBVA says the OBVA model holds too (TBSAInput.OBVA).
	OBVA bool
}

// RestrictHypotheses returns in's hypotheses; none when the path set has
// more than MaxOBVAPaths paths, or no parameter is restrict and has
// another beside it.
func RestrictHypotheses(in RestrictInput) []ir.Term {
	any := false
	vars := make([]ir.Term, len(in.Params))
	for i, p := range in.Params {
		vars[i] = p.Var
		any = any || p.Restrict
	}
	if !any || len(in.Params) < 2 {
		return nil
	}
	f := paramFinder{in: in.OBVAInput, vars: vars, obva: in.OBVA}
	accesses := func(from, at *ir.Substituter, next *ir.Edge) []paramAccess {
		return f.accesses(from, at, next, true)
	}
	return pairHypotheses(in.OBVAInput, accesses, func(x, y paramAccess) bool {
		return x.param != y.param && (x.store || y.store) && (in.Params[x.param].Restrict || in.Params[y.param].Restrict)
	}, maxRestrictHypotheses)
}
