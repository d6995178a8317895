package pair

import (
	"sort"

	"eqc/ir"
	"eqc/x86"
)

// Liveness of state components at anchors: a component is live at an
// anchor when some path from it reads the component before overwriting it.
// A dead component's value at a product node constrains nothing, so it is
// left a fresh variable, not learned from and not defined — the invariants
// are then about what matters (and the solver sees less).

// ExitLive are the components the exit obligations read: those of the
// observables (return value, stack pointer, callee-saved registers) and
// the memory.
func (p *Pair) ExitLive() map[int]bool {
	m := map[int]bool{x86.StateMem: true}
	st := make([]ir.Term, x86.StateLen)
	for i := range st {
		st[i] = p.SrcVar(i)
	}
	for _, o := range p.Observables(st, st) {
		for _, t := range p.B.PostOrder(o.Src) {
			if i := p.Src.TFG.StateIndexOf(t); i >= 0 {
				m[i] = true
			}
		}
	}
	return m
}

// LiveAt computes the live components at every anchor of g, given those
// live at the exit.
func LiveAt(g *ir.TFG, atExit map[int]bool) map[ir.NodeID]map[int]bool {
	anchors := AnchorSet(g)
	type aedge struct {
		to ir.NodeID
		e  *ir.Edge
	}
	succ := map[ir.NodeID][]aedge{}
	for v := range anchors {
		for _, w := range NextAnchors(g, v, anchors) {
			succ[v] = append(succ[v], aedge{w, g.PathSet(v, w, ir.PathOptions{Mu: 1, Through: func(u ir.NodeID) bool { return !anchors[u] }})})
		}
	}
	live := map[ir.NodeID]map[int]bool{}
	for v := range anchors {
		live[v] = map[int]bool{x86.StateMem: true}
		if g.Nodes[v].Kind == ir.NodeExit {
			live[v] = atExit
		}
	}
	b := g.B
	reads := func(ts ...ir.Term) []int {
		var out []int
		for _, t := range b.PostOrder(ts...) {
			if i := g.StateIndexOf(t); i >= 0 {
				out = append(out, i)
			}
		}
		return out
	}
	for changed := true; changed; {
		changed = false
		for v, es := range succ {
			for _, ae := range es {
				roots := []ir.Term{ae.e.Cond, ae.e.Fault}
				for i := range live[ae.to] {
					roots = append(roots, ae.e.Transfer[i])
				}
				for _, c := range ae.e.Calls {
					roots = append(roots, c.Args...)
				}
				for _, i := range reads(roots...) {
					if !live[v][i] {
						live[v][i] = true
						changed = true
					}
				}
			}
		}
	}
	return live
}

func IsEnd(g *ir.TFG, v ir.NodeID) bool {
	k := g.Nodes[v].Kind
	return k == ir.NodeExit || k == ir.NodeHalt
}

// NextAnchors lists the anchors some path from anchor v reaches without
// passing another anchor.
func NextAnchors(g *ir.TFG, v ir.NodeID, anchors map[ir.NodeID]bool) []ir.NodeID {
	var out []ir.NodeID
	for w := range anchors {
		if g.PathSet(v, w, ir.PathOptions{Mu: 1, Through: func(u ir.NodeID) bool { return !anchors[u] }}) != nil {
			out = append(out, w)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
