package product

import (
	"sort"

	"eqc/align/product/alias"
	"eqc/align/product/pair"
	"eqc/ir"
)

// Address canonicalization. The two sides compute the same addresses in
// different ways (an -O0 loop: a + 4·sext(i+3); a vectorized one: a + rax
// + 12 with rax = 4·i), and the simplifier resolves a read through a store
// only when both addresses are one base plus constants. So: evaluate every
// address of an edge on the concrete states seen at its from-node, group
// the addresses whose differences are constant there, and rewrite each
// group to one representative plus its constant. Every rewrite is a fact
// (A = R + c) proved from the precondition and the from-node's invariants
// alone, so the rewritten edge means what the original does in every state
// the proof considers.

// sampleEnv evaluates terms over a product node's variables on a sample.
type sampleEnv struct {
	pr *Product
	n  *PNode
	sm sample
}

func (e *sampleEnv) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	if c, ok := e.n.varComp[t]; ok {
		if c.state < 0 && c.slot.Size > 8 {
			return ir.Value{}, false
		}
		return e.pr.compValue(e.sm, c), true
	}
	if t == e.n.mem && t != ir.NoTerm {
		return e.sm.s[len(e.sm.s)-1], true
	}
	if i := e.pr.p.Src.TFG.StateIndexOf(t); i >= 0 {
		return e.sm.cr.Entry[i], true
	}
	return e.sm.cr.Env().VarValue(b, t)
}

func (e *sampleEnv) ApplyFunc(f *ir.Func, args []ir.Value) (ir.Value, bool) {
	return e.sm.cr.Env().ApplyFunc(f, args)
}

// maxCanonSamples bounds the states each address is evaluated on.
const maxCanonSamples = 12

