package pair

import (
	"eqc/ir"
	"eqc/ub"
)

// Reads through pointers past the frame's stores (framereads.go)
//
// An -O0 function spills its arguments and locals to its frame before it
// reads through a pointer, and a call's model puts the frame's bytes back
// over the callee's memory (calls.go), so a read at p+8 is a read from a
// chain of frame stores; the target pushes callee-saved registers instead.
// The two reads are equal only where p+8 misses the frame, which the
// premises say (OBVA's hypotheses, the pointer parameters outside the
// frame), but Z3's array theory took 45 s to combine the two on a
// six-line tree walk (depth: two calls, three reads through t).
//
// frameReadGuard spells the case split out: a read of n bytes at an
// address a whose base is not the entry rsp, from a memory m with stores
// into the frame [rsp−StackLimit, rsp+8), becomes
//
//	ite(a misses the frame, read(m without those stores, a), read(m, a))
//
// which equals the read in every state (a store into the frame changes no
// byte outside it), so no premise is needed; the condition is the atom the
// premises state (ub.MissesFrame), which the solver decides at once. Two
// sides that read the same pointer then read the same memory term, and
// the call results built on them are the same terms.

// frameReadGuard returns the rewrite for one check; rsp is the entry stack
// pointer, simp normalizes the reads it builds. Its memo is shared by every
// term the check rewrites.
func (p *Pair) frameReadGuard(rsp ir.Term, simp *ir.Simplifier) func(ir.Term) ir.Term {
	b := p.B
	strip := p.stackStoreStripper(rsp)
	lo := simp.Simplify(b.Sub(rsp, b.Const(64, StackLimit)))
	memo := map[ir.Term]ir.Term{}
	var rw func(ir.Term) ir.Term
	rw = func(t ir.Term) ir.Term {
		if r, ok := memo[t]; ok {
			return r
		}
		args := b.Args(t)
		r := t
		if len(args) > 0 {
			changed := false
			nargs := make([]ir.Term, len(args))
			for i, a := range args {
				nargs[i] = rw(a)
				changed = changed || nargs[i] != a
			}
			if changed {
				p0, p1 := b.Params(t)
				if nt, err := b.Make(b.Op(t), nargs, p0, p1); err == nil {
					r = nt
				}
			}
		}
		if b.Op(r) == ir.OpSelect {
			n, _ := b.Params(r)
			m, a := b.Arg(r, 0), b.Arg(r, 1)
			if base, _ := b.BaseOffset(a); base != rsp {
				if past := strip(m); past != m {
					r = b.Ite(ub.MissesFrame(b, a, n, lo), simp.Simplify(b.Select(past, a, n)), r)
				}
			}
		}
		memo[t] = r
		return r
	}
	return rw
}
