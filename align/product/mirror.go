package product

import (
	"fmt"
	"strings"

	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/x86"
)

// Mirror candidates: a register that holds a copy of memory the loop keeps
// rewriting. A vectorized recurrence carries the last vector it stored in a
// register instead of reading it back (s1221's b[i-4..i-1] in xmm0; clang's
// s3251 keeps a[i] in the top lane of xmm0), so the memory the source reads
// and the register the target reads agree only through an invariant
//
//	lane = M[B + s·p + off]
//
// with B a global or a pointer argument's entry value (or none), p a
// 64-bit variable of the node, s a scale of 1, 2, 4 or 8 (above 1 only
// from a pointer argument) and off a constant (gcc's is_sorted carries
// a[i−1] in edx, at a + 4·i − 4 from its index i);
// a register whose bits above its low byte or 16 bits are zero may mirror
// one or two bytes (a string loop's current character, loaded with zero
// extension at the bottom of the target's pass; narrowColumns).
// The affine learner cannot see it (memory is not a column), so these are
// found by search: on one state, the value of every lane is looked up
// among the words at B + s·p + off for each base B (or none), scale s,
// variable p and offset off near a constant the programs' addresses use; a match
// becomes a candidate when every state agrees, and Houdini decides.

// maxMirrorSamples bounds the states a mirror candidate is checked on.
const maxMirrorSamples = 64

// maxMirrorCandidates bounds the candidates of one node.
const maxMirrorCandidates = 32

// mirrorColumn is a value the node holds: a 32-bit lane of a vector
// register or a 32- or 64-bit variable.
type mirrorColumn struct {
	term  ir.Term
	width uint32 // bytes
	value func(sample) uint64
}

// mirrorAddr is one address shape B + s·p + off.
type mirrorAddr struct {
	global ir.Term // B: a global or an argument register's entry value; NoTerm: none
	ptr    comp
	scale  uint64
	off    uint64
}

// mirrorScales are the index scales an address mode has.
var mirrorScales = []uint64{1, 2, 4, 8}

// mirrorCandidates returns the candidates lane = M[B + s·p + off] that hold on
// every one of n's samples.
func (pr *Product) mirrorCandidates(n *PNode, samples []sample) []Candidate {
	b := pr.p.B
	if n.mem == ir.NoTerm || len(samples) < 4 {
		return nil
	}
	var cols []mirrorColumn
	var ptrs []comp
	for _, c := range n.comps {
		if !c.fresh || c.dead {
			continue
		}
		c := c
		so := b.Sort(c.term)
		switch {
		case !so.IsBV():
		case so.Width == 64:
			ptrs = append(ptrs, c)
			value := func(sm sample) uint64 { return pr.compValue(sm, c).BV().Uint64() }
			cols = append(cols, mirrorColumn{c.term, 8, value})
			if upperZero(samples, value, 32) {
				// A 32-bit value in a 64-bit register (gcc's prefix sum
				// keeps a[i−1] in edx): its low half mirrors 4 bytes.
				cols = append(cols, mirrorColumn{b.Extract(c.term, 31, 0), 4, func(sm sample) uint64 { return value(sm) & 0xffffffff }})
			}
			cols = append(cols, narrowColumns(b, c.term, samples, value)...)
		case so.Width == 32:
			value := func(sm sample) uint64 { return pr.compValue(sm, c).BV().Uint64() }
			cols = append(cols, mirrorColumn{c.term, 4, value})
			cols = append(cols, narrowColumns(b, c.term, samples, value)...)
		case so.Width == 128 && c.state >= x86.StateXMM0 && c.state < x86.StateXMM0+16:
			for lane := uint32(0); lane < 4; lane++ {
				lane := lane
				cols = append(cols, mirrorColumn{b.Extract(c.term, 32*lane+31, 32*lane), 4, func(sm sample) uint64 {
					return pr.compValue(sm, c).BV().Extract(32*lane+31, 32*lane).Uint64()
				}})
			}
		}
	}
	if len(cols) == 0 || len(ptrs) == 0 {
		return nil
	}
	globals := append([]ir.Term{ir.NoTerm}, pr.p.GlobalVars()...)
	args := map[ir.Term]bool{}
	for _, r := range x86.CalleeArgRegs {
		a := pr.p.SrcVar(x86.StateGPR0 + r)
		globals = append(globals, a)
		args[a] = true
	}
	offs := pr.p.AddressOffsets()
	// The search state: the first sample whose memory was randomized
	// where it matters is not known in advance, so each column is looked
	// up on the first sample where its value is not one byte repeated
	// (the memory's default pattern).
	type key struct {
		v     uint64
		width uint32
	}
	indexes := map[int]map[key][]mirrorAddr{}
	index := func(k int) map[key][]mirrorAddr {
		if ix, ok := indexes[k]; ok {
			return ix
		}
		sm := samples[k]
		mem := sm.d[x86.StateMem].Mem()
		ix := map[key][]mirrorAddr{}
		for _, g := range globals {
			gv := uint64(0)
			if g != ir.NoTerm {
				gv = pr.entryValue(sm, g)
			}
			for _, p := range ptrs {
				pv := pr.compValue(sm, p).BV().Uint64()
				for _, scale := range mirrorScales {
					if scale > 1 && !args[g] {
						// Scaled from a pointer argument only: a
						// global's arrays have their mirrors at G + p
						// + off already, and more candidates there
						// changed which bounds Houdini kept
						// (sio_loops.c's fill1 lost its proof).
						break
					}
					for _, off := range offs {
						a := gv + scale*pv + off
						if pr.inStack(sm, a) {
							continue
						}
						bs := mem.Read(a, 8)
						var v uint64
						for i, x := range bs {
							v |= uint64(x) << (8 * i)
						}
						at := mirrorAddr{g, p, scale, off}
						for _, w := range []uint32{1, 2, 4, 8} {
							k := key{v & (1<<(8*w) - 1), w}
							if w == 8 {
								k.v = v
							}
							ix[k] = append(ix[k], at)
						}
					}
				}
			}
		}
		indexes[k] = ix
		return ix
	}
	var out []Candidate
	for _, col := range cols {
		k := -1
		for i, sm := range samples {
			// A byte is always one byte repeated: the first nonzero one
			// (every sample is checked after).
			if v := col.value(sm); !repeatedByte(v, col.width) || col.width == 1 && v != 0 {
				k = i
				break
			}
		}
		if k < 0 {
			continue
		}
		for _, at := range index(k)[key{col.value(samples[k]), col.width}] {
			if !pr.mirrorHolds(col, at, samples) {
				continue
			}
			// The shape canonical addresses take (pointerBases).
			base := at.ptr.term
			if at.scale > 1 {
				base = b.Mul(b.Const(64, at.scale), base)
			}
			if at.global != ir.NoTerm {
				base = pr.simp.Simplify(b.Add(at.global, base))
			}
			addr := pr.simp.Simplify(b.Add(base, b.Const(64, at.off)))
			t := b.Eq(col.term, b.Select(n.mem, addr, col.width))
			if !pr.checkable(n, t) {
				// The proof checker refuses memory read through rsp or
				// rbp, which may be a frame pointer (align/verify).
				continue
			}
			out = append(out, Candidate{Term: t, Desc: fmt.Sprintf("%s = M[%s]", b.Short(col.term), b.Short(addr))})
			if len(out) >= maxMirrorCandidates {
				return out
			}
		}
	}
	return out
}

