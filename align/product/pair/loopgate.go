package pair

import (
	"eqc/ir"
	"eqc/ub"
)

// ModelPrecondition is the precondition with the UB assumptions the
// engines may use listed too (the loop-free engine and the loop engines
// alike; each adds the model's hypotheses, ub.OBVAHypotheses, to its own
// obligations).
func (p *Pair) ModelPrecondition() (ir.Term, []string) {
	pre, assumptions := p.Precondition()
	if facts, lines := p.alignedParams(); len(facts) > 0 {
		pre = p.B.And(append([]ir.Term{pre}, facts...)...)
		assumptions = append(assumptions, lines...)
	}
	if p.UsesOBVA() {
		assumptions = append(assumptions, OBVAAssumption)
	}
	if p.UsesNull() {
		assumptions = append(assumptions, NullAssumption)
	}
	if facts, lines := p.frameFreeParams(); len(facts) > 0 {
		pre = p.B.And(append([]ir.Term{pre}, facts...)...)
		assumptions = append(assumptions, lines...)
	}
	assumptions = append(assumptions, p.sanitizerAssumptions()...)
	assumptions = append(assumptions, p.tbsaAssumptions()...)
	assumptions = append(assumptions, p.restrictAssumptions()...)
	assumptions = append(assumptions, p.libraryUBAssumptions()...)
	if callees := p.tfgCallees(); len(callees) > 0 {
		assumptions = append(assumptions, p.callAssumptions(callees)...)
	}
	return pre, append(assumptions, p.idiomAssumptions()...)
}

// LoopGate says why the loop engine cannot take p ("" when it can): an
// instruction the lifter does not support, read-only data the two files
// may define differently. Every obligation assumes neither, so the proof
// checker asks again. (Calls are checked as the product is built: the
// calling convention's model needs a frame no callee can reach.)
func (p *Pair) LoopGate() string {
	for _, side := range []Side{p.Src, p.Dst} {
		if len(side.TFG.Unsupported) > 0 {
			return "unsupported:" + side.TFG.Unsupported[0]
		}
	}
	return p.readOnlyDataDiffers()
}

// UsesOBVA reports whether the engines state the OBVA model's hypotheses
// for p (only under the model). They are needed wherever an address can
// depend on the caller: a parameter (a pointer, or an integer index: A[i],
// or a loop over A bounded by n, can reach anywhere in the machine model,
// the frame included, and only the model rules that out), a callee's
// result, or no signature to tell. A function of no parameters and no
// calls reaches its globals at offsets its own code bounds, which the
// precondition already places outside the frame; there the hypotheses
// only make the queries larger (clang's vectorized TSVC kernels, fixed
// variant, then time out).
func (p *Pair) UsesOBVA() bool {
	return p.OBVA && p.addressesFromCaller()
}

// UsesNull reports whether the engines state the null model's hypotheses
// (ub.NullHypotheses) for p: under the model, where an address can come
// from the caller, as for OBVA.
func (p *Pair) UsesNull() bool {
	return p.Models.Has(ub.Null) && p.addressesFromCaller()
}

// addressesFromCaller says whether an address the source uses may
// depend on the caller: it has parameters or calls, or no signature to
// tell.
func (p *Pair) addressesFromCaller() bool {
	f := p.Src.Fn.Func
	if f == nil || f.Debug == nil || f.Debug.Variadic {
		return true
	}
	return len(f.Debug.Params) > 0 || len(p.Src.Fn.CallSites) > 0
}

// OBVAAssumption is how the proof lists the model.
const OBVAAssumption = "obva: a source access whose address is not derived from the entry rsp lies outside the stack region [rsp−0x100000, rsp+8) (undefined behaviour otherwise)"

// NullAssumption is how the proof lists the null model.
const NullAssumption = "null: a source access whose address is not derived from the entry rsp lies at or above 0x1000, outside the null page (undefined behaviour otherwise)"
