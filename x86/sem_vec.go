package x86

import (
	"eqc/ir"

	"golang.org/x/arch/x86/x86asm"
)

// The SSE2–SSE4.2 integer vector instructions and the SSE moves, on 128-bit
// xmm values split into lanes. Lane 0 is the least significant.
var vecSems = map[x86asm.Op]semFunc{
	x86asm.MOVD:      semMovdq(32),
	x86asm.MOVQ:      semMovdq(64),
	x86asm.MOVDQA:    semMov128,
	x86asm.MOVDQU:    semMov128,
	x86asm.MOVAPS:    semMov128,
	x86asm.MOVUPS:    semMov128,
	x86asm.MOVAPD:    semMov128,
	x86asm.MOVUPD:    semMov128,
	x86asm.LDDQU:     semMov128,
	x86asm.MOVNTDQ:   semMov128,
	x86asm.MOVNTDQA:  semMov128,
	x86asm.MOVNTPS:   semMov128,
	x86asm.MOVNTPD:   semMov128,
	x86asm.MOVSS:     semMovScalar(32),
	x86asm.MOVSD_XMM: semMovScalar(64),
	x86asm.MOVLPS:    semMovHalf(false),
	x86asm.MOVLPD:    semMovHalf(false),
	x86asm.MOVHPS:    semMovHalf(true),
	x86asm.MOVHPD:    semMovHalf(true),
	x86asm.MOVHLPS:   semMovhlps,
	x86asm.MOVLHPS:   semMovlhps,
	x86asm.MOVDDUP:   semMovddup,

	x86asm.PXOR:   bitwise(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVXor(x, y) }),
	x86asm.XORPS:  bitwise(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVXor(x, y) }),
	x86asm.XORPD:  bitwise(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVXor(x, y) }),
	x86asm.PAND:   bitwise(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVAnd(x, y) }),
	x86asm.ANDPS:  bitwise(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVAnd(x, y) }),
	x86asm.ANDPD:  bitwise(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVAnd(x, y) }),
	x86asm.PANDN:  bitwise(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVAnd(b.BVNot(x), y) }),
	x86asm.ANDNPS: bitwise(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVAnd(b.BVNot(x), y) }),
	x86asm.ANDNPD: bitwise(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVAnd(b.BVNot(x), y) }),
	x86asm.POR:    bitwise(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVOr(x, y) }),
	x86asm.ORPS:   bitwise(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVOr(x, y) }),
	x86asm.ORPD:   bitwise(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVOr(x, y) }),

	x86asm.PADDB:   lanewise(8, laneAdd),
	x86asm.PADDW:   lanewise(16, laneAdd),
	x86asm.PADDD:   lanewise(32, laneAdd),
	x86asm.PADDQ:   lanewise(64, laneAdd),
	x86asm.PSUBB:   lanewise(8, laneSub),
	x86asm.PSUBW:   lanewise(16, laneSub),
	x86asm.PSUBD:   lanewise(32, laneSub),
	x86asm.PSUBQ:   lanewise(64, laneSub),
	x86asm.PADDSB:  lanewise(8, satArith(true, true)),
	x86asm.PADDSW:  lanewise(16, satArith(true, true)),
	x86asm.PADDUSB: lanewise(8, satArith(true, false)),
	x86asm.PADDUSW: lanewise(16, satArith(true, false)),
	x86asm.PSUBSB:  lanewise(8, satArith(false, true)),
	x86asm.PSUBSW:  lanewise(16, satArith(false, true)),
	x86asm.PSUBUSB: lanewise(8, satArith(false, false)),
	x86asm.PSUBUSW: lanewise(16, satArith(false, false)),
	x86asm.PMULLW:  lanewise(16, laneMul),
	x86asm.PMULLD:  lanewise(32, laneMul),
	x86asm.PMULHW:  lanewise(16, mulHigh(true)),
	x86asm.PMULHUW: lanewise(16, mulHigh(false)),
	x86asm.PMULUDQ: lanewise(64, mulEven(false)),
	x86asm.PMULDQ:  lanewise(64, mulEven(true)),
	x86asm.PAVGB:   lanewise(8, laneAvg),
	x86asm.PAVGW:   lanewise(16, laneAvg),
	x86asm.PMADDWD: lanewise(32, laneMaddwd),
	x86asm.PSADBW:  lanewise(64, laneSadbw),

	x86asm.PCMPEQB: lanewise(8, laneCmp(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Eq(x, y) })),
	x86asm.PCMPEQW: lanewise(16, laneCmp(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Eq(x, y) })),
	x86asm.PCMPEQD: lanewise(32, laneCmp(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Eq(x, y) })),
	x86asm.PCMPEQQ: lanewise(64, laneCmp(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Eq(x, y) })),
	x86asm.PCMPGTB: lanewise(8, laneCmp(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Sgt(x, y) })),
	x86asm.PCMPGTW: lanewise(16, laneCmp(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Sgt(x, y) })),
	x86asm.PCMPGTD: lanewise(32, laneCmp(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Sgt(x, y) })),
	x86asm.PCMPGTQ: lanewise(64, laneCmp(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Sgt(x, y) })),

	x86asm.PMAXSB: lanewise(8, pick(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Sgt(x, y) })),
	x86asm.PMAXSW: lanewise(16, pick(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Sgt(x, y) })),
	x86asm.PMAXSD: lanewise(32, pick(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Sgt(x, y) })),
	x86asm.PMAXUB: lanewise(8, pick(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Ugt(x, y) })),
	x86asm.PMAXUW: lanewise(16, pick(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Ugt(x, y) })),
	x86asm.PMAXUD: lanewise(32, pick(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Ugt(x, y) })),
	x86asm.PMINSB: lanewise(8, pick(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Slt(x, y) })),
	x86asm.PMINSW: lanewise(16, pick(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Slt(x, y) })),
	x86asm.PMINSD: lanewise(32, pick(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Slt(x, y) })),
	x86asm.PMINUB: lanewise(8, pick(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Ult(x, y) })),
	x86asm.PMINUW: lanewise(16, pick(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Ult(x, y) })),
	x86asm.PMINUD: lanewise(32, pick(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Ult(x, y) })),

	x86asm.PABSB: lanewise(8, laneAbs),
	x86asm.PABSW: lanewise(16, laneAbs),
	x86asm.PABSD: lanewise(32, laneAbs),

	x86asm.PSLLW:  vshift(16, shlKind),
	x86asm.PSLLD:  vshift(32, shlKind),
	x86asm.PSLLQ:  vshift(64, shlKind),
	x86asm.PSRLW:  vshift(16, shrKind),
	x86asm.PSRLD:  vshift(32, shrKind),
	x86asm.PSRLQ:  vshift(64, shrKind),
	x86asm.PSRAW:  vshift(16, sarKind),
	x86asm.PSRAD:  vshift(32, sarKind),
	x86asm.PSLLDQ: byteShift(true),
	x86asm.PSRLDQ: byteShift(false),

	x86asm.PSHUFD:  semPshufd,
	x86asm.PSHUFLW: semPshufw(false),
	x86asm.PSHUFHW: semPshufw(true),
	x86asm.PSHUFB:  semPshufb,
	x86asm.SHUFPS:  semShufps,
	x86asm.SHUFPD:  semShufpd,
	x86asm.PALIGNR: semPalignr,

	x86asm.PUNPCKLBW:  unpack(8, false),
	x86asm.PUNPCKLWD:  unpack(16, false),
	x86asm.PUNPCKLDQ:  unpack(32, false),
	x86asm.PUNPCKLQDQ: unpack(64, false),
	x86asm.PUNPCKHBW:  unpack(8, true),
	x86asm.PUNPCKHWD:  unpack(16, true),
	x86asm.PUNPCKHDQ:  unpack(32, true),
	x86asm.PUNPCKHQDQ: unpack(64, true),
	x86asm.UNPCKLPS:   unpack(32, false),
	x86asm.UNPCKHPS:   unpack(32, true),
	x86asm.UNPCKLPD:   unpack(64, false),
	x86asm.UNPCKHPD:   unpack(64, true),

	x86asm.PACKSSWB: pack(16, true),
	x86asm.PACKSSDW: pack(32, true),
	x86asm.PACKUSWB: pack(16, false),
	x86asm.PACKUSDW: pack(32, false),

	x86asm.PEXTRB:    extractLane(8),
	x86asm.PEXTRW:    extractLane(16),
	x86asm.PEXTRD:    extractLane(32),
	x86asm.PEXTRQ:    extractLane(64),
	x86asm.EXTRACTPS: extractLane(32),
	x86asm.PINSRB:    insertLane(8),
	x86asm.PINSRW:    insertLane(16),
	x86asm.PINSRD:    insertLane(32),
	x86asm.PINSRQ:    insertLane(64),

	x86asm.PBLENDVB: blendVar(8),
	x86asm.BLENDVPS: blendVar(32),
	x86asm.BLENDVPD: blendVar(64),
	x86asm.PBLENDW:  blendImm(16),
	x86asm.BLENDPS:  blendImm(32),
	x86asm.BLENDPD:  blendImm(64),

	x86asm.PMOVZXBW: extendLanes(8, 16, false),
	x86asm.PMOVZXBD: extendLanes(8, 32, false),
	x86asm.PMOVZXBQ: extendLanes(8, 64, false),
	x86asm.PMOVZXWD: extendLanes(16, 32, false),
	x86asm.PMOVZXWQ: extendLanes(16, 64, false),
	x86asm.PMOVZXDQ: extendLanes(32, 64, false),
	x86asm.PMOVSXBW: extendLanes(8, 16, true),
	x86asm.PMOVSXBD: extendLanes(8, 32, true),
	x86asm.PMOVSXBQ: extendLanes(8, 64, true),
	x86asm.PMOVSXWD: extendLanes(16, 32, true),
	x86asm.PMOVSXWQ: extendLanes(16, 64, true),
	x86asm.PMOVSXDQ: extendLanes(32, 64, true),

	x86asm.PMOVMSKB: moveMask(8),
	x86asm.MOVMSKPS: moveMask(32),
	x86asm.MOVMSKPD: moveMask(64),
	x86asm.PTEST:    semPtest,
}

