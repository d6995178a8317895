package tracer

import (
	"fmt"
	"sort"

	"eqc/ub"

	"golang.org/x/arch/x86/x86asm"
)

// Pointer subtraction in the UB monitor (ubptrdiff.go).
//
// C defines p − q only for two pointers into one array object, and then
// it is the difference of their subscripts. Compilers divide the byte
// distance exactly (gcc's EXACT_DIV_EXPR) and may then take q + (p − q)
// for p, or (p − q)·size for the byte distance, where the -O0 source
// truncates. Two pointers whose distance is no multiple of their element
// size point into no one array: undefined behaviour, under obva with the
// other rules of pointer arithmetic inside objects. (gcc -O2's lua_settop
// stores top + byte distance where the source stores top + 16·⌊distance/16⌋:
// on a generated lua_State whose ci->func lay 200 bytes from top, a
// difference the source's run allowed.)
//
// -O0 code subtracts pointers with a 64-bit sub of two registers and then
// divides by the element size: a sar by its power of two, and for the odd
// part a multiplication by that number's inverse modulo 2^64 (gcc) or an
// idiv (clang). The monitor marks the register of a sub whose operands are
// both addresses of the run's data (the heap of pointer arguments, a data
// object, the stack region), follows the mark through the sar and register
// moves, and reports a sar that shifts out a set bit, a multiplication by
// an odd number's inverse of a value that number does not divide, and an
// idiv that leaves a remainder. It over-approximates like the other
// checks: (a − b) >> 4 on two longs that hold such addresses counts too,
// which costs an input, never a verdict.

// ptrDiffMarks are the general registers (RAX = 0) that hold a pointer
// difference, in bytes or partly divided.
type ptrDiffMarks [16]bool

// maxOddElement bounds the odd factor of an element size whose inverse a
// multiplication may be: inverses of larger odd numbers are taken for
// ordinary constants.
const maxOddElement = 1 << 24

// addressLike reports whether v is an address of the run's data, or one
// past an object's end.
func (m *ubMonitor) addressLike(v uint64) bool {
	if v >= HeapAddr && v <= HeapAddr+m.exe.HeapSize {
		return true
	}
	if v+ub.StackLimit >= m.rsp0 && v <= m.rsp0+8 {
		return true
	}
	i := sort.Search(len(m.objects), func(i int) bool { return m.objects[i].end >= v })
	return i < len(m.objects) && m.objects[i].start <= v
}

// checkPtrDiff reports inst dividing a marked pointer difference
// inexactly; exact says it divides one exactly, a multiplication by an
// inverse that is no C multiplication (whose overflow is no event).
func (m *ubMonitor) checkPtrDiff(inst x86asm.Inst, pre, post *State, next uint64) (models ub.Set, what string, exact bool) {
	marked := func(a x86asm.Arg) (uint64, bool) {
		r, ok := a.(x86asm.Reg)
		if !ok || r < x86asm.RAX || r > x86asm.R15 || !m.ptrDiff[r-x86asm.RAX] {
			return 0, false
		}
		return regValue(r, pre, next), true
	}
	inexact := func(d uint64, size uint64) (ub.Set, string, bool) {
		return set(ub.OBVA), fmt.Sprintf("pointer subtraction: the pointers are %d units apart, no multiple of the element size %d", int64(d), size), false
	}
	switch inst.Op {
	case x86asm.SAR:
		k, ok := inst.Args[1].(x86asm.Imm)
		if v, isDiff := marked(inst.Args[0]); isDiff && ok && k > 0 && k < 64 && v&(1<<uint(k)-1) != 0 {
			return inexact(v, 1<<uint(k))
		}
	case x86asm.IMUL:
		if len(inst.Args) < 2 || inst.Args[1] == nil || len(inst.Args) > 2 && inst.Args[2] != nil {
			break
		}
		v, isDiff := marked(inst.Args[0])
		other := inst.Args[1]
		if !isDiff {
			v, isDiff = marked(inst.Args[1])
			other = inst.Args[0]
		}
		r, ok := other.(x86asm.Reg)
		if !isDiff || !ok || r < x86asm.RAX || r > x86asm.R15 {
			break
		}
		if d := oddInverse(regValue(r, pre, next)); d > 1 && d < maxOddElement {
			if int64(v)%int64(d) != 0 {
				return inexact(v, d)
			}
			return 0, "", true
		}
	case x86asm.IDIV:
		if m.ptrDiff[RAX] && inst.DataSize == 64 && post.Regs[RDX] != 0 {
			var size uint64
			if r, ok := inst.Args[0].(x86asm.Reg); ok {
				size = regValue(r, pre, next)
			}
			return inexact(pre.Regs[RAX], size)
		}
	}
	return 0, "", false
}

// updatePtrDiff moves the marks past inst, run from pre to post.
func (m *ubMonitor) updatePtrDiff(inst x86asm.Inst, pre, post *State) {
	reg64 := func(a x86asm.Arg) (int, bool) {
		r, ok := a.(x86asm.Reg)
		if !ok || r < x86asm.RAX || r > x86asm.R15 {
			return 0, false
		}
		return int(r - x86asm.RAX), true
	}
	switch inst.Op {
	case x86asm.CALL:
		m.ptrDiff = ptrDiffMarks{}
		return
	case x86asm.CDQ, x86asm.CQO:
		m.ptrDiff[RDX] = false // rax is read, not written (clang's cqo before idiv)
		return
	case x86asm.CDQE, x86asm.CWDE, x86asm.MUL, x86asm.IDIV, x86asm.DIV:
		m.ptrDiff[RAX], m.ptrDiff[RDX] = false, false
		return
	case x86asm.SUB:
		// The subtrahend is a register (clang) or a frame slot (gcc):
		// its value is what the sub took away.
		if d, ok := reg64(inst.Args[0]); ok {
			m.ptrDiff[d] = m.addressLike(pre.Regs[d]) && m.addressLike(pre.Regs[d]-post.Regs[d])
			return
		}
	case x86asm.MOV:
		d, okD := reg64(inst.Args[0])
		s, okS := reg64(inst.Args[1])
		if okD && okS {
			m.ptrDiff[d] = m.ptrDiff[s]
			return
		}
	case x86asm.SAR:
		if _, ok := inst.Args[1].(x86asm.Imm); ok {
			if _, ok := reg64(inst.Args[0]); ok {
				return // still the difference, now in larger units
			}
		}
	}
	if len(inst.Args) > 0 {
		if r, ok := inst.Args[0].(x86asm.Reg); ok {
			if i, ok := regIndex(r); ok {
				m.ptrDiff[i] = false
			}
		}
	}
}

// oddInverse is the odd number whose inverse modulo 2^64 c is (c odd),
// else 0.
func oddInverse(c uint64) uint64 {
	if c&1 == 0 {
		return 0
	}
	// Newton's iteration doubles the correct low bits: x = c is right to
	// 3 bits (c·c ≡ 1 mod 8 for odd c), five steps reach 96.
	x := c
	for range 5 {
		x *= 2 - c*x
	}
	return x
}
