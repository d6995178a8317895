package align

import (
	"eqc/ir"
)

// Stack accesses at constant offsets from the entry rsp (an -O0 frame's
// locals, saved registers) interleave with accesses through computed
// addresses (a[i]). The simplifier cannot tell that those do not overlap,
// so a local read back after a store to a[i] stays a select through the
// store, and the solver drowns in such chains. The splitter lets such a
// read pass the store anyway, and records the disjointness it assumed; the
// caller proves every recorded fact from the precondition and the
// from-node's invariants alone (no path condition, which would itself be a
// rewritten term). Once every fact holds in a state, every rewrite is
// exact there, bottom-up, so the rewritten edge means what the original
// does in every state the proof considers.

// disjointFact says that the n1 bytes at a1 and the n2 bytes at a2 do not
// overlap (modulo 2^64).
type disjointFact struct {
	a1, a2 ir.Term
	n1, n2 uint32
}

// term is the fact as a Bool: each start is at least the other's size
// past the other start, going up around the address space.
func (f disjointFact) term(b *ir.Builder) ir.Term {
	return b.And(b.Uge(b.Sub(f.a2, f.a1), b.Const(64, uint64(f.n1))), b.Uge(b.Sub(f.a1, f.a2), b.Const(64, uint64(f.n2))))
}

type stackSplitter struct {
	b     *ir.Builder
	simp  *ir.Simplifier
	rsp0  ir.Term
	memo  map[ir.Term]ir.Term
	facts map[disjointFact]bool
}

func newStackSplitter(b *ir.Builder, simp *ir.Simplifier, rsp0 ir.Term) *stackSplitter {
	return &stackSplitter{b: b, simp: simp, rsp0: rsp0, memo: map[ir.Term]ir.Term{}, facts: map[disjointFact]bool{}}
}

// stackOffset reports whether a is the entry rsp plus a constant.
func (s *stackSplitter) stackOffset(a ir.Term) (int64, bool) {
	b := s.b
	if a == s.rsp0 {
		return 0, true
	}
	if b.Op(a) == ir.OpAdd && b.Arg(a, 0) == s.rsp0 && b.Op(b.Arg(a, 1)) == ir.OpConst {
		return int64(b.ConstValue(b.Arg(a, 1)).Uint64()), true
	}
	if b.Op(a) == ir.OpAdd && b.Arg(a, 1) == s.rsp0 && b.Op(b.Arg(a, 0)) == ir.OpConst {
		return int64(b.ConstValue(b.Arg(a, 0)).Uint64()), true
	}
	return 0, false
}

// apply rewrites t bottom-up.
func (s *stackSplitter) apply(t ir.Term) ir.Term {
	b := s.b
	for _, u := range b.PostOrder(t) {
		if _, ok := s.memo[u]; ok {
			continue
		}
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
	}
	return s.memo[t]
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
			s.facts[disjointFact{a, addr, n, k}] = true
			m = b.Arg(m, 0)
			continue
		}
		break
	}
	if b.Op(m) == ir.OpIte {
		return b.Ite(b.Arg(m, 0), s.selectThrough(b.Arg(m, 1), a, n), s.selectThrough(b.Arg(m, 2), a, n))
	}
	return b.Select(m, a, n)
}

// factTerms returns the recorded facts as Bools.
func (s *stackSplitter) factTerms() []ir.Term {
	var out []ir.Term
	for f := range s.facts {
		out = append(out, s.simp.Simplify(f.term(s.b)))
	}
	return out
}
