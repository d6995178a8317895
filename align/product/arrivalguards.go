package product

import (
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/x86"
)

// Arrival guards. A rotated loop tests its condition at the bottom of a
// pass: gcc's scanning loop loads the next character into a register and
// goes round again only if the ctype table says it is a digit, so at the
// loop head the character the target holds is known to be one, while the
// -O0 source, which tests at the top, has yet to ask. Whether the source
// takes its paired path then depends on a fact of the target's way in,
// M[rcx + 2·rbx + 1] & 8 ≠ 0, which no learner over the node's columns
// guesses. The way in names it: the condition of each path into the node
// from a node built so far (or from the entry), rewritten over the node's
// own state where the values it tests are ones the path leaves in the
// node's registers (the character it loaded, the table's address), its
// loads from the path's memory reading the node's memory instead. A
// conjunct that rewrites completely, reads the node's memory and holds on
// every sample becomes a candidate; Houdini keeps it when every edge into
// the node preserves it.

// maxArrivalGuardSize bounds a guard's term (nodes in the DAG), before and
// after the rewrite.
const maxArrivalGuardSize = 48

// maxArrivalGuards bounds the guards of one node.
const maxArrivalGuards = 16

// arrivalGuards returns node n's arrival guards that hold on its samples.
func (pr *Product) arrivalGuards(n *PNode, samples []sample) []ir.Term {
	b := pr.p.B
	if n.mem == ir.NoTerm || len(samples) == 0 {
		return nil
	}
	key := [2]ir.NodeID{n.Key.Src, n.Key.Dst}
	seen := map[ir.Term]bool{}
	var out []ir.Term
	for side := 0; side < 2; side++ {
		g := pr.sideTFG(side)
		anchors := pair.AnchorSet(g)
		for _, m := range pr.Nodes {
			at, st := m.Key.Src, m.Src
			if side == 1 {
				at, st = m.Key.Dst, m.Dst
			}
			if m.mem == ir.NoTerm && m.ID != 0 {
				continue
			}
			ps := g.PathSet(at, key[side], ir.PathOptions{Mu: 1, Through: func(v ir.NodeID) bool { return !anchors[v] }})
			if ps == nil {
				continue
			}
			// Over from's state, in the calling convention's model (a
			// call's result is a function of its arguments there).
			sub := pr.stateSubst(g, st)
			cc := pr.callConvention(m)
			cond := pr.simp.Simplify(cc.Rewrite(sub.Apply(ps.Cond)))
			if cc.Err != nil || len(b.PostOrder(cond)) > 4*maxArrivalGuardSize {
				continue
			}
			post := pr.simp.SimplifyAll(cc.RewriteAll(sub.ApplyAll(ps.Transfer)))
			rw := pr.arrivalRewriter(n, side, m, storeBase(b, st[x86.StateMem]), post)
			for _, c := range b.Conjuncts(cond) {
				if b.Op(c) == ir.OpTrue || len(b.PostOrder(c)) > maxArrivalGuardSize {
					continue
				}
				t, ok := rw(c)
				if !ok || seen[t] || !readsMem(b, t, n.mem) || len(b.PostOrder(t)) > maxArrivalGuardSize || !pr.checkable(n, t) || !pr.holdsOn(n, samples, t) {
					continue
				}
				seen[t] = true
				out = append(out, t)
				if len(out) >= maxArrivalGuards {
					return out
				}
			}
		}
	}
	return out
}

// arrivalRewriter returns the rewrite of terms over from's state (the
// entry's when from is node 0) into terms over n's: a subterm equal to
// what the path leaves in one of n's components (post, the path's
// transfer over from's state) becomes that component, a load from the
// memory the path starts with (stores on top of fromMem) loads from n's
// memory, and what is left must not depend on from's state (n's own
// components count where the path leaves them unchanged) nor on the
// stack pointer (n's memory at a frame address is not what either side
// holds there: their slots are components of their own).
func (pr *Product) arrivalRewriter(n *PNode, side int, from *PNode, fromMem ir.Term, post []ir.Term) func(ir.Term) (ir.Term, bool) {
	b := pr.p.B
	holds := map[ir.Term]ir.Term{} // a value the path leaves → n's component holding it
	unchanged := map[ir.Term]bool{}
	for _, c := range n.comps {
		if c.side != side || !c.fresh || c.dead || c.state < 0 || c.state == x86.StateMem {
			continue
		}
		v := post[c.state]
		if v == c.term {
			unchanged[c.term] = true
			continue
		}
		if so := b.Sort(v); !so.IsBV() || b.Op(v) == ir.OpConst {
			continue
		}
		if _, dup := holds[v]; !dup {
			holds[v] = c.term
		}
	}
	allowed := func(v ir.Term) bool {
		if v == pr.rsp0 {
			return false
		}
		if from.ID == 0 {
			return true // the entry's variables are the learner's too
		}
		_, own := from.varComp[v]
		own = own || v == from.mem
		return !own || from == n && unchanged[v]
	}
	return func(t ir.Term) (ir.Term, bool) {
		r, _, ok := pr.overNode(t, fromMem, n.mem, holds, allowed)
		if !ok {
			return ir.NoTerm, false
		}
		return r, b.Op(r) != ir.OpTrue && b.Op(r) != ir.OpFalse && n.mentionsOwn(b, r)
	}
}

// readsMem reports whether t loads from memory m. Arrival guards are kept
// to those: a relation among the node's registers alone is the learners'
// to find (an ordering or disequality of two columns), and one more
// candidate of that kind costs Houdini refinements the learned ones need
// (clang's countz lost its lane sums to rax ≠ rsi at the vector loop).
func readsMem(b *ir.Builder, t, m ir.Term) bool {
	for _, u := range b.PostOrder(t) {
		if b.Op(u) == ir.OpSelect && b.Arg(u, 0) == m {
			return true
		}
	}
	return false
}

// storeBase is the memory under m's stores.
func storeBase(b *ir.Builder, m ir.Term) ir.Term {
	for b.Op(m) == ir.OpStore {
		m = b.Arg(m, 0)
	}
	return m
}