// mirrorHolds checks col = M[at] on every sample, with the address moving
// within a run that reaches the node more than once (a fixed address
// there is a plain global, which the learner covers) and never in the
// stack. At a node each run reaches once (a call site before a loop,
// where the target has loaded the first character and the source will
// load it after the call) there is nothing to move.
func (pr *Product) mirrorHolds(col mirrorColumn, at mirrorAddr, samples []sample) bool {
	moved, again := false, false
	first := map[*pair.CoRun]uint64{}
	for _, sm := range samples {
		pv := pr.compValue(sm, at.ptr).BV().Uint64()
		a := at.scale*pv + at.off
		if at.global != ir.NoTerm {
			a += pr.entryValue(sm, at.global)
		}
		if pr.inStack(sm, a) {
			return false
		}
		if f, ok := first[sm.cr]; !ok {
			first[sm.cr] = pv
		} else {
			again = true
			moved = moved || f != pv
		}
		var v uint64
		for j, x := range sm.d[x86.StateMem].Mem().Read(a, int(col.width)) {
			v |= uint64(x) << (8 * j)
		}
		if v != col.value(sm) {
			return false
		}
	}
	return moved || !again
}

// inStack reports whether address a (and the 8 bytes from it) may touch
// the stack region of sm's run, which the precondition keeps globals out
// of.
func (pr *Product) inStack(sm sample, a uint64) bool {
	lo := sm.cr.RSP0 - pair.StackLimit - 8 // [lo, rsp0+8): a starts within 8 bytes below the region or in it
	return a-lo < pair.StackLimit+16
}

// upperZero reports whether value's bits from bit low up are zero on
// every sample.
func upperZero(samples []sample, value func(sample) uint64, low uint) bool {
	for _, sm := range samples {
		if value(sm)>>low != 0 {
			return false
		}
	}
	return true
}

// narrowColumns are the low byte or the low 16 bits of a register whose
// bits above them are zero on every sample: a character or a short loaded
// with zero extension and carried round the loop (the target's string
// loop tests the byte it loaded at the bottom of the last pass, where the
// source loads it again at the top). Whether the upper bits are zero is
// the bounds learner's to find.
func narrowColumns(b *ir.Builder, t ir.Term, samples []sample, value func(sample) uint64) []mirrorColumn {
	for _, w := range []uint32{1, 2} {
		if upperZero(samples, value, uint(8*w)) {
			return []mirrorColumn{{b.Extract(t, 8*w-1, 0), w, func(sm sample) uint64 { return value(sm) & (1<<(8*w) - 1) }}}
		}
	}
	return nil
}

// repeatedByte reports whether the width-byte value v is one byte repeated.
func repeatedByte(v uint64, width uint32) bool {
	for i := uint32(1); i < width; i++ {
		if byte(v>>(8*i)) != byte(v) {
			return false
		}
	}
	return true
}

// stackNamed reports whether address a is computed from a register named
// rsp or rbp, as the proof checker judges invariants' memory reads.
func stackNamed(b *ir.Builder, a ir.Term) bool {
	for _, v := range b.PostOrder(a) {
		if b.Op(v) == ir.OpVar && (strings.HasSuffix(b.VarName(v), ".rsp") || strings.HasSuffix(b.VarName(v), ".rbp")) {
			return true
		}
	}
	return false
}