// canonicalize rewrites the addresses of e's terms (and of the facts
// recorded so far) and sets the facts the rewriting assumed: e.canonCond
// for the addresses the path conditions and faults use, e.canon for the
// rest.
func (pr *Product) canonicalize(e *PEdge) {
	b := pr.p.B
	from := pr.Nodes[e.From]
	samples := thin(from.samples, maxCanonSamples)
	if len(samples) < 2 {
		return
	}
	condRoots := []ir.Term{e.condD, e.faultD}
	if !e.Infeasible {
		condRoots = append(condRoots, e.condS, e.faultS)
		condRoots = append(condRoots, e.hyps...)
	}
	// The path conditions' facts so far name addresses the conditions no
	// longer hold (a frame read that passed a store): rewritten, their
	// facts rest on the rewrite's, which must then be proved with them.
	for f := range e.disjointCond {
		condRoots = append(condRoots, f.A1, f.A2)
		if f.Guard != ir.NoTerm {
			condRoots = append(condRoots, f.Guard)
		}
	}
	inCond := map[ir.Term]bool{}
	for _, t := range b.PostOrder(condRoots...) {
		inCond[t] = true
	}
	roots := []ir.Term{e.condD, e.faultD}
	roots = append(roots, e.postD...)
	if !e.Infeasible {
		roots = append(roots, e.condS, e.faultS)
		roots = append(roots, e.postS...)
		roots = append(roots, e.hyps...)
	}
	var addrs []ir.Term
	seen := map[ir.Term]bool{}
	size := map[ir.Term]int{}
	for _, t := range b.PostOrder(roots...) {
		switch b.Op(t) {
		case ir.OpSelect, ir.OpStore:
			a := b.Arg(t, 1)
			if !seen[a] && b.Op(a) != ir.OpConst {
				seen[a] = true
				addrs = append(addrs, a)
				size[a] = len(b.PostOrder(a))
			}
		}
	}
	if len(addrs) < 2 {
		return
	}
	// Values on the samples; an address that cannot be evaluated stays.
	vals := map[ir.Term][]uint64{}
	for _, a := range addrs {
		if vs := pr.valuesAt(from, samples, a); vs != nil {
			vals[a] = vs
		}
	}
	// Simplest addresses first: they become the representatives, after
	// the node's own address shapes (pointerBases), which are not in the
	// edge's terms but give every edge out of the node the same forms.
	sort.SliceStable(addrs, func(i, j int) bool { return size[addrs[i]] < size[addrs[j]] })
	var reps []ir.Term
	for _, r := range pr.pointerBases(from) {
		if vs := pr.valuesAt(from, samples, r); vs != nil {
			vals[r] = vs
			reps = append(reps, r)
		}
	}
	m := map[ir.Term]ir.Term{}
	for _, a := range addrs {
		va, ok := vals[a]
		if !ok {
			continue
		}
		nt, matched := pr.offsetFromRep(reps, vals, va)
		if !matched {
			reps = append(reps, a)
		} else if nt != a {
			m[a] = nt
		}
	}
	// A rewrite is exact where its address's value matters: the facts of
	// the addresses the posts alone use are guarded by the contexts they
	// are met in (a scalar epilogue's a[i-2], whose 32-bit index wraps
	// where the path to it is not taken).
	var guards map[ir.Term]ir.Term
	if len(m) > 0 {
		var at []alias.Guarded
		for _, r := range roots {
			at = append(at, alias.Guarded{T: r, Guard: ir.NoTerm})
		}
		// A fact's addresses matter where the fact does.
		for _, fs := range []map[alias.Fact]bool{e.disjointCond, e.disjoint} {
			for f := range fs {
				at = append(at, alias.Guarded{T: f.A1, Guard: f.Guard}, alias.Guarded{T: f.A2, Guard: f.Guard})
				if f.Guard != ir.NoTerm {
					at = append(at, alias.Guarded{T: f.Guard, Guard: ir.NoTerm})
				}
			}
		}
		guards = alias.Contexts(b, at, m)
	}
	for _, a := range addrs {
		nt, ok := m[a]
		if !ok {
			continue
		}
		f := b.Eq(a, nt)
		if g, ok := guards[a]; ok && g != ir.NoTerm {
			f = pr.simp.Simplify(b.Or(b.Not(g), f))
		}
		if inCond[a] {
			e.canonCond = append(e.canonCond, f)
		} else {
			e.canon = append(e.canon, f)
		}
	}
	e.canonReps, e.canonVals, e.canonSamples = reps, vals, samples
	if len(m) == 0 {
		return
	}
	sub := ir.NewSubstituter(b, m)
	apply := func(t ir.Term) ir.Term { return pr.simp.Simplify(sub.Apply(t)) }
	e.condD, e.faultD = apply(e.condD), apply(e.faultD)
	move := func(fs map[alias.Fact]bool) map[alias.Fact]bool {
		moved := map[alias.Fact]bool{}
		for f := range fs {
			g := f.Guard
			if g != ir.NoTerm {
				g = apply(g)
			}
			moved[alias.Fact{A1: apply(f.A1), A2: apply(f.A2), N1: f.N1, N2: f.N2, Guard: g}] = true
		}
		return moved
	}
	e.disjoint, e.disjointCond = move(e.disjoint), move(e.disjointCond)
	for i := range e.postD {
		e.postD[i] = apply(e.postD[i])
	}
	if !e.Infeasible {
		e.condS, e.faultS = apply(e.condS), apply(e.faultS)
		for i := range e.postS {
			e.postS[i] = apply(e.postS[i])
		}
		for i := range e.hyps {
			e.hyps[i] = apply(e.hyps[i])
		}
	}
}

