package product

import (
	"math"
	"sort"

	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/ub"
)

// Stack accesses at constant offsets from the entry rsp (an -O0 frame's
// locals, saved registers) interleave with accesses through computed
// addresses (a[i]). The simplifier cannot tell that those do not overlap,
// so a local read back after a store to a[i] stays a select through the
// store, and the solver drowns in such chains. The splitter lets such a
// read pass the store anyway, and records the disjointness it assumed; the
// caller proves every recorded fact from the precondition, the from-node's
// invariants and the target's original path condition. A fact is guarded
// by the context in which its read matters (emit): where the guard fails
// the read does not decide the value of the whole term. Once every fact
// holds in a state, every rewrite that matters there is exact, so the
// rewritten edge means what the original does in every state the proof
// considers.

// disjointFact says that the n1 bytes at a1 and the n2 bytes at a2 do not
// overlap (modulo 2^64), wherever guard holds. A read passing a store
// inside one arm of an ite memory (a path set's "the loop ran once more")
// needs the store apart from it only when that arm is taken, and a read
// in a conjunct, disjunct or ite arm only where the context lets it decide
// the whole term (emit): the guard is the conjunction of those conditions
// (NoTerm: always). Every guard is made of terms of the rewritten edge;
// where the facts of the parts a state evaluates hold, the rewritten
// term's value is the original's.
type disjointFact struct {
	a1, a2 ir.Term
	n1, n2 uint32
	guard  ir.Term
}

// term is the fact as a Bool: each start is at least the other's size
// past the other start, going up around the address space.
func (f disjointFact) term(b *ir.Builder) ir.Term {
	t := b.And(b.Uge(b.Sub(f.a2, f.a1), b.Const(64, uint64(f.n1))), b.Uge(b.Sub(f.a1, f.a2), b.Const(64, uint64(f.n2))))
	if f.guard != ir.NoTerm {
		t = b.Or(b.Not(f.guard), t)
	}
	return t
}

type stackSplitter struct {
	b     *ir.Builder
	simp  *ir.Simplifier
	rsp0  ir.Term
	memo  map[ir.Term]ir.Term
	facts map[disjointFact]bool
	// local holds the facts the rewrite of each (original) term assumed
	// itself, guarded only by the ite memories it read through; cur
	// collects them while one term is rewritten. apply then emits them
	// under the term's short-circuit context (emit).
	local   map[ir.Term][]disjointFact
	cur     []disjointFact
	emitted map[[2]ir.Term]bool
	// assumes memoizes whether a term or one under it has local facts:
	// emit walks only those, once per guard (a chain of conditional
	// stores would otherwise be walked once per combination of arms).
	assumes map[ir.Term]bool
	guards  map[ir.Term]int // contexts emit met each term in
	// samples are the from-node's concrete states, if it has enough. With
	// guided set, a read passes a store through any address that they show
	// never overlapping it (a scalar global against an array element, two
	// different arrays); the disjointness is recorded as a fact like the
	// stack's. They also let factTerms merge facts.
	samples *addrSamples
	guided  bool
	guard   ir.Term // of the ite arm selectThrough is in; NoTerm at the top
}

// newStackSplitter returns a splitter that records its facts in facts.
func newStackSplitter(b *ir.Builder, simp *ir.Simplifier, rsp0 ir.Term, facts map[disjointFact]bool) *stackSplitter {
	return &stackSplitter{b: b, simp: simp, rsp0: rsp0, memo: map[ir.Term]ir.Term{}, facts: facts, guard: ir.NoTerm,
		local: map[ir.Term][]disjointFact{}, emitted: map[[2]ir.Term]bool{}}
}

// stackOffset reports whether a is the entry rsp plus a constant.
func (s *stackSplitter) stackOffset(a ir.Term) (int64, bool) {
	return ub.FrameOffset(s.b, s.rsp0, a)
}

// apply rewrites t bottom-up and records the facts that makes t depend on.
func (s *stackSplitter) apply(t ir.Term) ir.Term {
	r := s.rewrite(t)
	s.emit(t, ir.NoTerm)
	return r
}

