package product

import (
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// TestLaneKind: the lane width each SSE operation computes on, and none
// for those that tell nothing (moves, logic, the string compare CMPSD).
func TestLaneKind(t *testing.T) {
	const (
		none, narrow, wide, both = 0, 1, 2, 3
	)
	for _, c := range []struct {
		op   x86asm.Op
		want int
	}{
		{x86asm.ADDSD, wide}, {x86asm.MULPD, wide}, {x86asm.SQRTSD, wide}, {x86asm.UCOMISD, wide},
		{x86asm.CMPSD_XMM, wide}, {x86asm.CVTSI2SD, wide}, {x86asm.CVTSS2SD, both}, {x86asm.CVTSD2SS, both},
		{x86asm.PADDQ, wide}, {x86asm.PSUBQ, wide}, {x86asm.PCMPEQQ, wide}, {x86asm.PCMPGTQ, wide},
		{x86asm.ADDSS, narrow}, {x86asm.MULPS, narrow}, {x86asm.CVTTSS2SI, narrow}, {x86asm.CVTDQ2PS, narrow},
		{x86asm.PADDD, narrow}, {x86asm.PMULUDQ, narrow}, {x86asm.PCMPGTB, narrow}, {x86asm.PMAXSD, narrow},
		{x86asm.PXOR, none}, {x86asm.MOVSD_XMM, none}, {x86asm.MOVAPS, none}, {x86asm.CMPSD, none}, {x86asm.ADD, none},
	} {
		n, w := laneKind(c.op)
		got := none
		if n {
			got |= narrow
		}
		if w {
			got |= wide
		}
		if got != c.want {
			t.Errorf("laneKind(%v) = %d, want %d (1 narrow, 2 wide)", c.op, got, c.want)
		}
	}
}
