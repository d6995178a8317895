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
//   - packed operations are their scalar forms lane by lane: addps is
//     fp.addss/32_32>32 on each of four lanes, cvtdq2pd fp.cvtsi2sd/32>64
//     on each of the two low int32 lanes, and so on. The same IEEE
//     operation on the same lane values gives the same bits in either
//     form, so a vectorized loop and its scalar source apply one function
//     to one value, which a single 128-bit function could never show.
//   - ucomis/comis are no function: their flags are computed exactly
//     from the bit patterns (fpOrder)
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

	x86asm.ADDPS: fpPacked(32), x86asm.ADDPD: fpPacked(64),
	x86asm.SUBPS: fpPacked(32), x86asm.SUBPD: fpPacked(64),
	x86asm.MULPS: fpPacked(32), x86asm.MULPD: fpPacked(64),
	x86asm.DIVPS: fpPacked(32), x86asm.DIVPD: fpPacked(64),
	x86asm.MINPS: fpPacked(32), x86asm.MINPD: fpPacked(64),
	x86asm.MAXPS: fpPacked(32), x86asm.MAXPD: fpPacked(64),
	x86asm.CMPPS: fpPacked(32), x86asm.CMPPD: fpPacked(64),
	x86asm.SQRTPS:    fpPackedUnary("sqrtss", 32, 32, 4),
	x86asm.SQRTPD:    fpPackedUnary("sqrtsd", 64, 64, 2),
	x86asm.CVTDQ2PS:  fpPackedUnary("cvtsi2ss", 32, 32, 4),
	x86asm.CVTTPS2DQ: fpPackedUnary("cvttss2si", 32, 32, 4),
	x86asm.CVTPS2DQ:  fpPackedUnary("cvtss2si", 32, 32, 4),
	x86asm.CVTPD2PS:  fpPackedUnary("cvtsd2ss", 64, 32, 2),
	x86asm.CVTTPD2DQ: fpPackedUnary("cvttsd2si", 64, 32, 2),
	x86asm.CVTPD2DQ:  fpPackedUnary("cvtsd2si", 64, 32, 2),
	x86asm.CVTDQ2PD:  fpPackedUnary("cvtsi2sd", 32, 64, 2),
	x86asm.CVTPS2PD:  fpPackedUnary("cvtss2sd", 32, 64, 2),
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

// apply applies the instruction's uninterpreted function.
func (c *ctx) apply(res ir.Sort, args ...ir.Term) ir.Term {
	return c.applyNamed(c.fpName(), res, args...)
}

// applyNamed applies the uninterpreted function named name (without its
// widths). The full name ends in the operand and result widths
// ("fp.cvtsi2ss/64>32"), because one mnemonic has forms of several widths
// and a function has one signature.
func (c *ctx) applyNamed(name string, res ir.Sort, args ...ir.Term) ir.Term {
	sorts := make([]ir.Sort, len(args))
	widths := make([]string, len(args))
	for i, a := range args {
		sorts[i] = c.b.Sort(a)
		widths[i] = strconv.FormatUint(uint64(sorts[i].Width), 10)
	}
	name += "/" + strings.Join(widths, "_") + ">" + strconv.FormatUint(uint64(res.Width), 10)
	f := c.b.DeclareFunc(name, sorts, res)
	return c.b.Apply(f, args...)
}

// fpScalar computes the low lane from the destination's and the source's
// low lanes; the rest of the destination stays.
func fpScalar(w uint32) semFunc {
	return func(c *ctx) {
		b := c.b
		d := c.xmm(0)
		r := c.fpBinary(c.fpName(), w, extract(b, d, w-1, 0), c.readV(1, w))
		c.writeV(0, concat(b, extract(b, d, 127, w), r))
	}
}

// commutative are the scalar functions IEEE 754 makes commutative, up to
// which NaN comes out when both operands are NaNs.
var commutative = map[string]bool{"fp.addss": true, "fp.addsd": true, "fp.mulss": true, "fp.mulsd": true}

