package product

import (
	"context"
	"fmt"
	"os"
	"time"

	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
)

// Pinned variables. On an edge that leaves a loop, the loop's counters
// have one value in every state that takes it: the bound. A vectorized
// loop's last iteration and its scalar tail then address memory at
// constants (the tail's a + 0x1f3f4), while the source's iterations
// address it through the counter (a + 4·sext(i) + 4) under a cascade of
// "i + k < bound" conditions, and the solver must find the counter's value
// before any of it folds: s3251's exit query was still open after 4m45s,
// the rest of its 300 s budget.
//
// So: the runs propose, for each fresh variable of the from-node that
// varies there, the constant (or global plus constant, or affine function
// of the entry values) it held whenever the edge was taken; the solver keeps the proposals that follow from the
// node's invariants and the target's own path condition (after Houdini,
// in discharge); the edge is rebuilt with the kept variables replaced by
// their terms. Each equality is also a fact of the path-condition group,
// so it is proved again with the edge's other facts, and with it the
// rebuilt terms equal the originals in every state that takes the edge.
// The invariants of the to-node are checked along a rebuilt edge even
// when Houdini already did, because Houdini saw the edge before.

// pin is one proposed or kept replacement.
type pin struct {
	v, t ir.Term // the node's variable and its term
}

// proposePins returns the pins the states that took e propose. Only
// variables the path conditions mention, or that an invariant equality
// ties to one of those, are proposed: the others (an accumulator's last
// value) only cost queries.
func (pr *Product) proposePins(e *PEdge) []pin {
	b := pr.p.B
	from := pr.Nodes[e.From]
	taken := pr.edgeSamples[pair.EdgeKey{From: from.Key, DstTo: e.DstTo}]
	if len(taken) == 0 || e.Infeasible {
		return nil
	}
	inCond := map[ir.Term]bool{}
	for _, t := range b.PostOrder(e.condD0, e.condS) {
		if _, own := from.varComp[t]; own {
			inCond[t] = true
		}
	}
	for _, inv := range from.Invariants {
		vs := varsOf(b, inv, from.varComp)
		tied := false
		for _, v := range vs {
			tied = tied || inCond[v]
		}
		if tied && b.Op(inv) == ir.OpEq {
			for _, v := range vs {
				inCond[v] = true
			}
		}
	}
	var out []pin
	for _, c := range from.comps {
		if !c.fresh || c.dead || !inCond[c.term] {
			continue
		}
		so := b.Sort(c.term)
		if so.Kind != ir.KindBV || so.Width > 64 || (c.state < 0 && c.slot.Size > 8) {
			continue
		}
		if t, ok := pr.pinnedTerm(from, c, taken); ok {
			out = append(out, pin{c.term, t})
		} else if t, ok := pr.linearPin(from, c, taken); ok {
			out = append(out, pin{c.term, t})
		}
	}
	return out
}

// linearPin returns an affine term over the entry columns (entry
// registers, values the entry path computed, scalar globals) that comp c
// of node n equals on every state in taken, but not on all of n's
// states: a pointer or counter that leaves a loop at a bound the
// arguments set (gcc's flip_words leaves its vector loop with
// rax = a + 16·(len>>2) − 16). The equality learner finds it over the
// taken states with c as the subject (so only with an odd coefficient);
// it needs two runs at least, as one run fits any line. A relation the
// few rows allow by chance costs one refuted query in settlePins. The
// equalities are the caller's learner's (pr.learning.Equalities); without
// one there are none.
func (pr *Product) linearPin(n *PNode, c comp, taken []sample) (ir.Term, bool) {
	b := pr.p.B
	if pr.learning.Equalities == nil || runsOf(taken) < 2 {
		return ir.NoTerm, false
	}
	vars, value := pr.entryColumns(n, taken)
	vars = append(vars, Column{Name: b.VarName(c.term), Term: c.term})
	value = append(value, func(sm sample) uint64 { return pr.compValue(sm, c).BV().Uint64() })
	eqs, err := pr.learning.Equalities(b, vars, rows(taken, value))
	if err != nil {
		return ir.NoTerm, false
	}
	w := b.Sort(c.term).Width
	for _, t := range eqs {
		if b.Op(t) != ir.OpEq {
			continue
		}
		lhs, rhs := b.Arg(t, 0), b.Arg(t, 1)
		if b.Op(lhs) == ir.OpZeroExt {
			lhs = b.Arg(lhs, 0)
		}
		if lhs != c.term || b.Op(rhs) == ir.OpConst {
			continue // constants are pinnedTerm's
		}
		if b.Sort(rhs).Width != w {
			rhs = b.Extract(rhs, w-1, 0)
		}
		rhs = pr.simp.Simplify(rhs)
		// Not an invariant of the node: some state there differs.
		vs := pr.valuesAt(n, n.samples, rhs)
		if vs == nil {
			return ir.NoTerm, false
		}
		for k, sm := range n.samples {
			if vs[k] != pr.compValue(sm, c).BV().Uint64() {
				return rhs, true
			}
		}
	}
	return ir.NoTerm, false
}