// lanes splits the 128-bit x into lanes of lw bits, lane 0 first.
func lanes(b *ir.Builder, x ir.Term, lw uint32) []ir.Term {
	n := b.Width(x) / lw
	out := make([]ir.Term, n)
	for i := range out {
		lo := uint32(i) * lw
		out[i] = extract(b, x, lo+lw-1, lo)
	}
	return out
}

// join concatenates lanes, lane 0 lowest.
func join(b *ir.Builder, ls []ir.Term) ir.Term {
	r := ls[len(ls)-1]
	for i := len(ls) - 2; i >= 0; i-- {
		r = concat(b, r, ls[i])
	}
	return r
}

// unalignedOK are the SSE instructions whose 128-bit memory operand may be
// misaligned; every other legacy-SSE 16-byte access raises #GP unless it
// is 16-byte aligned.
var unalignedOK = map[x86asm.Op]bool{
	x86asm.MOVDQU: true, x86asm.MOVUPS: true, x86asm.MOVUPD: true, x86asm.LDDQU: true,
}

// memAccess records the alignment fault of a 16-byte access at a.
func (c *ctx) memAccess(a ir.Term, bytes uint32) {
	if bytes == 16 && !unalignedOK[c.in.Op] {
		b := c.b
		c.fault(b.Not(b.Eq(extract(b, a, 3, 0), b.Const(4, 0))))
	}
}

