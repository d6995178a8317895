package x86

import (
	"eqc/ir"

	"golang.org/x/arch/x86/x86asm"
)

// The integer instructions of compiled C. One line per mnemonic; the
// semantics follow the Intel SDM vol. 2 operation sections, with every flag
// the SDM calls undefined left as a fresh variable.
var intSems = map[x86asm.Op]semFunc{
	x86asm.MOV:     semMov,
	x86asm.MOVZX:   semMovzx,
	x86asm.MOVSX:   semMovsx,
	x86asm.MOVSXD:  semMovsx,
	x86asm.LEA:     semLea,
	x86asm.XCHG:    semXchg,
	x86asm.ADD:     arith(fopAdd, false, true),
	x86asm.ADC:     arith(fopAdd, true, true),
	x86asm.SUB:     arith(fopSub, false, true),
	x86asm.SBB:     arith(fopSub, true, true),
	x86asm.CMP:     arith(fopSub, false, false),
	x86asm.AND:     logic(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVAnd(x, y) }, true),
	x86asm.OR:      logic(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVOr(x, y) }, true),
	x86asm.XOR:     logic(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVXor(x, y) }, true),
	x86asm.TEST:    logic(func(b *ir.Builder, x, y ir.Term) ir.Term { return b.BVAnd(x, y) }, false),
	x86asm.NOT:     semNot,
	x86asm.NEG:     semNeg,
	x86asm.INC:     incDec(fopAdd),
	x86asm.DEC:     incDec(fopSub),
	x86asm.IMUL:    semImul,
	x86asm.MUL:     semMul,
	x86asm.DIV:     divide(false),
	x86asm.IDIV:    divide(true),
	x86asm.SHL:     shift(shlKind),
	x86asm.SHR:     shift(shrKind),
	x86asm.SAR:     shift(sarKind),
	x86asm.ROL:     rotate(true),
	x86asm.ROR:     rotate(false),
	x86asm.RCL:     rotateCarry(true),
	x86asm.RCR:     rotateCarry(false),
	x86asm.SHLD:    doubleShift(true),
	x86asm.SHRD:    doubleShift(false),
	x86asm.BSWAP:   semBswap,
	x86asm.BT:      bitTest(nil),
	x86asm.BTS:     bitTest(func(b *ir.Builder, x, m ir.Term) ir.Term { return b.BVOr(x, m) }),
	x86asm.BTR:     bitTest(func(b *ir.Builder, x, m ir.Term) ir.Term { return b.BVAnd(x, b.BVNot(m)) }),
	x86asm.BTC:     bitTest(func(b *ir.Builder, x, m ir.Term) ir.Term { return b.BVXor(x, m) }),
	x86asm.BSF:     bitScan(false),
	x86asm.BSR:     bitScan(true),
	x86asm.TZCNT:   bitCount(tzcntKind),
	x86asm.LZCNT:   bitCount(lzcntKind),
	x86asm.POPCNT:  bitCount(popcntKind),
	x86asm.CBW:     extendAcc(8),
	x86asm.CWDE:    extendAcc(16),
	x86asm.CDQE:    extendAcc(32),
	x86asm.CWD:     signToDx(16),
	x86asm.CDQ:     signToDx(32),
	x86asm.CQO:     signToDx(64),
	x86asm.CMPXCHG: semCmpxchg,
	x86asm.XADD:    semXadd,
	x86asm.CLC:     setCF(func(b *ir.Builder, _ ir.Term) ir.Term { return b.False() }),
	x86asm.STC:     setCF(func(b *ir.Builder, _ ir.Term) ir.Term { return b.True() }),
	x86asm.CMC:     setCF(func(b *ir.Builder, cf ir.Term) ir.Term { return b.Not(cf) }),
	x86asm.CLD:     semNop, // DF is always clear in the model
	x86asm.LAHF:    semLahf,
	x86asm.SAHF:    semSahf,

	x86asm.SETO: semSetcc, x86asm.SETNO: semSetcc, x86asm.SETB: semSetcc, x86asm.SETAE: semSetcc,
	x86asm.SETE: semSetcc, x86asm.SETNE: semSetcc, x86asm.SETBE: semSetcc, x86asm.SETA: semSetcc,
	x86asm.SETS: semSetcc, x86asm.SETNS: semSetcc, x86asm.SETP: semSetcc, x86asm.SETNP: semSetcc,
	x86asm.SETL: semSetcc, x86asm.SETGE: semSetcc, x86asm.SETLE: semSetcc, x86asm.SETG: semSetcc,

	x86asm.CMOVO: semCmov, x86asm.CMOVNO: semCmov, x86asm.CMOVB: semCmov, x86asm.CMOVAE: semCmov,
	x86asm.CMOVE: semCmov, x86asm.CMOVNE: semCmov, x86asm.CMOVBE: semCmov, x86asm.CMOVA: semCmov,
	x86asm.CMOVS: semCmov, x86asm.CMOVNS: semCmov, x86asm.CMOVP: semCmov, x86asm.CMOVNP: semCmov,
	x86asm.CMOVL: semCmov, x86asm.CMOVGE: semCmov, x86asm.CMOVLE: semCmov, x86asm.CMOVG: semCmov,

	x86asm.JO: semJcc, x86asm.JNO: semJcc, x86asm.JB: semJcc, x86asm.JAE: semJcc,
	x86asm.JE: semJcc, x86asm.JNE: semJcc, x86asm.JBE: semJcc, x86asm.JA: semJcc,
	x86asm.JS: semJcc, x86asm.JNS: semJcc, x86asm.JP: semJcc, x86asm.JNP: semJcc,
	x86asm.JL: semJcc, x86asm.JGE: semJcc, x86asm.JLE: semJcc, x86asm.JG: semJcc,
	x86asm.JRCXZ: semJrcxz, x86asm.JECXZ: semJrcxz,

	x86asm.JMP:   semJmp,
	x86asm.CALL:  semCall,
	x86asm.RET:   semRet,
	x86asm.PUSH:  semPush,
	x86asm.POP:   semPop,
	x86asm.LEAVE: semLeave,

	x86asm.NOP:         semNop,
	x86asm.PAUSE:       semNop,
	x86asm.LFENCE:      semNop, // fences order memory between threads only
	x86asm.MFENCE:      semNop,
	x86asm.SFENCE:      semNop,
	x86asm.PREFETCHNTA: semNop,
	x86asm.PREFETCHT0:  semNop,
	x86asm.PREFETCHT1:  semNop,
	x86asm.PREFETCHT2:  semNop,
	x86asm.PREFETCHW:   semNop,
	x86asm.UD1:         semTrap, // clang's -fsanitize-trap checks: the check kind in the displacement
	x86asm.UD2:         semTrap,
	x86asm.INT:         semTrap,
	x86asm.HLT:         semTrap,

	x86asm.STOSB: stringOp(false, 1), x86asm.STOSW: stringOp(false, 2),
	x86asm.STOSD: stringOp(false, 4), x86asm.STOSQ: stringOp(false, 8),
	x86asm.MOVSB: stringOp(true, 1), x86asm.MOVSW: stringOp(true, 2),
	x86asm.MOVSD: stringOp(true, 4), x86asm.MOVSQ: stringOp(true, 8),
}

