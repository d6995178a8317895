package pair

import (
	"eqc/ir"
	"eqc/x86"
)

// ModelPrecondition is the precondition with the UB assumptions the
// engines may use listed too (the loop-free engine and the loop engines
// alike; each adds the model's hypotheses, ub.OBVAHypotheses, to its own
// obligations).
func (p *Pair) ModelPrecondition() (ir.Term, []string) {
	pre, assumptions := p.Precondition()
	if p.OBVA && p.TakesPointer() {
		assumptions = append(assumptions, OBVAAssumption)
	}
	assumptions = append(assumptions, p.sanitizerAssumptions()...)
	if callees := p.tfgCallees(); len(callees) > 0 {
		assumptions = append(assumptions, p.callAssumptions(callees)...)
	}
	return pre, assumptions
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

// TakesPointer reports whether the source function may be given a
// pointer: a pointer parameter, a call (its result), or no signature to
// tell. Only then does
// the engines build the model's hypotheses: over globals alone the
// precondition already places every object outside the frame, and the
// hypotheses would only make the queries larger.
func (p *Pair) TakesPointer() bool {
	f := p.Src.Fn.Func
	if f == nil || f.Debug == nil || f.Debug.Variadic {
		return true
	}
	for _, v := range f.Debug.Params {
		if v.Type.Kind == x86.KindPointer {
			return true
		}
	}
	// A callee may return one.
	return len(p.Src.Fn.CallSites) > 0
}

// OBVAAssumption is how the proof lists the model.
const OBVAAssumption = "obva: a source access whose address is not derived from the entry rsp lies outside the stack region [rsp−0x100000, rsp+8) (undefined behaviour otherwise)"
