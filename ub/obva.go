package ub

import (
	"fmt"

	"eqc/ir"
)

// The OBVA hypotheses (obva.go): what the model lets a proof assume about
// the source's accesses, as Bool terms over the state the source paths
// start from. A block's accesses happen whenever a run enters it and
// nothing faults, so for each prefix of each source path, the prefix's
// condition, with no fault there or in the next edge, implies that the
// next edge's accesses through addresses not derived from the entry rsp
// (FrameTaint) miss the frame [rsp−StackLimit, rsp+8). Every run without
// undefined behaviour under the model satisfies each hypothesis, whatever
// the path's other conditions; the terms are the paths' own, before any
// rewriting. The loop-free engine states them over the entry state, the
// product program over each edge's from-node.

// MaxOBVAPaths bounds the source paths of one path set that get
// hypotheses: each is composed on its own, and a path set with more gets
// none.
const MaxOBVAPaths = 16

// OBVAInput is one path set of the source to state hypotheses for.
type OBVAInput struct {
	B    *ir.Builder
	Simp *ir.Simplifier
	// G holds the edges the paths name (by ID), over G's state variables.
	G     *ir.TFG
	Paths *ir.PathExpr
	// From maps G's state variables to the state the paths start from
	// (nil: G's own variables, the entry state).
	From  *ir.Substituter
	Taint *FrameTaint
	Rsp0  ir.Term // the entry rsp, in From's terms
}

// OBVAHypotheses returns in's hypotheses; none when the path set has more
// than MaxOBVAPaths paths.
func OBVAHypotheses(in OBVAInput) []ir.Term {
	if in.Paths.Count() > MaxOBVAPaths {
		return nil
	}
	b, g := in.B, in.G
	from := in.From
	if from == nil {
		from = ir.NewSubstituter(b, nil)
	}
	lo := in.Simp.Simplify(b.Sub(in.Rsp0, b.Const(64, StackLimit)))
	var out []ir.Term
	done := map[string]bool{} // prefixes already covered, by their edge IDs
	for _, ids := range in.Paths.Paths(MaxOBVAPaths) {
		var prefix *ir.Edge
		for k, id := range ids {
			next := g.Edges[id]
			key := fmt.Sprint(ids[:k+1])
			if !done[key] {
				done[key] = true
				var at *ir.Substituter // next's from-state as the prefix leaves it
				if prefix != nil {
					at = stateSubst(b, g, prefix.Transfer)
				}
				if h, ok := blockHypothesis(in, from, at, prefix, next, lo); ok {
					out = append(out, h)
				}
			}
			if prefix == nil {
				prefix = next
			} else {
				prefix = g.Seq(prefix, next)
			}
		}
	}
	return out
}

// blockHypothesis is the hypothesis for edge next after prefix (nil: next
// is the path's first edge), if next makes any access the model speaks of.
func blockHypothesis(in OBVAInput, from, at *ir.Substituter, prefix, next *ir.Edge, lo ir.Term) (ir.Term, bool) {
	b := in.B
	var miss []ir.Term
	seen := map[ir.Term]bool{}
	for _, t := range b.PostOrder(append([]ir.Term{next.Cond, next.Fault}, next.Transfer...)...) {
		if op := b.Op(t); op != ir.OpSelect && op != ir.OpStore {
			continue
		}
		n, _ := b.Params(t)
		a := b.Arg(t, 1)
		if at != nil {
			a = at.Apply(a)
		}
		a = in.Simp.Simplify(from.Apply(a))
		if seen[a] || in.Taint.Derived(a) {
			continue
		}
		seen[a] = true
		miss = append(miss, MissesFrame(b, a, n, lo))
	}
	if len(miss) == 0 {
		return ir.NoTerm, false
	}
	// The block's accesses happen when the run gets to it and nothing
	// faults on the way (a fault ends the run, perhaps before the access).
	reached := b.Not(next.Fault)
	if prefix != nil {
		reached = b.And(prefix.Cond, b.Not(prefix.Fault), b.Not(at.Apply(next.Fault)))
	}
	return in.Simp.Simplify(b.Or(b.Not(from.Apply(reached)), b.And(miss...))), true
}

// MissesFrame says the n bytes at a and the frame [lo, lo+StackLimit+8)
// do not overlap, going up around the address space from each start.
func MissesFrame(b *ir.Builder, a ir.Term, n uint32, lo ir.Term) ir.Term {
	return b.And(b.Uge(b.Sub(lo, a), b.Const(64, uint64(n))), b.Uge(b.Sub(a, lo), b.Const(64, StackLimit+8)))
}

// stateSubst maps g's state variables to st.
func stateSubst(b *ir.Builder, g *ir.TFG, st []ir.Term) *ir.Substituter {
	m := make(map[ir.Term]ir.Term, len(st))
	for i, sv := range g.State {
		if sv.Var != st[i] {
			m[sv.Var] = st[i]
		}
	}
	return ir.NewSubstituter(b, m)
}
