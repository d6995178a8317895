package pair

import (
	"eqc/ir"
	"eqc/x86"
)

// EscapePremises are the premises escapePremises states for the locals
// a loop-free pair's two sides pass to callees (none when none escapes),
// found as CheckLoopFree finds them: from each side's exit path set over
// the shared entry state.
func (p *Pair) EscapePremises() ([]ir.Term, error) {
	var roots [2][]ir.Term
	sub := ir.NewSubstituter(p.B, p.Entry)
	for k, side := range []Side{p.Src, p.Dst} {
		g := side.TFG
		exit, ok := g.PathSetWithin(g.Entry, g.Exit, ir.PathOptions{}, maxPathTerms)
		if !ok || exit == nil {
			return nil, &EscapeError{"no exit path set"}
		}
		ts := append([]ir.Term{exit.Cond, exit.Fault}, exit.Transfer...)
		if k == 1 {
			ts = sub.ApplyAll(ts)
		}
		roots[k] = ts
	}
	es, err := p.escapedLocals(roots[0], roots[1])
	if err != nil {
		return nil, err
	}
	premises, _ := p.escapePremises(es)
	return premises, nil
}

// SourceOnlyFrameReason pairs the escaped locals of a group whose target
// side makes no call (a product edge whose target step calls nothing the
// source's path set calls), relocates the source's exit terms and returns
// the calling convention's frame check on them, with the escapes found.
func (p *Pair) SourceOnlyFrameReason() (*Escapes, string, error) {
	g := p.Src.TFG
	exit, ok := g.PathSetWithin(g.Entry, g.Exit, ir.PathOptions{}, maxPathTerms)
	if !ok || exit == nil {
		return nil, "", &EscapeError{"no exit path set"}
	}
	roots := append([]ir.Term{exit.Cond, exit.Fault}, exit.Transfer...)
	esc, err := p.FindEscapes([][2][]ir.Term{{roots, nil}})
	if err != nil || esc == nil {
		return esc, "", err
	}
	cc := esc.CallConvention(p.SrcVar(x86.StateMem))
	moved := cc.RewriteAll(esc.RewriteAll(0, roots))
	return esc, p.callFrameReason(cc, moved[2+x86.StateMem]), nil
}
