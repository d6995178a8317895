package x86

import (
	"debug/elf"
	"math"
	"testing"

	"eqc/ir"
)

// The constants of read-only sections that loads at a fixed address fold
// into the terms (constBytes, foldConstLoads).

const rodataSrc = `
double affine(double x) { return x * 1.5 + 0.25; }
double pick(double a, double b, int c) { if (c) return a + 0.1; return b + 0.1; }
int jump(int k) {
	switch (k) {
	case 0: return 11; case 1: return 23; case 2: return 37; case 3: return 41;
	case 4: return 53; case 5: return 67; case 6: return 79; default: return 0;
	}
}
`

// TestReadOnlyConstantsFold: gcc -O0 keeps a function's floating-point
// constants in .rodata, a section that also holds relocated jump tables,
// and clang -O2 loads one pool constant in two branches where memory is
// the same, so the second load is the first's term. Every such load is
// the constant, so no address of a read-only section is left in the
// terms, and the constants' bits are; the jump table's entries, patched
// by relocations, stay unfolded (unrelocated says so).
func TestReadOnlyConstantsFold(t *testing.T) {
	for _, c := range []struct{ cc, opt string }{{"gcc", "-O0"}, {"clang-16", "-O0"}, {"gcc", "-O2"}, {"clang-16", "-O2"}} {
		obj := compileSource(t, c.cc, "rodata"+c.opt, rodataSrc, c.opt)
		for _, fc := range []struct {
			name   string
			consts []float64
		}{{"affine", []float64{1.5, 0.25}}, {"pick", []float64{0.1}}} {
			b := ir.NewBuilder()
			_, g := liftNamed(t, b, obj, fc.name, StateNames{})
			for _, v := range poolAddrsLeft(b, g) {
				t.Errorf("%s %s %s: read-only address %s left in the TFG", c.cc, c.opt, fc.name, v)
			}
			for _, x := range fc.consts {
				if !hasConstant(b, x, edgeRoots(g)...) {
					t.Errorf("%s %s %s: the constant %v is not in the terms", c.cc, c.opt, fc.name, x)
				}
			}
		}
		f := mustOpen(t, obj)
		for i := range f.sections {
			sec := &f.sections[i]
			rs := f.dataRelocs[elf.SectionIndex(i)]
			if sec.flags&elf.SHF_EXECINSTR != 0 || len(rs) == 0 {
				continue
			}
			for _, r := range rs {
				if f.unrelocated(elf.SectionIndex(i), r.Offset, 1) || f.unrelocated(elf.SectionIndex(i), r.Offset+uint64(relocFieldSize(r.Type))-1, 1) {
					t.Errorf("%s %s: %s+%#x is patched by a relocation but reads as unrelocated", c.cc, c.opt, sec.name, r.Offset)
				}
			}
		}
	}
}

// hasConstant reports whether a constant among roots' subterms holds x's
// bits in its low 64 (a scalar double loaded into an xmm register, or
// alone).
func hasConstant(b *ir.Builder, x float64, roots ...ir.Term) bool {
	for _, u := range b.PostOrder(roots...) {
		if b.Op(u) == ir.OpConst && b.Width(u) >= 64 && b.ConstValue(u).Uint64() == math.Float64bits(x) {
			return true
		}
	}
	return false
}
