package x86

import (
	"math/bits"
	"strconv"
	"strings"

	"eqc/ir"

	"golang.org/x/arch/x86/x86asm"
)

// Library idioms. Compilers turn a loop that fills or copies memory into
// a call of memset, memcpy or memmove (gcc at -O2, clang at -O1), and
// gcc a loop that counts a string's bytes into strlen (strlenLoop), and
// gcc inlines strcmp against a literal (strcmpLiteral, no loop), so one
// side of a pair loops where the other calls; an uninterpreted call has
// nothing to pair with then. When a pair calls such a function a different
// number of times on its two sides (Callees.Idioms), every call of it, on
// both sides, is lifted as the loop the C library's function is:
//
//	H:  while rdx ≠ 0 { M[rdi, s] := v; rdi += s; rsi += s; rdx −= s }
//
// entered with rax := rdi (what the function returns) and left, when rdx
// is 0, with what a call leaves: the caller-saved registers, the vector
// registers and the flags fresh. The loop head H is a new node at the call's
// address; the call itself no longer appears among the edge's calls (the
// C library's memset is no observable event, and the tracer runs glibc's
// own for these functions, unlogged: tracer.DefaultLibc). v is memset's
// byte replicated, or the s bytes memcpy reads at rsi.
//
// The stride s is the largest power of two up to 8 that the length is
// known to be a multiple of, from its term at the call (n·4 when the
// source stores ints): a loop storing one int per pass then pairs with
// one pass of the source's loop. The model is exact: memset and a
// non-overlapping memcpy write the same bytes in any order. Where
// memcpy's regions overlap (undefined behaviour) or memmove's would need
// a backward copy, the pass that first meets the overlap faults, which
// the source must then do too (or, under OBVA, be shown never to reach
// with its accesses inside their objects), so a proof never rests on a
// copy order the library does not promise.

// idiomKind says which library function a call is lifted as.
type idiomKind uint8

const (
	idiomSet  idiomKind = iota + 1 // memset(d, c, n)
	idiomCopy                      // memcpy(d, s, n): the regions do not overlap
	idiomMove                      // memmove(d, s, n)
	idiomLen                       // strlen(s)
	idiomCmp                       // strcmp(a, "literal"), never a loop (strcmpLiteral)
)

// idiomCallees are the library functions a call to which may be lifted
// as a loop.
var idiomCallees = map[string]idiomKind{"memset": idiomSet, "memcpy": idiomCopy, "memmove": idiomMove, "strlen": idiomLen, "strcmp": idiomCmp}

// pairIdioms are the idiom callees src and dst call a different number of
// times (tail jumps counted), when neither file defines them.
func pairIdioms(srcFile *File, src *Function, dstFile *File, dst *Function) map[string]bool {
	cs, cd := callCounts(src), callCounts(dst)
	out := map[string]bool{}
	for name := range idiomCallees {
		if cs[name] != cd[name] && !definedIn(name, srcFile, dstFile) {
			out[name] = true
		}
	}
	return out
}

// callCounts are how many calls (and tail jumps) fn makes to each named
// callee.
func callCounts(fn *Function) map[string]int {
	out := map[string]int{}
	for _, cs := range fn.CallSites {
		if cs.HasCallee {
			out[calleeName(cs)]++
		}
	}
	return out
}

// idiom says how the call at cs is lifted: as a loop, or (0) as a call.
func (l *lifter) idiom(cs CallSite) idiomKind {
	if l.callees == nil || !cs.HasCallee {
		return 0
	}
	name := calleeName(cs)
	if !l.callees.Idioms[name] {
		return 0
	}
	return idiomCallees[name]
}

