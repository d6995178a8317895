package product

import (
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/x86"
)

// Escaped locals in the product (escapes.go).
//
// A loop that hands a callee the address of a local (findlib(s, n, libs)
// on a local array, lua_tolstring(L, i, &len), a struct a helper fills)
// passes a frame address, which the calling convention's model refuses
// (calls.go). As in the loop-free engine (pair/escaped.go), each such
// local is moved, on both sides, to one fresh block A outside the stack
// region: every edge's terms, over its from-node's state, are relocated
// side by side before the calls are rewritten, and the frame taint, the
// OBVA hypotheses and the obligations all read the relocated terms. The
// relocation is exact (a renaming of each side's own run, the accesses
// that may land in a slot guarded byte by byte), and what it assumes is
// what the loop-free engine assumes: the block is fresh and a callee does
// not depend on where a local it is given lives (Escapes.Premises, among
// the proof's assumptions).
//
// Node states are over the entry rsp, so the relocation sees the frame
// addresses of every edge as rsp0 plus a constant. A node keeps no slot
// for an escaped local: no relocated edge writes the slot, and the local's
// bytes live in the shared memory at A, where "the memories agree" covers
// them at every node like a global's. At the return the blocks are dead
// and not compared.

// findEscapes pairs the locals the two sides pass to callees on each of
// the product's edges (the two sides of one edge make the same calls in
// the same order, or no proof can pair them) and, when there are some,
// drops their slots from the nodes; why it cannot ("" when it can, or
// when none escapes).
func (pr *Product) findEscapes() string {
	var groups [][2][]ir.Term
	for _, e := range pr.Edges {
		if e.Infeasible || !pair.HasCalls(e.src, e.dst) {
			// An edge the target cannot take pairs nothing.
			continue
		}
		var roots [2][]ir.Term
		for side := range 2 {
			cond, fault, post := pr.sideTerms(side, e)
			roots[side] = append(post, cond, fault)
		}
		groups = append(groups, roots)
	}
	if len(groups) == 0 {
		return ""
	}
	esc, err := pr.p.FindEscapes(groups)
	if err != nil {
		return "unsupported:calls (" + err.Error() + ")"
	}
	if esc == nil {
		return ""
	}
	pr.esc = esc
	pr.premises, pr.assumptions = esc.Premises()
	for _, n := range pr.Nodes {
		pr.dropEscapedSlots(n)
	}
	return ""
}

// dropEscapedSlots removes from n the stack slots that hold some byte of
// an escaped local, with the candidates that mention them, and relocates
// its definitions.
func (pr *Product) dropEscapedSlots(n *PNode) {
	if n.mem == ir.NoTerm {
		return
	}
	b := pr.p.B
	escaped := func(side int, s pair.Slot) bool { return pr.esc.InSlot(side, s.Off, uint32(s.Size)) }
	dropped := map[ir.Term]bool{}
	var comps []comp
	for _, c := range n.comps {
		if c.state < 0 && escaped(c.side, c.slot) {
			if c.fresh {
				dropped[c.term] = true
				delete(n.varComp, c.term)
			}
			continue
		}
		if !c.fresh && c.state != x86.StateGPR0+x86.RSP {
			// A definition the runs gave over the entry state, where
			// the local's address is its slot's (a register that keeps
			// &local across the loop).
			c.term = pr.esc.Rewrite(c.side, c.term)
		}
		comps = append(comps, c)
	}
	n.comps = comps
	pr.setStates(n)
	for side := range 2 {
		var kept []pair.Slot
		for _, s := range n.slots[side] {
			if !escaped(side, s) {
				kept = append(kept, s)
			}
		}
		n.slots[side] = kept
	}
	var cands []Candidate
	for _, c := range n.Candidates {
		mentions := false
		for _, t := range b.PostOrder(c.Term) {
			if dropped[t] {
				mentions = true
				break
			}
		}
		if !mentions {
			cands = append(cands, c)
		}
	}
	n.Candidates = cands
}

// sideTerms are side's path condition, fault and post-state along e, over
// e's from-node, simplified (as the path sets give them: not relocated,
// calls in the lifter's form).
func (pr *Product) sideTerms(side int, e *PEdge) (cond, fault ir.Term, post []ir.Term) {
	path, st := e.src, pr.Nodes[e.From].Src
	if side == 1 {
		path, st = e.dst, pr.Nodes[e.From].Dst
	}
	sub := pr.stateSubst(pr.sideTFG(side), st)
	return pr.simp.Simplify(sub.Apply(path.Cond)), pr.simp.Simplify(sub.Apply(path.Fault)), pr.simp.SimplifyAll(sub.ApplyAll(path.Transfer))
}

// relocatePost is a side's post-state with the escaped locals moved,
// but for the stack pointer: its value is the frame's top, which may be
// a local's first byte (clang passes rsp for a local at the top) but is
// no address of the local as the stack pointer.
func (pr *Product) relocatePost(side int, post []ir.Term) []ir.Term {
	if pr.esc == nil {
		return post
	}
	out := pr.esc.RewriteAll(side, post)
	out[x86.StateGPR0+x86.RSP] = post[x86.StateGPR0+x86.RSP]
	return out
}

// withPremises is pre and the escaped locals' premises.
func (pr *Product) withPremises(pre ir.Term) ir.Term {
	if len(pr.premises) == 0 {
		return pre
	}
	return pr.p.B.And(append([]ir.Term{pre}, pr.premises...)...)
}

// Assumptions are the product's own assumptions, beyond the pair's
// precondition: the escaped locals' (none when none escapes).
func (pr *Product) Assumptions() []string { return pr.assumptions }

// memoryDiffers are the terms that say memories ms and md differ outside
// the stack region, and outside the escaped locals' blocks, which are
// dead at the return.
func (pr *Product) memoryDiffers(ms, md ir.Term) []ir.Term {
	if pr.esc != nil {
		return pr.esc.MemoryDiffersOutside(ms, md, pr.simp)
	}
	return pr.p.MemoryDiffersOutsideStack(ms, md, pr.simp)
}