// rewrite rewrites t bottom-up, keeping in local what each term assumed.
func (s *stackSplitter) rewrite(t ir.Term) ir.Term {
	b := s.b
	for _, u := range b.PostOrder(t) {
		if _, ok := s.memo[u]; ok {
			continue
		}
		s.cur = nil
		r := u
		if n := len(b.Args(u)); n > 0 {
			args := make([]ir.Term, n)
			changed := false
			for i := range args {
				args[i] = s.memo[b.Arg(u, i)]
				changed = changed || args[i] != b.Arg(u, i)
			}
			if changed {
				p0, p1 := b.Params(u)
				var err error
				if r, err = b.Make(b.Op(u), args, p0, p1); err != nil {
					panic("align: rebuilding a well-sorted term: " + err.Error())
				}
			}
			if b.Op(r) == ir.OpSelect {
				n, _ := b.Params(r)
				r = s.selectThrough(b.Arg(r, 0), b.Arg(r, 1), n)
			}
			r = s.simp.Simplify(r)
		}
		s.memo[u] = r
		if len(s.cur) > 0 {
			s.local[u] = s.cur
		}
	}
	return s.memo[t]
}

// emit records the facts under t, each guarded by the context in which
// its term's value matters. A conjunct's value matters only where the
// conjuncts before it hold (elsewhere the conjunction is false, rewritten
// or not), a disjunct's where those before it fail, an ite arm's where
// its condition chooses it. The context is made of rewritten terms: by
// induction along the order of evaluation, where the facts of the terms
// before hold those terms' rewritten values are their original values, so
// the context chooses as the original does. That way a path set's later
// loop pass may read the frame after its stores through a pointer under
// the facts of the runs that make the pass, not of every run: its loop
// condition is a conjunct after the earlier passes' conditions.
func (s *stackSplitter) emit(t, guard ir.Term) {
	if !s.assumesAny(t) || s.emitted[[2]ir.Term{t, ir.NoTerm}] {
		return
	}
	// A term met under many contexts (a chain of joins or conditional
	// stores: one per combination of arms) gets its facts unguarded
	// instead: a stronger obligation, which covers every context.
	if s.emitted[[2]ir.Term{t, guard}] {
		return
	}
	if s.guards == nil {
		s.guards = map[ir.Term]int{}
	}
	if s.guards[t]++; s.guards[t] > maxGuards {
		guard = ir.NoTerm
	}
	k := [2]ir.Term{t, guard}
	if s.emitted[k] {
		return
	}
	s.emitted[k] = true
	b := s.b
	and := func(x ir.Term) ir.Term {
		if guard == ir.NoTerm {
			return x
		}
		return b.And(guard, x)
	}
	switch b.Op(t) {
	case ir.OpAnd, ir.OpImplies:
		s.emit(b.Arg(t, 0), guard)
		s.emit(b.Arg(t, 1), and(s.memo[b.Arg(t, 0)]))
		return
	case ir.OpOr:
		s.emit(b.Arg(t, 0), guard)
		s.emit(b.Arg(t, 1), and(b.Not(s.memo[b.Arg(t, 0)])))
		return
	case ir.OpIte:
		c := b.Arg(t, 0)
		s.emit(c, guard)
		s.emit(b.Arg(t, 1), and(s.memo[c]))
		s.emit(b.Arg(t, 2), and(b.Not(s.memo[c])))
		return
	}
	for _, f := range s.local[t] {
		if guard != ir.NoTerm {
			if f.guard == ir.NoTerm {
				f.guard = guard
			} else {
				f.guard = b.And(guard, f.guard)
			}
		}
		s.facts[f] = true
	}
	for _, a := range b.Args(t) {
		s.emit(a, guard)
	}
}

// maxGuards is how many contexts emit guards one term's facts by.
const maxGuards = 64

