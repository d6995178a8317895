package align

import (
	"eqc/ir"
	"eqc/x86"
)

// Liveness of state components at anchors: a component is live at an
// anchor when some path from it reads the component before overwriting it.
// A dead component's value at a product node constrains nothing, so it is
// left a fresh variable, not learned from and not defined — the invariants
// are then about what matters (and the solver sees less).

// exitLive are the components the exit obligations read: those of the
// observables (return value, stack pointer, callee-saved registers) and
// the memory.
func (p *Pair) exitLive() map[int]bool {
	m := map[int]bool{x86.StateMem: true}
	st := make([]ir.Term, x86.StateLen)
	for i := range st {
		st[i] = p.srcVar(i)
	}
	for _, o := range p.observables(st, st) {
		for _, t := range p.B.PostOrder(o.src) {
			if i := p.Src.TFG.StateIndexOf(t); i >= 0 {
				m[i] = true
			}
		}
	}
	return m
}

// liveAt computes the live components at every anchor of g, given those
// live at the exit.
func liveAt(g *ir.TFG, atExit map[int]bool) map[ir.NodeID]map[int]bool {
	anchors := anchorSet(g)
	type aedge struct {
		to ir.NodeID
		e  *ir.Edge
	}
	succ := map[ir.NodeID][]aedge{}
	for v := range anchors {
		for _, w := range dstSuccessors(g, v, anchors) {
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
