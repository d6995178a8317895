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
	rsp := g.State[x86.StateGPR0+x86.RSP].Var
	return forwardHeights(g, 0, func(e *ir.Edge, h int64) (int64, bool) {
		base, off := registerAfter(g, e, x86.RSP)
		return h + off, base == rsp && h != unknownHeight
	})
}

// FramePointerHeights is each node's rbp as an offset from the entry rsp,
// where every path from the entry gives it one and the same: the forward
// dataflow of StackHeights for the frame pointer, which the entry holds
// as the caller's (no height) and an edge leaves at its from-state's rbp
// plus a constant, or at its rsp plus a constant where that node's stack
// height (heights) is known: unoptimized code's mov %rsp,%rbp after its
// push, rbp = rsp0−8 from there on. Its locals are rbp's offsets.
func FramePointerHeights(g *ir.TFG, heights map[ir.NodeID]int64) map[ir.NodeID]int64 {
	rsp, rbp := g.State[x86.StateGPR0+x86.RSP].Var, g.State[x86.StateGPR0+x86.RBP].Var
	return forwardHeights(g, unknownHeight, func(e *ir.Edge, h int64) (int64, bool) {
		base, off := registerAfter(g, e, x86.RBP)
		if hs, ok := heights[e.From]; ok && base == rsp {
			return hs + off, true
		}
		return h + off, base == rbp && h != unknownHeight
	})
}

// unknownHeight is a height forwardHeights does not know.
const unknownHeight = int64(1) << 62

// forwardHeights is the forward dataflow of the height analyses: the
// entry's height is entry (unknownHeight for none), an edge gives its
// to-node the height step returns from the from-node's (h, maybe
// unknownHeight) when step says it knows one, else none, and a node two
// paths give different heights has none. Nodes without a height are left
// out.
func forwardHeights(g *ir.TFG, entry int64, step func(e *ir.Edge, h int64) (int64, bool)) map[ir.NodeID]int64 {
	height := map[ir.NodeID]int64{g.Entry: entry}
	work := []ir.NodeID{g.Entry}
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		h := height[n]
		for _, e := range g.Out(n) {
			next := unknownHeight
			if e.Transfer != nil {
				if v, ok := step(e, h); ok {
					next = v
				}
			}
			old, seen := height[e.To]
			switch {
			case !seen:
				height[e.To] = next
			case old != next && old != unknownHeight:
				height[e.To] = unknownHeight
			default:
				continue
			}
			work = append(work, e.To)
		}
	}
	for n, h := range height {
		if h == unknownHeight {
			delete(height, n)
		}
	}
	return height
}

// registerAfter is general register reg (x86.RSP, x86.RBP) after edge
// e, simplified, as a base plus a constant.
func registerAfter(g *ir.TFG, e *ir.Edge, reg int) (ir.Term, int64) {
	t := e.Transfer[x86.StateGPR0+reg]
	if g.Simplifier != nil {
		t = g.Simplifier.Simplify(t)
	}
	return constOffset(g.B, t)
}

// constOffset splits a into a base plus a constant, through additions and
// subtractions of constants (the lifter's rsp − 8 + c before it is
// simplified).
func constOffset(b *ir.Builder, a ir.Term) (ir.Term, int64) {
	var off int64
	for {
		switch b.Op(a) {
		case ir.OpAdd:
			if len(b.Args(a)) != 2 {
				return a, off
			}
			if x := b.Arg(a, 1); b.Op(x) == ir.OpConst {
				off += int64(b.ConstValue(x).Uint64())
				a = b.Arg(a, 0)
				continue
			}
			if x := b.Arg(a, 0); b.Op(x) == ir.OpConst {
				off += int64(b.ConstValue(x).Uint64())
				a = b.Arg(a, 1)
				continue
			}
		case ir.OpSub:
			if x := b.Arg(a, 1); b.Op(x) == ir.OpConst {
				off -= int64(b.ConstValue(x).Uint64())
				a = b.Arg(a, 0)
				continue
			}
		}
		return a, off
	}
}