// idiomLoop adds the loop that stands for the call (or tail jump) at in,
// entered from node from on path p (under cond, when not NoTerm), and
// returns its head and the path out of it, past the call: the state after
// the function returns, for the caller to go on from.
func (l *lifter) idiomLoop(from ir.NodeID, p *path, in *Instruction, kind idiomKind, cond ir.Term, tail bool) (ir.NodeID, *path) {
	b, s := l.b, p.s
	if !tail {
		// A call (not a tail jump) pushes its return address: the
		// caller finds something else below its stack pointer after.
		s.Mem = b.Store(s.Mem, b.Sub(s.GPR[RSP], b.Const(64, 8)), 8, s.Fresh(b, ir.BVSort(64)))
	}
	if kind == idiomLen {
		return l.strlenLoop(from, p, in, cond)
	}
	d, src, n := s.GPR[RDI], s.GPR[RSI], s.GPR[RDX]
	stride := uint64(1) << min(3, trailingZeros(b, n))
	s.GPR[RAX] = d
	if kind == idiomSet {
		// memset stores c converted to unsigned char.
		s.GPR[RSI] = b.ZeroExt(b.Extract(src, 7, 0), 56)
	}
	// One pass: rdi and rsi point at the chunk, rdx counts the bytes
	// left, rax is where the destination starts.
	h, out := l.loopAt(from, p, in, cond, func(body *path) ir.Term {
		bs := body.s
		w, r, left, d0 := bs.GPR[RDI], bs.GPR[RSI], bs.GPR[RDX], bs.GPR[RAX]
		sz := b.Const(64, stride)
		var v ir.Term
		switch kind {
		case idiomSet:
			byteVal := b.Extract(r, 7, 0)
			v = byteVal
			for k := uint64(1); k < stride; k++ {
				v = b.Concat(v, byteVal)
			}
		case idiomCopy:
			// The regions overlap (undefined behaviour) iff some pass's
			// chunk meets what the other region has covered so far:
			// the written chunk the bytes read, or the read chunk the
			// bytes written (a byte x = d+a = s+c is met in the pass of
			// max(a, c)).
			done := b.Sub(w, d0)
			covered := b.Add(done, sz)
			// memcpy's parameters are restrict: an overlap is
			// undefined (ir.Edge.UB), not a trap of the library's.
			l.addUB(body, b.Or(meets(b, w, sz, b.Sub(r, done), covered), meets(b, r, sz, d0, covered)))
		case idiomMove:
			// A forward copy is memmove only while no chunk written
			// holds a byte still to be read; otherwise (a destination
			// just above the source) the copy must run backwards: not
			// modelled.
			l.addFault(body, meets(b, w, sz, b.Add(r, sz), b.Sub(left, sz)))
		}
		if kind != idiomSet {
			v = b.Select(bs.Mem, r, uint32(stride))
			bs.GPR[RSI] = b.Add(r, sz)
		}
		bs.Mem = b.Store(bs.Mem, w, uint32(stride), v)
		bs.GPR[RDI] = b.Add(w, sz)
		bs.GPR[RDX] = b.Sub(left, sz)
		return b.Eq(left, b.Const(64, 0))
	})
	l.idiomReturn(out)
	return h, out
}

// strlenLoop is strlen's loop, entered with rax := 0 (the count):
//
//	H:  while M[rdi + rax, 1] ≠ 0 { rax += 1 }
//
// one byte a pass, like a source's while (s[n]) n++, which gcc turns into
// strlen. Reading past the string's end is the source's fault as much as
// the library's: the model reads only up to the NUL, as the standard
// specifies.
func (l *lifter) strlenLoop(from ir.NodeID, p *path, in *Instruction, cond ir.Term) (ir.NodeID, *path) {
	b := l.b
	p.s.GPR[RAX] = b.Const(64, 0)
	h, out := l.loopAt(from, p, in, cond, func(body *path) ir.Term {
		bs := body.s
		bs.GPR[RAX] = b.Add(bs.GPR[RAX], b.Const(64, 1))
		hs := l.base
		return b.Eq(b.Select(hs.Mem, b.Add(hs.GPR[RDI], hs.GPR[RAX]), 1), b.Const(8, 0))
	})
	l.idiomReturn(out)
	return h, out
}