// canonAddr rewrites address a (over the from-node's state) as one of e's
// canonical representatives plus a constant, when the from-node's states
// show a constant distance, and records the fact it assumes in e.canon.
// Addresses the edge's own terms do not hold (a candidate's read after the
// edge) then compare with the edge's stores by base and offset.
func (pr *Product) canonAddr(e *PEdge, a ir.Term) ir.Term {
	b := pr.p.B
	if len(e.canonReps) == 0 || b.Op(a) == ir.OpConst {
		return a
	}
	va := pr.valuesAt(pr.Nodes[e.From], e.canonSamples, a)
	if va == nil {
		return a
	}
	nt, ok := pr.offsetFromRep(e.canonReps, e.canonVals, va)
	if !ok {
		return a
	}
	if f := b.Eq(a, nt); nt != a && !e.canonHas[f] {
		if e.canonHas == nil {
			e.canonHas = map[ir.Term]bool{}
		}
		e.canonHas[f] = true
		e.canon = append(e.canon, f)
	}
	return nt
}

// valuesAt evaluates address a on samples of node n; nil when some sample
// cannot evaluate it.
func (pr *Product) valuesAt(n *PNode, samples []sample, a ir.Term) []uint64 {
	vs := make([]uint64, 0, len(samples))
	for _, sm := range samples {
		v, err := ir.NewEvaluator(pr.p.B, &sampleEnv{pr: pr, n: n, sm: sm}).Eval(a)
		if err != nil {
			return nil
		}
		vs = append(vs, v.BV().Uint64())
	}
	return vs
}

// offsetFromRep finds the first representative whose values are those
// va at a constant distance d, and returns rep + d.
func (pr *Product) offsetFromRep(reps []ir.Term, vals map[ir.Term][]uint64, va []uint64) (ir.Term, bool) {
	b := pr.p.B
	if len(va) == 0 {
		return ir.NoTerm, false
	}
	for _, r := range reps {
		vr := vals[r]
		d := va[0] - vr[0]
		same := true
		for k := range va {
			if va[k]-vr[k] != d {
				same = false
				break
			}
		}
		if same {
			return pr.simp.Simplify(b.Add(r, b.Const(64, d))), true
		}
	}
	return ir.NoTerm, false
}

// pointerBases are the address shapes G + p and p of node n, for each
// global G and each 64-bit variable p of the target at n: the
// representatives canonical addresses prefer, so that an invariant about
// memory at G + p + c (a mirror candidate) and the edges' reads and
// stores there are one term, not two the solver must prove equal.
func (pr *Product) pointerBases(n *PNode) []ir.Term {
	b := pr.p.B
	var out []ir.Term
	for _, c := range n.comps {
		if c.side != 1 || c.state < 0 || !c.fresh || c.dead || b.Sort(c.term) != ir.BVSort(64) {
			continue
		}
		out = append(out, c.term)
		for _, g := range pr.p.GlobalVars() {
			out = append(out, pr.simp.Simplify(b.Add(g, c.term)))
		}
	}
	return out
}

// newAddrSamples evaluates on the states of e's from-node after which the
// runs went on to e's target anchor, or on all of the node's states when
// none did, and on e's counterexamples. It returns nil when there are too
// few states to go by.
func (pr *Product) newAddrSamples(e *PEdge) *alias.Samples {
	n := pr.Nodes[e.From]
	samples := pr.edgeSamples[pair.EdgeKey{From: n.Key, DstTo: e.DstTo}]
	if len(samples) == 0 {
		samples = n.samples
		if len(samples) < 2 {
			return nil
		}
	}
	samples = thin(samples, maxCanonSamples)
	var evs, cex []*ir.Evaluator
	for _, sm := range samples {
		evs = append(evs, ir.NewEvaluator(pr.p.B, &sampleEnv{pr: pr, n: n, sm: sm}))
	}
	for _, m := range e.counterexamples {
		cex = append(cex, ir.NewEvaluator(pr.p.B, m))
	}
	if e.From != 0 {
		// Only from the entry do the counterexamples speak for every
		// pair of two bases (alias.Samples): the entry's straight-line
		// paths for a few passes meet any overlap of the arguments, a
		// loop's edge only those its invariants leave (gcc's saxpy
		// body: the one refuted pair rebuilt, 9 s; every pair of y and
		// x kept in order, a memory query past 27 s).
		evs, cex = append(evs, cex...), nil
	}
	return alias.NewSamples(pr.p.B, evs, cex)
}
