package pair

import (
	"eqc/ir"
	"eqc/x86"
)

// StackHeights is each node's stack pointer as an offset from the entry
// rsp, where every path from the entry gives it one and the same
// (stackheight.go): a forward dataflow over g's edges, each of which
// leaves rsp at its from-state's rsp plus a constant or at something else
// (alloca, a value loaded from memory), which makes the heights of the
// nodes it reaches unknown. Co-executions define a node's rsp only where
// some run reaches the node; this defines it where none does (a path past
// a loop the runs never leave), and like every definition it is an
// obligation of the product, never an assumption.
func StackHeights(g *ir.TFG) map[ir.NodeID]int64 {
	b := g.B
	rsp := g.State[x86.StateGPR0+x86.RSP].Var
	const unknown = int64(1) << 62
	height := map[ir.NodeID]int64{g.Entry: 0}
	work := []ir.NodeID{g.Entry}
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		h := height[n]
		for _, e := range g.Out(n) {
			next := unknown
			if h != unknown && e.Transfer != nil {
				t := e.Transfer[x86.StateGPR0+x86.RSP]
				if g.Simplifier != nil {
					t = g.Simplifier.Simplify(t)
				}
				if t == rsp {
					next = h
				} else if base, off := b.BaseOffset(t); base == rsp {
					next = h + int64(off)
				}
			}
			old, seen := height[e.To]
			switch {
			case !seen:
				height[e.To] = next
			case old != next && old != unknown:
				height[e.To] = unknown
			default:
				continue
			}
			work = append(work, e.To)
		}
	}
	for n, h := range height {
		if h == unknown {
			delete(height, n)
		}
	}
	return height
}
