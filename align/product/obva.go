package product

import (
	"eqc/ir"
	"eqc/ub"
	"eqc/x86"
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
	var edges []ub.TaintEdge
	for _, e := range pr.Edges {
		if e.Infeasible || e.src == nil {
			continue
		}
		_, _, post := pr.sideTerms(0, e)
		edges = append(edges, pr.taintEdge(0, e, pr.relocatePost(0, post)))
	}
	return ub.AnalyzeFrameTaintOBVA(pr.p.B, pr.rsp0, ir.NoTerm, edges)
}

// taintEdge is side's half of e for the frame taint: the memory post
// leaves, and the side's fresh variables of e's to-node, defined by post
// (none for an infeasible edge, which goes nowhere).
func (pr *Product) taintEdge(side int, e *PEdge, post []ir.Term) ub.TaintEdge {
	b := pr.p.B
	mem := post[x86.StateMem]
	te := ub.TaintEdge{Mem: mem}
	if e.Infeasible {
		return te
	}
	to := pr.Nodes[e.To]
	for _, c := range to.comps {
		if c.side != side || !c.fresh {
			continue
		}
		if c.state < 0 && !pr.slotIsLive(side, to, c.slot) {
			// Dead at the node: no path reads the value the edge
			// leaves there (often the frame's bytes at the entry).
			continue
		}
		te.Defs = append(te.Defs, ub.TaintDef{Var: c.term, Value: func() ir.Term {
			if c.state >= 0 {
				return post[c.state]
			}
			return pr.simp.Simplify(b.Select(mem, pr.slotAddr(c.slot), uint32(c.slot.Size)))
		}})
	}
	return te
}

// hypothesisInput is e's source path set as the UB models' hypotheses
// take it, over e's from-node (no objects); false for an infeasible edge.
func (pr *Product) hypothesisInput(e *PEdge) (ub.OBVAInput, bool) {
	if e.Infeasible || e.src == nil {
		return ub.OBVAInput{}, false
	}
	sg := pr.p.Src.TFG
	base := sg
	if sg.Base != nil {
		base = sg.Base
	}
	return ub.OBVAInput{B: pr.p.B, Simp: pr.simp, G: base, Paths: e.src.Path,
		From: pr.stateSubst(sg, pr.Nodes[e.From].Src), Taint: pr.taint, Rsp0: pr.rsp0}, true
}

// obvaHypotheses are e's hypotheses under the model (ub.OBVAHypotheses),
// over e's from-node.
func (pr *Product) obvaHypotheses(e *PEdge) []ir.Term {
	in, ok := pr.hypothesisInput(e)
	if !ok {
		return nil
	}
	in.Objects = pr.p.ObjectSizes()
	return ub.OBVAHypotheses(in)
}

// The source's next accesses. A target that runs ahead of the source
// (gcc's scanning loop loads the next character and tests its class at
// the bottom of a pass, which the -O0 source does at the top of the next)
// reads, on an edge, what the source reads only on the edge after it;
// those reads must miss the target's own frame stores too, which nothing
// on the edge says. But a source run that reaches the edge's to-node and
// goes on makes the accesses of its next path, and if one of them lands in
// the frame the run has undefined behaviour already: the hypotheses of the
// source paths out of the to-node, stated over the state the edge leaves,
// hold in every run without undefined behaviour under the model, each
// under the condition of its own prefix, as the edge's own do. They make
// queries larger (restrict.c's vadd timed out with them on every edge, and
// a witness check of random elements went from 4 s to over 120), so an
// edge gets them only when its stack-slot facts fail without them
// (obligations.go, PEdge.lookahead).

// lookaheadHypotheses are the OBVA hypotheses of the source paths out of
// e's to-node, over e's from-node (post, the source's state after e as
// the path set gives it).
func (pr *Product) lookaheadHypotheses(e *PEdge, post []ir.Term) []ir.Term {
	if e.Infeasible || e.src == nil || e.Spec.Mu > 1 || e.src.Path.Count() != 1 {
		// Over the state a long edge leaves (eight passes' stores,
		// clang's vadd) the hypotheses cost more than they give.
		return nil
	}
	sg := pr.p.Src.TFG
	base := sg
	if sg.Base != nil {
		base = sg.Base
	}
	from := pr.stateSubst(sg, post)
	objects := pr.p.ObjectSizes()
	seen := map[*ir.PathExpr]bool{}
	var out []ir.Term
	for _, next := range pr.Edges {
		if next.From != e.To || next.Infeasible {
			continue
		}
		pr.pathSets(next)
		// One path, of one loop pass at most: the source side of a
		// vectorized target's step unrolls eight passes with an exit
		// after each, and their prefixes' hypotheses made restrict.c's
		// vadd time out with both compilers.
		if next.Infeasible || next.src == nil || next.Spec.Mu > 1 || next.src.Path.Count() != 1 || seen[next.src.Path] {
			continue
		}
		seen[next.src.Path] = true
		out = append(out, ub.OBVAHypotheses(ub.OBVAInput{B: pr.p.B, Simp: pr.simp, G: base, Paths: next.src.Path,
			From: from, Taint: pr.taint, Rsp0: pr.rsp0, Objects: objects})...)
	}
	return out
}

// nullHypotheses are e's hypotheses under the null model
// (ub.NullHypotheses), over e's from-node.
func (pr *Product) nullHypotheses(e *PEdge) []ir.Term {
	in, ok := pr.hypothesisInput(e)
	if !ok || !pr.p.UsesNull() {
		return nil
	}
	in.Pointers = pr.p.PointerParams()
	return ub.NullHypotheses(in)
}

// tbsaHypotheses are e's hypotheses under the TBSA model
// (ub.TBSAHypotheses), over e's from-node: the source's accesses through
// pointer parameters of pointees of different sizes do not overlap on
// the edge's paths.
func (pr *Product) tbsaHypotheses(e *PEdge) []ir.Term {
	in, ok := pr.hypothesisInput(e)
	if !ok || len(pr.tbsaParams) == 0 {
		return nil
	}
	return ub.TBSAHypotheses(ub.TBSAInput{OBVAInput: in, Params: pr.tbsaParams, OBVA: pr.taint != nil})
}

// restrictHypotheses are e's hypotheses under the restrict model
// (ub.RestrictHypotheses), over e's from-node: the source's accesses
// through a restrict pointer parameter and through another pointer
// parameter, one of them a write, do not overlap on the edge's paths.
func (pr *Product) restrictHypotheses(e *PEdge) []ir.Term {
	in, ok := pr.hypothesisInput(e)
	if !ok || len(pr.restrictParams) == 0 {
		return nil
	}
	return ub.RestrictHypotheses(ub.RestrictInput{OBVAInput: in, Params: pr.restrictParams, OBVA: pr.taint != nil})
}