// varsOf lists the node variables t mentions.
func varsOf(b *ir.Builder, t ir.Term, vars map[ir.Term]comp) []ir.Term {
	var out []ir.Term
	for _, u := range b.PostOrder(t) {
		if _, ok := vars[u]; ok {
			out = append(out, u)
		}
	}
	return out
}

// pinnedTerm returns the global-plus-constant or constant term comp c of
// node n equals on every state in taken, if there is one and c is not
// that term on all of n's states.
func (pr *Product) pinnedTerm(n *PNode, c comp, taken []sample) (ir.Term, bool) {
	b := pr.p.B
	w := b.Sort(c.term).Width
	mask := ^uint64(0)
	if w < 64 {
		mask = 1<<w - 1
	}
	// A 64-bit value inside a global (or just past its end) is a pointer
	// into it: G + c before a constant, which one run cannot tell apart.
	var bases []ir.Term
	if w == 64 {
		v := pr.compValue(taken[0], c).BV().Uint64()
		for _, g := range pr.p.GlobalVars() {
			if size := pr.p.GlobalSize(pr.p.B.VarName(g)); size > 0 && v-pr.entryValue(taken[0], g) <= size {
				bases = append(bases, g)
			}
		}
	}
	bases = append(bases, ir.NoTerm)
	offset := func(sm sample, g ir.Term) uint64 {
		v := pr.compValue(sm, c).BV().Uint64()
		if g != ir.NoTerm {
			v -= pr.entryValue(sm, g)
		}
		return v & mask
	}
	for _, g := range bases {
		d := offset(taken[0], g)
		same, varies := true, false
		for _, sm := range taken[1:] {
			same = same && offset(sm, g) == d
		}
		for _, sm := range n.samples {
			varies = varies || offset(sm, g) != d
		}
		if !same || !varies {
			continue
		}
		if g == ir.NoTerm {
			return b.Const(w, d), true
		}
		return pr.simp.Simplify(b.Add(g, b.Const(64, d))), true
	}
	return ir.NoTerm, false
}

// untiedPins drops from kept every pin whose variable an equality among
// the from-node's invariants ties to a live variable that is not pinned
// (directly or through other such equalities). The two sides' addresses
// agree through those equalities (the target's a + rax and the source's
// a + 4·i under rax = 4·i, which the canonical form of addresses uses);
// replacing rax by its exit value (gcc's saxpy: rax = 16·(n >> 2) − 16)
// while i, which no affine term over the entry names, stays, leaves two
// address terms that only arithmetic through the array theory relates:
// the memory obligation of such an edge went from 0.5 s to past 55 s.
func (pr *Product) untiedPins(e *PEdge, kept []pin) []pin {
	b := pr.p.B
	from := pr.Nodes[e.From]
	pinned := map[ir.Term]bool{}
	for _, p := range kept {
		pinned[p.v] = true
	}
	live := func(v ir.Term) bool {
		c, ok := from.varComp[v]
		return ok && c.fresh && !c.dead
	}
	for changed := true; changed; {
		changed = false
		for _, inv := range from.Invariants {
			if b.Op(inv) != ir.OpEq {
				continue
			}
			vs := varsOf(b, inv, from.varComp)
			loose := false
			for _, v := range vs {
				loose = loose || live(v) && !pinned[v]
			}
			if !loose {
				continue
			}
			for _, v := range vs {
				if pinned[v] {
					pinned[v], changed = false, true
				}
			}
		}
	}
	var out []pin
	for _, p := range kept {
		if pinned[p.v] {
			out = append(out, p)
		}
	}
	return out
}