func semNop(c *ctx) {}

func semTrap(c *ctx) {
	c.eff.Kind = FlowTrap
	c.eff.Target = c.b.Const(64, c.pc)
	c.fault(c.b.True())
}

func semMov(c *ctx) {
	w := c.width(0)
	if w == 0 || w > 64 {
		c.unsupported("operand size")
	}
	if w2 := c.width(1); w2 != 0 && w2 != w {
		c.unsupported("moves between %d and %d bits", w, w2) // segment and control registers
	}
	c.write(0, c.read(1, w))
}

func semMovzx(c *ctx) { c.write(0, zext(c.b, c.read(1, c.width(1)), c.width(0))) }
func semMovsx(c *ctx) { c.write(0, sext(c.b, c.read(1, c.width(1)), c.width(0))) }

func semLea(c *ctx) {
	m, ok := c.arg(1).(x86asm.Mem)
	if !ok {
		c.unsupported("operand")
	}
	a := c.addr(m)
	c.write(0, extract(c.b, a, c.width(0)-1, 0))
}

func semXchg(c *ctx) {
	w := c.width(0)
	x, y := c.read(0, w), c.read(1, w)
	c.write(1, x)
	c.write(0, y)
}

// arith is add, adc, sub, sbb and cmp: carry says the carry flag comes in,
// store says the result is written back.
func arith(op flagOp, carry, store bool) semFunc {
	return func(c *ctx) {
		b := c.b
		w := c.width(0)
		x, y := c.read(0, w), c.read(1, w)
		cin := ir.NoTerm
		if carry {
			cin = c.s.Flag(b, CF)
		}
		var r ir.Term
		if op == fopAdd {
			r = b.Add(x, y)
			if carry {
				r = b.Add(r, boolToBV(b, cin, w))
			}
		} else {
			r = b.Sub(x, y)
			if carry {
				r = b.Sub(r, boolToBV(b, cin, w))
			}
		}
		if store {
			c.write(0, r)
		}
		c.s.setFlagOp(b, op, x, y, r, cin, allFlags, 0, 0)
	}
}

// logic is and, or, xor and test: CF and OF clear, AF undefined.
func logic(f func(b *ir.Builder, x, y ir.Term) ir.Term, store bool) semFunc {
	return func(c *ctx) {
		b := c.b
		w := c.width(0)
		x, y := c.read(0, w), c.read(1, w)
		r := f(b, x, y)
		if store {
			c.write(0, r)
		}
		c.s.setFlagOp(b, fopLogic, x, y, r, ir.NoTerm, allFlags&^bit(AF), 0, bit(AF))
	}
}

func semNot(c *ctx) {
	w := c.width(0)
	c.write(0, c.b.BVNot(c.read(0, w)))
}

