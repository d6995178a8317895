package pair

import "eqc/ir"

// ByteAt is the byte memory term m holds at address a, with m's stores
// and joins spelled out: a store of n bytes of v at p gives byte a−p of v
// when a−p <u n, and otherwise what lies under it; a join, each arm's.
// What is left reads only the memories the chain starts from. The memory
// obligations compare one byte of two store chains, and Z3's array
// theory took 35 s and more on a vectorized swap (16-byte stores against
// 4-byte ones, two arrays, bench/kernels' swapn with gcc-12) whose
// spelled-out form it answers in 2 s: the two chains meet in one read of
// the memory they start from. memo is shared by the reads at one a; simp,
// when set, simplifies each step.
func ByteAt(b *ir.Builder, simp *ir.Simplifier, m, a ir.Term, memo map[ir.Term]ir.Term) ir.Term {
	if out, ok := memo[m]; ok {
		return out
	}
	var out ir.Term
	switch b.Op(m) {
	case ir.OpStore:
		n, _ := b.Params(m)
		v := b.Arg(m, 2)
		k := b.Sub(a, b.Arg(m, 1))
		byteOf := b.Extract(v, 7, 0)
		if w := 8 * n; w > 8 {
			// v's bits from 8(a−p) up; the offset, below n, fits v's
			// width truncated or extended.
			off := k
			switch {
			case w < 64:
				off = b.Extract(k, w-1, 0)
			case w > 64:
				off = b.ZeroExt(k, w-64)
			}
			byteOf = b.Extract(b.LShr(v, b.Shl(off, b.Const(w, 3))), 7, 0)
		}
		out = b.Ite(b.Ult(k, b.Const(64, uint64(n))), byteOf, ByteAt(b, simp, b.Arg(m, 0), a, memo))
	case ir.OpIte:
		out = b.Ite(b.Arg(m, 0), ByteAt(b, simp, b.Arg(m, 1), a, memo), ByteAt(b, simp, b.Arg(m, 2), a, memo))
	default:
		out = b.Select(m, a, 1)
	}
	if simp != nil {
		out = simp.Simplify(out)
	}
	memo[m] = out
	return out
}
