package pair

import (
	"fmt"

	"eqc/inputs"
	"eqc/ir"
	"eqc/ub"
	"eqc/x86"
)

// The OBVA model's premise about pointer arguments: they never point into
// the callee's own frame or at its return address. At the call, the
// region below the caller's stack pointer holds no object of the C
// program (the callee's locals do not exist yet), so a pointer the caller
// passes is null, points into or one past an object elsewhere, or is
// indeterminate, and using an indeterminate pointer is undefined (C11
// 6.2.4p2, J.2); compilers rely on it as well (a parameter compares unequal
// to the address of any local). OBVA's hypotheses (ub/obva.go) place each
// source access through such a pointer outside the stack region, but only
// on the paths that make the access: gcc-12 -O3 reads a[0] of prefix's
// a[i] += a[i−1] before its loop, where the -O0 source has stored only
// its spills, so nothing kept a[0] off those slots. The premise is about
// the value alone, at the entry, whatever the function does with it:
// p ∉ [rsp0 − ub.StackLimit − ParamReach, rsp0 + 8).
//
// The ParamReach bytes below the region are there for the object p points
// into, which lies where p does, outside the region: so do the ParamReach
// bytes from p on (p+c, 0 ≤ c < ParamReach, cannot wrap into the region),
// and the calling convention's model knows a store through p+c (a struct
// field) for one that misses the frame (outsideStack). Without it, every
// store through a pointer before a call was replayed after the call byte
// by byte, as one that might have landed in the caller's frame, and an
// -O0 reload of the pointer from its slot read past those bytes: lua's
// atomic2gen (four calls, stores into the global state between them)
// made queries no solver finished.

// frameFreeParams are the premises and proof lines of that rule: one for
// each register parameter of pointer type. None without the OBVA model or
// without the source's DWARF.
func (p *Pair) frameFreeParams() ([]ir.Term, []string) {
	params := p.frameFreeParamList()
	if len(params) == 0 {
		return nil, nil
	}
	b := p.B
	rsp := p.SrcVar(x86.StateGPR0 + x86.RSP)
	// Two facts, the region's and the bytes below it: one atom over both
	// made the kernels' disjointness queries slower (gcc's compact: 18 s
	// to 30 s), where the region's atom alone is what they use.
	lo := b.Sub(rsp, b.Const(64, ub.StackLimit))
	below := b.Sub(rsp, b.Const(64, ub.StackLimit+ParamReach))
	var facts []ir.Term
	var lines []string
	for _, rp := range params {
		// (p − lo) ≥u size, as ub.Disjoint states it: over p − rsp, the
		// difference the OBVA hypotheses and the frame facts compare.
		facts = append(facts, ub.Disjoint(b, rp.Var, 1, lo, ub.StackLimit+8), ub.Disjoint(b, rp.Var, 1, below, ParamReach))
		lines = append(lines, fmt.Sprintf("obva: parameter %s (%s, in %s) points outside [rsp−%#x, rsp+8), the stack region and the %#x bytes below it: no object of the caller is there", rp.Name, rp.Type.Name, x86.GPRNames[rp.Reg], ub.StackLimit+ParamReach, ParamReach))
	}
	return facts, lines
}

// ParamReach is how far past a pointer parameter the premise keeps the
// stack region (frameFreeParams): 64 KiB, more than a struct's fields
// and a constant index reach.
const ParamReach = 1 << 16

// frameFreeParamList are the parameters frameFreeParams constrains: the
// register pointer parameters, under OBVA only.
func (p *Pair) frameFreeParamList() []registerPointerParam {
	if !p.OBVA {
		return nil
	}
	return p.registerPointerParams()
}

// frameFreeParamVars are their entry variables.
func (p *Pair) frameFreeParamVars() []ir.Term {
	var out []ir.Term
	for _, rp := range p.frameFreeParamList() {
		out = append(out, rp.Var)
	}
	return out
}

// registerPointerParam is a parameter of pointer type passed in a
// register: its DWARF description, the register and its entry variable.
type registerPointerParam struct {
	inputs.Param
	Reg int // x86 GPR number
	Var ir.Term
}

// registerPointerParams lists the source's register parameters of pointer
// type, from its DWARF; none without it. The models' premises about
// pointer arguments (alignment_model.go, this file) range over them.
func (p *Pair) registerPointerParams() []registerPointerParam {
	f := p.Src.Fn.Func
	if f == nil || f.Debug == nil {
		return nil
	}
	var out []registerPointerParam
	for _, prm := range inputs.Classify(f.Debug).Params {
		if prm.Kind != inputs.Pointer || prm.Reg >= len(x86.CalleeArgRegs) {
			continue
		}
		reg := x86.CalleeArgRegs[prm.Reg]
		out = append(out, registerPointerParam{Param: prm, Reg: reg, Var: p.SrcVar(x86.StateGPR0 + reg)})
	}
	return out
}
