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
				if base, off := constOffset(b, t); base == rsp {
					next = h + off
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

// FramePointerHeights is each node's rbp as an offset from the entry rsp,
// where every path from the entry gives it one and the same: the forward
// dataflow of StackHeights for the frame pointer, which the entry holds
// as the caller's (no height) and an edge leaves at its from-state's rbp
// plus a constant, or at its rsp plus a constant where that node's stack
// height (heights) is known: unoptimized code's mov %rsp,%rbp after its
// push, rbp = rsp0−8 from there on. Its locals are rbp's offsets.
func FramePointerHeights(g *ir.TFG, heights map[ir.NodeID]int64) map[ir.NodeID]int64 {
	b := g.B
	rsp := g.State[x86.StateGPR0+x86.RSP].Var
	rbp := g.State[x86.StateGPR0+x86.RBP].Var
	const unknown = int64(1) << 62
	height := map[ir.NodeID]int64{g.Entry: unknown}
	work := []ir.NodeID{g.Entry}
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		h := height[n]
		hs, hsKnown := heights[n]
		for _, e := range g.Out(n) {
			next := unknown
			if e.Transfer != nil {
				t := e.Transfer[x86.StateGPR0+x86.RBP]
				if g.Simplifier != nil {
					t = g.Simplifier.Simplify(t)
				}
				switch base, off := constOffset(b, t); {
				case base == rbp && h != unknown:
					next = h + off
				case base == rsp && hsKnown:
					next = hs + off
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