// applyPins replaces e's pinned variables in its terms and records the
// equalities among the path-condition facts.
func (pr *Product) applyPins(e *PEdge) {
	b := pr.p.B
	if len(e.pins) == 0 {
		return
	}
	for _, p := range e.pins {
		e.canonCond = append(e.canonCond, b.Eq(p.v, p.t))
	}
	pr.applyPinSubst(e)
}

// applyPinSubst replaces e's pinned variables in its path conditions,
// faults and posts. The equalities are facts of the path-condition group,
// so wherever the facts hold the replaced terms equal the originals.
func (pr *Product) applyPinSubst(e *PEdge) {
	if len(e.pins) == 0 {
		return
	}
	sub := pr.pinSubst(e)
	apply := func(t ir.Term) ir.Term { return pr.simp.Simplify(sub.Apply(t)) }
	e.condD, e.faultD = apply(e.condD), apply(e.faultD)
	e.condS, e.faultS = apply(e.condS), apply(e.faultS)
	for i := range e.postD {
		e.postD[i] = apply(e.postD[i])
	}
	for i := range e.postS {
		e.postS[i] = apply(e.postS[i])
	}
	for i := range e.hyps {
		e.hyps[i] = apply(e.hyps[i])
	}
}

// pinSubst replaces e's pinned variables.
func (pr *Product) pinSubst(e *PEdge) *ir.Substituter {
	m := map[ir.Term]ir.Term{}
	for _, p := range e.pins {
		m[p.v] = p.t
	}
	return ir.NewSubstituter(pr.p.B, m)
}

// pinned is t with e's pinned variables replaced.
func (pr *Product) pinned(e *PEdge, t ir.Term) ir.Term {
	if len(e.pins) == 0 {
		return t
	}
	return pr.simp.Simplify(pr.pinSubst(e).Apply(t))
}

// settlePins asks the solver which of e's proposed pins follow from the
// from-node's invariants and the target's path condition, adds the pins
// the invariants define (invpins.go), and rebuilds e with them. It
// returns the queries it made, whether e was rebuilt, and whether with
// some proposed pin.
func (pr *Product) settlePins(ctx context.Context, s prove.Solver, pre ir.Term, e *PEdge) (queries int, rebuilt, proposed bool) {
	b := pr.p.B
	cands := pr.proposePins(e)
	inv := b.And(pr.Nodes[e.From].Invariants...)
	holds := func(ps []pin) bool {
		eqs := make([]ir.Term, len(ps))
		for i, p := range ps {
			eqs[i] = b.Eq(p.v, p.t)
		}
		t0 := time.Now()
		r := s.Check(ctx, prove.Query{B: b, Assertions: []ir.Term{pre, inv, e.condD0, b.Not(b.And(eqs...))}})
		queries++
		if pair.Debug {
			fmt.Fprintf(os.Stderr, "eqc: pins n%d→n%d, %d variables: %v in %v\n", e.From, e.To, len(ps), r.Status, time.Since(t0))
		}
		return r.Status == smtlib.Unsat
	}
	var kept []pin
	switch {
	case len(cands) == 0:
	case holds(cands):
		kept = cands
	case len(cands) > 1:
		for _, p := range cands {
			if holds([]pin{p}) {
				kept = append(kept, p)
			}
		}
	}
	kept = pr.untiedPins(e, kept)
	proposed = len(kept) > 0
	taken := map[ir.Term]bool{}
	for _, p := range kept {
		taken[p.v] = true
	}
	if kept = append(kept, pr.invariantPins(pr.Nodes[e.From], taken)...); len(kept) == 0 {
		return queries, false, false
	}
	if pair.Debug {
		for _, p := range kept {
			fmt.Fprintf(os.Stderr, "eqc: pin n%d→n%d %s = %s\n", e.From, e.To, b.Short(p.v), b.Short(p.t))
		}
	}
	e.pins = kept
	pr.buildEdge(e)
	return queries, true, proposed
}