func semNeg(c *ctx) {
	b := c.b
	w := c.width(0)
	x := c.read(0, w)
	zero := b.Const(w, 0)
	r := b.Neg(x)
	c.write(0, r)
	// neg is 0 − x for every flag: CF is x ≠ 0, OF is x = INT_MIN.
	c.s.setFlagOp(b, fopSub, zero, x, r, ir.NoTerm, allFlags, 0, 0)
}

// incDec is inc and dec: add or subtract 1, leaving CF alone.
func incDec(op flagOp) semFunc {
	return func(c *ctx) {
		b := c.b
		w := c.width(0)
		x := c.read(0, w)
		one := b.Const(w, 1)
		var r ir.Term
		if op == fopAdd {
			r = b.Add(x, one)
		} else {
			r = b.Sub(x, one)
		}
		c.write(0, r)
		c.s.setFlagOp(b, op, x, one, r, ir.NoTerm, allFlags&^bit(CF), bit(CF), 0)
	}
}

// mulFlags sets CF = OF = overflow; SF, ZF, AF and PF are undefined.
func (c *ctx) mulFlags(overflow ir.Term) {
	var set [numFlags]ir.Term
	set[CF], set[OF] = overflow, overflow
	c.s.setFlagsExplicit(c.b, set, 0)
}

// accLo and accHi are the accumulator halves of one-operand multiply and
// divide at width w: al/ah for bytes, rax/rdx sized otherwise.
func accRegs(w uint32) (lo, hi x86asm.Reg) {
	switch w {
	case 8:
		return x86asm.AL, x86asm.AH
	case 16:
		return x86asm.AX, x86asm.DX
	case 32:
		return x86asm.EAX, x86asm.EDX
	}
	return x86asm.RAX, x86asm.RDX
}

func semMul(c *ctx) {
	b, s := c.b, c.s
	w := c.width(0)
	lo, hi := accRegs(w)
	p := b.Mul(zext(b, s.Reg(b, lo), 2*w), zext(b, c.read(0, w), 2*w))
	pHi := extract(b, p, 2*w-1, w)
	if w == 8 {
		s.SetReg(b, x86asm.AX, p)
	} else {
		s.SetReg(b, lo, extract(b, p, w-1, 0))
		s.SetReg(b, hi, pHi)
	}
	c.mulFlags(b.Not(b.Eq(pHi, b.Const(w, 0))))
}

func semImul(c *ctx) {
	b, s := c.b, c.s
	w := c.width(0)
	switch c.nargs() {
	case 1:
		lo, hi := accRegs(w)
		p := b.Mul(sext(b, s.Reg(b, lo), 2*w), sext(b, c.read(0, w), 2*w))
		pLo := extract(b, p, w-1, 0)
		if w == 8 {
			s.SetReg(b, x86asm.AX, p)
		} else {
			s.SetReg(b, lo, pLo)
			s.SetReg(b, hi, extract(b, p, 2*w-1, w))
		}
		c.mulFlags(b.Not(b.Eq(sext(b, pLo, 2*w), p)))
	case 2, 3:
		x, y := c.read(0, w), c.read(1, w)
		if c.nargs() == 3 {
			x, y = c.read(1, w), c.read(2, w)
		}
		p := b.Mul(sext(b, x, 2*w), sext(b, y, 2*w))
		pLo := extract(b, p, w-1, 0)
		c.write(0, pLo)
		c.mulFlags(b.Not(b.Eq(sext(b, pLo, 2*w), p)))
	default:
		c.unsupported("operands")
	}
}

// divide is div and idiv. The quotient must fit the destination and the
// divisor must not be 0, else the CPU raises #DE: that is Effect.Fault,
// and the values written are then meaningless.
func divide(signed bool) semFunc {
	return func(c *ctx) {
		b, s := c.b, c.s
		w := c.width(0)
		lo, hi := accRegs(w)
		var n ir.Term // the 2w-bit dividend
		if w == 8 {
			n = s.Reg(b, x86asm.AX)
		} else {
			n = concat(b, s.Reg(b, hi), s.Reg(b, lo))
		}
		d := c.read(0, w)
		var q, r, fits ir.Term
		if signed {
			d2 := sext(b, d, 2*w)
			q, r = b.SDiv(n, d2), b.SRem(n, d2)
			fits = b.Eq(sext(b, extract(b, q, w-1, 0), 2*w), q)
		} else {
			d2 := zext(b, d, 2*w)
			q, r = b.UDiv(n, d2), b.URem(n, d2)
			fits = b.Ule(q, b.Const(2*w, mask(w)))
		}
		c.fault(b.Or(b.Eq(d, b.Const(w, 0)), b.Not(fits)))
		qLo, rLo := extract(b, q, w-1, 0), extract(b, r, w-1, 0)
		if w == 8 {
			s.SetReg(b, x86asm.AX, concat(b, rLo, qLo))
		} else {
			s.SetReg(b, lo, qLo)
			s.SetReg(b, hi, rLo)
		}
		s.setFlagsExplicit(b, [numFlags]ir.Term{}, 0)
	}
}

