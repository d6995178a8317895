package ub

import "eqc/ir"

// The null model's hypotheses (null.go). C leaves dereferencing a null
// pointer undefined (6.5.3.2p4), and arithmetic on one too (6.5.6p8), so
// no access a run of the source makes without undefined behaviour lies in
// the null page [0, NullPage): the address came from a pointer to some
// object, and no object is there. An optimizer uses it: gcc deletes
// `if (p == NULL)` after `*p` has been read (-fdelete-null-pointer-checks,
// on at -O2). The hypotheses are stated like OBVA's (the same prefixes of
// the same source paths, an implication from reaching the access), for
// the accesses whose address is neither the frame's (derived from the
// entry rsp: no pointer the caller handed over) nor a constant (an
// absolute address is no pointer either).

// NullPage is the size of the region at address 0 where no object lies.
const NullPage = 4096

// No object lies in the upper half of the address space either: on
// x86-64 it is the kernel's (user space ends at 2^47, or 2^56 with
// five-level paging). C's pointer arithmetic stays within an object (or
// one past its end), so where the source accesses p + e for a pointer
// parameter p, p points into that access's object: p <u UserSpaceEnd.
// Without it a pointer near 2^64 lets p + 4n wrap, and a vectorized
// loop's runtime check that two arrays are apart (s + 4n ≤ d) says
// nothing: clang's saxpy's vector loop could not be proved to read x
// past its stores to y.
const UserSpaceEnd = 1 << 63

// summands are the terms a sums (a itself when it is no sum).
func summands(b *ir.Builder, a ir.Term) []ir.Term {
	if b.Op(a) != ir.OpAdd {
		return []ir.Term{a}
	}
	var out []ir.Term
	for _, x := range b.Args(a) {
		out = append(out, summands(b, x)...)
	}
	return out
}

// NullHypotheses returns the null model's hypotheses for in's paths (and
// those of the pointer parameters in.Pointers that the accesses add to),
// by
// the prefixes eachBlock takes. in.Taint may be nil
// (the OBVA model off): then only addresses the entry rsp plus a constant
// make count as the frame's.
func NullHypotheses(in OBVAInput) []ir.Term {
	b := in.B
	pointer := map[ir.Term]bool{}
	for _, p := range in.Pointers {
		pointer[p] = true
	}
	return eachBlock(in, func(from, at *ir.Substituter, prefix, next *ir.Edge, merged bool) (ir.Term, bool) {
		var above []ir.Term
		seen := map[ir.Term]bool{}
		for _, acc := range blockAccesses(b, in.Simp, from, at, next, merged) {
			a := acc.addr
			if seen[a] || b.Op(a) == ir.OpConst || in.frameAddress(a) {
				continue
			}
			seen[a] = true
			above = append(above, b.Uge(a, b.Const(64, NullPage)))
			for _, p := range summands(b, a) {
				if pointer[p] && !seen[p] {
					seen[p] = true
					above = append(above, b.Ult(p, b.Const(64, UserSpaceEnd)))
				}
			}
		}
		if len(above) == 0 {
			return ir.NoTerm, false
		}
		return in.Simp.Simplify(b.Implies(from.Apply(reachedBlock(b, at, prefix, next)), b.And(above...))), true
	})
}

// frameAddress says whether address a is the frame's: derived from the
// entry rsp (by the frame taint when there is one, else rsp plus a
// constant).
func (in OBVAInput) frameAddress(a ir.Term) bool {
	if in.Taint != nil {
		return in.Taint.Derived(a)
	}
	_, ok := FrameOffset(in.B, in.Rsp0, a)
	return ok
}