// fpBinary applies the scalar function name to lanes x and y of w bits.
// Addition and multiplication commute except on two NaNs, where SSE
// returns the first, quieted (SDM vol. 1, table 4-7); a compiler swaps
// their operands freely (x[i] * k at -O0, k * x[i] in gcc's tail). So
// they are that case, exactly, and otherwise a function of the two
// operands in ascending order, which the solver and the concrete runs
// see as the same value whichever side computed it.
func (c *ctx) fpBinary(name string, w uint32, x, y ir.Term) ir.Term {
	if r, ok := fpOrdered(c.b, name, w, x, y); ok {
		return r
	}
	if !commutative[name] {
		return c.applyNamed(name, ir.BVSort(w), x, y)
	}
	b := c.b
	lt := b.Ult(x, y)
	r := c.applyNamed(name, ir.BVSort(w), b.Ite(lt, x, y), b.Ite(lt, y, x))
	if c.s.AnyNaN {
		// The function decides the two-NaN case too: for every choice of
		// NaN it may make, both orders of the operands agree.
		return r
	}
	quietBit := b.Const(w, 1<<(fpMantissa(w)-1))
	return b.Ite(b.And(fpIsNaN(b, x, w), fpIsNaN(b, y, w)), b.BVOr(x, quietBit), r)
}

// fpOrdered computes the scalar functions that only order their operands,
// exactly (fpOrder): min and max return the second operand unless the
// first is below (above) it, so a NaN or two zeros give the second (SDM
// MINSD); cmp with predicate k gives a lane of ones when it holds: eq,
// lt, le, unord, neq, nlt, nle, ord. ok is false for other functions.
func fpOrdered(b *ir.Builder, name string, w uint32, x, y ir.Term) (ir.Term, bool) {
	op, pred, _ := strings.Cut(strings.TrimPrefix(name, FPFuncPrefix), ".")
	op = strings.TrimSuffix(strings.TrimSuffix(op, "ss"), "sd")
	switch op {
	case "min":
		_, less, _ := fpOrder(b, x, y, w)
		return b.Ite(less, x, y), true
	case "max":
		_, greater, _ := fpOrder(b, y, x, w)
		return b.Ite(greater, x, y), true
	case "cmp":
		k, err := strconv.Atoi(pred)
		if err != nil || k < 0 || k > 7 {
			return ir.NoTerm, false
		}
		unordered, less, equal := fpOrder(b, x, y, w)
		holds := []ir.Term{equal, less, b.Or(less, equal), unordered}[k%4]
		if k >= 4 {
			holds = b.Not(holds)
		}
		return b.Ite(holds, b.Const(w, 1<<w-1), b.Const(w, 0)), true
	}
	return ir.NoTerm, false
}

// fpMantissa is the width of the mantissa of a w-bit IEEE value.
func fpMantissa(w uint32) uint32 {
	if w == 32 {
		return 23
	}
	return 52
}

// fpIsNaN says whether the w-bit lane x is a NaN: exponent all ones,
// mantissa not zero.
func fpIsNaN(b *ir.Builder, x ir.Term, w uint32) ir.Term {
	m := fpMantissa(w)
	exp := extract(b, x, w-2, m)
	return b.And(b.Eq(exp, b.Const(w-1-m, 1<<(w-1-m)-1)), b.Not(b.Eq(extract(b, x, m-1, 0), b.Const(m, 0))))
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
		r := c.fromInt(c.fpName(), w, c.readV(1, iw))
		c.writeV(0, concat(b, extract(b, d, 127, w), r))
	}
}

// fromInt converts the integer x to a w-bit float by the function name,
// which is known to give no NaN: a NaN the function would give reads as
// zero, which the real conversion (one of the functions this allows)
// never needs. Without it, k * x[i] against x[i] * k (the int k
// converted) differed in the solver wherever both operands were NaNs.
func (c *ctx) fromInt(name string, w uint32, x ir.Term) ir.Term {
	b := c.b
	r := c.applyNamed(name, ir.BVSort(w), x)
	return b.Ite(fpIsNaN(b, r, w), b.Const(w, 0), r)
}

func fpToInt(w uint32) semFunc {
	return func(c *ctx) {
		c.write(0, c.apply(ir.BVSort(c.width(0)), c.readV(1, w)))
	}
}

