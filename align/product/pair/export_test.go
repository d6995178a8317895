package pair

import (
	"eqc/ir"
	"eqc/x86"
)

// exitRoots are the terms of side's exit path set, over its own entry
// state: its condition, its fault and its transfer.
func (p *Pair) exitRoots(side Side) ([]ir.Term, error) {
	g := side.TFG
	exit, ok := g.PathSetWithin(g.Entry, g.Exit, ir.PathOptions{}, maxPathTerms)
	if !ok || exit == nil {
		return nil, &EscapeError{"no exit path set"}
	}
	return append([]ir.Term{exit.Cond, exit.Fault}, exit.Transfer...), nil
}

// EscapePremises are the premises escapePremises states for the locals
// a loop-free pair's two sides pass to callees (none when none escapes),
// found as CheckLoopFree finds them: from each side's exit path set over
// the shared entry state.
func (p *Pair) EscapePremises() ([]ir.Term, error) {
	src, err := p.exitRoots(p.Src)
	if err != nil {
		return nil, err
	}
	dst, err := p.exitRoots(p.Dst)
	if err != nil {
		return nil, err
	}
	es, err := p.escapedLocals(src, ir.NewSubstituter(p.B, p.Entry).ApplyAll(dst))
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
	roots, err := p.exitRoots(p.Src)
	if err != nil {
		return nil, "", err
	}
	esc, err := p.FindEscapes([][2][]ir.Term{{roots, nil}})
	if err != nil || esc == nil {
		return esc, "", err
	}
	cc := esc.CallConvention(p.SrcVar(x86.StateMem))
	moved := cc.RewriteAll(esc.RewriteAll(0, roots))
	return esc, p.callFrameReason(cc, moved[2+x86.StateMem]), nil
}
