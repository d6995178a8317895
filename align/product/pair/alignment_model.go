package pair

import (
	"fmt"

	"eqc/ir"
	"eqc/ub"
	"eqc/x86"
)

// The alignment model's premise about the caller (thesis Table 2.1: an
// access is aligned to its type). C makes a pointer to an object type that
// is not aligned for that type undefined the moment it is formed (C11
// 6.3.2.3p7), so an argument of type int * holds a multiple of 4 whether
// or not the function reads through it. Without this premise a vectorized
// loop over two int arrays that overlap at a byte offset (d = s + 3) reads
// s[1] before the scalar source writes d[0] over part of it: a difference
// only misaligned pointers show, which is no difference under the model.
// Only scalar pointees count, whose alignment on x86-64 is their size (2,
// 4 or 8 bytes); a struct's depends on its members (a packed one has 1),
// and char pointers have nothing to assume.

// alignedParams are the premises and proof lines of the alignment model:
// for each pointer parameter in a register whose pointee is an integer, a
// float, a pointer or an enum of 2, 4 or 8 bytes, its value is a multiple
// of that size. None without the model or without the source's DWARF.
func (p *Pair) alignedParams() ([]ir.Term, []string) {
	f := p.Src.Fn.Func
	if !p.Models.Has(ub.Align) || f == nil || f.Debug == nil {
		return nil, nil
	}
	b := p.B
	var facts []ir.Term
	var lines []string
	for _, rp := range p.registerPointerParams() {
		t := rp.Type
		switch t.PointeeKind {
		case x86.KindInt, x86.KindFloat, x86.KindPointer, x86.KindEnum:
		default:
			continue
		}
		size := uint64(t.PointeeSize)
		if size != 2 && size != 4 && size != 8 {
			continue
		}
		facts = append(facts, b.Eq(b.BVAnd(rp.Var, b.Const(64, size-1)), b.Const(64, 0)))
		lines = append(lines, fmt.Sprintf("align: parameter %s (%s, in %s) is a multiple of %d (a misaligned %s is undefined behaviour)", rp.Name, t.Name, x86.GPRNames[rp.Reg], size, t.Name))
	}
	return facts, lines
}
