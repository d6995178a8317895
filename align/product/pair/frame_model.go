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
// p ∉ [rsp0 − ub.StackLimit, rsp0 + 8).

// frameFreeParams are the premises and proof lines of that rule: one for
// each register parameter of pointer type. None without the OBVA model or
// without the source's DWARF.
func (p *Pair) frameFreeParams() ([]ir.Term, []string) {
	f := p.Src.Fn.Func
	if !p.OBVA || f == nil || f.Debug == nil {
		return nil, nil
	}
	b := p.B
	rsp := p.SrcVar(x86.StateGPR0 + x86.RSP)
	lo := b.Sub(rsp, b.Const(64, ub.StackLimit))
	var facts []ir.Term
	var lines []string
	for _, rp := range p.registerPointerParams() {
		facts = append(facts, b.Uge(b.Sub(rp.Var, lo), b.Const(64, ub.StackLimit+8)))
		lines = append(lines, fmt.Sprintf("obva: parameter %s (%s, in %s) points outside the stack region [rsp−%#x, rsp+8): no object of the caller is there", rp.Name, rp.Type.Name, x86.GPRNames[rp.Reg], ub.StackLimit))
	}
	return facts, lines
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
