package pair

import (
	"eqc/ir"
	"eqc/x86"
)

// Small inputs for counterexamples (smallinputs.go).
//
// A solver's counterexample is any input on which an obligation fails;
// under a UB model it counts only if the source's real run has none of
// the model's undefined behaviour there, and solvers like extreme values
// (INT_MIN, a shift by 31) where signed arithmetic overflows. A mutant
// that differs on most inputs then stays unknown because of the one the
// solver picked. Asking again with every integer parameter small, where
// arithmetic seldom overflows, usually gives an input that counts.
//
// SmallArgs only narrows the search for a counterexample: with it set, a
// check never answers equivalent (what holds for small arguments may fail
// for others).

// SmallArgBound is the magnitude of the integer arguments a check with
// SmallArgs considers.
const SmallArgBound = 1 << 10

// smallArgs are the constraints that every integer (non-pointer)
// parameter the source's signature passes in a register is within
// [-bound, bound] at its width.
func (p *Pair) smallArgs(bound int64) []ir.Term {
	b := p.B
	regs, n := p.registerParams()
	var out []ir.Term
	for i, r := range x86.CalleeArgRegs {
		if i >= n || regs[i].Pointer || regs[i].String {
			continue
		}
		a := p.SrcVar(x86.StateGPR0 + r)
		if regs[i].Narrow {
			a = b.SignExt(b.Extract(a, 31, 0), 32)
		}
		lo, hi := b.Const(64, uint64(-bound)), b.Const(64, uint64(bound))
		out = append(out, b.Sle(lo, a), b.Sle(a, hi))
	}
	return out
}
