package ir

import "fmt"

// Substitution: replacing subterms (usually the state variables at a TFG
// node) by other terms. It is the basis of sequential composition of TFG
// edges: the second edge's terms, written over the state at the middle node,
// become terms over the state at the first node once every middle-node
// variable is replaced by the first edge's transfer for it.

// Substituter replaces terms of one Builder according to a fixed map,
// memoizing across calls, so that substituting many terms that share
// structure (the components of one transfer function) costs each shared
// subterm once. It is iterative: chains of 100k stores do not exhaust the
// goroutine stack. A Substituter is not safe for concurrent use.
type Substituter struct {
	b     *Builder
	memo  map[Term]Term
	stack []Term
	args  []Term
}

// NewSubstituter returns a Substituter replacing each key of m by its value
// wherever the key occurs as a subterm. Keys and values must have the same
// sort (it panics otherwise: an ill-sorted substitution is a bug). The
// replacement is simultaneous: values are not themselves substituted into.
func NewSubstituter(b *Builder, m map[Term]Term) *Substituter {
	memo := make(map[Term]Term, 2*len(m)+16)
	for k, v := range m {
		if b.Sort(k) != b.Sort(v) {
			panic(fmt.Sprintf("ir: substituting %v term %s by %v term %s", b.Sort(k), b.Short(k), b.Sort(v), b.Short(v)))
		}
		memo[k] = v
	}
	return &Substituter{b: b, memo: memo}
}

// Substitute returns t with every occurrence of a key of m replaced by its
// value (simultaneously). Use a Substituter to share work between terms.
func Substitute(b *Builder, t Term, m map[Term]Term) Term {
	if len(m) == 0 {
		return t
	}
	return NewSubstituter(b, m).Apply(t)
}

// Apply returns t with the substitution applied. Terms that contain no key
// come back unchanged (the same Term), so hash-consing keeps sharing intact.
func (s *Substituter) Apply(t Term) Term {
	if r, ok := s.memo[t]; ok {
		return r
	}
	b := s.b
	stack := append(s.stack[:0], t)
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		if _, ok := s.memo[u]; ok {
			stack = stack[:len(stack)-1]
			continue
		}
		uargs := b.Args(u)
		missing := false
		for i := len(uargs) - 1; i >= 0; i-- {
			if _, ok := s.memo[uargs[i]]; !ok {
				stack = append(stack, uargs[i])
				missing = true
			}
		}
		if missing {
			continue
		}
		stack = stack[:len(stack)-1]
		changed := false
		args := s.args[:0]
		for _, a := range uargs {
			r := s.memo[a]
			changed = changed || r != a
			args = append(args, r)
		}
		s.args = args
		r := u
		if changed {
			p0, p1 := b.Params(u)
			// Sorts are preserved by construction (each replacement has
			// its key's sort), so an error here is a bug.
			r = b.mk(b.Op(u), p0, p1, args...)
		}
		s.memo[u] = r
	}
	s.stack = stack[:0]
	return s.memo[t]
}

// ApplyAll substitutes into each of ts, returning a new slice.
func (s *Substituter) ApplyAll(ts []Term) []Term {
	out := make([]Term, len(ts))
	for i, t := range ts {
		out[i] = s.Apply(t)
	}
	return out
}