type shiftKind uint8

const (
	shlKind shiftKind = iota
	shrKind
	sarKind
)

// countMask is how the CPU masks shift and rotate counts: 6 bits for 64-bit
// operands, 5 otherwise.
func countMask(w uint32) uint64 {
	if w == 64 {
		return 63
	}
	return 31
}

// shiftCount reads the count operand i masked, as w bits.
func (c *ctx) shiftCount(i int, w uint32) ir.Term {
	b := c.b
	var cnt ir.Term
	if imm, ok := c.arg(i).(x86asm.Imm); ok {
		return b.Const(w, uint64(imm)&countMask(w))
	}
	cnt = c.read(i, 8)
	cnt = b.BVAnd(cnt, b.Const(8, countMask(w)))
	if w < 8 {
		return extract(b, cnt, w-1, 0)
	}
	return zext(b, cnt, w)
}

// flagUpdate merges the flags of an instruction whose count may be zero:
// where count is zero nothing changes, else v (NoTerm: undefined).
type flagUpdate struct {
	c     *ctx
	zero  ir.Term // the count is zero
	known bool    // zero is a constant
	isZ   bool    // its value when known
	vals  [numFlags]ir.Term
}

func (c *ctx) countUpdate(cnt ir.Term) *flagUpdate {
	b := c.b
	u := &flagUpdate{c: c}
	if v, ok := constOf(b, cnt); ok {
		u.known, u.isZ = true, v == 0
	} else {
		u.zero = b.Eq(cnt, b.Const(b.Width(cnt), 0))
	}
	return u
}

// commit installs the flags: unchanged where the count is 0, vals
// elsewhere, fresh variables for vals left NoTerm among those in touched.
func (u *flagUpdate) commit(touched flagMask) {
	b, s := u.c.b, u.c.s
	if u.known && u.isZ {
		return
	}
	var set [numFlags]ir.Term
	for f := Flag(0); f < numFlags; f++ {
		if touched&bit(f) == 0 {
			continue
		}
		v := u.vals[f]
		if v == ir.NoTerm {
			v = s.Fresh(b, ir.BoolSort)
		}
		if !u.known {
			v = b.Ite(u.zero, s.Flag(b, f), v)
		}
		set[f] = v
	}
	s.setFlagsExplicit(b, set, allFlags&^touched)
}

// orUndef returns v where cond holds and a fresh variable elsewhere, folding
// constant conditions.
func (c *ctx) orUndef(cond, v ir.Term) ir.Term {
	b := c.b
	switch b.Op(cond) {
	case ir.OpTrue:
		return v
	case ir.OpFalse:
		return ir.NoTerm
	}
	return b.Ite(cond, v, c.s.Fresh(b, b.Sort(v)))
}

// eqConst is t = k, folded when t is a constant.
func eqConst(b *ir.Builder, t ir.Term, k uint64) ir.Term {
	if v, ok := constOf(b, t); ok {
		return b.Bool(v == k&mask(b.Width(t)))
	}
	return b.Eq(t, b.Const(b.Width(t), k))
}

func uleConst(b *ir.Builder, t ir.Term, k uint64) ir.Term {
	if v, ok := constOf(b, t); ok {
		return b.Bool(v <= k)
	}
	return b.Ule(t, b.Const(b.Width(t), k))
}

// shift is shl, shr and sar by an immediate, cl or 1.
func shift(kind shiftKind) semFunc {
	return func(c *ctx) {
		b := c.b
		w := c.width(0)
		x := c.read(0, w)
		n := c.shiftCount(1, w)
		var r ir.Term
		switch kind {
		case shlKind:
			r = b.Shl(x, n)
		case shrKind:
			r = b.LShr(x, n)
		default:
			r = b.AShr(x, n)
		}
		c.write(0, r)
		u := c.countUpdate(n)
		if u.known && u.isZ {
			return
		}
		one := b.Const(w, 1)
		nm1 := b.Sub(n, one)
		if v, ok := constOf(b, n); ok {
			nm1 = b.Const(w, v-1)
		}
		// CF is the last bit shifted out; the SDM leaves it undefined for
		// shl and shr by at least the operand size (possible for 8- and
		// 16-bit operands, whose counts are masked to 5 bits).
		var cf ir.Term
		switch kind {
		case shlKind:
			cf = c.orUndef(uleConst(b, n, uint64(w)-1), msb(b, b.Shl(x, nm1)))
		case shrKind:
			cf = c.orUndef(uleConst(b, n, uint64(w)-1), isOne(b, extract(b, b.LShr(x, nm1), 0, 0)))
		default:
			cf = isOne(b, extract(b, b.AShr(x, nm1), 0, 0))
		}
		u.vals[CF] = cf
		// OF is defined for 1-bit shifts only.
		var of ir.Term
		switch kind {
		case shlKind:
			if cf != ir.NoTerm {
				of = b.Xor(msb(b, r), cf)
			}
		case shrKind:
			of = msb(b, x)
		default:
			of = b.False()
		}
		if of != ir.NoTerm {
			u.vals[OF] = c.orUndef(eqConst(b, n, 1), of)
		}
		u.vals[ZF] = b.Eq(r, b.Const(w, 0))
		u.vals[SF] = msb(b, r)
		u.vals[PF] = parity(b, r)
		u.commit(allFlags)
	}
}

