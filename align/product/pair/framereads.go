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
//
// The other way round, a read inside the frame (a constant offset from
// rsp: a reload of a spill, the target's pop of a callee-saved register)
// past stores through pointers becomes
//
//	ite(every such store misses the frame, read(m with only rsp's stores, a), read(m, a))
//
// (at most maxDroppedStores of them): gcc's pop of rbx in bc's auto_var
// reads past a store through malloc's result and one into a global table.
// With both splits sqlite3VdbeMemExpandBlob (gcc) went from a 20 s
// timeout to a proof in 15 s; auto_var itself still takes 25 s and more.

// frameReadGuard returns the rewrite for one check; rsp is the entry stack
// pointer, simp normalizes the reads it builds, and outside reports the
// accesses the check's premises place outside the stack region whole (a
// global's: Precondition; outsideStack): such an access misses the frame,
// and is read past it with no case split, which is exact wherever the
// premises hold (the obligations assume them, and their facts about where
// objects lie read no memory). Its memo is shared by every term the check
// rewrites.
//
// Every split it makes is recorded in guards (when not nil), for the
// queries to lift (liftGuards).
func (p *Pair) frameReadGuard(rsp ir.Term, simp *ir.Simplifier, outside func(a ir.Term, n uint32) bool, guards frameGuards) func(ir.Term) ir.Term {
	b := p.B
	split := func(cond, fast, read ir.Term) ir.Term {
		r := b.Ite(cond, fast, read)
		if guards != nil && b.Op(r) == ir.OpIte {
			guards[r] = guardedRead{cond: b.Arg(r, 0), fast: b.Arg(r, 1)}
		}
		return r
	}
	strip := stackStoreStripper(p.B, rsp, 8)
	lo := simp.Simplify(b.Sub(rsp, b.Const(64, StackLimit)))
	memo := map[ir.Term]ir.Term{}
	type framePart struct {
		mem     ir.Term   // the memory with only its stores based on rsp
		dropped []ir.Term // the stores left out, each once
	}
	parts := map[ir.Term]framePart{}
	var frameOnly func(ir.Term) framePart
	frameOnly = func(m ir.Term) framePart {
		if fp, ok := parts[m]; ok {
			return fp
		}
		fp := framePart{mem: m}
		switch b.Op(m) {
		case ir.OpStore:
			inner := frameOnly(b.Arg(m, 0))
			fp.dropped = inner.dropped
			if base, _ := b.BaseOffset(b.Arg(m, 1)); base != rsp {
				fp.mem = inner.mem
				fp.dropped = appendNew(fp.dropped, m)
			} else if inner.mem != b.Arg(m, 0) {
				n, _ := b.Params(m)
				fp.mem = b.Store(inner.mem, b.Arg(m, 1), n, b.Arg(m, 2))
			}
		case ir.OpIte:
			x, y := frameOnly(b.Arg(m, 1)), frameOnly(b.Arg(m, 2))
			fp.dropped = x.dropped
			for _, st := range y.dropped {
				fp.dropped = appendNew(fp.dropped, st)
			}
			if x.mem != b.Arg(m, 1) || y.mem != b.Arg(m, 2) {
				fp.mem = b.Ite(b.Arg(m, 0), x.mem, y.mem)
			}
		}
		parts[m] = fp
		return fp
	}
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
			base, off := b.BaseOffset(a)
			switch {
			case base != rsp:
				if past := strip(m); past != m && outside(a, n) {
					r = simp.Simplify(b.Select(past, a, n))
				} else if past != m {
					r = split(ub.MissesFrame(b, a, n, lo), simp.Simplify(b.Select(past, a, n)), r)
				}
			case int64(off) >= -StackLimit && int64(off)+int64(n) <= 8:
				if fm := frameOnly(m); fm.mem != m && len(fm.dropped) <= maxDroppedStores {
					var miss []ir.Term
					for _, st := range fm.dropped {
						if k, _ := b.Params(st); !outside(b.Arg(st, 1), k) {
							miss = append(miss, ub.MissesFrame(b, b.Arg(st, 1), k, lo))
						}
					}
					r = split(b.And(miss...), simp.Simplify(b.Select(fm.mem, a, n)), r)
				}
			}
		}
		memo[t] = r
		return r
	}
	return rw
}

// maxDroppedStores bounds the stores through other addresses a frame read
// is spelled out past (one condition each). The call model replays every
// store through a pointer before a call byte by byte (x86.CallConvention:
// a byte that lands in the caller's frame is the caller's), so a pop after
// a few calls reads past many: 74 in lua's atomic2gen (clang-16 -O2).
const maxDroppedStores = 256

// appendNew appends t to ts unless it is there (the slice is copied, as
// the memo shares it).
func appendNew(ts []ir.Term, t ir.Term) []ir.Term {
	for _, u := range ts {
		if u == t {
			return ts
		}
	}
	return append(append([]ir.Term(nil), ts...), t)
}