// strcmpLiteral gives p's state, at a call of strcmp (or a tail jump to
// it), what the call leaves when one argument is a string literal: the
// comparison unrolled over the literal's bytes and its NUL, no loop.
// Compilers inline strcmp only against a short literal (arg[0] == '-' &&
// arg[1] == 0 where the source calls strcmp(arg, "-")). At its end eax is
// negative, zero or positive as the first byte of the first string, as
// unsigned char, that differs from the second's is below it, absent (both
// end together) or above it, which is all C promises. How far from zero
// is not promised (glibc returns the bytes' difference in some versions,
// ±1 in others), so it is a fresh value, other on each side: a proof that
// needs more than the sign (a strcmp result returned as it is, against
// gcc's inline byte difference) fails, as it should. It reports false,
// changing nothing, when neither argument is a literal: that call stays a
// call of the pure function (the calls of strcmp(a, b) an optimizer
// merges pair as before).
func (l *lifter) strcmpLiteral(p *path, tail bool) bool {
	b, s := l.b, p.s
	a, text, flip := s.GPR[RDI], "", false
	if t, ok := literalText(b, s.GPR[RSI]); ok {
		text = t
	} else if t, ok := literalText(b, a); ok {
		a, text, flip = s.GPR[RSI], t, true
	} else {
		return false
	}
	if !tail {
		// The call's return address, below the caller's stack pointer.
		s.Mem = b.Store(s.Mem, b.Sub(s.GPR[RSP], b.Const(64, 8)), 8, s.Fresh(b, ir.BVSort(64)))
	}
	mag := b.BVAnd(s.Fresh(b, ir.BVSort(32)), b.Const(32, 0x3fffffff))
	neg, pos := b.Sub(b.Const(32, 0xffffffff), mag), b.Add(b.Const(32, 1), mag)
	if flip {
		neg, pos = pos, neg
	}
	// Byte i of the other string is read only when bytes 0..i−1 matched
	// the literal's (strcmp reads no further than the first difference):
	// otherwise the read goes to byte 0 again, which it has read, so that
	// every address in the terms is one the library reads (the OBVA
	// hypotheses take each as an access of the source's, and byte 2 of a
	// one-byte string may lie outside its object).
	xs := make([]ir.Term, len(text)+1)
	matched := b.True()
	for i := range xs {
		at := a
		if i > 0 {
			at = b.Ite(matched, b.Add(a, b.Const(64, uint64(i))), a)
		}
		xs[i] = b.Select(s.Mem, at, 1)
		if i < len(text) {
			matched = b.And(matched, b.Eq(xs[i], b.Const(8, uint64(text[i]))))
		}
	}
	// From the NUL back: the literal's byte i is c, the other string's
	// x; equal bytes go on to i+1, the NUL ends both.
	res := b.Ite(b.Eq(xs[len(text)], b.Const(8, 0)), b.Const(32, 0), pos)
	for i := len(text) - 1; i >= 0; i-- {
		x, c := xs[i], b.Const(8, uint64(text[i]))
		res = b.Ite(b.Eq(x, c), res, b.Ite(b.Ult(x, c), neg, pos))
	}
	l.idiomReturn(p)
	s.GPR[RAX] = b.Concat(s.Fresh(b, ir.BVSort(32)), res)
	return true
}

// literalText is the string (up to its NUL) at address t, when t is a
// string literal's address plus a constant within it. Non-PIE code loads
// the address as a 32-bit immediate (mov $.LC0, %esi), which the linker
// makes fit: the address extended from its low 32 bits is the address.
func literalText(b *ir.Builder, t ir.Term) (string, bool) {
	base, off := b.BaseOffset(t)
	if op := b.Op(base); (op == ir.OpZeroExt || op == ir.OpSignExt) && b.Width(base) == 64 {
		if x := b.Arg(base, 0); b.Op(x) == ir.OpExtract && b.Width(x) == 32 {
			if hi, lo := b.Params(x); hi == 31 && lo == 0 {
				inner, off2 := b.BaseOffset(b.Arg(x, 0))
				base, off = inner, off+off2
			}
		}
	}
	if b.Op(base) != ir.OpVar {
		return "", false
	}
	q, ok := strings.CutPrefix(b.VarName(base), "&str:")
	if !ok {
		return "", false
	}
	text, err := strconv.Unquote(q)
	if err != nil || off > uint64(len(text)) {
		return "", false
	}
	return text[off:], true
}

// idiomReturn gives the path out of an idiom's loop what any call leaves
// (call in tfg.go), rax kept.
func (l *lifter) idiomReturn(out *path) {
	b, os := l.b, out.s
	for _, r := range callerSaved {
		os.GPR[r] = os.Fresh(b, ir.BVSort(64))
	}
	for i := range os.XMM {
		os.XMM[i] = os.Fresh(b, ir.BVSort(128))
	}
	for f := Flag(0); f < numFlags; f++ {
		os.SetFlag(f, os.Fresh(b, ir.BoolSort))
	}
}

// loopAt adds a loop head at in, entered from node from on path p (under
// cond, when not NoTerm), with one edge back to itself: pass makes the
// pass on a path from the head's variables and returns the condition,
// over them, under which the loop is left instead. It returns the head and
// the path out of it.
func (l *lifter) loopAt(from ir.NodeID, p *path, in *Instruction, cond ir.Term, pass func(body *path) ir.Term) (ir.NodeID, *path) {
	b := l.b
	h := l.g.AddNode(in.Addr, ir.NodeLoopHead)
	l.emit(from, p, h, cond, "")
	body := &path{s: l.base.Clone(), cond: b.True(), fault: b.False()}
	done := pass(body)
	l.emit(h, body, h, b.Not(done), "")
	return h, &path{s: l.base.Clone(), cond: done, fault: b.False()}
}

