package align

import (
	"fmt"

	"eqc/x86"

	"eqc/ir"
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
// "Derived from rsp" is a may-depend-on analysis over the product's source
// side (frameTaint): the entry rsp is derived; so is every value computed
// from a derived one, every load at a derived address that no store of the
// chain it reads gives exactly (the frame may hold a saved frame
// pointer), and every load from outside the frame once some source store
// puts a derived value there. Fresh variables of product nodes take the
// union over the edges into them, to a fixpoint, on the edges' terms as the
// path sets give them (before any rewriting).
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

// takesPointer reports whether the source function may be given a
// pointer: a pointer parameter, or no signature to tell. Only then does
// the loop engine build the model's hypotheses: over globals alone the
// precondition already places every object outside the frame, and the
// hypotheses would only make the queries larger.
func (p *Pair) takesPointer() bool {
	f := p.Src.Fn.Func
	if f == nil || f.Debug == nil || f.Debug.Variadic {
		return true
	}
	for _, v := range f.Debug.Params {
		if v.Type.Kind == x86.KindPointer {
			return true
		}
	}
	return false
}

// obvaAssumption is how the proof lists the model.
const obvaAssumption = "obva: a source access whose address is not derived from the entry rsp lies outside the stack region [rsp−0x100000, rsp+8) (undefined behaviour otherwise)"

// frameTaint is the may-depend-on analysis: which of the product's source
// variables may hold a value derived from the entry rsp.
type frameTaint struct {
	b       *ir.Builder
	rsp0    ir.Term
	derived map[ir.Term]bool // fresh variables of the nodes, source side
	heap    bool             // a derived value may be stored outside the frame
	memo    map[ir.Term]bool
}

// computeFrameTaint runs the analysis over the product's paired edges,
// whose path sets must be built.
func (pr *Product) computeFrameTaint() *frameTaint {
	b := pr.p.B
	ft := &frameTaint{b: b, rsp0: pr.rsp0, derived: map[ir.Term]bool{}}
	type raw struct {
		e    *PEdge
		post []ir.Term
	}
	var edges []raw
	for _, e := range pr.Edges {
		if e.Infeasible || e.src == nil {
			continue
		}
		from := pr.Nodes[e.From]
		sub := pr.stateSubst(pr.p.Src.TFG, from.Src)
		edges = append(edges, raw{e, simplifyAll(pr.simp, sub.ApplyAll(e.src.Transfer))})
	}
	for changed := true; changed; {
		changed = false
		ft.memo = map[ir.Term]bool{}
		for _, r := range edges {
			to := pr.Nodes[r.e.To]
			for _, c := range to.comps {
				if c.side != 0 || !c.fresh || ft.derived[c.term] {
					continue
				}
				var v ir.Term
				if c.state >= 0 {
					v = r.post[c.state]
				} else {
					v = pr.simp.Simplify(b.Select(r.post[len(r.post)-1], pr.slotAddr(c.slot), uint32(c.slot.size)))
				}
				if ft.of(v) {
					ft.derived[c.term], changed = true, true
				}
			}
			if !ft.heap && ft.storesDerivedOutside(r.post[len(r.post)-1]) {
				ft.heap, changed = true, true
			}
		}
	}
	ft.memo = map[ir.Term]bool{}
	return ft
}

// storesDerivedOutside reports whether memory m stores a derived value at
// an address that is not.
func (ft *frameTaint) storesDerivedOutside(m ir.Term) bool {
	b := ft.b
	for _, t := range b.PostOrder(m) {
		if b.Op(t) == ir.OpStore && !ft.of(b.Arg(t, 1)) && ft.of(b.Arg(t, 2)) {
			return true
		}
	}
	return false
}

// of reports whether t may be derived from the entry rsp.
func (ft *frameTaint) of(t ir.Term) bool {
	if d, ok := ft.memo[t]; ok {
		return d
	}
	b := ft.b
	var d bool
	switch {
	case t == ft.rsp0:
		d = true
	case b.Op(t) == ir.OpVar:
		d = ft.derived[t]
	case b.Op(t) == ir.OpSelect:
		n, _ := b.Params(t)
		d = ft.load(b.Arg(t, 0), b.Arg(t, 1), n)
	case b.Op(t) == ir.OpStore:
		d = ft.of(b.Arg(t, 2)) || ft.of(b.Arg(t, 0))
	default:
		for _, a := range b.Args(t) {
			if ft.of(a) {
				d = true
				break
			}
		}
	}
	ft.memo[t] = d
	return d
}

// load reports whether n bytes read at a from m may be derived: a value
// some store of the chain may have put there, or what was there before.
func (ft *frameTaint) load(m, a ir.Term, n uint32) bool {
	b := ft.b
	offA, stackA := constStackOffset(b, ft.rsp0, a)
	for {
		switch b.Op(m) {
		case ir.OpStore:
			k, _ := b.Params(m)
			addr := b.Arg(m, 1)
			offB, stackB := constStackOffset(b, ft.rsp0, addr)
			if stackA && stackB && (offA+int64(n) <= offB || offB+int64(k) <= offA) {
				m = b.Arg(m, 0)
				continue
			}
			if ft.of(b.Arg(m, 2)) {
				return true
			}
			if addr == a && k == n {
				return false // the read gets this store's value
			}
			m = b.Arg(m, 0)
			continue
		case ir.OpIte:
			return ft.load(b.Arg(m, 1), a, n) || ft.load(b.Arg(m, 2), a, n)
		}
		// Before the edge: the frame may hold anything the function put
		// there; elsewhere, what the caller left or the source stored.
		return ft.of(a) || ft.heap || (b.Op(m) != ir.OpVar && ft.of(m))
	}
}

// constStackOffset reports whether a is rsp0 plus a constant.
func constStackOffset(b *ir.Builder, rsp0, a ir.Term) (int64, bool) {
	if a == rsp0 {
		return 0, true
	}
	r, off := baseOffset(b, a)
	return int64(off), r == rsp0
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
	lo := pr.simp.Simplify(b.Sub(pr.rsp0, b.Const(64, StackLimit)))
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
					if seen[a] || pr.taint.of(a) {
						continue
					}
					seen[a] = true
					miss = append(miss, disjointFact{a, lo, n, StackLimit + 8, ir.NoTerm}.term(b))
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