// rotate is rol and ror. Only CF and OF change, and only for a non-zero
// masked count; OF is defined for 1-bit rotates only.
func rotate(left bool) semFunc {
	return func(c *ctx) {
		b := c.b
		w := c.width(0)
		x := c.read(0, w)
		n := c.shiftCount(1, w)
		var r ir.Term
		if left {
			r = b.Rotl(x, n)
		} else {
			r = b.Rotr(x, n)
		}
		c.write(0, r)
		u := c.countUpdate(n)
		if u.known && u.isZ {
			return
		}
		if left {
			cf := isOne(b, extract(b, r, 0, 0))
			u.vals[CF] = cf
			u.vals[OF] = c.orUndef(eqConst(b, n, 1), b.Xor(msb(b, r), cf))
		} else {
			u.vals[CF] = msb(b, r)
			u.vals[OF] = c.orUndef(eqConst(b, n, 1), b.Xor(msb(b, r), isOne(b, extract(b, r, w-2, w-2))))
		}
		u.commit(bit(CF) | bit(OF))
	}
}

// rotateCarry is rcl and rcr: a rotation of the w+1 bits CF:dst, by the
// masked count modulo w+1 (the rotate ops of ir take counts modulo the
// width). Only CF and OF change; OF is defined for 1-bit rotates only.
func rotateCarry(left bool) semFunc {
	return func(c *ctx) {
		b := c.b
		w := c.width(0)
		x := c.read(0, w)
		n := c.shiftCount(1, w)
		cf := c.s.Flag(b, CF)
		t := concat(b, boolToBV(b, cf, 1), x)
		n1 := zext(b, n, w+1)
		var rt ir.Term
		if left {
			rt = b.Rotl(t, n1)
		} else {
			rt = b.Rotr(t, n1)
		}
		r := extract(b, rt, w-1, 0)
		c.write(0, r)
		u := c.countUpdate(n)
		if u.known && u.isZ {
			return
		}
		newCF := isOne(b, extract(b, rt, w, w))
		u.vals[CF] = newCF
		if left {
			u.vals[OF] = c.orUndef(eqConst(b, n, 1), b.Xor(msb(b, r), newCF))
		} else {
			u.vals[OF] = c.orUndef(eqConst(b, n, 1), b.Xor(msb(b, r), isOne(b, extract(b, r, w-2, w-2))))
		}
		u.commit(bit(CF) | bit(OF))
	}
}

// doubleShift is shld and shrd: dst shifted with bits of src coming in.
// A count above the operand size (16-bit operands only) leaves the result
// and flags undefined.
func doubleShift(left bool) semFunc {
	return func(c *ctx) {
		b := c.b
		w := c.width(0)
		x, y := c.read(0, w), c.read(1, w)
		n := c.shiftCount(2, w)
		n2 := zext(b, n, 2*w)
		var r, cf ir.Term
		one := b.Const(2*w, 1)
		if left {
			cat := concat(b, x, y)
			r = extract(b, b.Shl(cat, n2), 2*w-1, w)
			cf = msb(b, b.Shl(cat, b.Sub(n2, one)))
		} else {
			cat := concat(b, y, x)
			r = extract(b, b.LShr(cat, n2), w-1, 0)
			cf = isOne(b, extract(b, b.LShr(cat, b.Sub(n2, one)), 0, 0))
		}
		inRange := uleConst(b, n, uint64(w))
		if rr := c.orUndef(inRange, r); rr != ir.NoTerm {
			r = rr
		} else {
			r = c.s.Fresh(b, ir.BVSort(w))
		}
		u := c.countUpdate(n)
		// A zero count leaves the destination as it was, yet a 32-bit
		// register destination is still written (and zero-extended).
		if !u.known {
			r = b.Ite(u.zero, x, r)
		} else if u.isZ {
			r = x
		}
		c.write(0, r)
		if u.known && u.isZ {
			return
		}
		u.vals[CF] = c.orUndef(inRange, cf)
		u.vals[OF] = c.orUndef(b.And(inRange, eqConst(b, n, 1)), b.Xor(msb(b, r), msb(b, x)))
		u.vals[ZF] = c.orUndef(inRange, b.Eq(r, b.Const(w, 0)))
		u.vals[SF] = c.orUndef(inRange, msb(b, r))
		u.vals[PF] = c.orUndef(inRange, parity(b, r))
		u.commit(allFlags)
	}
}

func semBswap(c *ctx) {
	b := c.b
	w := c.width(0)
	if w == 16 {
		// The SDM leaves bswap of a 16-bit register undefined.
		c.write(0, c.s.Fresh(b, ir.BVSort(16)))
		return
	}
	x := c.read(0, w)
	r := extract(b, x, 7, 0)
	for i := uint32(1); i < w/8; i++ {
		r = concat(b, r, extract(b, x, 8*i+7, 8*i))
	}
	c.write(0, r)
}

