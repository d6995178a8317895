package ub

import (
	"fmt"

	"eqc/ir"
)

// Accesses through pointer parameters, and hypotheses that keep pairs of
// them apart: what the tbsa and restrict models share. Both state, per
// prefix of each source path, that when the run gets to a block without a
// fault each access the block makes through one parameter misses the
// accesses through another made so far on the path, the block's own
// included, for the pairs the model keeps apart. A run makes the accesses
// of every block it gets to, so the hypothesis holds in every run without
// the model's undefined behaviour, whatever the path's other conditions.

// paramAccess is one access through a parameter on a path: its address
// over the start state, width, parameter (an index into the model's list)
// and whether it writes.
type paramAccess struct {
	addr  ir.Term
	n     uint32
	param int
	store bool
}

// paramFinder finds the parameter an address is computed from: vars are
// the parameters' entry variables; obva says the OBVA model holds too (a
// pointer reloaded from its frame slot passes the stores whose address is
// not derived from rsp).
type paramFinder struct {
	in   OBVAInput
	vars []ir.Term
	obva bool
}

// pairHypotheses states the hypotheses over in's paths (none when there
// are more than MaxOBVAPaths): accesses lists the accesses of edge next
// the model speaks of (from, at as blockAccesses takes them), and apart
// says whether it keeps two of them apart. At most max hypotheses.
func pairHypotheses(in OBVAInput, accesses func(from, at *ir.Substituter, next *ir.Edge) []paramAccess, apart func(x, y paramAccess) bool, max int) []ir.Term {
	if in.Paths == nil || in.Paths.Count() > MaxOBVAPaths {
		return nil
	}
	b, g := in.B, in.G
	from := in.From
	if from == nil {
		from = ir.NewSubstituter(b, nil)
	}
	var out []ir.Term
	done := map[string]bool{}
	for _, ids := range in.Paths.Paths(MaxOBVAPaths) {
		var prefix *ir.Edge
		var accs []paramAccess
		for k, id := range ids {
			next := g.Edges[id]
			var at *ir.Substituter
			if prefix != nil {
				at = g.StateSubst(prefix.Transfer)
			}
			mine := accesses(from, at, next)
			key := fmt.Sprint(ids[:k+1])
			if !done[key] && len(mine) > 0 {
				done[key] = true
				reached := in.Simp.Simplify(from.Apply(reachedBlock(b, at, prefix, next)))
				for i, x := range mine {
					earlier := append(accs[:len(accs):len(accs)], mine[:i]...) // a copy: accs grows below
					for _, y := range earlier {
						if len(out) >= max {
							return out
						}
						if apart(x, y) {
							out = append(out, in.Simp.Simplify(b.Implies(reached, Disjoint(b, x.addr, x.n, y.addr, y.n))))
						}
					}
				}
			}
			accs = append(accs, mine...)
			if prefix == nil {
				prefix = next
			} else {
				prefix = g.Seq(prefix, next)
			}
		}
	}
	return out
}

// accesses lists the accesses edge next makes through the parameters,
// over the paths' start state, each address, width and kind once; strict
// as through takes it.
func (f paramFinder) accesses(from, at *ir.Substituter, next *ir.Edge, strict bool) []paramAccess {
	var out []paramAccess
	for _, acc := range blockAccesses(f.in.B, f.in.Simp, from, at, next, false) {
		if p, ok := f.through(acc.addr, strict); ok {
			out = append(out, paramAccess{addr: acc.addr, n: acc.n, param: p, store: acc.store})
		}
	}
	return out
}

// through finds the parameter an access at address a is made through:
// the one summand of a that is not an integer offset must be the
// parameter's value. With strict, no offset may compute with a
// parameter's entry value either: q + (p − q) reaches p's object through
// q's name, and C counts it as based on p. A value loaded from memory is
// taken as it is, whatever its address: *p is no pointer based on p.
func (f paramFinder) through(a ir.Term, strict bool) (int, bool) {
	b := f.in.B
	base := ir.NoTerm
	offset := func(t ir.Term) bool {
		return intOffset(b, t) && !(strict && f.computesWithParam(t, map[ir.Term]bool{}))
	}
	var walk func(t ir.Term) bool
	walk = func(t ir.Term) bool {
		switch b.Op(t) {
		case ir.OpAdd:
			for _, x := range b.Args(t) {
				if !walk(x) {
					return false
				}
			}
			return true
		case ir.OpSub:
			return len(b.Args(t)) == 2 && walk(b.Arg(t, 0)) && offset(b.Arg(t, 1))
		}
		if offset(t) {
			return true
		}
		if base != ir.NoTerm {
			return false // two pointers' worth of summands
		}
		base = t
		return true
	}
	if !walk(a) || base == ir.NoTerm {
		return 0, false
	}
	return f.paramOf(base, 0)
}

// computesWithParam reports whether t computes with a parameter's entry
// variable outside the loads it makes; seen holds the terms visited.
func (f paramFinder) computesWithParam(t ir.Term, seen map[ir.Term]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	b := f.in.B
	switch b.Op(t) {
	case ir.OpVar:
		for _, v := range f.vars {
			if t == v {
				return true
			}
		}
		return false
	case ir.OpSelect:
		return false
	}
	for _, x := range b.Args(t) {
		if f.computesWithParam(x, seen) {
			return true
		}
	}
	return false
}

// paramOf finds the parameter whose value t is: its entry variable, or a
// reload of the frame slot it was stored to.
func (f paramFinder) paramOf(t ir.Term, depth int) (int, bool) {
	b := f.in.B
	for i, v := range f.vars {
		if t == v {
			return i, true
		}
	}
	if b.Op(t) != ir.OpSelect || depth > 4 {
		return 0, false
	}
	n, _ := b.Params(t)
	m, a := b.Arg(t, 0), b.Arg(t, 1)
	slotBase, off := linear(b, a)
	if slotBase != f.in.Rsp0 || n != 8 {
		return 0, false
	}
	for b.Op(m) == ir.OpStore {
		k, _ := b.Params(m)
		w := b.Arg(m, 1)
		wb, woff := linear(b, w)
		switch {
		case wb == f.in.Rsp0 && woff == off && k == n:
			return f.paramOf(b.Arg(m, 2), depth+1)
		case wb == f.in.Rsp0 && (woff+int64(k) <= off || off+int64(n) <= woff):
			// another slot
		case wb != f.in.Rsp0 && f.obva && f.in.Taint != nil && !f.in.Taint.Derived(w):
			// outside the frame, under the OBVA hypotheses
		default:
			return 0, false
		}
		m = b.Arg(m, 0)
	}
	return 0, false
}

// intOffset reports whether summand t of an address is an integer offset
// and not a pointer: a constant, a value scaled by a constant other than
// 1, or one narrower than a pointer, extended.
func intOffset(b *ir.Builder, t ir.Term) bool {
	switch b.Op(t) {
	case ir.OpConst:
		return true
	case ir.OpZeroExt, ir.OpSignExt:
		return b.Sort(b.Arg(t, 0)).Width <= 32
	case ir.OpMul:
		x, y := b.Arg(t, 0), b.Arg(t, 1)
		return len(b.Args(t)) == 2 && (b.Op(x) == ir.OpConst && b.ConstValue(x).Uint64() > 1 || b.Op(y) == ir.OpConst && b.ConstValue(y).Uint64() > 1)
	case ir.OpShl:
		k := b.Arg(t, 1)
		return b.Op(k) == ir.OpConst && b.ConstValue(k).Uint64() != 0
	}
	return false
}
