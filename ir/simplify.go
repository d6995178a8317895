package ir

import (
	"fmt"
	"sort"
)

// The simplifier: bottom-up rewriting to a normal form with a table of small
// named rules per op (simplify_rules.go). Every rule is an equivalence valid
// at every width, so Simplify(t) is equal to t under every Env; tests check
// that against the evaluator on random terms and the prove package against
// an SMT solver.

// Rule is one rewrite: Fn returns the replacement of t, or NoTerm when the
// rule does not apply. t's arguments are already in normal form. The
// replacement's proper subterms must be normal too (build them with
// Simplifier.mk); its root need not be, because the simplifier keeps
// rewriting at the root until no rule applies. Keeping a rule's own result
// unnormalized at the root is what keeps a select walking down a chain of
// 100k stores iterative instead of recursive.
type Rule struct {
	Name string // "op/what"; unique, the key of the fire counts
	Fn   func(s *Simplifier, t Term) Term
}

// rules is the rule table, indexed by op, filled from ruleSet at init.
var rules [NumOps][]Rule

// RuleNames returns the name of every rule, in table order.
func RuleNames() []string {
	var out []string
	for op := range rules {
		for _, r := range rules[op] {
			out = append(out, r.Name)
		}
	}
	return out
}

// maxRootSteps bounds the rewrites at one root. The rules decrease a
// well-founded measure (size, then argument order), so hitting it means a
// rule cycle: a bug in the rule set.
const maxRootSteps = 1 << 20

// maxNesting bounds how deeply rules may nest normalization of the
// subterms they build. Only the partial-overlap memory rule nests (once per
// split of a read, so at most its byte count); past the bound the subterm is
// left as built, which is still sound, merely less simplified.
const maxNesting = 256

// Simplifier rewrites terms of one Builder to normal form, memoizing across
// calls, and counts how often each rule fired. It is not safe for concurrent
// use (neither is its Builder).
type Simplifier struct {
	b       *Builder
	memo    []Term // memo[t]: t's normal form, NoTerm while unknown
	fired   map[string]int
	nesting int
	stack   []Term
	// OnFire, when set, is called after each rewrite with the rule's name,
	// the term it rewrote and the replacement (which may rewrite further).
	OnFire func(rule string, before, after Term)
}

// NewSimplifier returns a Simplifier for b's terms.
func NewSimplifier(b *Builder) *Simplifier {
	return &Simplifier{b: b, fired: make(map[string]int)}
}

// Simplify returns the normal form of t with a fresh Simplifier. Use a
// Simplifier to share work between many terms.
func Simplify(b *Builder, t Term) Term { return NewSimplifier(b).Simplify(t) }

// Builder is the Builder whose terms s simplifies.
func (s *Simplifier) Builder() *Builder { return s.b }

// Fired returns how often each rule has fired, by rule name (rules that
// never fired are absent).
func (s *Simplifier) Fired() map[string]int {
	out := make(map[string]int, len(s.fired))
	for k, v := range s.fired {
		out[k] = v
	}
	return out
}

// FiredString lists the fire counts, most frequent first, for logs.
func (s *Simplifier) FiredString() string {
	names := make([]string, 0, len(s.fired))
	for k := range s.fired {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if s.fired[names[i]] != s.fired[names[j]] {
			return s.fired[names[i]] > s.fired[names[j]]
		}
		return names[i] < names[j]
	})
	out := ""
	for _, n := range names {
		out += fmt.Sprintf("%s %d\n", n, s.fired[n])
	}
	return out
}

func (s *Simplifier) get(t Term) Term {
	if int(t) < len(s.memo) {
		return s.memo[t]
	}
	return NoTerm
}

func (s *Simplifier) set(t, r Term) {
	if int(t) >= len(s.memo) {
		n := max(s.b.Len(), 2*len(s.memo), int(t)+1)
		s.memo = append(s.memo, make([]Term, n-len(s.memo))...)
	}
	s.memo[t] = r
}

// SimplifyAll returns the normal forms of ts, in a new slice.
func (s *Simplifier) SimplifyAll(ts []Term) []Term {
	out := make([]Term, len(ts))
	for i, t := range ts {
		out[i] = s.Simplify(t)
	}
	return out
}

// Simplify returns the normal form of t: a term equal to t under every Env.
// Simplifying a normal form returns it unchanged.
func (s *Simplifier) Simplify(t Term) Term {
	if r := s.get(t); r != NoTerm {
		return r
	}
	b := s.b
	// An explicit stack, not recursion: terms can be 100k stores deep.
	stack := append(s.stack[:0], t)
	var args []Term
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		if s.get(u) != NoTerm {
			stack = stack[:len(stack)-1]
			continue
		}
		uargs := b.Args(u)
		missing := false
		for i := len(uargs) - 1; i >= 0; i-- {
			if s.get(uargs[i]) == NoTerm {
				stack = append(stack, uargs[i])
				missing = true
			}
		}
		if missing {
			continue
		}
		stack = stack[:len(stack)-1]
		changed := false
		args = args[:0]
		for _, a := range uargs {
			r := s.get(a)
			changed = changed || r != a
			args = append(args, r)
		}
		v := u
		if changed {
			p0, p1 := b.Params(u)
			v = s.raw(b.Op(u), p0, p1, args...)
		}
		r := s.rewrite(v)
		s.set(u, r)
	}
	s.stack = stack[:0]
	return s.get(t)
}

// raw builds op(args) without rewriting it. Ill-sorted results are bugs in
// a rule and panic.
func (s *Simplifier) raw(op Op, p0, p1 uint32, args ...Term) Term {
	t, err := s.b.Make(op, args, p0, p1)
	if err != nil {
		panic(fmt.Sprintf("ir: simplifier built an ill-sorted term: %v", err))
	}
	return t
}

// mk builds op(args), whose arguments must be normal, and returns its normal
// form. Rules use it for the proper subterms of their results.
func (s *Simplifier) mk(op Op, p0, p1 uint32, args ...Term) Term {
	t := s.raw(op, p0, p1, args...)
	if s.nesting >= maxNesting {
		return t
	}
	s.nesting++
	defer func() { s.nesting-- }()
	return s.rewrite(t)
}

// rewrite applies rules at the root of t, whose arguments are normal, until
// none applies, and memoizes the result for t and every intermediate term.
func (s *Simplifier) rewrite(t Term) Term {
	if r := s.get(t); r != NoTerm {
		return r
	}
	var seen []Term
	cur := t
	for step := 0; ; step++ {
		if step == maxRootSteps {
			panic(fmt.Sprintf("ir: simplifier rules cycle on %s", s.b.Short(t)))
		}
		next := NoTerm
		for i := range rules[s.b.Op(cur)] {
			r := &rules[s.b.Op(cur)][i]
			if u := r.Fn(s, cur); u != NoTerm && u != cur {
				s.fired[r.Name]++
				if s.OnFire != nil {
					s.OnFire(r.Name, cur, u)
				}
				next = u
				break
			}
		}
		if next == NoTerm {
			break
		}
		seen = append(seen, cur)
		if r := s.get(next); r != NoTerm {
			cur = r
			break
		}
		cur = next
	}
	for _, u := range seen {
		s.set(u, cur)
	}
	s.set(cur, cur)
	return cur
}
