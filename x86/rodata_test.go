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

// TestSectionObject: clang -O2 turns a switch of constants into a table
// of the values in .rodata, referred to as .rodata+off, and two such
// switches share the section. The object at each reference holds that
// switch's values and ends where the other table starts (or the section
// does), so pinning one table's bytes says nothing of the other's.
func TestSectionObject(t *testing.T) {
	const src = `
int first(int k) {
	switch (k) { case 0: return 11; case 1: return 23; case 2: return 37; case 3: return 41; case 4: return 53; default: return 0; }
}
int second(int k) {
	switch (k) { case 0: return 2; case 1: return 3; case 2: return 5; case 3: return 7; case 4: return 13; case 5: return 17; default: return 0; }
}
`
	obj := compileSource(t, "clang-16", "sectionobject", src, "-O2")
	f := mustOpen(t, obj)
	for _, c := range []struct {
		fn     string
		values []uint32
	}{{"first", []uint32{11, 23, 37, 41, 53}}, {"second", []uint32{2, 3, 5, 7, 13, 17}}} {
		fn := mustFunction(t, f, c.fn)
		found := false
		for _, in := range fn.Insts {
			for _, ref := range in.Refs {
				d, ok := f.SectionObject(ref.Symbol, uint64(ref.Offset))
				if !ok {
					continue
				}
				found = true
				if !d.ReadOnly || d.Relocated || len(d.Bytes) != 4*len(c.values) {
					t.Errorf("%s: %s%+d: read-only %v relocated %v, %d bytes; want a read-only table of %d values", c.fn, ref.Symbol, ref.Offset, d.ReadOnly, d.Relocated, len(d.Bytes), len(c.values))
					continue
				}
				for i, v := range c.values {
					if got := uint32(d.Bytes[4*i]) | uint32(d.Bytes[4*i+1])<<8 | uint32(d.Bytes[4*i+2])<<16 | uint32(d.Bytes[4*i+3])<<24; got != v {
						t.Errorf("%s: value %d is %d, want %d", c.fn, i, got, v)
					}
				}
			}
		}
		if !found {
			t.Errorf("%s: no reference to a section as a whole (clang-16 -O2 made no value table?)", c.fn)
		}
	}
	if _, ok := f.SectionObject("first", 0); ok {
		t.Errorf("SectionObject took a function symbol for a section")
	}
}