// fpCompare is ucomis and comis, computed exactly from the bit patterns:
// unordered (a NaN) sets ZF, PF and CF; less CF; equal ZF (+0 equals −0);
// greater none. A compiler's branch on a comparison (x < 0: call sqrt for
// errno) then means what the source's does.
func fpCompare(w uint32) semFunc {
	return func(c *ctx) {
		b := c.b
		x, y := extract(b, c.xmm(0), w-1, 0), c.readV(1, w)
		unordered, less, equal := fpOrder(b, x, y, w)
		f := b.False()
		c.s.setFlagsExplicit(b, [numFlags]ir.Term{
			CF: b.Or(unordered, less), PF: unordered, AF: f,
			ZF: b.Or(unordered, equal), SF: f, OF: f,
		}, 0)
	}
}

// fpOrder compares the w-bit IEEE values x and y: whether either is a NaN,
// and, when neither is, whether x < y and whether x = y.
func fpOrder(b *ir.Builder, x, y ir.Term, w uint32) (unordered, less, equal ir.Term) {
	unordered = b.Or(fpIsNaN(b, x, w), fpIsNaN(b, y, w))
	sx, sy := isOne(b, extract(b, x, w-1, w-1)), isOne(b, extract(b, y, w-1, w-1))
	mx, my := extract(b, x, w-2, 0), extract(b, y, w-2, 0)
	zero := b.Const(w-1, 0)
	bothZero := b.And(b.Eq(mx, zero), b.Eq(my, zero))
	equal = b.And(b.Not(unordered), b.Or(bothZero, b.Eq(x, y)))
	// Same sign: by magnitude (reversed below zero); else x is the
	// negative one.
	bySign := b.Ite(b.Eq(sx, sy), b.Ite(sx, b.Ult(my, mx), b.Ult(mx, my)), sx)
	less = b.And(b.Not(unordered), b.Not(bothZero), bySign)
	return unordered, less, equal
}

// fpPacked applies the scalar form (addps: addss) to each w-bit lane of
// the destination and the source.
func fpPacked(w uint32) semFunc {
	return func(c *ctx) {
		b := c.b
		name := scalarName(c.fpName(), w)
		d, src := c.xmm(0), c.readV(1, 128)
		var r ir.Term
		for lo := uint32(0); lo < 128; lo += w {
			lane := c.fpBinary(name, w, extract(b, d, lo+w-1, lo), extract(b, src, lo+w-1, lo))
			if r == ir.NoTerm {
				r = lane
			} else {
				r = concat(b, lane, r)
			}
		}
		c.writeV(0, r)
	}
}

// scalarName is the scalar form of packed function name: the mnemonic's
// "ps" or "pd" becomes "ss" or "sd" (fp.cmpps.1: fp.cmpss.1).
func scalarName(name string, w uint32) string {
	suffix := map[uint32][2]string{32: {"ps", "ss"}, 64: {"pd", "sd"}}[w]
	head, pred, hasPred := strings.Cut(strings.TrimPrefix(name, FPFuncPrefix), ".")
	head = strings.TrimSuffix(head, suffix[0]) + suffix[1]
	if hasPred {
		head += "." + pred
	}
	return FPFuncPrefix + head
}

// fpPackedUnary applies the scalar function fn (a mnemonic) from from-bit
// lanes of the source to to-bit lanes of the result, lanes of them; the
// result's bits above them are zero (cvtpd2ps, cvttpd2dq).
func fpPackedUnary(fn string, from, to uint32, lanes int) semFunc {
	return func(c *ctx) {
		b := c.b
		src := c.readV(1, from*uint32(lanes))
		var r ir.Term
		for i := 0; i < lanes; i++ {
			lo := uint32(i) * from
			x := extract(b, src, lo+from-1, lo)
			var lane ir.Term
			if strings.HasPrefix(fn, "cvtsi2") {
				lane = c.fromInt(FPFuncPrefix+fn, to, x)
			} else {
				lane = c.applyNamed(FPFuncPrefix+fn, ir.BVSort(to), x)
			}
			if r == ir.NoTerm {
				r = lane
			} else {
				r = concat(b, lane, r)
			}
		}
		c.writeV(0, zext(b, r, 128))
	}
}
