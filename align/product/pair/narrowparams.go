package pair

import (
	"fmt"

	"eqc/inputs"
	"eqc/ir"
	"eqc/x86"
)

// narrowParamFacts states how a caller passes an integer parameter
// narrower than int (char, short, _Bool, a small enum) in a register: it
// extends the value to 32 bits, with zeros for an unsigned type and with
// its sign for a signed one. The psABI leaves those bits unspecified, but
// both gcc and clang extend at every call, and clang relies on it in the
// callee: at -O2 it adds two unsigned char parameters with one `lea`
// where -O0 zero-extends each, so without this fact the two differ on
// inputs no compiled caller passes. Bits 32..63 stay unconstrained (no
// compiler relies on them). From the source's DWARF signature; none
// without one.
func (p *Pair) narrowParamFacts() ([]ir.Term, []string) {
	f := p.Src.Fn.Func
	if f == nil || f.Debug == nil {
		return nil, nil
	}
	b := p.B
	var facts []ir.Term
	var lines []string
	for _, prm := range inputs.Classify(f.Debug).Params {
		if prm.Kind != inputs.Int || prm.Size <= 0 || prm.Size >= 4 || prm.Reg >= len(x86.CalleeArgRegs) {
			continue
		}
		reg := p.SrcVar(x86.StateGPR0 + x86.CalleeArgRegs[prm.Reg])
		bits := uint32(prm.Size * 8)
		low := b.Extract(reg, bits-1, 0)
		ext, how := b.ZeroExt(low, 32-bits), "zero-extends"
		if prm.Signed {
			ext, how = b.SignExt(low, 32-bits), "sign-extends"
		}
		facts = append(facts, b.Eq(b.Extract(reg, 31, 0), ext))
		lines = append(lines, fmt.Sprintf("abi: the caller %s parameter %s (%s) to 32 bits", how, prm.Name, prm.Type.Name))
	}
	return facts, lines
}
