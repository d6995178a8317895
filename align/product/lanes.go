package product

import (
	"strings"

	"eqc/align/product/pair"

	"golang.org/x/arch/x86/x86asm"
)

// The widths xmm registers are learned by. A lane of a double is one
// 64-bit value: learned as two 32-bit columns, the -O0 frame's
// `double s` and the target's accumulator come out related as
// x0 = s − 2^32·x1, and each half gets bounds of its bit pattern that mean
// nothing (clang's 8×-unrolled sum of doubles spent its time in Houdini
// queries dropping them). So a register's lanes are those of the
// operations that write it (xmmLanes), and for a register no such
// operation tells of, the pair's: 64 bits wide where the two programs
// compute on doubles or 64-bit integers and on nothing of 32 bits, both
// where they compute on both, and 32 bits otherwise.

// quadOps are the SSE integer operations on 64-bit lanes (not pmuludq,
// which multiplies 32-bit ones).
var quadOps = map[x86asm.Op]bool{x86asm.PADDQ: true, x86asm.PSUBQ: true, x86asm.PCMPEQQ: true, x86asm.PCMPGTQ: true}

// laneKind says which lane widths an SSE arithmetic operation computes
// on: 64 for doubles (sd, pd) and quadOps, 32 for floats (ss, ps) and
// the other packed integer operations, both for a conversion between a
// float and a double, neither for an operation that tells nothing
// (moves, logic, shuffles: pxor clears a double as well as an int).
func laneKind(op x86asm.Op) (narrow, wide bool) {
	if quadOps[op] {
		return false, true
	}
	if op == x86asm.CMPSD { // the string compare; CMPSD_XMM is the double one
		return false, false
	}
	s := strings.TrimSuffix(op.String(), "_XMM")
	if strings.HasPrefix(s, "CVT") {
		return strings.Contains(s, "SS") || strings.Contains(s, "PS"), strings.Contains(s, "SD") || strings.Contains(s, "PD")
	}
	for _, p := range []string{"ADD", "SUB", "MUL", "DIV", "SQRT", "MIN", "MAX", "CMP", "UCOMI", "COMI", "HADD"} {
		if strings.HasPrefix(s, p) {
			return strings.HasSuffix(s, "SS") || strings.HasSuffix(s, "PS"), strings.HasSuffix(s, "SD") || strings.HasSuffix(s, "PD")
		}
	}
	for _, p := range []string{"PADD", "PSUB", "PMUL", "PCMP", "PMIN", "PMAX", "PAVG", "PSAD", "PMADD", "PABS", "PSIGN", "PHADD", "PHSUB"} {
		if strings.HasPrefix(s, p) {
			return true, false
		}
	}
	return false, false
}

// laneWidths are the widths of the lanes xmm registers are learned by,
// computed once for the pair: the wide lanes first where there are two,
// so that on rows of small values (a lane equal to its low half) the
// learner keeps the 64-bit column.
func (pr *Product) laneWidths() []uint32 {
	if pr.lanes == nil {
		pr.lanes = lanesOf(pr.p)
	}
	return pr.lanes
}

func lanesOf(p *pair.Pair) []uint32 {
	narrow, wide := false, false
	for _, side := range []pair.Side{p.Src, p.Dst} {
		if side.Fn == nil {
			continue
		}
		for _, in := range side.Fn.Insts {
			n, w := laneKind(in.Inst.Op)
			narrow, wide = narrow || n, wide || w
		}
	}
	return widthsOf(narrow, wide)
}

// widthsOf are the lane widths for operations on narrow and wide lanes.
func widthsOf(narrow, wide bool) []uint32 {
	switch {
	case wide && narrow:
		return []uint32{64, 32}
	case wide:
		return []uint32{64}
	}
	return []uint32{32}
}

// xmmLanes are the lane widths side's xmm register reg is learned by: the
// widths of the operations that write it, when some tells (gcc's sum of
// ints into a long keeps its partial sums in a register only paddq
// writes, while pcmpgtd and punpckldq widen the elements in others: as
// 32-bit columns too, the sums' high halves gave bounds of their carries,
// "xmm0[1] ≤s 3", each a Houdini round to drop), else the pair's
// (laneWidths).
func (pr *Product) xmmLanes(side, reg int) []uint32 {
	key := [2]int{side, reg}
	if ws, ok := pr.regLanes[key]; ok {
		return ws
	}
	fn := pr.p.Src.Fn
	if side == 1 {
		fn = pr.p.Dst.Fn
	}
	narrow, wide := false, false
	if fn != nil {
		for _, in := range fn.Insts {
			if r, ok := in.Inst.Args[0].(x86asm.Reg); !ok || r != x86asm.X0+x86asm.Reg(reg) {
				continue
			}
			n, w := laneKind(in.Inst.Op)
			narrow, wide = narrow || n, wide || w
		}
	}
	ws := pr.laneWidths()
	if narrow || wide {
		ws = widthsOf(narrow, wide)
	}
	if pr.regLanes == nil {
		pr.regLanes = map[[2]int][]uint32{}
	}
	pr.regLanes[key] = ws
	return ws
}
