package x86

import (
	"eqc/ir"

	"golang.org/x/arch/x86/x86asm"
)

// Flag is one of the six status flags the semantics track. DF is assumed
// clear (the SysV ABI guarantees it at calls and returns, and compilers do
// not set it in C code).
type Flag uint8

// The status flags, in rflags bit order.
const (
	CF Flag = iota
	PF
	AF
	ZF
	SF
	OF
	numFlags
)

// NumFlags is the number of status flags a State holds.
const NumFlags = int(numFlags)

var flagNames = [numFlags]string{"cf", "pf", "af", "zf", "sf", "of"}

// RflagsBit is the bit of f in rflags.
var RflagsBit = [numFlags]uint{0, 2, 4, 6, 7, 11}

func (f Flag) String() string { return flagNames[f] }

type flagMask uint8

const allFlags flagMask = 1<<numFlags - 1

func bit(f Flag) flagMask { return 1 << f }

// flagOp is the kind of the last flag-producing operation.
type flagOp uint8

const (
	fopNone  flagOp = iota
	fopAdd          // res = a + b (+ cin for adc)
	fopSub          // res = a − b (− cin for sbb); cmp too
	fopLogic        // and, or, xor, test: CF = OF = 0, AF undefined
)

// lazyFlags holds the status flags: explicit terms for the flags whose value
// is known (or has been built), and the last operation from which the rest
// are derived on demand.
type lazyFlags struct {
	op   flagOp
	w    uint32
	a, b ir.Term // operands of op, w bits
	res  ir.Term // result of op, w bits
	cin  ir.Term // carry/borrow in of adc/sbb, a boolean; NoTerm otherwise
	val  [numFlags]ir.Term
	// explicit marks the flags whose val is not derived from op: preserved
	// from before op, undefined, or set directly. The rest come from op.
	explicit flagMask
}

// Flag returns the value of f as a boolean term, building it from the last
// flag-producing operation if nothing has read it yet.
func (s *State) Flag(b *ir.Builder, f Flag) ir.Term {
	fl := &s.flags
	if t := fl.val[f]; t != ir.NoTerm {
		return t
	}
	t := fl.derive(b, f)
	fl.val[f] = t
	return t
}

// SetFlag sets f to the boolean v.
func (s *State) SetFlag(f Flag, v ir.Term) {
	s.flags.val[f] = v
	s.flags.explicit |= bit(f)
}

// setFlagOp records op as the last flag-producing operation for the flags
// in set. Flags in keep keep their current value (materialized now, before
// the operands change); flags in undef become fresh variables. Every flag
// must be in exactly one of set, keep and undef.
func (s *State) setFlagOp(b *ir.Builder, op flagOp, a, bb, res, cin ir.Term, set, keep, undef flagMask) {
	if set|keep|undef != allFlags || set&keep != 0 || set&undef != 0 || keep&undef != 0 {
		panic("x86: flag sets of an operation do not partition the flags")
	}
	var kept [numFlags]ir.Term
	for f := Flag(0); f < numFlags; f++ {
		if keep&bit(f) != 0 {
			kept[f] = s.Flag(b, f)
		}
	}
	fl := &s.flags
	fl.op, fl.a, fl.b, fl.res, fl.cin = op, a, bb, res, cin
	if res != ir.NoTerm {
		fl.w = b.Width(res)
	}
	fl.explicit = keep | undef
	for f := Flag(0); f < numFlags; f++ {
		switch {
		case keep&bit(f) != 0:
			fl.val[f] = kept[f]
		case undef&bit(f) != 0:
			fl.val[f] = s.Fresh(b, ir.BoolSort)
		default:
			fl.val[f] = ir.NoTerm
		}
	}
}

// setFlagsExplicit gives every flag an explicit value: set[f] when it is not
// NoTerm, the current value for flags in keep, a fresh variable otherwise.
func (s *State) setFlagsExplicit(b *ir.Builder, set [numFlags]ir.Term, keep flagMask) {
	var vals [numFlags]ir.Term
	for f := Flag(0); f < numFlags; f++ {
		switch {
		case set[f] != ir.NoTerm:
			vals[f] = set[f]
		case keep&bit(f) != 0:
			vals[f] = s.Flag(b, f)
		default:
			vals[f] = s.Fresh(b, ir.BoolSort)
		}
	}
	s.flags = lazyFlags{val: vals, explicit: allFlags}
}

func (fl *lazyFlags) derive(b *ir.Builder, f Flag) ir.Term {
	res, w := fl.res, fl.w
	switch f {
	case ZF:
		return b.Eq(res, b.Const(w, 0))
	case SF:
		return msb(b, res)
	case PF:
		return parity(b, res)
	case AF:
		// Carry or borrow out of bit 3: bit 4 of a ^ b ^ res, for addition
		// and subtraction alike.
		x := b.BVXor(b.BVXor(fl.a, fl.b), res)
		return isOne(b, extract(b, x, 4, 4))
	}
	switch fl.op {
	case fopLogic:
		return b.False() // CF and OF
	case fopAdd:
		if f == CF {
			if fl.cin == ir.NoTerm {
				return b.Ult(res, fl.a)
			}
			// The carry out of a + b + cin is bit w of the w+1-bit sum.
			sum := b.Add(b.Add(zext(b, fl.a, w+1), zext(b, fl.b, w+1)), boolToBV(b, fl.cin, w+1))
			return isOne(b, extract(b, sum, w, w))
		}
		// OF: the operands agree in sign and the result does not.
		return msb(b, b.BVAnd(b.BVXor(fl.a, res), b.BVXor(fl.b, res)))
	case fopSub:
		if f == CF {
			if fl.cin == ir.NoTerm {
				return b.Ult(fl.a, fl.b)
			}
			return b.Ult(zext(b, fl.a, w+1), b.Add(zext(b, fl.b, w+1), boolToBV(b, fl.cin, w+1)))
		}
		// OF: the operands differ in sign and the result's sign is b's.
		return msb(b, b.BVAnd(b.BVXor(fl.a, fl.b), b.BVXor(fl.a, res)))
	}
	panic("x86: flag " + f.String() + " has neither a value nor an operation")
}