// assumesAny reports whether t or a term under it has local facts.
func (s *stackSplitter) assumesAny(t ir.Term) bool {
	if s.assumes == nil {
		s.assumes = map[ir.Term]bool{}
	}
	if r, ok := s.assumes[t]; ok {
		return r
	}
	b := s.b
	for _, u := range b.PostOrder(t) {
		if _, ok := s.assumes[u]; ok {
			continue
		}
		r := len(s.local[u]) > 0
		for _, a := range b.Args(u) {
			r = r || s.assumes[a]
		}
		s.assumes[u] = r
	}
	return s.assumes[t]
}

// selectThrough reads n bytes at a from m, passing stores that provably
// (constant stack offsets) or assumedly (a stack offset against anything
// else) do not overlap the read.
func (s *stackSplitter) selectThrough(m, a ir.Term, n uint32) ir.Term {
	b := s.b
	offA, stackA := s.stackOffset(a)
	for b.Op(m) == ir.OpStore {
		k, _ := b.Params(m)
		addr := b.Arg(m, 1)
		if addr == a {
			break // the simplifier resolves exact and partial matches
		}
		offB, stackB := s.stackOffset(addr)
		switch {
		case stackA && stackB:
			if offA+int64(n) <= offB || offB+int64(k) <= offA {
				m = b.Arg(m, 0)
				continue
			}
		case stackA != stackB:
			s.cur = append(s.cur, disjointFact{a, addr, n, k, s.guard})
			m = b.Arg(m, 0)
			continue
		default:
			ra, ca := b.BaseOffset(a)
			rb, cb := b.BaseOffset(addr)
			if ra == rb && cb-ca >= uint64(n) && ca-cb >= uint64(k) {
				m = b.Arg(m, 0) // one base, disjoint constant ranges
				continue
			}
			if ra != rb && s.guided && s.samples != nil && s.samples.disjoint(a, n, addr, k) {
				s.cur = append(s.cur, disjointFact{a, addr, n, k, s.guard})
				m = b.Arg(m, 0)
				continue
			}
		}
		break
	}
	if b.Op(m) == ir.OpIte {
		c, outer := b.Arg(m, 0), s.guard
		and := func(t ir.Term) ir.Term {
			if outer == ir.NoTerm {
				return t
			}
			return b.And(outer, t)
		}
		s.guard = and(c)
		then := s.selectThrough(b.Arg(m, 1), a, n)
		s.guard = and(b.Not(c))
		els := s.selectThrough(b.Arg(m, 2), a, n)
		s.guard = outer
		return b.Ite(c, then, els)
	}
	return b.Select(m, a, n)
}

// addrSamples evaluates addresses over a product node's variables on the
// concrete states the runs showed there.
type addrSamples struct {
	b    *ir.Builder
	evs  []*ir.Evaluator
	vals map[ir.Term][]uint64 // nil: some state cannot evaluate it
}

// newAddrSamples evaluates on the states of node n after which the runs
// went on to target anchor to, or on all of n's states when none did. It
// returns nil when there are too few states to go by.
func (pr *Product) newAddrSamples(n *PNode, to ir.NodeID) *addrSamples {
	samples := pr.edgeSamples[pair.EdgeKey{From: n.Key, DstTo: to}]
	if len(samples) == 0 {
		samples = n.samples
		if len(samples) < 2 {
			return nil
		}
	}
	samples = thin(samples, maxCanonSamples)
	as := &addrSamples{b: pr.p.B, vals: map[ir.Term][]uint64{}}
	for _, sm := range samples {
		as.evs = append(as.evs, ir.NewEvaluator(pr.p.B, &sampleEnv{pr: pr, n: n, sm: sm}))
	}
	return as
}

func (as *addrSamples) values(a ir.Term) []uint64 {
	if vs, ok := as.vals[a]; ok {
		return vs
	}
	vs := make([]uint64, 0, len(as.evs))
	for _, ev := range as.evs {
		v, err := ev.Eval(a)
		if err != nil {
			vs = nil
			break
		}
		vs = append(vs, v.BV().Uint64())
	}
	as.vals[a] = vs
	return vs
}

