package align

import (
	"strings"

	"eqc/align/product/pair"
	"eqc/inputs"
	"eqc/tracer"
	"eqc/x86"
)

// NaN payloads. Addition and multiplication commute in IEEE 754 except
// for which NaN comes out of two NaN operands, and compilers swap their
// operands freely (gcc-12 -O3 computes c[i] * b[i] for the source's
// b[i] * c[i]); on an input with a NaN in both, the two builds store
// different NaNs. C leaves the payload of a NaN unspecified, so such a
// run shows no difference the language defines, and reporting it would
// call a correct compilation wrong. A confirmed difference whose every
// differing observable is a floating-point value that is a NaN in both
// runs is therefore not reported as not-equivalent; the semantics stay
// exact about payloads (x86/sem_fp.go), so no proof is claimed either.

// nanPayloadOnly reports whether every difference c shows, on input in,
// is a NaN in both runs: the return value of a float or double result,
// and each element of a differing memory range, typed by DWARF (a global's
// type, a pointer parameter's pointee, arrays of arrays and pointers to
// rows by their elements) as float or double, or each differing byte of
// a range of struct elements or of a struct global, when it lies in a
// float or double member (x86.Type.PointeeScalars, Members) that is a NaN
// in both runs. Any other type,
// or none DWARF gives, a run that ended differently, different calls, or
// more differing ranges than the comparison lists is a difference.
func nanPayloadOnly(p *pair.Pair, in tracer.Input, c *tracer.Confirmation) bool {
	if c == nil || !c.Differ || c.Src.Outcome != c.Dst.Outcome {
		return false
	}
	for _, d := range c.Differences {
		// A struct result's bytes differ only where no NaN lane explains it
		// (tracer compares float members so).
		if strings.HasPrefix(d, "outcome") || strings.HasPrefix(d, "calls") || strings.HasPrefix(d, "return bytes") || strings.Contains(d, "more differing ranges") {
			return false
		}
	}
	if c.Src.Return != c.Dst.Return || c.Src.ReturnHi != c.Dst.ReturnHi {
		w := map[string]int{"float32": 4, "float64": 8}[c.Src.ReturnKind]
		if w == 0 || !isNaN(c.Src.Return, w) || !isNaN(c.Dst.Return, w) {
			return false
		}
	}
	var buffers []block
	args := c.Args
	if len(args) == 0 {
		args = in.Args
	}
	for _, pm := range inputs.Classify(funcDebug(p)).Params {
		if pm.Kind == inputs.Pointer && pm.Reg < len(args) {
			if b, ok := paramBuffer(in, pm, args[pm.Reg]); ok {
				buffers = append(buffers, b)
			}
		}
	}
	for _, r := range c.Regions {
		bs, bd, lo, hi := regionBlocks(p, buffers, c, r)
		es := bs.elem.size
		if !bs.elem.float || es != 4 && es != 8 {
			if !nanMembersOnly(bs, bd, lo, hi) {
				return false
			}
			continue
		}
		start := ((bs.origin % es) + es) % es
		for off := start + floorDiv(lo-start, es)*es; off < hi; off += es {
			if off < 0 || off+es > len(bs.data) || off+es > len(bd.data) {
				return false
			}
			x, y := bs.elem.read(bs.data, off), bd.elem.read(bd.data, off)
			if x != y && (!isNaN(x, es) || !isNaN(y, es)) {
				return false
			}
		}
	}
	return true
}

// nanMembersOnly reports whether every byte that differs between bs and
// bd in [lo, hi) lies in a float or double member of a struct element
// (block.members) that is a NaN in both.
func nanMembersOnly(bs, bd block, lo, hi int) bool {
	if len(bs.members) == 0 || bs.stride <= 0 {
		return false
	}
	for off := lo; off < hi; off++ {
		if off < 0 || off >= len(bs.data) || off >= len(bd.data) {
			return false
		}
		if bs.data[off] == bd.data[off] {
			continue
		}
		rel := ((off-bs.origin)%bs.stride + bs.stride) % bs.stride
		var m *x86.Scalar
		for i := range bs.members {
			if s := &bs.members[i]; s.Float && !s.InUnion && (s.Size == 4 || s.Size == 8) && int64(rel) >= s.Off && int64(rel) < s.Off+s.Size {
				m = s
			}
		}
		if m == nil {
			return false
		}
		w := int(m.Size)
		start := off - (rel - int(m.Off))
		if start < 0 || start+w > len(bs.data) || start+w > len(bd.data) {
			return false
		}
		word := scalar{size: w, float: true}
		if !isNaN(word.read(bs.data, start), w) || !isNaN(word.read(bd.data, start), w) {
			return false
		}
	}
	return true
}

// isNaN says whether the w-byte IEEE value with bits x is a NaN.
func isNaN(x uint64, w int) bool {
	if w == 4 {
		return x&0x7f800000 == 0x7f800000 && x&0x007fffff != 0
	}
	return x&0x7ff0000000000000 == 0x7ff0000000000000 && x&0x000fffffffffffff != 0
}