func msb(b *ir.Builder, t ir.Term) ir.Term {
	w := b.Width(t)
	return isOne(b, extract(b, t, w-1, w-1))
}

func isOne(b *ir.Builder, bit1 ir.Term) ir.Term { return b.Eq(bit1, b.Const(1, 1)) }

// parity is PF of a result: set when its low byte has an even number of
// ones.
func parity(b *ir.Builder, res ir.Term) ir.Term {
	x := extract(b, res, 7, 0)
	x = b.BVXor(x, b.LShr(x, b.Const(8, 4)))
	x = b.BVXor(x, b.LShr(x, b.Const(8, 2)))
	x = b.BVXor(x, b.LShr(x, b.Const(8, 1)))
	return b.Eq(extract(b, x, 0, 0), b.Const(1, 0))
}

func boolToBV(b *ir.Builder, c ir.Term, w uint32) ir.Term {
	return b.Ite(c, b.Const(w, 1), b.Const(w, 0))
}

// cond is an x86 condition code, in encoding order (the low nibble of
// Jcc/SETcc/CMOVcc opcodes).
type cond uint8

const (
	condO cond = iota
	condNO
	condB
	condAE
	condE
	condNE
	condBE
	condA
	condS
	condNS
	condP
	condNP
	condL
	condGE
	condLE
	condG
)

// condOf maps the mnemonics that test a condition to their condition.
var condOf = map[x86asm.Op]cond{
	x86asm.JO: condO, x86asm.JNO: condNO, x86asm.JB: condB, x86asm.JAE: condAE,
	x86asm.JE: condE, x86asm.JNE: condNE, x86asm.JBE: condBE, x86asm.JA: condA,
	x86asm.JS: condS, x86asm.JNS: condNS, x86asm.JP: condP, x86asm.JNP: condNP,
	x86asm.JL: condL, x86asm.JGE: condGE, x86asm.JLE: condLE, x86asm.JG: condG,

	x86asm.SETO: condO, x86asm.SETNO: condNO, x86asm.SETB: condB, x86asm.SETAE: condAE,
	x86asm.SETE: condE, x86asm.SETNE: condNE, x86asm.SETBE: condBE, x86asm.SETA: condA,
	x86asm.SETS: condS, x86asm.SETNS: condNS, x86asm.SETP: condP, x86asm.SETNP: condNP,
	x86asm.SETL: condL, x86asm.SETGE: condGE, x86asm.SETLE: condLE, x86asm.SETG: condG,

	x86asm.CMOVO: condO, x86asm.CMOVNO: condNO, x86asm.CMOVB: condB, x86asm.CMOVAE: condAE,
	x86asm.CMOVE: condE, x86asm.CMOVNE: condNE, x86asm.CMOVBE: condBE, x86asm.CMOVA: condA,
	x86asm.CMOVS: condS, x86asm.CMOVNS: condNS, x86asm.CMOVP: condP, x86asm.CMOVNP: condNP,
	x86asm.CMOVL: condL, x86asm.CMOVGE: condGE, x86asm.CMOVLE: condLE, x86asm.CMOVG: condG,
}

// Cond returns the boolean term for condition c. After a compare or a
// logic operation whose flags no one has overridden, the usual conditions
// are built directly as comparisons of the operands (a <u b rather than
// CF), which is what the source program's comparison is too; both forms are
// exact.
func (s *State) cond(b *ir.Builder, c cond) ir.Term {
	if c&1 == 1 {
		return b.Not(s.cond(b, c-1))
	}
	fl := &s.flags
	from := func(fs ...Flag) bool { // all of fs come from the last operation
		for _, f := range fs {
			if fl.explicit&bit(f) != 0 {
				return false
			}
		}
		return true
	}
	switch {
	case fl.op == fopSub && fl.cin == ir.NoTerm:
		a, y := fl.a, fl.b
		switch {
		case c == condB && from(CF):
			return b.Ult(a, y)
		case c == condE && from(ZF):
			return b.Eq(a, y)
		case c == condBE && from(CF, ZF):
			return b.Ule(a, y)
		case c == condL && from(SF, OF):
			return b.Slt(a, y)
		case c == condLE && from(ZF, SF, OF):
			return b.Sle(a, y)
		}
	case fl.op == fopLogic:
		zero := b.Const(fl.w, 0)
		switch {
		case c == condL && from(SF, OF):
			return b.Slt(fl.res, zero)
		case c == condLE && from(ZF, SF, OF):
			return b.Sle(fl.res, zero)
		}
	}
	switch c {
	case condO:
		return s.Flag(b, OF)
	case condB:
		return s.Flag(b, CF)
	case condE:
		return s.Flag(b, ZF)
	case condBE:
		return b.Or(s.Flag(b, CF), s.Flag(b, ZF))
	case condS:
		return s.Flag(b, SF)
	case condP:
		return s.Flag(b, PF)
	case condL:
		return b.Xor(s.Flag(b, SF), s.Flag(b, OF))
	case condLE:
		return b.Or(s.Flag(b, ZF), b.Xor(s.Flag(b, SF), s.Flag(b, OF)))
	}
	panic("x86: bad condition code")
}
