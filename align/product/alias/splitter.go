package alias

import (
	"slices"

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

// Fact says that the N1 bytes at A1 and the N2 bytes at A2 do not
// overlap (modulo 2^64), wherever Guard holds. A read passing a store
// inside one arm of an ite memory (a path set's "the loop ran once more")
// needs the store apart from it only when that arm is taken, and a read
// in a conjunct, disjunct or ite arm only where the context lets it decide
// the whole term (emit): the guard is the conjunction of those conditions
// (NoTerm: always). Every guard is made of terms of the rewritten edge;
// where the facts of the parts a state evaluates hold, the rewritten
// term's value is the original's.
type Fact struct {
	A1, A2 ir.Term
	N1, N2 uint32
	Guard  ir.Term
}

// Term is the fact as a Bool: each start is at least the other's size
// past the other start, going up around the address space (ub.Disjoint,
// the form the OBVA hypotheses the fact is proved from are stated in).
func (f Fact) Term(b *ir.Builder) ir.Term {
	t := ub.Disjoint(b, f.A1, f.N1, f.A2, f.N2)
	if f.Guard != ir.NoTerm {
		t = b.Or(b.Not(f.Guard), t)
	}
	return t
}

// Splitter rewrites terms so that reads pass the stores the rules above
// let them pass, recording each fact it assumed.
type Splitter struct {
	b     *ir.Builder
	simp  *ir.Simplifier
	rsp0  ir.Term
	memo  map[ir.Term]ir.Term
	facts map[Fact]bool
	// local holds the facts the rewrite of each (original) term assumed
	// itself, guarded only by the ite memories it read through; cur
	// collects them while one term is rewritten. apply then emits them
	// under the term's short-circuit context (emit).
	local map[ir.Term][]Fact
	cur   []Fact
	// assumes memoizes whether a term or one under it has local facts:
	// emit walks only those, once per guard (a chain of conditional
	// stores would otherwise be walked once per combination of arms).
	assumes map[ir.Term]bool
	walk    *contextWalk // emit's, over local
	// samples are the from-node's concrete states, if it has enough. With
	// guided set, a read passes a store through any address that they show
	// never overlapping it (a scalar global against an array element, two
	// different arrays); the disjointness is recorded as a fact like the
	// stack's. They also let FactTerms merge facts.
	samples *Samples
	guided  bool
	guard   ir.Term // of the ite arm selectThrough is in; NoTerm at the top
	depth   int     // how many ite arms selectThrough is in
	// unguarded memoizes the reads below maxGuardedItes ites.
	unguarded map[selectKey]unguardedRead
	// guardCollapsed: see GuardCollapsed.
	guardCollapsed bool
}

// NewSplitter returns a splitter that records its facts in facts. With
// samples (nil: none) and guided set, reads also pass stores the samples
// show apart from them.
func NewSplitter(b *ir.Builder, simp *ir.Simplifier, rsp0 ir.Term, facts map[Fact]bool, samples *Samples, guided bool) *Splitter {
	return &Splitter{b: b, simp: simp, rsp0: rsp0, memo: map[ir.Term]ir.Term{}, facts: facts, guard: ir.NoTerm,
		local: map[ir.Term][]Fact{}, samples: samples, guided: guided}
}

// GuardCollapsed makes a read met in more than maxGuards contexts keep
// the small conjuncts those contexts share as its facts' guard, where by
// default it is guarded by nothing. The guard is sound either way (every
// context implies it); it is the refinement for an edge whose unguarded
// fact a solver's model made false (product/refute.go), since a guard of
// conditions costs every later query of the edge (clang-16's clamp:
// 10–13 s unguarded, 28–42 s guarded).
func (s *Splitter) GuardCollapsed() {
	s.guardCollapsed = true
}

// RecordIn makes later Applys record their facts in facts, each term's
// facts afresh: a term rewritten before, and shared, still gives its
// facts to the new map (the rewriting itself stays memoized).
func (s *Splitter) RecordIn(facts map[Fact]bool) {
	s.facts, s.walk = facts, nil
}

// stackOffset reports whether a is the entry rsp plus a constant.
func (s *Splitter) stackOffset(a ir.Term) (int64, bool) {
	return ub.FrameOffset(s.b, s.rsp0, a)
}

// Apply rewrites t bottom-up and records the facts that makes t depend on.
func (s *Splitter) Apply(t ir.Term) ir.Term {
	r := s.rewrite(t)
	s.emit(t, ir.NoTerm)
	return r
}

// rewrite rewrites t bottom-up, keeping in local what each term assumed.
func (s *Splitter) rewrite(t ir.Term) ir.Term {
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
// its term's value matters (contextWalk), made of rewritten terms: by
// induction along the order of evaluation, where the facts of the terms
// before hold those terms' rewritten values are their original values, so
// the context chooses as the original does. That way a path set's later
// loop pass may read the frame after its stores through a pointer under
// the facts of the runs that make the pass, not of every run: its loop
// condition is a conjunct after the earlier passes' conditions.
func (s *Splitter) emit(t, guard ir.Term) {
	if s.walk == nil {
		s.walk = &contextWalk{b: s.b, relevant: s.assumesAny, keepShared: s.guardCollapsed,
			cond: func(c ir.Term) ir.Term { return s.memo[c] },
			at: func(u, g ir.Term) {
				for _, f := range s.local[u] {
					if g != ir.NoTerm {
						if f.Guard == ir.NoTerm {
							f.Guard = g
						} else {
							f.Guard = s.b.And(g, f.Guard)
						}
					}
					s.facts[f] = true
				}
			}}
	}
	s.walk.walk(t, guard)
}

// contextWalk visits terms with the context in which each one's value
// matters to the term the walk started from: a conjunct's where the
// conjuncts before it hold (elsewhere the conjunction is false, whatever
// it is), a disjunct's where those before it fail, an ite arm's where its
// condition chooses it. A term met in many contexts (a chain of joins or
// conditional stores: one per combination of arms) collapses: it is
// visited once more unguarded, which covers every context, or, with
// keepShared, under a few small conjuncts all its contexts share, which
// every context implies: a read in a path set's later loop pass keeps
// that pass's loop condition, where guarding it by nothing claims its
// address apart from the frame in runs that stop before it (an array's
// one-past-the-end element). A later context without one of those
// conjuncts visits it again under fewer, so a term is visited at most
// maxGuards times plus once per conjunct of its first collapsed guard.
type contextWalk struct {
	b        *ir.Builder
	relevant func(ir.Term) bool     // whether t or a term under it is of interest
	cond     func(ir.Term) ir.Term  // the term a condition's value is taken from
	at       func(t, guard ir.Term) // t met under guard (ir.NoTerm: always)
	seen     map[[2]ir.Term]bool
	guards   map[ir.Term][]ir.Term // the contexts t was visited in, until it collapses
	shared   map[ir.Term][]ir.Term // a collapsed t's shared conjuncts, sorted
	// keepShared: a collapsed term keeps its shared conjuncts; without,
	// it is visited once unguarded (Splitter.GuardCollapsed).
	keepShared bool
}

func (w *contextWalk) walk(t, guard ir.Term) {
	if !w.relevant(t) || w.seen[[2]ir.Term{t, ir.NoTerm}] || w.seen[[2]ir.Term{t, guard}] {
		return
	}
	if w.seen == nil {
		w.seen, w.guards, w.shared = map[[2]ir.Term]bool{}, map[ir.Term][]ir.Term{}, map[ir.Term][]ir.Term{}
	}
	if common, ok := w.shared[t]; ok {
		s := intersectSorted(common, w.sharedConjuncts(guard))
		if len(s) == len(common) {
			return // guard implies the collapsed guard t was visited under
		}
		w.shared[t], guard = s, w.conjunction(s)
	} else if len(w.guards[t]) == maxGuards {
		s := w.sharedConjuncts(guard)
		for _, g := range w.guards[t] {
			if len(s) == 0 {
				break
			}
			s = intersectSorted(s, w.conjuncts(g))
		}
		delete(w.guards, t)
		w.shared[t], guard = s, w.conjunction(s)
	} else {
		w.guards[t] = append(w.guards[t], guard)
	}
	if w.seen[[2]ir.Term{t, guard}] {
		return
	}
	w.seen[[2]ir.Term{t, guard}] = true
	b := w.b
	and := func(x ir.Term) ir.Term {
		if guard == ir.NoTerm {
			return x
		}
		return b.And(guard, x)
	}
	w.at(t, guard)
	switch b.Op(t) {
	case ir.OpAnd, ir.OpImplies, ir.OpOr:
		// A connective decides with either argument alone: x ∧ y is
		// false where y is, so x matters only where y holds. The
		// builder orders commutative arguments by term, not by the
		// order of evaluation, so when only one argument needs facts
		// it is walked in the context the other gives, which is exact
		// there (it assumes nothing); otherwise the second in the
		// context of the first.
		x, y := b.Arg(t, 0), b.Arg(t, 1)
		decides := func(c ir.Term) ir.Term { // where c lets the other argument matter
			if b.Op(t) == ir.OpOr {
				return b.Not(c)
			}
			return c
		}
		if !w.relevant(x) {
			w.walk(y, and(decides(w.cond(x))))
			break
		}
		if !w.relevant(y) {
			c := w.cond(y)
			if b.Op(t) == ir.OpImplies {
				c = b.Not(c) // ¬x ∨ y: x matters where y fails
			} else {
				c = decides(c)
			}
			w.walk(x, and(c))
			break
		}
		w.walk(x, guard)
		w.walk(y, and(decides(w.cond(x))))
	case ir.OpIte:
		c := b.Arg(t, 0)
		w.walk(c, guard)
		w.walk(b.Arg(t, 1), and(w.cond(c)))
		w.walk(b.Arg(t, 2), and(b.Not(w.cond(c))))
	default:
		for _, a := range b.Args(t) {
			w.walk(a, guard)
		}
	}
}

// maxGuards is how many contexts a contextWalk guards one term by before
// it collapses them.
const maxGuards = 64

// conjuncts are g's conjuncts (none for ir.NoTerm), sorted, with
// negations pushed through ¬, ∨ and →: the guards of an ite's else arm
// and of a disjunct's later arguments are negations, and a loop pass's
// condition shared by two contexts is often a conjunct of one and inside
// a negated disjunction in the other.
func (w *contextWalk) conjuncts(g ir.Term) []ir.Term {
	if g == ir.NoTerm {
		return nil
	}
	b := w.b
	var out []ir.Term
	// Conditions share subterms: each (term, polarity) is taken once,
	// or a chain of shared disjunctions is walked exponentially often.
	seen := map[ir.Term]uint8{}
	var add func(x ir.Term, neg bool)
	add = func(x ir.Term, neg bool) {
		bit := uint8(1)
		if neg {
			bit = 2
		}
		if seen[x]&bit != 0 {
			return
		}
		seen[x] |= bit
		if len(seen) > maxConjunctWalk { // a large condition stays whole
			if neg {
				x = b.Not(x)
			}
			out = append(out, x)
			return
		}
		switch op := b.Op(x); {
		case op == ir.OpNot:
			add(b.Arg(x, 0), !neg)
		case op == ir.OpAnd && !neg, op == ir.OpOr && neg:
			add(b.Arg(x, 0), neg)
			add(b.Arg(x, 1), neg)
		case op == ir.OpImplies && neg: // ¬(x → y) = x ∧ ¬y
			add(b.Arg(x, 0), false)
			add(b.Arg(x, 1), true)
		case neg:
			out = append(out, b.Not(x))
		default:
			out = append(out, x)
		}
	}
	add(g, false)
	slices.Sort(out)
	return slices.Compact(out)
}

// small keeps the conjuncts a collapsed guard may take: a few small ones
// without memory reads (a loop pass's condition on counters). Any subset
// of the shared conjuncts is implied by every context, so the choice is
// free for soundness; small guards keep the facts' queries small (not
// measured apart: clang-16's clamp took 28–32 s guarded without this
// bound, 37–42 s with it, 10–13 s unguarded).
func (w *contextWalk) small(cs []ir.Term) []ir.Term {
	out := cs[:0]
	for _, c := range cs {
		if len(out) == maxSharedConjuncts {
			break
		}
		post := w.b.PostOrder(c)
		if len(post) <= maxSharedConjunctTerms && !slices.ContainsFunc(post, func(u ir.Term) bool { return w.b.Op(u) == ir.OpSelect }) {
			out = append(out, c)
		}
	}
	return out
}

// maxSharedConjuncts and maxSharedConjunctTerms bound small's conjuncts:
// how many, and how many subterms each.
const (
	maxSharedConjuncts     = 3
	maxSharedConjunctTerms = 12
)

// maxConjunctWalk bounds the subterms conjuncts looks into per guard.
const maxConjunctWalk = 256

// sharedConjuncts are the conjuncts of g a collapsed read may keep (none
// without keepShared, where nothing is computed).
func (w *contextWalk) sharedConjuncts(g ir.Term) []ir.Term {
	if !w.keepShared {
		return nil
	}
	return w.small(w.conjuncts(g))
}

// conjunction is the guard of the sorted conjuncts cs (ir.NoTerm: none).
func (w *contextWalk) conjunction(cs []ir.Term) ir.Term {
	if len(cs) == 0 {
		return ir.NoTerm
	}
	return w.b.And(cs...)
}

// intersectSorted is the terms both sorted lists hold.
func intersectSorted(x, y []ir.Term) []ir.Term {
	var out []ir.Term
	for i, j := 0, 0; i < len(x) && j < len(y); {
		switch {
		case x[i] < y[j]:
			i++
		case x[i] > y[j]:
			j++
		default:
			out = append(out, x[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// assumesAny reports whether t or a term under it has local facts.
func (s *Splitter) assumesAny(t ir.Term) bool {
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
// else) do not overlap the read. A store it cannot pass stays, and the
// stores below it are still passed where they may be: the read's value is
// the same on the memory without them, whatever the kept store holds.
func (s *Splitter) selectThrough(m, a ir.Term, n uint32) ir.Term {
	b := s.b
	offA, stackA := s.stackOffset(a)
	var kept []ir.Term // stores the read cannot pass, outermost first
	for b.Op(m) == ir.OpStore {
		k, _ := b.Params(m)
		addr := b.Arg(m, 1)
		if addr == a {
			break // the simplifier resolves exact and partial matches
		}
		if s.passes(a, n, offA, stackA, addr, k) {
			m = b.Arg(m, 0)
			continue
		}
		kept = append(kept, m)
		m = b.Arg(m, 0)
	}
	if len(kept) > 0 {
		// The read keeps the stores it may overlap, in their order, and
		// drops those below them that it passes: a[i] read after a
		// store to b[j] still passes the frame's slots under that store
		// (an -O0 loop's counter, its saved pointers), which the solver
		// would otherwise have to tell apart from a[i] itself.
		for i := len(kept) - 1; i >= 0; i-- {
			st := kept[i]
			k, _ := b.Params(st)
			m = b.Store(m, b.Arg(st, 1), k, b.Arg(st, 2))
		}
		return b.Select(m, a, n)
	}
	if b.Op(m) == ir.OpIte {
		if s.depth >= maxGuardedItes {
			return s.selectUnguarded(m, a, n)
		}
		c, outer := b.Arg(m, 0), s.guard
		and := func(t ir.Term) ir.Term {
			if outer == ir.NoTerm {
				return t
			}
			return b.And(outer, t)
		}
		s.depth++
		s.guard = and(c)
		then := s.selectThrough(b.Arg(m, 1), a, n)
		s.guard = and(b.Not(c))
		els := s.selectThrough(b.Arg(m, 2), a, n)
		s.guard, s.depth = outer, s.depth-1
		return b.Ite(c, then, els)
	}
	return b.Select(m, a, n)
}

// passes reports whether a read of n bytes at a (offA from the entry rsp
// when stackA) may pass a store of k bytes at addr, recording the fact it
// assumes if any: two frame accesses at disjoint constant offsets; a frame
// access and one through a computed address (a fact); one base at
// disjoint constant offsets; two bases the samples show apart (a fact).
func (s *Splitter) passes(a ir.Term, n uint32, offA int64, stackA bool, addr ir.Term, k uint32) bool {
	b := s.b
	offB, stackB := s.stackOffset(addr)
	switch {
	case stackA && stackB:
		return offA+int64(n) <= offB || offB+int64(k) <= offA
	case stackA != stackB:
		s.cur = append(s.cur, Fact{a, addr, n, k, s.guard})
		return true
	}
	ra, ca := b.BaseOffset(a)
	rb, cb := b.BaseOffset(addr)
	if ra == rb && cb-ca >= uint64(n) && ca-cb >= uint64(k) {
		return true
	}
	if ra != rb && s.guided && s.samples != nil && s.samples.disjoint(a, n, addr, k) {
		s.cur = append(s.cur, Fact{a, addr, n, k, s.guard})
		return true
	}
	return false
}

// maxGuardedItes is how many ite memories deep selectThrough guards the
// facts it records by the arms it is in. A source loop whose body stores
// conditionally (an -O0 counter bumped under an if) makes its path set's
// memory a chain of ites, one per pass, and a read after it meets every
// combination of arms: 2^passes walks, each building its guards (countz
// with eight passes went past 4 GB).
const maxGuardedItes = 4

// selectUnguarded is selectThrough at an ite memory maxGuardedItes deep:
// it records the facts of the reads in the ite's arms guarded only by the
// arms above (s.guard), not by the ite's own, which asks more of the
// caller's proof than fully guarded facts would but never less, so that
// one walk of each memory serves every way of reaching it.
func (s *Splitter) selectUnguarded(m, a ir.Term, n uint32) ir.Term {
	key := selectKey{m, a, n}
	r, ok := s.unguarded[key]
	if !ok {
		b := s.b
		outer, cur := s.guard, s.cur
		s.guard, s.cur = ir.NoTerm, nil
		then := s.selectThrough(b.Arg(m, 1), a, n)
		els := s.selectThrough(b.Arg(m, 2), a, n)
		// Both arms may hand up the facts of one memory below: once each.
		var facts []Fact
		seen := map[Fact]bool{}
		for _, f := range s.cur {
			if !seen[f] {
				seen[f] = true
				facts = append(facts, f)
			}
		}
		r = unguardedRead{b.Ite(b.Arg(m, 0), then, els), facts}
		s.guard, s.cur = outer, cur
		if s.unguarded == nil {
			s.unguarded = map[selectKey]unguardedRead{}
		}
		s.unguarded[key] = r
	}
	for _, f := range r.facts {
		f.Guard = s.guard // the arms' facts, guarded by the arms above
		s.cur = append(s.cur, f)
	}
	return r.t
}

// selectKey is a read of n bytes at a from m.
type selectKey struct {
	m, a ir.Term
	n    uint32
}

// unguardedRead is selectUnguarded's result for one read and its facts.
type unguardedRead struct {
	t     ir.Term
	facts []Fact
}

// Guarded is a term whose value matters only where guard holds (ir.NoTerm:
// always).
type Guarded struct{ T, Guard ir.Term }

// Contexts returns, for each term of targets met under roots, the
// condition in which its value matters to them (ir.NoTerm: always), as a
// contextWalk judges it over the terms as they are; a term met in more
// than maxGuards contexts gets NoTerm.
func Contexts(b *ir.Builder, roots []Guarded, targets map[ir.Term]ir.Term) map[ir.Term]ir.Term {
	below := map[ir.Term]bool{} // whether a target is t or under it
	var terms []ir.Term
	for _, r := range roots {
		terms = append(terms, r.T)
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
	w := &contextWalk{b: b, relevant: func(t ir.Term) bool { return below[t] },
		cond: func(c ir.Term) ir.Term { return c },
		at: func(t, guard ir.Term) {
			if _, ok := targets[t]; !ok {
				return
			}
			if guard == ir.NoTerm {
				always[t] = true
			} else {
				met[t] = append(met[t], guard)
			}
		}}
	for _, r := range roots {
		w.walk(r.T, r.Guard)
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