func (c *ctx) xmm(i int) ir.Term {
	r, ok := c.arg(i).(x86asm.Reg)
	if !ok || lookupReg(r).kind != regXMM {
		c.unsupported("operand %v", c.arg(i))
	}
	return c.s.Reg(c.b, r)
}

// readV reads operand i as w bits: the low w bits of an xmm register, a
// general register of w bits (or wider, truncated), or w/8 bytes of memory.
func (c *ctx) readV(i int, w uint32) ir.Term {
	b := c.b
	switch a := c.arg(i).(type) {
	case x86asm.Reg:
		ri := lookupReg(a)
		switch {
		case ri.kind == regXMM:
			return extract(b, c.s.Reg(b, a), w-1, 0)
		case ri.kind == regGPR && ri.width >= w:
			return extract(b, c.s.Reg(b, a), w-1, 0)
		}
		c.unsupported("operand %v", a)
	case x86asm.Mem:
		addr := c.addr(a)
		c.memAccess(addr, w/8)
		return b.Select(c.s.Mem, addr, w/8)
	}
	c.unsupported("operand %v", c.arg(i))
	return ir.NoTerm
}

// writeV writes v to operand i: a whole xmm register (v is 128 bits), a
// general register (zero-extended to it when narrower) or memory.
func (c *ctx) writeV(i int, v ir.Term) {
	b := c.b
	switch a := c.arg(i).(type) {
	case x86asm.Reg:
		ri := lookupReg(a)
		switch {
		case ri.kind == regXMM:
			c.s.SetReg(b, a, zext(b, v, 128))
			return
		case ri.kind == regGPR && ri.width >= b.Width(v):
			c.s.SetReg(b, a, zext(b, v, ri.width))
			return
		}
	case x86asm.Mem:
		addr := c.addr(a)
		c.memAccess(addr, b.Width(v)/8)
		c.s.Mem = b.Store(c.s.Mem, addr, b.Width(v)/8, v)
		return
	}
	c.unsupported("operand %v", c.arg(i))
}

