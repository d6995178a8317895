package pair

import (
	"fmt"
	"os"

	"eqc/ir"
	"eqc/ub"
)

// The restrict model's parameters and the loop-free engine's hypotheses
// (ub/restrict.go states the rule): the source's register pointer
// parameters, from its DWARF, when one of them is restrict-qualified. The
// product program states the same hypotheses on each of its edges
// (align/product).

// RestrictParams lists the pointer parameters the model speaks of: every
// register pointer parameter, when at least one is restrict and there are
// two; none without the model or the source's DWARF.
// LibraryUBIsUndefined says whether the engines may take the source's
// library contract violations (ir.Edge.UB: a memcpy of overlapping
// regions, whose parameters are restrict) as undefined behaviour, and so
// assume that the source's paths have none: under the restrict model.
// Elsewhere, and on the target always, they are faults like any other.
func (p *Pair) LibraryUBIsUndefined() bool { return p.Models.Has(ub.Restrict) }

// libraryUBAssumptions is the proof's line for LibraryUBIsUndefined, when
// some source edge has such a violation.
func (p *Pair) libraryUBAssumptions() []string {
	if !p.LibraryUBIsUndefined() {
		return nil
	}
	for _, e := range p.Src.TFG.Edges {
		if e.UB != ir.NoTerm && p.B.Op(e.UB) != ir.OpFalse {
			return []string{"restrict: the source's memcpy calls copy between regions that do not overlap (memcpy's parameters are restrict, C11 7.24.2.1)"}
		}
	}
	return nil
}

func (p *Pair) RestrictParams() []ub.RestrictParam {
	if !p.Models.Has(ub.Restrict) {
		return nil
	}
	var out []ub.RestrictParam
	any := false
	for _, rp := range p.registerPointerParams() {
		any = any || rp.Type.Restrict
		out = append(out, ub.RestrictParam{Var: rp.Var, Restrict: rp.Type.Restrict, Label: fmt.Sprintf("%s (%s)", rp.Name, rp.Type.Name)})
	}
	if !any || len(out) < 2 {
		return nil
	}
	return out
}

// restrictSeparate are the argument registers (x86 GPR numbers) of the
// restrict pointer parameters: co-execution gives each an array of its
// own, as it does tbsa's (tbsaSeparate), since an overlap with another
// parameter's is undefined behaviour once the function writes one.
func (p *Pair) restrictSeparate() map[int]bool {
	out := map[int]bool{}
	if len(p.RestrictParams()) == 0 {
		return out
	}
	for _, rp := range p.registerPointerParams() {
		if rp.Type.Restrict {
			out[rp.Reg] = true
		}
	}
	return out
}

// restrictAssumptions are the proof lines of the model's rule, one per
// restrict parameter.
func (p *Pair) restrictAssumptions() []string {
	var lines []string
	for _, a := range p.RestrictParams() {
		if a.Restrict {
			lines = append(lines, fmt.Sprintf("restrict: the source's accesses through %s and its accesses through the other pointer parameters do not overlap where one of them writes", a.Label))
		}
	}
	return lines
}

// loopFreeRestrict are the model's hypotheses for the source's paths from
// entry to exit and to halt, over the entry state; taint is the OBVA
// model's frame taint (nil without that model).
func (p *Pair) loopFreeRestrict(paths []*ir.Edge, taint *ub.FrameTaint) []ir.Term {
	params := p.RestrictParams()
	if len(params) == 0 {
		return nil
	}
	var out []ir.Term
	for _, e := range paths {
		out = append(out, ub.RestrictHypotheses(ub.RestrictInput{
			OBVAInput: p.loopFreeInput(e, taint),
			Params:    params, OBVA: taint != nil})...)
	}
	if Debug {
		for _, h := range out {
			fmt.Fprintf(os.Stderr, "eqc: restrict hypothesis %s\n", p.B.Short(h))
		}
	}
	return out
}