// bitTest is bt, bts, btr and btc (f nil for bt). With a register bit
// offset and a memory operand the offset is signed and may reach outside the
// addressed operand; with an immediate or a register operand it is taken
// modulo the operand size.
func bitTest(f func(b *ir.Builder, x, m ir.Term) ir.Term) semFunc {
	return func(c *ctx) {
		b := c.b
		w := c.width(0)
		var off ir.Term // bit offset within the operand, w bits
		if c.isMem(0) {
			if _, isImm := c.arg(1).(x86asm.Imm); !isImm {
				m := c.arg(0).(x86asm.Mem)
				base := c.addr(m)
				k := c.read(1, w)
				// byte displacement: (k SAR log2 w) * (w/8)
				words := b.AShr(k, b.Const(w, uint64(log2(w))))
				disp := sext(b, b.Shl(words, b.Const(w, uint64(log2(w/8)))), 64)
				a := b.Add(base, disp)
				off = b.BVAnd(k, b.Const(w, uint64(w-1)))
				x := b.Select(c.s.Mem, a, w/8)
				mk := b.Shl(b.Const(w, 1), off)
				cf := isOne(b, extract(b, b.LShr(x, off), 0, 0))
				if f != nil {
					c.s.Mem = b.Store(c.s.Mem, a, w/8, f(b, x, mk))
				}
				c.btFlags(cf)
				return
			}
		}
		if imm, isImm := c.arg(1).(x86asm.Imm); isImm {
			off = b.Const(w, uint64(imm)&uint64(w-1))
		} else {
			off = b.BVAnd(c.read(1, w), b.Const(w, uint64(w-1)))
		}
		x := c.read(0, w)
		cf := isOne(b, extract(b, b.LShr(x, off), 0, 0))
		if f != nil {
			c.write(0, f(b, x, b.Shl(b.Const(w, 1), off)))
		}
		c.btFlags(cf)
	}
}

// btFlags: CF is the bit, ZF unchanged, OF SF AF PF undefined.
func (c *ctx) btFlags(cf ir.Term) {
	var set [numFlags]ir.Term
	set[CF] = cf
	c.s.setFlagsExplicit(c.b, set, bit(ZF))
}

// cttz counts the trailing zeros of x by halving: w for x = 0.
func cttz(b *ir.Builder, x ir.Term) ir.Term {
	w := b.Width(x)
	n := b.Const(w, 0)
	for k := w / 2; k >= 1; k /= 2 {
		z := b.Eq(extract(b, x, k-1, 0), b.Const(k, 0))
		n = b.Ite(z, b.Add(n, b.Const(w, uint64(k))), n)
		x = b.Ite(z, b.LShr(x, b.Const(w, uint64(k))), x)
	}
	zero := b.Eq(x, b.Const(w, 0)) // only when the original x was 0
	return b.Ite(zero, b.Const(w, uint64(w)), n)
}

// ctlz counts the leading zeros of x: w for x = 0.
func ctlz(b *ir.Builder, x ir.Term) ir.Term {
	w := b.Width(x)
	n := b.Const(w, 0)
	for k := w / 2; k >= 1; k /= 2 {
		z := b.Eq(extract(b, x, w-1, w-k), b.Const(k, 0))
		n = b.Ite(z, b.Add(n, b.Const(w, uint64(k))), n)
		x = b.Ite(z, b.Shl(x, b.Const(w, uint64(k))), x)
	}
	zero := b.Eq(x, b.Const(w, 0))
	return b.Ite(zero, b.Const(w, uint64(w)), n)
}

// popcount sums bits in a tree of widening fields.
func popcount(b *ir.Builder, x ir.Term) ir.Term {
	w := b.Width(x)
	for s := uint32(1); s < w; s *= 2 {
		var m uint64
		for i := uint32(0); i < w; i += 2 * s {
			m |= mask(s) << i
		}
		mk := b.Const(w, m)
		x = b.Add(b.BVAnd(x, mk), b.BVAnd(b.LShr(x, b.Const(w, uint64(s))), mk))
	}
	return x
}

// bitScan is bsf and bsr. A zero source sets ZF and leaves the destination
// undefined (AMD documents it unchanged, Intel undefined): the whole
// register becomes a fresh value then.
func bitScan(reverse bool) semFunc {
	return func(c *ctx) {
		b, s := c.b, c.s
		w := c.width(0)
		x := c.read(1, w)
		var r ir.Term
		if reverse {
			r = b.Sub(b.Const(w, uint64(w-1)), ctlz(b, x))
		} else {
			r = cttz(b, x)
		}
		isZero := b.Eq(x, b.Const(w, 0))
		reg, isReg := c.arg(0).(x86asm.Reg)
		if !isReg {
			c.unsupported("operand")
		}
		ri := lookupReg(reg)
		s.SetReg(b, reg, r)
		s.GPR[ri.index] = b.Ite(isZero, s.Fresh(b, ir.BVSort(64)), s.GPR[ri.index])
		var set [numFlags]ir.Term
		set[ZF] = isZero
		s.setFlagsExplicit(b, set, 0)
	}
}