func (c *ctx) isXMM(i int) bool {
	r, ok := c.arg(i).(x86asm.Reg)
	return ok && lookupReg(r).kind == regXMM
}

// semMovdq is movd (32) and movq (64) in all their forms: into an xmm
// register the value is zero-extended to 128 bits; out of one its low bits
// are taken.
func semMovdq(w uint32) semFunc {
	return func(c *ctx) {
		if c.isXMM(0) {
			c.writeV(0, c.readV(1, w))
			return
		}
		if !c.isXMM(1) {
			c.unsupported("operands") // mmx forms
		}
		c.writeV(0, c.readV(1, w))
	}
}

func semMov128(c *ctx) { c.writeV(0, c.readV(1, 128)) }

// semMovScalar is movss and movsd: between registers only the low lane
// moves; a load zeroes the rest of the register; a store writes the lane.
func semMovScalar(w uint32) semFunc {
	return func(c *ctx) {
		b := c.b
		switch {
		case c.isXMM(0) && c.isXMM(1):
			d := c.xmm(0)
			c.writeV(0, concat(b, extract(b, d, 127, w), c.readV(1, w)))
		default:
			c.writeV(0, c.readV(1, w))
		}
	}
}

// semMovHalf is movlps/movlpd (high false) and movhps/movhpd: one qword
// between memory and a half of an xmm register.
func semMovHalf(high bool) semFunc {
	return func(c *ctx) {
		b := c.b
		if c.isXMM(0) {
			d := c.xmm(0)
			v := c.readV(1, 64)
			if high {
				c.writeV(0, concat(b, v, extract(b, d, 63, 0)))
			} else {
				c.writeV(0, concat(b, extract(b, d, 127, 64), v))
			}
			return
		}
		x := c.xmm(1)
		if high {
			c.writeV(0, extract(b, x, 127, 64))
		} else {
			c.writeV(0, extract(b, x, 63, 0))
		}
	}
}

func semMovhlps(c *ctx) {
	b := c.b
	d, s := c.xmm(0), c.xmm(1)
	c.writeV(0, concat(b, extract(b, d, 127, 64), extract(b, s, 127, 64)))
}

func semMovlhps(c *ctx) {
	b := c.b
	d, s := c.xmm(0), c.xmm(1)
	c.writeV(0, concat(b, extract(b, s, 63, 0), extract(b, d, 63, 0)))
}

func semMovddup(c *ctx) {
	v := c.readV(1, 64)
	c.writeV(0, concat(c.b, v, v))
}

func bitwise(f func(b *ir.Builder, x, y ir.Term) ir.Term) semFunc {
	return func(c *ctx) {
		c.writeV(0, f(c.b, c.xmm(0), c.readV(1, 128)))
	}
}

// lanewise applies f to each pair of lw-bit lanes of the destination and the
// source.
func lanewise(lw uint32, f func(b *ir.Builder, x, y ir.Term) ir.Term) semFunc {
	return func(c *ctx) {
		b := c.b
		xs, ys := lanes(b, c.xmm(0), lw), lanes(b, c.readV(1, 128), lw)
		for i := range xs {
			xs[i] = f(b, xs[i], ys[i])
		}
		c.writeV(0, join(b, xs))
	}
}

func laneAdd(b *ir.Builder, x, y ir.Term) ir.Term { return b.Add(x, y) }
func laneSub(b *ir.Builder, x, y ir.Term) ir.Term { return b.Sub(x, y) }
func laneMul(b *ir.Builder, x, y ir.Term) ir.Term { return b.Mul(x, y) }

func laneAbs(b *ir.Builder, _, y ir.Term) ir.Term {
	return b.Ite(b.Slt(y, b.Const(b.Width(y), 0)), b.Neg(y), y)
}

