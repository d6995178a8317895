package product

import (
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/ub"
	"eqc/x86"
)

// Calls in the product (calls.go).
//
// Every edge's terms are rewritten into the C calling convention's model
// of callees (x86.CallConvention, as the loop-free engine does; pair's
// calls.go): a callee is a function of its argument values and of the
// memory outside the stack region of the entry rsp, keeps the caller's
// frame above its stack pointer, and writes only outside the region. The
// stack region is the entry rsp's at every node (a node's rsp is a
// definition rsp0 − c, or the rewrite fails), and the memory outside it
// at a node is the node's shared memory, which both sides read alike: two
// calls with equal arguments on the two sides' states of a node become one
// application, and so do the memories after them outside the frames.
//
// The model holds only while no address in either side's frame reaches a
// callee: callFrameReason runs the frame taint of package ub over each
// side's edges, the calls' views among the memories, and refuses the
// product when an argument may be derived from the entry rsp or such a
// value may be stored outside the frame.

// callConvention is the rewrite for the edges out of from: reads of
// read-only data after a call read the node's memory outside the stack.
func (pr *Product) callConvention(from *PNode) *x86.CallConvention {
	mem0 := from.mem
	if mem0 == ir.NoTerm {
		mem0 = pr.p.SrcVar(x86.StateMem)
	}
	if pr.esc != nil {
		return pr.esc.CallConvention(mem0)
	}
	return pr.p.CallConvention(mem0)
}

// callFrameReason says why the calling convention's model cannot be used
// for the calls of pr's edges ("" when it can, or when none calls).
func (pr *Product) callFrameReason() string {
	for side := 0; side < 2; side++ {
		var edges []ub.TaintEdge
		var calls []x86.ConventionCall
		calling := false
		for _, e := range pr.Edges {
			path := e.dst
			if side == 0 {
				path = e.src
			}
			if path == nil {
				continue
			}
			calling = calling || pair.HasCalls(path)
			cond, fault, post := pr.sideTerms(side, e)
			post = pr.relocatePost(side, post)
			cc := pr.callConvention(pr.Nodes[e.From])
			if pair.HasCalls(path) {
				post = cc.RewriteAll(post)
				// Conditions and faults may call too (a branch on a
				// result).
				cc.Rewrite(pr.esc.Rewrite(side, cond))
				cc.Rewrite(pr.esc.Rewrite(side, fault))
				if cc.Err != nil {
					return "unsupported:calls (" + cc.Err.Error() + ")"
				}
			}
			edges = append(edges, pr.taintEdge(side, e, post))
			for _, c := range cc.Calls {
				edges = append(edges, ub.TaintEdge{Mem: c.View})
			}
			calls = append(calls, cc.Calls...)
		}
		if !calling {
			continue
		}
		ft := ub.AnalyzeFrameTaint(pr.p.B, pr.rsp0, pr.p.SrcVar(x86.StateMem), edges)
		if reason := pair.CallFrameReason(ft, calls); reason != "" {
			return reason
		}
	}
	return ""
}