type countKind uint8

const (
	tzcntKind countKind = iota
	lzcntKind
	popcntKind
)

// bitCount is tzcnt, lzcnt (CF: source zero, ZF: result zero, the rest
// undefined) and popcnt (ZF: source zero, the rest clear).
func bitCount(kind countKind) semFunc {
	return func(c *ctx) {
		b := c.b
		w := c.width(0)
		x := c.read(1, w)
		var set [numFlags]ir.Term
		var r ir.Term
		srcZero := b.Eq(x, b.Const(w, 0))
		switch kind {
		case tzcntKind, lzcntKind:
			if kind == tzcntKind {
				r = cttz(b, x)
			} else {
				r = ctlz(b, x)
			}
			set[CF] = srcZero
			set[ZF] = b.Eq(r, b.Const(w, 0))
		case popcntKind:
			r = popcount(b, x)
			f := b.False()
			set = [numFlags]ir.Term{f, f, f, srcZero, f, f}
		}
		c.write(0, r)
		c.s.setFlagsExplicit(b, set, 0)
	}
}

// extendAcc is cbw, cwde and cdqe: the accumulator's low half sign-extended
// into the whole.
func extendAcc(from uint32) semFunc {
	return func(c *ctx) {
		b, s := c.b, c.s
		src, _ := accRegs(from)
		dst, _ := accRegs(2 * from)
		s.SetReg(b, dst, sext(b, s.Reg(b, src), 2*from))
	}
}

// signToDx is cwd, cdq and cqo: rdx (sized) filled with rax's sign.
func signToDx(w uint32) semFunc {
	return func(c *ctx) {
		b, s := c.b, c.s
		lo, hi := accRegs(w)
		s.SetReg(b, hi, b.AShr(s.Reg(b, lo), b.Const(w, uint64(w-1))))
	}
}

// semCmpxchg compares the accumulator with the destination: equal, the
// source is stored; otherwise the destination is loaded into the
// accumulator. A memory destination is written either way (with its own
// value when they differ). A 32-bit register destination that is not
// written is where vendors part: the SDM's pseudo-code writes it back
// (zero-extending), AMD CPUs leave it alone, so its upper half is
// undefined then. The accumulator changes only when they differ.
func semCmpxchg(c *ctx) {
	b, s := c.b, c.s
	w := c.width(0)
	acc, _ := accRegs(w)
	d := c.read(0, w)
	a := s.Reg(b, acc)
	src := c.read(1, w)
	eq := b.Eq(a, d)
	if reg, ok := c.arg(0).(x86asm.Reg); ok && w == 32 {
		i := lookupReg(reg).index
		old := s.GPR[i]
		s.SetReg(b, reg, src)
		s.GPR[i] = b.Ite(eq, s.GPR[i], concat(b, s.Fresh(b, ir.BVSort(32)), extract(b, old, 31, 0)))
	} else {
		c.write(0, b.Ite(eq, src, d))
	}
	afterDst := s.GPR[RAX] // the destination may be the accumulator itself
	s.SetReg(b, acc, d)
	s.GPR[RAX] = b.Ite(eq, afterDst, s.GPR[RAX])
	s.setFlagOp(b, fopSub, a, d, b.Sub(a, d), ir.NoTerm, allFlags, 0, 0)
}

func semXadd(c *ctx) {
	b := c.b
	w := c.width(0)
	d, src := c.read(0, w), c.read(1, w)
	r := b.Add(d, src)
	c.write(1, d)
	c.write(0, r)
	c.s.setFlagOp(b, fopAdd, d, src, r, ir.NoTerm, allFlags, 0, 0)
}

func setCF(f func(b *ir.Builder, cf ir.Term) ir.Term) semFunc {
	return func(c *ctx) {
		var set [numFlags]ir.Term
		set[CF] = f(c.b, c.s.Flag(c.b, CF))
		c.s.setFlagsExplicit(c.b, set, allFlags&^bit(CF))
	}
}

// lahfOrder is the bit of AH (from 0) each flag goes to; bit 1 is 1.
var lahfBits = [numFlags]uint32{0, 2, 4, 6, 7, 99}

func semLahf(c *ctx) {
	b, s := c.b, c.s
	r := b.Const(8, 2)
	for f := Flag(0); f < numFlags; f++ {
		if f == OF {
			continue
		}
		r = b.BVOr(r, b.Ite(s.Flag(b, f), b.Const(8, 1<<lahfBits[f]), b.Const(8, 0)))
	}
	s.SetReg(b, x86asm.AH, r)
}

func semSahf(c *ctx) {
	b, s := c.b, c.s
	ah := s.Reg(b, x86asm.AH)
	var set [numFlags]ir.Term
	for f := Flag(0); f < numFlags; f++ {
		if f != OF {
			set[f] = isOne(b, extract(b, ah, lahfBits[f], lahfBits[f]))
		}
	}
	s.setFlagsExplicit(b, set, bit(OF))
}