func laneAvg(b *ir.Builder, x, y ir.Term) ir.Term {
	w := b.Width(x)
	s := b.Add(b.Add(zext(b, x, w+1), zext(b, y, w+1)), b.Const(w+1, 1))
	return extract(b, s, w, 1)
}

// clamp saturates the signed value v (of any width) into [lo, hi] and
// returns its low w bits.
func clamp(b *ir.Builder, v ir.Term, lo, hi int64, w uint32) ir.Term {
	vw := b.Width(v)
	l, h := b.Const(vw, uint64(lo)), b.Const(vw, uint64(hi))
	return extract(b, b.Ite(b.Slt(v, l), l, b.Ite(b.Sgt(v, h), h, v)), w-1, 0)
}

func satRange(w uint32, signed bool) (lo, hi int64) {
	if signed {
		return -1 << (w - 1), 1<<(w-1) - 1
	}
	return 0, 1<<w - 1
}

// satArith is the saturating adds and subtracts, computed exactly two bits
// wider and clamped.
func satArith(add, signed bool) func(b *ir.Builder, x, y ir.Term) ir.Term {
	return func(b *ir.Builder, x, y ir.Term) ir.Term {
		w := b.Width(x)
		var xx, yy ir.Term
		if signed {
			xx, yy = sext(b, x, w+2), sext(b, y, w+2)
		} else {
			xx, yy = zext(b, x, w+2), zext(b, y, w+2)
		}
		var r ir.Term
		if add {
			r = b.Add(xx, yy)
		} else {
			r = b.Sub(xx, yy)
		}
		lo, hi := satRange(w, signed)
		return clamp(b, r, lo, hi, w)
	}
}

func mulHigh(signed bool) func(b *ir.Builder, x, y ir.Term) ir.Term {
	return func(b *ir.Builder, x, y ir.Term) ir.Term {
		w := b.Width(x)
		ext := zext
		if signed {
			ext = sext
		}
		return extract(b, b.Mul(ext(b, x, 2*w), ext(b, y, 2*w)), 2*w-1, w)
	}
}

// mulEven is pmuludq and pmuldq: the low dword of each qword lane,
// multiplied to 64 bits.
func mulEven(signed bool) func(b *ir.Builder, x, y ir.Term) ir.Term {
	return func(b *ir.Builder, x, y ir.Term) ir.Term {
		ext := zext
		if signed {
			ext = sext
		}
		return b.Mul(ext(b, extract(b, x, 31, 0), 64), ext(b, extract(b, y, 31, 0), 64))
	}
}

func laneMaddwd(b *ir.Builder, x, y ir.Term) ir.Term {
	p := func(hi, lo uint32) ir.Term {
		return b.Mul(sext(b, extract(b, x, hi, lo), 32), sext(b, extract(b, y, hi, lo), 32))
	}
	return b.Add(p(15, 0), p(31, 16))
}

func laneSadbw(b *ir.Builder, x, y ir.Term) ir.Term {
	sum := b.Const(64, 0)
	for i := uint32(0); i < 8; i++ {
		xi, yi := zext(b, extract(b, x, 8*i+7, 8*i), 16), zext(b, extract(b, y, 8*i+7, 8*i), 16)
		d := b.Ite(b.Ult(xi, yi), b.Sub(yi, xi), b.Sub(xi, yi))
		sum = b.Add(sum, zext(b, d, 64))
	}
	return sum
}

func laneCmp(p func(b *ir.Builder, x, y ir.Term) ir.Term) func(b *ir.Builder, x, y ir.Term) ir.Term {
	return func(b *ir.Builder, x, y ir.Term) ir.Term {
		w := b.Width(x)
		return b.Ite(p(b, x, y), b.Const(w, mask(w)), b.Const(w, 0))
	}
}

// pick keeps x where p(x, y) holds, else y: the max and min instructions.
func pick(p func(b *ir.Builder, x, y ir.Term) ir.Term) func(b *ir.Builder, x, y ir.Term) ir.Term {
	return func(b *ir.Builder, x, y ir.Term) ir.Term { return b.Ite(p(b, x, y), x, y) }
}