// disjoint reports whether the n1 bytes at a1 and the n2 bytes at a2 are
// apart on every state, with room to spare: a guess for the solver to
// confirm, so it should rarely be wrong.
func (as *addrSamples) disjoint(a1 ir.Term, n1 uint32, a2 ir.Term, n2 uint32) bool {
	v1, v2 := as.values(a1), as.values(a2)
	if v1 == nil || v2 == nil {
		return false
	}
	for i := range v1 {
		if v2[i]-v1[i] < uint64(n1) || v1[i]-v2[i] < uint64(n2) {
			return false
		}
	}
	return true
}

// factTerms returns facts as Bools. Facts between the same two bases (a +
// 4·i + 0, 4, 8, 12 against a scalar global, say) merge into one between
// the hulls of their ranges when the states show the hulls apart too: one
// fact instead of a product of them, and a stronger one, so it implies each
// it replaces.
func factTerms(b *ir.Builder, simp *ir.Simplifier, facts map[disjointFact]bool, samples *addrSamples) []ir.Term {
	type group struct {
		b1, b2 ir.Term
		facts  []disjointFact
	}
	groups := map[[3]ir.Term]*group{}
	var keys [][3]ir.Term
	for f := range facts {
		if f.guard != ir.NoTerm && facts[disjointFact{f.a1, f.a2, f.n1, f.n2, ir.NoTerm}] {
			continue // implied by the fact without a guard
		}
		r1, _ := b.BaseOffset(f.a1)
		r2, _ := b.BaseOffset(f.a2)
		if r1 > r2 {
			f = disjointFact{f.a2, f.a1, f.n2, f.n1, f.guard}
			r1, r2 = r2, r1
		}
		k := [3]ir.Term{r1, r2, f.guard}
		if groups[k] == nil {
			groups[k] = &group{b1: r1, b2: r2}
			keys = append(keys, k)
		}
		groups[k].facts = append(groups[k].facts, f)
	}
	sort.Slice(keys, func(i, j int) bool {
		for x := range keys[i] {
			if keys[i][x] != keys[j][x] {
				return keys[i][x] < keys[j][x]
			}
		}
		return false
	})
	var out []ir.Term
	for _, k := range keys {
		g := groups[k]
		if h, ok := hull(b, simp, g.b1, g.b2, g.facts, samples); ok {
			out = append(out, simp.Simplify(h.term(b)))
			continue
		}
		ts := make([]ir.Term, 0, len(g.facts))
		for _, f := range g.facts {
			ts = append(ts, simp.Simplify(f.term(b)))
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
		out = append(out, ts...)
	}
	return out
}

// maxHull bounds the size of a merged range.
const maxHull = 1 << 16

// hull merges facts between bases b1 and b2 into one, if the states show
// the hulls apart.
func hull(b *ir.Builder, simp *ir.Simplifier, b1, b2 ir.Term, facts []disjointFact, samples *addrSamples) (disjointFact, bool) {
	if len(facts) < 2 || samples == nil {
		return disjointFact{}, false
	}
	lo1, hi1 := int64(math.MaxInt64), int64(math.MinInt64)
	lo2, hi2 := lo1, hi1
	for _, f := range facts {
		_, c1 := b.BaseOffset(f.a1)
		_, c2 := b.BaseOffset(f.a2)
		lo1, hi1 = min(lo1, int64(c1)), max(hi1, int64(c1)+int64(f.n1))
		lo2, hi2 = min(lo2, int64(c2)), max(hi2, int64(c2)+int64(f.n2))
	}
	if hi1-lo1 > maxHull || hi2-lo2 > maxHull {
		return disjointFact{}, false
	}
	at := func(base ir.Term, off int64) ir.Term {
		return simp.Simplify(b.Add(base, b.Const(64, uint64(off))))
	}
	h := disjointFact{at(b1, lo1), at(b2, lo2), uint32(hi1 - lo1), uint32(hi2 - lo2), facts[0].guard}
	if !samples.disjoint(h.a1, h.n1, h.a2, h.n2) {
		return disjointFact{}, false
	}
	return h, true
}
