package x86

import (
	"strconv"
	"strings"

	"eqc/ir"

	"golang.org/x/arch/x86/x86asm"
)

// SSE floating point is uninterpreted: each operation is an ir function of
// the bit patterns it reads, named FPFuncPrefix + the lower-case mnemonic
// (with the predicate for compares: "fp.cmpsd.1"). Two programs computing
// the same operations on the same values agree; nothing more is claimed.
// The rounding mode is the default (MXCSR is assumed never changed) and the
// exception flags are not modelled.
//
// Signatures, for an Env that interprets them:
//   - scalar binary (addsd …): (lane, lane) → lane, 32 or 64 bits
//   - scalar unary (sqrtsd, cvtss2sd, cvtsd2ss): (lane) → lane
//   - cvtsi2sd/ss: (int32 or int64) → lane
//   - cvt(t)sd2si/ss2si: (lane) → int32 or int64
//   - packed (addps …): (128, 128) → 128; packed unary: (128) → 128
//     (cvtdq2pd takes the low 64 bits)
//   - ucomis/comis: (lane, lane) → 3 bits: ZF (bit 2), PF (bit 1), CF (bit 0)
const FPFuncPrefix = "fp."

var fpSems = map[x86asm.Op]semFunc{
	x86asm.ADDSS: fpScalar(32), x86asm.ADDSD: fpScalar(64),
	x86asm.SUBSS: fpScalar(32), x86asm.SUBSD: fpScalar(64),
	x86asm.MULSS: fpScalar(32), x86asm.MULSD: fpScalar(64),
	x86asm.DIVSS: fpScalar(32), x86asm.DIVSD: fpScalar(64),
	x86asm.MINSS: fpScalar(32), x86asm.MINSD: fpScalar(64),
	x86asm.MAXSS: fpScalar(32), x86asm.MAXSD: fpScalar(64),
	x86asm.CMPSS: fpScalar(32), x86asm.CMPSD_XMM: fpScalar(64),
	x86asm.SQRTSS:   fpScalarUnary(32, 32),
	x86asm.SQRTSD:   fpScalarUnary(64, 64),
	x86asm.CVTSS2SD: fpScalarUnary(32, 64),
	x86asm.CVTSD2SS: fpScalarUnary(64, 32),

	x86asm.CVTSI2SS:  fpFromInt(32),
	x86asm.CVTSI2SD:  fpFromInt(64),
	x86asm.CVTTSS2SI: fpToInt(32),
	x86asm.CVTTSD2SI: fpToInt(64),
	x86asm.CVTSS2SI:  fpToInt(32),
	x86asm.CVTSD2SI:  fpToInt(64),

	x86asm.UCOMISS: fpCompare(32), x86asm.UCOMISD: fpCompare(64),
	x86asm.COMISS: fpCompare(32), x86asm.COMISD: fpCompare(64),

	x86asm.ADDPS: fpPacked, x86asm.ADDPD: fpPacked,
	x86asm.SUBPS: fpPacked, x86asm.SUBPD: fpPacked,
	x86asm.MULPS: fpPacked, x86asm.MULPD: fpPacked,
	x86asm.DIVPS: fpPacked, x86asm.DIVPD: fpPacked,
	x86asm.MINPS: fpPacked, x86asm.MINPD: fpPacked,
	x86asm.MAXPS: fpPacked, x86asm.MAXPD: fpPacked,
	x86asm.CMPPS: fpPacked, x86asm.CMPPD: fpPacked,
	x86asm.SQRTPS:    fpPackedUnary(128),
	x86asm.SQRTPD:    fpPackedUnary(128),
	x86asm.CVTDQ2PS:  fpPackedUnary(128),
	x86asm.CVTTPS2DQ: fpPackedUnary(128),
	x86asm.CVTPS2DQ:  fpPackedUnary(128),
	x86asm.CVTPD2PS:  fpPackedUnary(128),
	x86asm.CVTTPD2DQ: fpPackedUnary(128),
	x86asm.CVTPD2DQ:  fpPackedUnary(128),
	x86asm.CVTDQ2PD:  fpPackedUnary(64),
	x86asm.CVTPS2PD:  fpPackedUnary(64),
}

// fpName is the function name of the current instruction, with its
// immediate predicate if it has one.
func (c *ctx) fpName() string {
	name := FPFuncPrefix + strings.ToLower(strings.TrimSuffix(c.in.Op.String(), "_XMM"))
	if n := c.nargs(); n == 3 {
		name += "." + strconv.FormatUint(c.imm(2)&0xff, 10)
	}
	return name
}

// apply applies the instruction's uninterpreted function. Its name ends in
// the operand and result widths ("fp.cvtsi2ss/64>32"), because one mnemonic
// has forms of several widths and a function has one signature.
func (c *ctx) apply(res ir.Sort, args ...ir.Term) ir.Term {
	sorts := make([]ir.Sort, len(args))
	widths := make([]string, len(args))
	for i, a := range args {
		sorts[i] = c.b.Sort(a)
		widths[i] = strconv.FormatUint(uint64(sorts[i].Width), 10)
	}
	name := c.fpName() + "/" + strings.Join(widths, "_") + ">" + strconv.FormatUint(uint64(res.Width), 10)
	f := c.b.DeclareFunc(name, sorts, res)
	return c.b.Apply(f, args...)
}

// fpScalar computes the low lane from the destination's and the source's
// low lanes; the rest of the destination stays.
func fpScalar(w uint32) semFunc {
	return func(c *ctx) {
		b := c.b
		d := c.xmm(0)
		r := c.apply(ir.BVSort(w), extract(b, d, w-1, 0), c.readV(1, w))
		c.writeV(0, concat(b, extract(b, d, 127, w), r))
	}
}

func fpScalarUnary(from, to uint32) semFunc {
	return func(c *ctx) {
		b := c.b
		d := c.xmm(0)
		r := c.apply(ir.BVSort(to), c.readV(1, from))
		c.writeV(0, concat(b, extract(b, d, 127, to), r))
	}
}

func fpFromInt(w uint32) semFunc {
	return func(c *ctx) {
		b := c.b
		d := c.xmm(0)
		iw := c.width(1)
		r := c.apply(ir.BVSort(w), c.readV(1, iw))
		c.writeV(0, concat(b, extract(b, d, 127, w), r))
	}
}

func fpToInt(w uint32) semFunc {
	return func(c *ctx) {
		c.write(0, c.apply(ir.BVSort(c.width(0)), c.readV(1, w)))
	}
}

func fpCompare(w uint32) semFunc {
	return func(c *ctx) {
		b := c.b
		r := c.apply(ir.BVSort(3), extract(b, c.xmm(0), w-1, 0), c.readV(1, w))
		f := b.False()
		c.s.setFlagsExplicit(b, [numFlags]ir.Term{
			CF: isOne(b, extract(b, r, 0, 0)), PF: isOne(b, extract(b, r, 1, 1)), AF: f,
			ZF: isOne(b, extract(b, r, 2, 2)), SF: f, OF: f,
		}, 0)
	}
}

func fpPacked(c *ctx) {
	c.writeV(0, c.apply(ir.BVSort(128), c.xmm(0), c.readV(1, 128)))
}

func fpPackedUnary(srcBits uint32) semFunc {
	return func(c *ctx) {
		c.writeV(0, c.apply(ir.BVSort(128), c.readV(1, srcBits)))
	}
}