// vshift is the lane shifts by an immediate or by the low 64 bits of an
// xmm register or m128. Counts beyond the lane width give 0 (logical) or
// the sign (arithmetic) rather than being masked.
func vshift(lw uint32, kind shiftKind) semFunc {
	return func(c *ctx) {
		b := c.b
		var cnt ir.Term
		if imm, ok := c.arg(1).(x86asm.Imm); ok {
			cnt = b.Const(64, uint64(imm)&0xff)
		} else {
			cnt = extract(b, c.readV(1, 128), 63, 0)
		}
		big := b.Ugt(cnt, b.Const(64, uint64(lw-1)))
		if v, ok := constOf(b, cnt); ok {
			big = b.Bool(v > uint64(lw-1))
		}
		n := extract(b, cnt, lw-1, 0)
		if lw == 64 {
			n = cnt
		}
		xs := lanes(b, c.xmm(0), lw)
		for i, x := range xs {
			var r, over ir.Term
			switch kind {
			case shlKind:
				r, over = b.Shl(x, n), b.Const(lw, 0)
			case shrKind:
				r, over = b.LShr(x, n), b.Const(lw, 0)
			default:
				r, over = b.AShr(x, n), b.AShr(x, b.Const(lw, uint64(lw-1)))
			}
			switch b.Op(big) {
			case ir.OpTrue:
				xs[i] = over
			case ir.OpFalse:
				xs[i] = r
			default:
				xs[i] = b.Ite(big, over, r)
			}
		}
		c.writeV(0, join(b, xs))
	}
}

// byteShift is pslldq and psrldq: the whole register by imm bytes.
func byteShift(left bool) semFunc {
	return func(c *ctx) {
		b := c.b
		n := c.imm(1) & 0xff
		if n > 16 {
			n = 16
		}
		k := b.Const(128, n*8)
		x := c.xmm(0)
		if left {
			c.writeV(0, b.Shl(x, k))
		} else {
			c.writeV(0, b.LShr(x, k))
		}
	}
}

func semPshufd(c *ctx) {
	b := c.b
	src := lanes(b, c.readV(1, 128), 32)
	imm := c.imm(2)
	out := make([]ir.Term, 4)
	for i := range out {
		out[i] = src[imm>>(2*i)&3]
	}
	c.writeV(0, join(b, out))
}

// semPshufw is pshuflw (high false) and pshufhw: shuffle four words of one
// half, copy the other half.
func semPshufw(high bool) semFunc {
	return func(c *ctx) {
		b := c.b
		src := lanes(b, c.readV(1, 128), 16)
		imm := c.imm(2)
		out := append([]ir.Term(nil), src...)
		base := 0
		if high {
			base = 4
		}
		for i := 0; i < 4; i++ {
			out[base+i] = src[base+int(imm>>(2*i)&3)]
		}
		c.writeV(0, join(b, out))
	}
}

// semPshufb picks each destination byte by the low four bits of the
// source's byte, or zero when that byte's top bit is set.
func semPshufb(c *ctx) {
	b := c.b
	d := c.xmm(0)
	idx := lanes(b, c.readV(1, 128), 8)
	out := make([]ir.Term, 16)
	for i, k := range idx {
		sh := b.Shl(zext(b, extract(b, k, 3, 0), 128), b.Const(128, 3))
		byteV := extract(b, b.LShr(d, sh), 7, 0)
		out[i] = b.Ite(msb(b, k), b.Const(8, 0), byteV)
	}
	c.writeV(0, join(b, out))
}

func semShufps(c *ctx) {
	b := c.b
	d, s := lanes(b, c.xmm(0), 32), lanes(b, c.readV(1, 128), 32)
	imm := c.imm(2)
	c.writeV(0, join(b, []ir.Term{d[imm&3], d[imm>>2&3], s[imm>>4&3], s[imm>>6&3]}))
}

func semShufpd(c *ctx) {
	b := c.b
	d, s := lanes(b, c.xmm(0), 64), lanes(b, c.readV(1, 128), 64)
	imm := c.imm(2)
	c.writeV(0, join(b, []ir.Term{d[imm&1], s[imm>>1&1]}))
}

// semPalignr shifts the 256-bit dst:src right by imm bytes and keeps the
// low 128 bits.
func semPalignr(c *ctx) {
	b := c.b
	d, s := c.xmm(0), c.readV(1, 128)
	n := c.imm(2) & 0xff
	if n > 32 {
		n = 32
	}
	cat := concat(b, d, s)
	c.writeV(0, extract(b, b.LShr(cat, b.Const(256, n*8)), 127, 0))
}

