package pair

import (
	"fmt"
	"os"

	"eqc/ir"
	"eqc/ub"
	"eqc/x86"
)

// The TBSA model's parameters and the loop-free engine's hypotheses
// (ub/tbsa.go states the rule): the source's register parameters that
// point to scalars wider than a char, from its DWARF. The product program
// states the same hypotheses on each of its edges (align/product).

// TBSAParams lists the pointer parameters the model speaks of; none
// without the model, without the source's DWARF, or when no two of them
// point to scalars of different sizes.
func (p *Pair) TBSAParams() []ub.TBSAParam {
	if !p.Models.Has(ub.TBSA) {
		return nil
	}
	var out []ub.TBSAParam
	apart := false
	for _, rp := range p.registerPointerParams() {
		if !ScalarPointee(rp.Type) {
			continue
		}
		size := uint32(rp.Type.PointeeSize)
		for _, q := range out {
			apart = apart || ub.TBSAApart(q.Size, size)
		}
		out = append(out, ub.TBSAParam{Var: rp.Var, Size: size, Label: fmt.Sprintf("%s (%s)", rp.Name, rp.Type.Name)})
	}
	if !apart {
		return nil
	}
	return out
}

// tbsaSeparate are the argument registers (x86 GPR numbers) of the
// pointer parameters the model keeps apart from another. Co-execution
// gives each an array of its own even in the run that overlaps the
// others' (coexec.go): an overlap there is undefined behaviour the model
// excludes, and a target that relies on it (gcc-12 -O3 widening an int
// array into a long one with no overlap check) would take that run as
// evidence against the right alignment.
func (p *Pair) tbsaSeparate() map[int]bool {
	ps := p.TBSAParams()
	out := map[int]bool{}
	for _, rp := range p.registerPointerParams() {
		for _, a := range ps {
			for _, c := range ps {
				if a.Var == rp.Var && ub.TBSAApart(a.Size, c.Size) {
					out[rp.Reg] = true
				}
			}
		}
	}
	return out
}

// tbsaAssumptions are the proof lines of the model's rule, one per pair
// of parameters it keeps apart.
func (p *Pair) tbsaAssumptions() []string {
	ps := p.TBSAParams()
	var lines []string
	for i, a := range ps {
		for _, c := range ps[i+1:] {
			if ub.TBSAApart(a.Size, c.Size) {
				lines = append(lines, fmt.Sprintf("tbsa: the source's %d-byte accesses through %s and its %d-byte accesses through %s do not overlap (strict aliasing)", a.Size, a.Label, c.Size, c.Label))
			}
		}
	}
	return lines
}

// ScalarPointee reports whether t points to a scalar that is not a
// character type.
func ScalarPointee(t x86.Type) bool {
	switch t.PointeeKind {
	case x86.KindInt, x86.KindBool, x86.KindEnum, x86.KindFloat, x86.KindPointer:
		return t.PointeeSize > 1
	}
	return false
}

// loopFreeTBSA are the model's hypotheses for the source's paths from
// entry to exit and to halt, over the entry state; taint is the OBVA
// model's frame taint (nil without that model).
func (p *Pair) loopFreeTBSA(paths []*ir.Edge, taint *ub.FrameTaint) []ir.Term {
	params := p.TBSAParams()
	if len(params) == 0 {
		return nil
	}
	b := p.B
	var out []ir.Term
	for _, e := range paths {
		out = append(out, ub.TBSAHypotheses(ub.TBSAInput{
			OBVAInput: p.loopFreeInput(e, taint),
			Params:    params, OBVA: taint != nil})...)
	}
	if Debug {
		for _, h := range out {
			fmt.Fprintf(os.Stderr, "eqc: tbsa hypothesis %s\n", b.Short(h))
		}
	}
	return out
}
