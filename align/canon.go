package align

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
		if c.state < 0 && c.slot.size > 8 {
			return ir.Value{}, false
		}
		return e.pr.compValue(e.sm, c), true
	}
	if t == e.n.mem && t != ir.NoTerm {
		return e.sm.s[len(e.sm.s)-1], true
	}
	if i := e.pr.p.Src.TFG.StateIndexOf(t); i >= 0 {
		return e.sm.cr.entry[i], true
	}
	return e.sm.cr.env.VarValue(b, t)
}

func (e *sampleEnv) ApplyFunc(f *ir.Func, args []ir.Value) (ir.Value, bool) {
	return e.sm.cr.env.ApplyFunc(f, args)
}

// maxCanonSamples bounds the states each address is evaluated on.
const maxCanonSamples = 12

// canonicalize rewrites the addresses of e's terms (and of the facts
// recorded so far) and returns the facts the rewriting assumed.
func (pr *Product) canonicalize(e *PEdge) []ir.Term {
	b := pr.p.B
	from := pr.Nodes[e.From]
	samples := thin(from.samples, maxCanonSamples)
	if len(samples) < 2 {
		return nil
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
		return nil
	}
	// Values on the samples; an address that cannot be evaluated stays.
	vals := map[ir.Term][]uint64{}
	for _, a := range addrs {
		vs := make([]uint64, 0, len(samples))
		for _, sm := range samples {
			v, err := ir.NewEvaluator(b, &sampleEnv{pr: pr, n: from, sm: sm}).Eval(a)
			if err != nil {
				break
			}
			vs = append(vs, v.BV().Uint64())
		}
		if len(vs) == len(samples) {
			vals[a] = vs
		}
	}
	// Simplest addresses first: they become the representatives.
	sort.SliceStable(addrs, func(i, j int) bool { return size[addrs[i]] < size[addrs[j]] })
	var reps []ir.Term
	m := map[ir.Term]ir.Term{}
	var facts []ir.Term
	for _, a := range addrs {
		va, ok := vals[a]
		if !ok {
			continue
		}
		matched := false
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
			if !same {
				continue
			}
			nt := pr.simp.Simplify(b.Add(r, b.Const(64, d)))
			if nt != a {
				m[a] = nt
				facts = append(facts, b.Eq(a, nt))
			}
			matched = true
			break
		}
		if !matched {
			reps = append(reps, a)
		}
	}
	if len(m) == 0 {
		return nil
	}
	sub := ir.NewSubstituter(b, m)
	apply := func(t ir.Term) ir.Term { return pr.simp.Simplify(sub.Apply(t)) }
	e.condD, e.faultD = apply(e.condD), apply(e.faultD)
	moved := map[disjointFact]bool{}
	for f := range e.disjoint {
		g := f.guard
		if g != ir.NoTerm {
			g = apply(g)
		}
		moved[disjointFact{apply(f.a1), apply(f.a2), f.n1, f.n2, g}] = true
	}
	e.disjoint = moved
	for i := range e.postD {
		e.postD[i] = apply(e.postD[i])
	}
	if !e.Infeasible {
		e.condS, e.faultS = apply(e.condS), apply(e.faultS)
		for i := range e.postS {
			e.postS[i] = apply(e.postS[i])
		}
	}
	return facts
}