func (c *ctx) condition() ir.Term {
	cc, ok := condOf[c.in.Op]
	if !ok {
		c.unsupported("condition")
	}
	return c.s.cond(c.b, cc)
}

func semSetcc(c *ctx) {
	b := c.b
	c.write(0, b.Ite(c.condition(), b.Const(8, 1), b.Const(8, 0)))
}

// semCmov always writes the destination: a 32-bit cmov zero-extends it
// even when the condition is false.
func semCmov(c *ctx) {
	b := c.b
	w := c.width(0)
	cc := c.condition()
	c.write(0, b.Ite(cc, c.read(1, w), c.read(0, w)))
}

func (c *ctx) relTarget(i int) ir.Term {
	rel, ok := c.arg(i).(x86asm.Rel)
	if !ok {
		c.unsupported("operand")
	}
	return c.b.Const(64, c.next+uint64(int64(rel)))
}

func semJcc(c *ctx) {
	c.eff.Kind = FlowBranch
	c.eff.Cond = c.condition()
	c.eff.Target = c.relTarget(0)
}

func semJrcxz(c *ctx) {
	b := c.b
	r := x86asm.RCX
	if c.in.Op == x86asm.JECXZ {
		r = x86asm.ECX
	}
	x := c.s.Reg(b, r)
	c.eff.Kind = FlowBranch
	c.eff.Cond = b.Eq(x, b.Const(b.Width(x), 0))
	c.eff.Target = c.relTarget(0)
}

// target is a jump or call destination: relative, or a 64-bit register or
// memory operand.
func (c *ctx) target() ir.Term {
	if _, ok := c.arg(0).(x86asm.Rel); ok {
		return c.relTarget(0)
	}
	if c.width(0) != 64 {
		c.unsupported("operand size")
	}
	return c.read(0, 64)
}

func semJmp(c *ctx) {
	c.eff.Kind = FlowJump
	c.eff.Target = c.target()
}

func semCall(c *ctx) {
	t := c.target() // read before the push: the operand may use rsp
	c.push(c.b.Const(64, c.next))
	c.eff.Kind = FlowCall
	c.eff.Target = t
}

func semRet(c *ctx) {
	b, s := c.b, c.s
	t := c.pop(64)
	if c.nargs() == 1 {
		s.GPR[RSP] = b.Add(s.GPR[RSP], b.Const(64, c.imm(0)&0xffff))
	}
	c.eff.Kind = FlowRet
	c.eff.Target = t
}

// stackWidth is the operand size of push and pop: 64 bits unless a 66
// prefix makes it 16.
func (c *ctx) stackWidth() uint32 {
	if c.in.DataSize == 16 {
		return 16
	}
	return 64
}

func semPush(c *ctx) {
	w := c.stackWidth()
	if _, ok := c.arg(0).(x86asm.Imm); !ok && c.width(0) != w {
		c.unsupported("operand size")
	}
	c.push(c.read(0, w))
}

// semPop increments rsp before writing the destination, so pop rsp loads
// the popped value and a memory destination based on rsp uses the
// incremented rsp, as the SDM specifies.
func semPop(c *ctx) {
	w := c.stackWidth()
	if c.width(0) != w {
		c.unsupported("operand size")
	}
	c.write(0, c.pop(w))
}

func semLeave(c *ctx) {
	s := c.s
	s.GPR[RSP] = s.GPR[RBP]
	s.GPR[RBP] = c.pop(64)
}

// maxRepCount bounds the unrolling of rep stos and rep movs.
const maxRepCount = 4096

// stringOp is stos (mov false) and movs (mov true) of n bytes, once or
// under rep. rep with a count that is not a known constant is unsupported:
// the semantics are loop-free.
func stringOp(mov bool, n uint32) semFunc {
	return func(c *ctx) {
		b, s := c.b, c.s
		if c.in.AddrSize != 64 {
			c.unsupported("address size")
		}
		count := uint64(1)
		rep := c.hasPrefix(x86asm.PrefixREP)
		if rep {
			k, ok := constOf(b, s.GPR[RCX])
			if !ok {
				c.unsupported("rep with a non-constant count")
			}
			if k > maxRepCount {
				c.unsupported("rep count %d", k)
			}
			count = k
		}
		step := b.Const(64, uint64(n))
		acc, _ := accRegs(8 * n)
		for i := uint64(0); i < count; i++ {
			var v ir.Term
			if mov {
				v = b.Select(s.Mem, s.GPR[RSI], n)
				s.GPR[RSI] = b.Add(s.GPR[RSI], step)
			} else {
				v = s.Reg(b, acc)
			}
			s.Mem = b.Store(s.Mem, s.GPR[RDI], n, v)
			s.GPR[RDI] = b.Add(s.GPR[RDI], step)
		}
		if rep {
			s.GPR[RCX] = b.Const(64, 0)
		}
	}
}