// unpack interleaves the low (or high) halves of the destination and the
// source, destination lanes first.
func unpack(lw uint32, high bool) semFunc {
	return func(c *ctx) {
		b := c.b
		d, s := lanes(b, c.xmm(0), lw), lanes(b, c.readV(1, 128), lw)
		half := len(d) / 2
		off := 0
		if high {
			off = half
		}
		out := make([]ir.Term, 0, len(d))
		for i := 0; i < half; i++ {
			out = append(out, d[off+i], s[off+i])
		}
		c.writeV(0, join(b, out))
	}
}

// pack narrows the signed lw-bit lanes of the destination then the source
// to lw/2 bits with signed or unsigned saturation.
func pack(lw uint32, signed bool) semFunc {
	return func(c *ctx) {
		b := c.b
		all := append(lanes(b, c.xmm(0), lw), lanes(b, c.readV(1, 128), lw)...)
		lo, hi := satRange(lw/2, signed)
		for i, x := range all {
			all[i] = clamp(b, x, lo, hi, lw/2)
		}
		c.writeV(0, join(b, all))
	}
}

// extractLane is pextrb/w/d/q and extractps: lane imm of the source into a
// general register (zero-extended) or memory.
func extractLane(lw uint32) semFunc {
	return func(c *ctx) {
		b := c.b
		n := 128 / lw
		k := uint32(c.imm(2)) % n
		v := extract(b, c.xmm(1), k*lw+lw-1, k*lw)
		c.writeV(0, v)
	}
}

// insertLane is pinsrb/w/d/q: the low lw bits of a register or lw bits of
// memory into lane imm.
func insertLane(lw uint32) semFunc {
	return func(c *ctx) {
		b := c.b
		n := 128 / lw
		k := int(uint32(c.imm(2)) % n)
		ls := lanes(b, c.xmm(0), lw)
		ls[k] = c.readV(1, lw)
		c.writeV(0, join(b, ls))
	}
}

// blendVar is pblendvb, blendvps and blendvpd: each lane from the source
// where the top bit of xmm0's lane is set.
func blendVar(lw uint32) semFunc {
	return func(c *ctx) {
		b := c.b
		d, s := lanes(b, c.xmm(0), lw), lanes(b, c.readV(1, 128), lw)
		m := lanes(b, c.s.XMM[0], lw)
		for i := range d {
			d[i] = b.Ite(msb(b, m[i]), s[i], d[i])
		}
		c.writeV(0, join(b, d))
	}
}

func blendImm(lw uint32) semFunc {
	return func(c *ctx) {
		b := c.b
		d, s := lanes(b, c.xmm(0), lw), lanes(b, c.readV(1, 128), lw)
		imm := c.imm(2)
		for i := range d {
			if imm>>i&1 == 1 {
				d[i] = s[i]
			}
		}
		c.writeV(0, join(b, d))
	}
}

// extendLanes is pmovzx and pmovsx: the low lanes of the source widened.
func extendLanes(from, to uint32, signed bool) semFunc {
	return func(c *ctx) {
		b := c.b
		n := 128 / to
		src := lanes(b, c.readV(1, n*from), from)
		for i, x := range src {
			if signed {
				src[i] = sext(b, x, to)
			} else {
				src[i] = zext(b, x, to)
			}
		}
		c.writeV(0, join(b, src))
	}
}

// moveMask gathers the top bit of every lane into a general register.
func moveMask(lw uint32) semFunc {
	return func(c *ctx) {
		b := c.b
		ls := lanes(b, c.xmm(1), lw)
		bits := make([]ir.Term, len(ls))
		for i, x := range ls {
			bits[i] = extract(b, x, lw-1, lw-1)
		}
		c.writeV(0, join(b, bits))
	}
}

// semPtest sets ZF when dst & src is zero and CF when ^dst & src is; the
// other flags are cleared.
func semPtest(c *ctx) {
	b := c.b
	d, s := c.xmm(0), c.readV(1, 128)
	zero := b.Const(128, 0)
	f := b.False()
	c.s.setFlagsExplicit(b, [numFlags]ir.Term{
		CF: b.Eq(b.BVAnd(b.BVNot(d), s), zero), PF: f, AF: f,
		ZF: b.Eq(b.BVAnd(d, s), zero), SF: f, OF: f,
	}, 0)
}