// meets says whether the byte ranges [a, a+la) and [c, c+lc) share a byte
// (modulo 2^64).
func meets(b *ir.Builder, a, la, c, lc ir.Term) ir.Term {
	zero := b.Const(64, 0)
	return b.And(b.Not(b.Eq(la, zero)), b.Not(b.Eq(lc, zero)),
		b.Or(b.Ult(b.Sub(a, c), lc), b.Ult(b.Sub(c, a), la)))
}

// trailingZeros is how many low bits of t are known to be zero, from its
// shape (constants, shifts and products by constants, sums, extensions).
func trailingZeros(b *ir.Builder, t ir.Term) int {
	w := int(b.Width(t))
	tz := func(x ir.Term) int { return trailingZeros(b, x) }
	var k int
	switch b.Op(t) {
	case ir.OpConst:
		v := b.ConstValue(t)
		if v.IsZero() {
			return w
		}
		k = bits.TrailingZeros64(v.Uint64()) // 64 when only higher bits are set
	case ir.OpShl:
		y := b.Arg(t, 1)
		if !b.IsConst(y) {
			return 0
		}
		k = tz(b.Arg(t, 0)) + int(min(b.ConstValue(y).Uint64(), 64))
	case ir.OpMul:
		k = tz(b.Arg(t, 0)) + tz(b.Arg(t, 1))
	case ir.OpAdd, ir.OpSub, ir.OpBVOr:
		x, y := b.Arg(t, 0), b.Arg(t, 1)
		k = min(tz(x), tz(y))
		if x == y && b.Op(t) == ir.OpAdd {
			k++ // x + x
		}
	case ir.OpBVAnd:
		k = max(tz(b.Arg(t, 0)), tz(b.Arg(t, 1)))
	case ir.OpZeroExt, ir.OpSignExt:
		k = tz(b.Arg(t, 0))
	case ir.OpExtract:
		hi, lo := b.Params(t)
		if lo != 0 {
			return 0
		}
		k = min(tz(b.Arg(t, 0)), int(hi)+1)
	}
	return min(k, w)
}

// String instructions under rep with a count the block does not fix
// (gcc -O0 copies a struct's aligned middle with rep movsq, the count
// depending on the destination's alignment) are loops too, in the
// machine's own terms: a loop head at the instruction whose pass moves or
// stores one element and counts rcx down, left at rcx = 0. Unlike a call,
// nothing is clobbered, and overlapping operands are what the instruction
// defines (each element read before it is written, in order). The
// direction flag is clear, as the ABI has it at every call and return
// and as stringOp assumes.

// isRepString reports whether in is rep stos or rep movs of n bytes an
// element.
func isRepString(in *Instruction) (mov bool, n uint32, ok bool) {
	rep := false
	for _, q := range in.Inst.Prefix {
		if q == 0 {
			break
		}
		if q&0xFF == x86asm.PrefixREP && q&x86asm.PrefixIgnored == 0 {
			rep = true
		}
	}
	if !rep || in.Inst.AddrSize != 64 {
		return false, 0, false
	}
	switch in.Inst.Op {
	case x86asm.STOSB, x86asm.STOSW, x86asm.STOSD, x86asm.STOSQ:
		n = map[x86asm.Op]uint32{x86asm.STOSB: 1, x86asm.STOSW: 2, x86asm.STOSD: 4, x86asm.STOSQ: 8}[in.Inst.Op]
	case x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ:
		n, mov = map[x86asm.Op]uint32{x86asm.MOVSB: 1, x86asm.MOVSW: 2, x86asm.MOVSD: 4, x86asm.MOVSQ: 8}[in.Inst.Op], true
	default:
		return false, 0, false
	}
	return mov, n, true
}

// repLoop adds the loop of the rep string instruction in, entered from
// node from on path p, and returns its head and the path out of it, past
// the instruction.
func (l *lifter) repLoop(from ir.NodeID, p *path, in *Instruction, mov bool, n uint32) (ir.NodeID, *path) {
	b := l.b
	return l.loopAt(from, p, in, ir.NoTerm, func(body *path) ir.Term {
		s := body.s
		step := b.Const(64, uint64(n))
		var v ir.Term
		if mov {
			v = b.Select(s.Mem, s.GPR[RSI], n)
			s.GPR[RSI] = b.Add(s.GPR[RSI], step)
		} else {
			acc, _ := accRegs(8 * n)
			v = s.Reg(b, acc)
		}
		s.Mem = b.Store(s.Mem, s.GPR[RDI], n, v)
		s.GPR[RDI] = b.Add(s.GPR[RDI], step)
		s.GPR[RCX] = b.Sub(s.GPR[RCX], b.Const(64, 1))
		return b.Eq(l.base.GPR[RCX], b.Const(64, 0))
	})
}
