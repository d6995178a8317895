package product

import (
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/x86"
	"slices"
)

// Entry-path terms. A vectorized loop over an argument-bounded range keeps
// values the code before it computed once, such as its trip count
// ((n − 1) >> 2), in registers the loop never writes. Affine learning over
// the node's variables and the entry's cannot name such a value, so the
// equality that bounds the vector loop is never guessed. The TFG names
// it: the register's value on the path from the function's entry to the
// node, as a term over the entry state. These terms join the learning
// columns, so c = term is guessed when the samples agree, and Houdini
// keeps it when the loop preserves it (the thesis's tier-1 guesses take
// program values from the TFGs the same way, §2.4.2).

// maxEntryTermSize bounds the terms kept (nodes in the term DAG).
const maxEntryTermSize = 24

// entryPathTerms returns the values n's fresh registers hold on arrival
// from the function entry, over the entry state, when they are computed
// (not a variable, a constant or a variable plus a constant, which
// define already covers) and read no memory.
func (pr *Product) entryPathTerms(n *PNode) []ir.Term {
	b := pr.p.B
	seen := map[ir.Term]bool{}
	var out []ir.Term
	for _, ep := range pr.entryPaths(n) {
		ps, sub := ep.ps, ep.sub
		for _, c := range n.freshRegisters(b, ep.side) {
			t := pr.simp.Simplify(sub.Apply(ps.Transfer[c.state]))
			if seen[t] || !pr.computedEntryTerm(t) {
				continue
			}
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// computedEntryTerm reports whether t is worth a learning column: small,
// free of memory, and more than a variable plus a constant.
func (pr *Product) computedEntryTerm(t ir.Term) bool {
	b := pr.p.B
	switch b.Op(t) {
	case ir.OpVar, ir.OpConst:
		return false
	case ir.OpAdd:
		x, y := b.Arg(t, 0), b.Arg(t, 1)
		if b.Op(x) == ir.OpVar && b.Op(y) == ir.OpConst {
			return false
		}
	}
	return pr.guardTerm(t)
}

// Hoisted values. Optimized code hoists loads out of a loop when the loop
// writes nothing where they read: a loop over v->a[0..v->n) keeps the
// bound, or the end pointer v->a + v->n, in a register, and gcc keeps
// *__ctype_b_loc() (the ctype table's address) in a register across a
// scanning loop whose -O0 source calls the locator and loads through it
// on every pass. Such a register's value on the way into the node is a
// term over memory as it was before the loop, which the node's shared
// memory still holds wherever nothing wrote since. So that term, with
// its loads reading the node's memory instead, joins the learning
// columns, c = f(*a, *b, ...) is guessed when the samples agree, and
// Houdini keeps it when every edge into the node preserves it. The terms
// come from the paths that first reach the node from the function's entry
// (over the entry state), and from the paths from the nodes built so far
// at other anchors when they depend on no state there but memory (a
// global's address, a constant). Only terms the proof checker takes in an
// invariant become columns: no function application (so not yet the
// table's locator, *__ctype_b_loc(): the reverted b9078bc taught the
// checker a const callee's result) and no load through rsp or rbp.

// hoistedTerms returns, for each fresh register of n whose value on a
// path into n is small and loads from the memory the path starts with,
// that value with its loads from n's shared memory.
func (pr *Product) hoistedTerms(n *PNode) []ir.Term {
	b := pr.p.B
	if n.mem == ir.NoTerm {
		return nil
	}
	seen := map[ir.Term]bool{}
	var out []ir.Term
	add := func(t ir.Term, from *PNode, fromMem ir.Term) {
		// Sized after the rewrite: the memory a load reads may carry
		// the frame's stores (clang's five pushes), which it drops.
		t, ok := pr.overNodeMem(t, from, fromMem, n.mem)
		if !ok || len(b.PostOrder(t)) > maxEntryTermSize || !pr.checkable(n, t) {
			return
		}
		// The loads in it too, extended as it extends them: the bound
		// the end pointer v->a + 4·v->n was computed from is what the
		// source's counter is compared with.
		for _, u := range b.PostOrder(t) {
			switch b.Op(u) {
			case ir.OpZeroExt, ir.OpSignExt:
				if b.Op(b.Arg(u, 0)) != ir.OpSelect {
					continue
				}
			case ir.OpSelect:
			default:
				if u != t {
					continue
				}
			}
			if !seen[u] && b.Sort(u).IsBV() && b.Sort(u).Width <= 64 {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	entry := pr.Nodes[0]
	for _, ep := range pr.entryPaths(n) {
		mem := entry.Src[x86.StateMem]
		if ep.side == 1 {
			mem = entry.Dst[x86.StateMem]
		}
		for _, c := range n.freshRegisters(b, ep.side) {
			add(pr.simp.Simplify(ep.sub.Apply(ep.ps.Transfer[c.state])), nil, mem)
		}
	}
	// From the nodes built so far at other anchors, over their states in
	// the calling convention's model (a call's result is a function of
	// its arguments there, not of the caller's stack pointer and memory).
	key := [2]ir.NodeID{n.Key.Src, n.Key.Dst}
	for side := 0; side < 2; side++ {
		g := pr.sideTFG(side)
		anchors := pair.AnchorSet(g)
		cs := n.freshRegisters(b, side)
		if len(cs) == 0 {
			continue
		}
		for _, m := range pr.Nodes {
			at, st := m.Key.Src, m.Src
			if side == 1 {
				at, st = m.Key.Dst, m.Dst
			}
			if m == n || at == g.Entry || m.mem == ir.NoTerm {
				continue
			}
			ps := g.PathSet(at, key[side], ir.PathOptions{Through: func(v ir.NodeID) bool { return !anchors[v] }})
			if ps == nil {
				continue
			}
			sub := pr.stateSubst(g, st)
			cc := pr.callConvention(m)
			for _, c := range cs {
				add(pr.simp.Simplify(cc.Rewrite(sub.Apply(ps.Transfer[c.state]))), m, m.mem)
			}
		}
	}
	return out
}

// overNodeMem returns t with every load from fromMem (or from stores on
// top of it: the frame's) loading from mem instead; ok is false when t
// loads nothing, loads from another memory, stores, or depends on from's
// state but memory (from nil: the entry's, which the learner may use).
func (pr *Product) overNodeMem(t ir.Term, from *PNode, fromMem, mem ir.Term) (ir.Term, bool) {
	r, loads, ok := pr.overNode(t, fromMem, mem, nil, func(v ir.Term) bool {
		if from == nil {
			return true
		}
		_, own := from.varComp[v]
		return !own && v != from.mem
	})
	return r, ok && loads > 0
}

// overNode rewrites t, a term over the state a path into node n starts
// from, into a term over n's: a subterm in holds becomes the component
// of n holding that value, a load from fromMem (or from stores on top of
// it) loads from mem instead, and what is left may name only the
// variables allowed says it may and no memory but a fixed view (a const
// callee's). It returns the loads it rewrote, and ok false when t does
// not rewrite so.
func (pr *Product) overNode(t, fromMem, mem ir.Term, holds map[ir.Term]ir.Term, allowed func(v ir.Term) bool) (ir.Term, int, bool) {
	b := pr.p.B
	loads, ok := 0, true
	memo := map[ir.Term]ir.Term{}
	var rw func(u ir.Term) ir.Term
	rw = func(u ir.Term) ir.Term {
		if r, done := memo[u]; done {
			return r
		}
		r := u
		if c, held := holds[u]; held {
			memo[u] = c
			return c
		}
		switch op := b.Op(u); {
		case !ok:
		case op == ir.OpSelect:
			base := b.Arg(u, 0)
			for b.Op(base) == ir.OpStore {
				base = b.Arg(base, 0)
			}
			if base != fromMem {
				ok = false
				break
			}
			loads++
			w, _ := b.Params(u)
			r = b.Select(mem, rw(b.Arg(u, 1)), w)
		case b.Sort(u).Kind == ir.KindMem && (op != ir.OpVar || u == fromMem):
			// Memory other than a fixed view: stores, or the starting
			// memory read other than by a load (a pure callee's view).
			ok = false
		case op == ir.OpVar:
			ok = allowed(u)
		default:
			args := b.Args(u)
			if len(args) == 0 {
				break
			}
			nargs := make([]ir.Term, len(args))
			for i, a := range args {
				nargs[i] = rw(a)
			}
			if ok {
				r = b.WithArgs(u, nargs)
			}
		}
		memo[u] = r
		return r
	}
	r := rw(t)
	if !ok {
		return ir.NoTerm, 0, false
	}
	return pr.simp.Simplify(r), loads, true
}

// evalOnSample evaluates the bit-vector term t on sample sm of node n.
func (pr *Product) evalOnSample(n *PNode, sm sample, t ir.Term) (uint64, bool) {
	ev := ir.NewEvaluator(pr.p.B, &sampleEnv{pr: pr, n: n, sm: sm})
	defer ev.Release()
	v, err := ev.Eval(t)
	if err != nil {
		return 0, false
	}
	return v.BV().Uint64(), true
}

// evaluatesOnAll reports whether every sample of n evaluates t.
func (pr *Product) evaluatesOnAll(n *PNode, samples []sample, t ir.Term) bool {
	for _, sm := range samples {
		if _, ok := pr.evalOnSample(n, sm, t); !ok {
			return false
		}
	}
	return true
}

// freshRegisters are n's live fresh registers of side, up to 64 bits
// wide: the values the entry and hoisted terms can name.
func (n *PNode) freshRegisters(b *ir.Builder, side int) []comp {
	var out []comp
	for _, c := range n.comps {
		if c.side != side || !c.fresh || c.dead || c.state < 0 || c.state == x86.StateMem {
			continue
		}
		if so := b.Sort(c.term); so.IsBV() && so.Width <= 64 {
			out = append(out, c)
		}
	}
	return out
}

// entryPath is the set of paths by which one side first reaches a node
// from the function's entry, and the substitution that puts its terms
// over the entry state.
type entryPath struct {
	side int
	ps   *ir.Edge
	sub  *ir.Substituter
}

// entryPaths returns n's entry paths, per side that has any (not at its
// entry).
func (pr *Product) entryPaths(n *PNode) []entryPath {
	entry := pr.Nodes[0]
	key := [2]ir.NodeID{n.Key.Src, n.Key.Dst}
	var out []entryPath
	for side := 0; side < 2; side++ {
		g := pr.sideTFG(side)
		if key[side] == g.Entry {
			continue
		}
		anchors := pair.AnchorSet(g)
		ps := g.PathSet(g.Entry, key[side], ir.PathOptions{Through: func(v ir.NodeID) bool { return !anchors[v] }})
		if ps == nil {
			continue
		}
		st := entry.Src
		if side == 1 {
			st = entry.Dst
		}
		out = append(out, entryPath{side, ps, pr.stateSubst(g, st)})
	}
	return out
}

// Entry-path guards. gcc versions a loop over two pointer arguments on a
// runtime check that they are far enough apart (d − (s + 4) >u 8) and
// runs the vector loop only past it; the loop's memory obligation holds
// only given that check, which no learner over the node's variables
// guesses: it is a fact of the entry state alone. The conditions of the
// path from the function's entry to the node, as terms over the entry
// state, are such facts wherever the node is first reached that way; each
// small one that every sample satisfies becomes a candidate, and Houdini
// keeps it when every edge into the node preserves it.

// entryPathGuards returns the conjuncts of the conditions under which
// each side first reaches n from the function's entry, over the entry
// state: memory-free and small (computedEntryTerm's bounds), and true on
// every sample.
func (pr *Product) entryPathGuards(n *PNode, samples []sample) []ir.Term {
	b := pr.p.B
	seen := map[ir.Term]bool{}
	var out []ir.Term
	for _, ep := range pr.entryPaths(n) {
		cond := pr.simp.Simplify(ep.sub.Apply(ep.ps.Cond))
		for _, t := range b.Conjuncts(cond) {
			if seen[t] || b.Op(t) == ir.OpTrue || !pr.guardTerm(t) || !pr.holdsOn(n, samples, t) {
				continue
			}
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// guardTerm reports whether t is worth a candidate: small and free of
// memory and calls.
func (pr *Product) guardTerm(t ir.Term) bool {
	b := pr.p.B
	post := b.PostOrder(t)
	if len(post) > maxEntryTermSize {
		return false
	}
	for _, u := range post {
		switch b.Op(u) {
		case ir.OpSelect, ir.OpStore, ir.OpApply:
			return false
		}
	}
	return true
}

// holdsOn reports whether Bool t is true on every sample of n.
func (pr *Product) holdsOn(n *PNode, samples []sample, t ir.Term) bool {
	for _, sm := range samples {
		v, err := ir.NewEvaluator(pr.p.B, &sampleEnv{pr: pr, n: n, sm: sm}).Eval(t)
		if err != nil || !v.Bool() {
			return false
		}
	}
	return true
}

// Exit-block terms. After a vector loop gcc recomputes where its scalar
// tail starts from the bound alone (ecx = n & ~3), while the source's
// counter holds that value in a stack slot: the relation at the node the
// loop exits to (the source's i equal to the target's n & ~3) is not
// affine in the node's variables, and without it the two tails' addresses
// are unrelated. The first block out of the node names the value, as the
// entry path names a trip count: the registers a loop exit's edges out
// write (ir.NodeLoopExit, on either side), as terms over the node's
// state, join the learning columns when they are small, memory-free and
// more than a variable plus a constant (computedEntryTerm), and every
// sample evaluates them. Only there: at a loop head such columns are the
// loop body's values (clang's isqrt: mid·mid), which gave Houdini rounds
// of candidates it could not decide in time.

// exitBlockTerms returns those terms for node n. A first block out that
// only tests (writes no general register: gcc's `test $3, %sil` before
// diff's tail) is passed: the registers of the blocks after it, up to the
// next anchor, count as the first block's (composed over its transfer).
func (pr *Product) exitBlockTerms(n *PNode, samples []sample) []Column {
	b := pr.p.B
	key := [2]ir.NodeID{n.Key.Src, n.Key.Dst}
	st := [2][]ir.Term{n.Src, n.Dst}
	seen := map[ir.Term]bool{}
	var out []Column
	for side := 0; side < 2; side++ {
		g := pr.sideTFG(side)
		if g.Nodes[key[side]].Kind != ir.NodeLoopExit {
			continue
		}
		anchors := pair.AnchorSet(g)
		type at struct {
			node ir.NodeID
			sub  *ir.Substituter
		}
		work := []at{{key[side], pr.stateSubst(g, st[side])}}
		for steps := 0; len(work) > 0 && steps < maxExitBlocks; steps++ {
			w := work[0]
			work = work[1:]
			for _, e := range g.Out(w.node) {
				wrote := false
				for r := 0; r < 16; r++ {
					i := x86.StateGPR0 + r
					if e.Transfer[i] == g.State[i].Var {
						continue
					}
					wrote = true
					t := pr.simp.Simplify(w.sub.Apply(e.Transfer[i]))
					if seen[t] || !pr.computedEntryTerm(t) {
						continue
					}
					seen[t] = true
					if pr.valuesAt(n, samples, t) == nil {
						continue
					}
					out = append(out, Column{Name: b.Short(t), Term: t})
				}
				if !wrote && !anchors[e.To] {
					work = append(work, at{e.To, pr.stateSubst(g, pr.simp.SimplifyAll(w.sub.ApplyAll(e.Transfer)))})
				}
			}
		}
	}
	return out
}

// maxExitBlocks bounds the blocks exitBlockTerms looks at per side.
const maxExitBlocks = 4

// Inherited entry guards. A node the target reaches only through another
// anchor (the block a vector loop exits to, reached from the loop's head)
// has no entry path of its own, so it got no entry guards: gcc's tail
// after `addn`'s vector loop ran without the facts that put the loop on
// that path (n > 1, the two arrays apart), and its obligations failed for
// want of them. A guard is a fact of the entry state alone, which no edge
// changes: where it holds at every node with an edge into n, it holds at
// n. So each guard a predecessor has as a candidate becomes n's candidate
// too when n's samples satisfy it (to a fixpoint, down chains of such
// nodes); Houdini keeps it only when every edge into n preserves it.

// inheritEntryGuards adds the predecessors' entry guards to each node's
// candidates.
func (pr *Product) inheritEntryGuards() {
	b := pr.p.B
	has := make([]map[ir.Term]bool, len(pr.Nodes))
	for i, n := range pr.Nodes {
		has[i] = map[ir.Term]bool{}
		for _, c := range n.Candidates {
			has[i][c.Term] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, e := range pr.Edges {
			if e.Infeasible || e.From == e.To || e.From == 0 {
				continue
			}
			from, to := pr.Nodes[e.From], pr.Nodes[e.To]
			if to.mem == ir.NoTerm {
				continue // an end: no candidates
			}
			for _, c := range from.Candidates {
				if has[to.ID][c.Term] || from.mentionsOwn(b, c.Term) || !pr.holdsOn(to, to.samples, c.Term) {
					continue
				}
				has[to.ID][c.Term] = true
				to.Candidates = append(to.Candidates, Candidate{Term: c.Term, Desc: "inherited " + c.Desc})
				changed = true
			}
		}
	}
}

// checkable reports whether the proof checker takes t in an invariant
// (align/verify: no function applications but a const library callee's
// result, and reads of the node's
// memory only at addresses computed from values none of which may be a
// stack or frame pointer: not the entry rsp, no node's rsp or rbp, not a
// constant alone). Candidates it would refuse are not made: a proof
// resting on one could not be verified.
func (pr *Product) checkable(n *PNode, t ir.Term) bool {
	b := pr.p.B
	for _, u := range b.PostOrder(t) {
		switch b.Op(u) {
		case ir.OpApply:
			// A const library callee's result (verify's
			// constCallResult) only.
			if fn, ok := x86.ParseCallFunc(b.FuncOf(u).Name); !ok || !fn.Convention || !x86.ConstCallees[fn.Callee] {
				return false
			}
		case ir.OpSelect:
			if b.Arg(u, 0) != n.mem {
				continue
			}
			a := b.Arg(u, 1)
			if b.IsConst(a) {
				return false
			}
			if stackNamed(b, a) || slices.Contains(b.PostOrder(a), pr.rsp0) {
				return false
			}
		}
	}
	return true
}
