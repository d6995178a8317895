package product

import (
	"fmt"

	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/ub"
)

// The OBVA model (out-of-bounds variable access, HVC 2017 §3): a C
// program reaches its local variables only through pointers derived from
// them, so an access through any other pointer that lands in the
// function's frame is undefined behaviour of the source. At the machine
// level the frame is the stack region [rsp−StackLimit, rsp+8) of the entry
// rsp: at the call no object lives there, and the function's own locals
// are reached from rsp. Under --ub obva (and all) the loop engine may
// therefore take every source access whose address is not derived from the
// entry rsp to miss that region, and an -O0 loop's reads of its counter
// and bound in the frame pass its stores through a pointer argument
// (flip_words: array[i] = ~array[i]), which no precondition could give.
//
// "Derived from rsp" is the model's may-depend-on analysis
// (ub.FrameTaint) over the product's source side: fresh variables of
// product nodes take the union over the edges into them, to a fixpoint,
// on the edges' terms as the path sets give them (before any rewriting).
//
// The model's facts are hypotheses, one per prefix of a source path of an
// edge (obvaHypotheses): if the source, from the from-node's state, takes
// the prefix and enters the next block without a fault, each access that
// block makes at an address not derived from rsp misses the frame. Such a
// run makes those accesses, so each hypothesis holds in every run without
// undefined behaviour, whatever the edge's other conditions; the terms are
// the path's own, before any rewriting. The facts the splitter records (a
// frame slot read passing a store through a pointer) are then proved as
// before, with these among the hypotheses of every obligation.

// computeFrameTaint runs the model's analysis (ub.FrameTaint) over the
// product's paired edges, whose path sets must be built: the fresh
// variables of the nodes' source side, defined by the edges into them.
func (pr *Product) computeFrameTaint() *ub.FrameTaint {
	b := pr.p.B
	var edges []ub.TaintEdge
	for _, e := range pr.Edges {
		if e.Infeasible || e.src == nil {
			continue
		}
		from := pr.Nodes[e.From]
		sub := pr.stateSubst(pr.p.Src.TFG, from.Src)
		post := simplifyAll(pr.simp, sub.ApplyAll(e.src.Transfer))
		te := ub.TaintEdge{Mem: post[len(post)-1]}
		for _, c := range pr.Nodes[e.To].comps {
			if c.side != 0 || !c.fresh {
				continue
			}
			te.Defs = append(te.Defs, ub.TaintDef{Var: c.term, Value: func() ir.Term {
				if c.state >= 0 {
					return post[c.state]
				}
				return pr.simp.Simplify(b.Select(post[len(post)-1], pr.slotAddr(c.slot), uint32(c.slot.Size)))
			}})
		}
		edges = append(edges, te)
	}
	return ub.AnalyzeFrameTaint(b, pr.rsp0, edges)
}

// maxOBVAPaths bounds the source paths of one edge that get hypotheses:
// each is composed on its own.
const maxOBVAPaths = 16

// obvaHypotheses are e's hypotheses under the model. A block's accesses
// happen whenever the run enters it and nothing faults, so for each prefix
// of each source path (at most maxOBVAPaths paths, else none) the prefix's
// condition, with no fault there or in the next simple edge, implies that
// the next edge's accesses through addresses not derived from the entry
// rsp miss the frame.
func (pr *Product) obvaHypotheses(e *PEdge) []ir.Term {
	if e.Infeasible || e.src == nil || e.src.Path.Count() > maxOBVAPaths {
		return nil
	}
	b, sg := pr.p.B, pr.p.Src.TFG
	base := sg
	if sg.Base != nil {
		base = sg.Base
	}
	from := pr.stateSubst(sg, pr.Nodes[e.From].Src)
	lo := pr.simp.Simplify(b.Sub(pr.rsp0, b.Const(64, pair.StackLimit)))
	var out []ir.Term
	done := map[string]bool{} // prefixes already covered, by their edge IDs
	for _, ids := range e.src.Path.Paths(maxOBVAPaths) {
		var prefix *ir.Edge
		for k, id := range ids {
			next := base.Edges[id]
			key := fmt.Sprint(ids[:k+1])
			if !done[key] {
				done[key] = true
				var miss []ir.Term
				var at *ir.Substituter // next's from-state as the prefix leaves it
				if prefix != nil {
					at = pr.stateSubst(base, prefix.Transfer)
				}
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
					a = pr.simp.Simplify(from.Apply(a))
					if seen[a] || pr.taint.Derived(a) {
						continue
					}
					seen[a] = true
					miss = append(miss, disjointFact{a, lo, n, pair.StackLimit + 8, ir.NoTerm}.term(b))
				}
				if len(miss) > 0 {
					// The block's accesses happen when the run gets to it
					// and nothing faults on the way (a fault ends the run,
					// perhaps before the access).
					reached := b.Not(next.Fault)
					if prefix != nil {
						reached = b.And(prefix.Cond, b.Not(prefix.Fault), b.Not(at.Apply(next.Fault)))
					}
					h := b.Or(b.Not(from.Apply(reached)), b.And(miss...))
					out = append(out, pr.simp.Simplify(h))
				}
			}
			if prefix == nil {
				prefix = next
			} else {
				prefix = base.Seq(prefix, next)
			}
		}
	}
	return out
}
