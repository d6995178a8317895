package product

import (
	"sort"

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
	}
	// The path conditions' facts so far name addresses the conditions no
	// longer hold (a frame read that passed a store): rewritten, their
	// facts rest on the rewrite's, which must then be proved with them.
	for f := range e.disjointCond {
		condRoots = append(condRoots, f.a1, f.a2)
		if f.guard != ir.NoTerm {
			condRoots = append(condRoots, f.guard)
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
		var at []guarded
		for _, r := range roots {
			at = append(at, guarded{r, ir.NoTerm})
		}
		// A fact's addresses matter where the fact does.
		for _, fs := range []map[disjointFact]bool{e.disjointCond, e.disjoint} {
			for f := range fs {
				at = append(at, guarded{f.a1, f.guard}, guarded{f.a2, f.guard})
				if f.guard != ir.NoTerm {
					at = append(at, guarded{f.guard, ir.NoTerm})
				}
			}
		}
		guards = contexts(b, at, m)
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
	move := func(fs map[disjointFact]bool) map[disjointFact]bool {
		moved := map[disjointFact]bool{}
		for f := range fs {
			g := f.guard
			if g != ir.NoTerm {
				g = apply(g)
			}
			moved[disjointFact{apply(f.a1), apply(f.a2), f.n1, f.n2, g}] = true
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

// guarded is a term whose value matters only where guard holds (ir.NoTerm:
// always).
type guarded struct{ t, guard ir.Term }

// contexts returns, for each term of targets met under roots, the
// condition in which its value matters to them (ir.NoTerm: always), as
// the stack splitter's emit judges it: a conjunct's after the conjuncts
// before it hold, a disjunct's after those before it fail, an ite arm's
// where its condition chooses it. A term met in more than maxGuards
// contexts gets NoTerm.
func contexts(b *ir.Builder, roots []guarded, targets map[ir.Term]ir.Term) map[ir.Term]ir.Term {
	below := map[ir.Term]bool{} // whether a target is t or under it
	var terms []ir.Term
	for _, r := range roots {
		terms = append(terms, r.t)
	}
	for _, t := range b.PostOrder(terms...) {
		_, has := targets[t]
		for _, a := range b.Args(t) {
			has = has || below[a]
		}
		below[t] = has
	}
	met := map[ir.Term][]ir.Term{}
	always := map[ir.Term]bool{}
	visited := map[[2]ir.Term]bool{}
	count := map[ir.Term]int{}
	var visit func(t, guard ir.Term)
	visit = func(t, guard ir.Term) {
		if !below[t] || always[t] || visited[[2]ir.Term{t, ir.NoTerm}] {
			return
		}
		if count[t]++; count[t] > maxGuards {
			guard = ir.NoTerm
		}
		k := [2]ir.Term{t, guard}
		if visited[k] {
			return
		}
		visited[k] = true
		and := func(x ir.Term) ir.Term {
			if guard == ir.NoTerm {
				return x
			}
			return b.And(guard, x)
		}
		switch b.Op(t) {
		case ir.OpAnd, ir.OpImplies:
			visit(b.Arg(t, 0), guard)
			visit(b.Arg(t, 1), and(b.Arg(t, 0)))
			return
		case ir.OpOr:
			visit(b.Arg(t, 0), guard)
			visit(b.Arg(t, 1), and(b.Not(b.Arg(t, 0))))
			return
		case ir.OpIte:
			c := b.Arg(t, 0)
			visit(c, guard)
			visit(b.Arg(t, 1), and(c))
			visit(b.Arg(t, 2), and(b.Not(c)))
			return
		}
		if _, ok := targets[t]; ok {
			if guard == ir.NoTerm {
				always[t] = true
			} else {
				met[t] = append(met[t], guard)
			}
		}
		for _, a := range b.Args(t) {
			visit(a, guard)
		}
	}
	for _, r := range roots {
		visit(r.t, r.guard)
	}
	out := map[ir.Term]ir.Term{}
	for t := range targets {
		switch {
		case always[t] || len(met[t]) > maxGuards:
			out[t] = ir.NoTerm
		case len(met[t]) > 0:
			out[t] = b.Or(met[t]...)
		}
	}
	return out
}
