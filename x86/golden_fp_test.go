package x86

import (
	"math"
	"strconv"
	"strings"

	"eqc/ir"
)

// fpEval interprets the uninterpreted floating point functions of sem_fp.go
// the way SSE computes them (round to nearest even, the default NaN and the
// NaN propagation rules of the SDM), so that the golden cases check that the
// semantics wire the right lanes into the right functions.

// fpLane is one IEEE value of 32 or 64 bits held as its bit pattern.
type fpLane struct {
	w    uint32
	bits uint64
}

func (l fpLane) f() float64 {
	if l.w == 32 {
		return float64(math.Float32frombits(uint32(l.bits)))
	}
	return math.Float64frombits(l.bits)
}

func fromF(w uint32, v float64) fpLane {
	if w == 32 {
		return fpLane{32, uint64(math.Float32bits(float32(v)))}
	}
	return fpLane{64, math.Float64bits(v)}
}

func (l fpLane) isNaN() bool { return math.IsNaN(l.f()) }

func (l fpLane) quiet() fpLane {
	if l.w == 32 {
		return fpLane{32, l.bits | 0x00400000}
	}
	return fpLane{64, l.bits | 0x0008000000000000}
}

func defaultNaN(w uint32) fpLane {
	if w == 32 {
		return fpLane{32, 0xFFC00000}
	}
	return fpLane{64, 0xFFF8000000000000}
}

// fpArith applies op with SSE's NaN rules: a NaN operand propagates (the
// first one), a NaN made from numbers is the default NaN.
func fpArith(a, b fpLane, op func(x, y float64) float64) fpLane {
	switch {
	case a.isNaN():
		return a.quiet()
	case b.isNaN():
		return b.quiet()
	}
	var r fpLane
	if a.w == 32 {
		x, y := float32(a.f()), float32(b.f())
		r = fpLane{32, uint64(math.Float32bits(float32(op32(x, y, op))))}
	} else {
		r = fromF(64, op(a.f(), b.f()))
	}
	if r.isNaN() {
		return defaultNaN(a.w)
	}
	return r
}

// op32 computes op in single precision: the float64 operation on float32
// inputs rounded once to float32 is exact for + − × ÷ (the double
// result's rounding cannot be observed after rounding to 24 bits).
func op32(x, y float32, op func(x, y float64) float64) float32 {
	return float32(op(float64(x), float64(y)))
}

func cmpPred(a, b fpLane, pred uint64) bool {
	x, y := a.f(), b.f()
	unord := a.isNaN() || b.isNaN()
	switch pred & 7 {
	case 0:
		return !unord && x == y
	case 1:
		return !unord && x < y
	case 2:
		return !unord && x <= y
	case 3:
		return unord
	case 4:
		return unord || x != y
	case 5:
		return unord || !(x < y)
	case 6:
		return unord || !(x <= y)
	}
	return !unord
}

// toInt converts like cvt(t)s[sd]2si: out of range and NaN give the
// "integer indefinite" value.
func toInt(v float64, w uint32, trunc bool) uint64 {
	if trunc {
		v = math.Trunc(v)
	} else {
		v = math.RoundToEven(v)
	}
	lim := math.Ldexp(1, int(w-1))
	if math.IsNaN(v) || v >= lim || v < -lim {
		return 1 << (w - 1)
	}
	return uint64(int64(v)) & mask(w)
}

func fpEval(f *ir.Func, args []ir.Value) (ir.Value, bool) {
	name, ok := strings.CutPrefix(f.Name, FPFuncPrefix)
	if !ok {
		return ir.Value{}, false
	}
	name, _, _ = strings.Cut(name, "/") // the widths suffix
	var pred uint64
	if base, p, has := strings.Cut(name, "."); has {
		name = base
		pred, _ = strconv.ParseUint(p, 10, 8)
	}
	w := uint32(64)
	if strings.HasSuffix(name, "ss") || strings.HasSuffix(name, "ps") {
		w = 32
	}
	bvArg := func(i int) uint64 { return args[i].BV().Uint64() }
	lane := func(i int) fpLane { return fpLane{w, bvArg(i)} }
	res := func(l fpLane) (ir.Value, bool) { return ir.BVValue(ir.NewBV(l.w, l.bits)), true }
	binop := map[string]func(x, y float64) float64{
		"add": func(x, y float64) float64 { return x + y },
		"sub": func(x, y float64) float64 { return x - y },
		"mul": func(x, y float64) float64 { return x * y },
		"div": func(x, y float64) float64 { return x / y },
	}
	// One lane of a binary operation.
	lane2 := func(op string, a, b fpLane) (fpLane, bool) {
		switch op {
		case "add", "sub", "mul", "div":
			return fpArith(a, b, binop[op]), true
		case "min":
			if !a.isNaN() && !b.isNaN() && a.f() < b.f() {
				return a, true
			}
			return b, true
		case "max":
			if !a.isNaN() && !b.isNaN() && a.f() > b.f() {
				return a, true
			}
			return b, true
		case "cmp":
			if cmpPred(a, b, pred) {
				return fpLane{a.w, mask(a.w)}, true
			}
			return fpLane{a.w, 0}, true
		}
		return fpLane{}, false
	}
	sqrt := func(a fpLane) fpLane {
		switch {
		case a.isNaN():
			return a.quiet()
		case a.f() < 0:
			return defaultNaN(a.w)
		}
		return fromF(a.w, math.Sqrt(a.f()))
	}
	arithOps := map[string]bool{"add": true, "sub": true, "mul": true, "div": true, "min": true, "max": true,
		"cmp": true, "sqrt": true}
	if op := name[:max(len(name)-2, 0)]; arithOps[op] {
		switch name[len(name)-2:] {
		case "ss", "sd":
			if op == "sqrt" {
				return res(sqrt(lane(0)))
			}
			if l, ok := lane2(op, lane(0), lane(1)); ok {
				return res(l)
			}
		}
	}
	switch name {
	case "cvtsi2sd":
		return res(fromF(64, float64(args[0].BV().Int64())))
	case "cvtsi2ss":
		return res(fpLane{32, uint64(math.Float32bits(float32(args[0].BV().Int64())))})
	case "cvttsd2si", "cvtsd2si", "cvttss2si", "cvtss2si":
		in := uint32(64)
		if strings.HasSuffix(name, "ss2si") {
			in = 32
		}
		return ir.BVValue(ir.NewBV(f.Result.Width, toInt(fpLane{in, bvArg(0)}.f(), f.Result.Width, strings.HasPrefix(name, "cvtt")))), true
	case "cvtss2sd":
		a := fpLane{32, bvArg(0)}
		if a.isNaN() {
			return res(fpLane{64, math.Float64bits(a.f()) | 0x0008000000000000})
		}
		return res(fromF(64, a.f()))
	case "cvtsd2ss":
		a := fpLane{64, bvArg(0)}
		if a.isNaN() {
			q := a.quiet().bits
			return res(fpLane{32, (q>>63)<<31 | 0x7f800000 | (q>>29)&0x7fffff})
		}
		return res(fromF(32, a.f()))
	}
	return ir.Value{}, false
}
