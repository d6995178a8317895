package align

import (
	"context"
	"maps"
	"slices"

	"eqc/align/product/pair"
	"eqc/inputs"
	"eqc/tracer"
	"eqc/x86"
)

// Minimizing a counterexample (minimize.go).
//
// An input that shows a difference is made small before it is shown, so
// that what is left is what the difference needs: fewest non-zero bytes,
// smallest magnitudes. Every step is a run of both binaries, and a step is
// kept only if the runs still differ; what the budget does not allow stays
// as it was. In order:
//
//  1. every memory block (a global, a heap buffer) the difference does not
//     need is set to zero;
//  2. each integer parameter is set to 0, else to the smallest magnitude
//     (binary search between 0 and its value, the sign kept) that still
//     differs;
//  3. each remaining block is cut to its shortest prefix (binary search in
//     8-byte steps) with the rest zero;
//  4. each remaining non-zero element is set to zero, else to 1 or -1.
//
// A global stays in the input as zeros rather than being left out, since
// left out it would keep each executable's own initializer. The runs here
// are not watched for undefined behaviour: a caller that needs the input
// free of the UB its model excludes watches the result (monitored), and
// keeps the input it started from when the result fails.

// minimizeTries bounds the runs minimize makes.
const minimizeTries = 96

// memBlock is one memory block of an input: a global by name, or a heap
// buffer by index in Input.Mem.
type memBlock struct {
	global string
	mem    int
	unit   int // element size, for step 4
}

func (k memBlock) data(in tracer.Input) []byte {
	if k.mem >= 0 {
		return in.Mem[k.mem].Data
	}
	return in.Globals[k.global]
}

// with returns in with block k's bytes replaced (in itself unchanged).
func (k memBlock) with(in tracer.Input, data []byte) tracer.Input {
	if k.mem >= 0 {
		in.Mem = slices.Clone(in.Mem)
		in.Mem[k.mem].Data = data
	} else {
		in.Globals = maps.Clone(in.Globals)
		in.Globals[k.global] = data
	}
	return in
}

// minimize makes a differing input small (see above) and returns it with
// its confirmation.
func minimize(ctx context.Context, cf *tracer.Confirmer, p *pair.Pair, in tracer.Input, c *tracer.Confirmation) (tracer.Input, *tracer.Confirmation) {
	sig := signature(p)
	var keys []memBlock
	for _, n := range slices.Sorted(maps.Keys(in.Globals)) {
		keys = append(keys, memBlock{global: n, mem: -1, unit: globalElem(p, n).Unit()})
	}
	for k, m := range in.Mem {
		unit := 1
		for _, pm := range sig.Params {
			if pm.Kind == inputs.Pointer && pm.Reg < len(in.Args) && in.Args[pm.Reg] >= m.Addr && in.Args[pm.Reg] < m.Addr+uint64(len(m.Data)) {
				unit = pm.Elem.Unit()
				break
			}
		}
		keys = append(keys, memBlock{mem: k, unit: unit})
	}
	tries := 0
	try := func(cand tracer.Input) bool {
		if tries >= minimizeTries || ctx.Err() != nil {
			return false
		}
		tries++
		c2, err := confirmOn(ctx, cf, &cand, diffRunLimit, nil)
		if err != nil || !c2.Differ {
			return false
		}
		in, c = cand, c2
		return true
	}
	nonzero := func(b []byte) bool { return slices.ContainsFunc(b, func(x byte) bool { return x != 0 }) }
	zeroFrom := func(key memBlock, off int) bool {
		data := slices.Clone(key.data(in))
		clear(data[off:])
		return try(key.with(in, data))
	}

	// 1. Blocks not needed.
	for _, key := range keys {
		if nonzero(key.data(in)) {
			zeroFrom(key, 0)
		}
	}
	// 2. Integer parameters, twice: one parameter's smallest value may
	// depend on the others'.
	for pass := 0; pass < 2; pass++ {
		for _, pm := range sig.Params {
			if pm.Kind != inputs.Int && pm.Kind != inputs.Unknown || pm.Reg >= len(in.Args) {
				continue
			}
			setArg := func(v uint64) bool {
				cand := in
				cand.Args = slices.Clone(in.Args)
				cand.Args[pm.Reg] = v
				return try(cand)
			}
			size := pm.Size
			if pm.Kind == inputs.Unknown || size <= 0 || size > 8 {
				size = 8
			}
			v := int64(inputs.Extend(in.Args[pm.Reg], size, pm.Signed || pm.Kind == inputs.Unknown))
			if v == 0 || setArg(0) {
				continue
			}
			// The smallest magnitude that still differs, by bisection
			// between 0 (differs not) and |v| (differs), the sign kept.
			neg := v < 0
			lo, hi := uint64(0), uint64(v)
			if neg {
				hi = uint64(-v)
			}
			for hi-lo > 1 && tries < minimizeTries && ctx.Err() == nil {
				mid := lo + (hi-lo)/2
				m := mid
				if neg {
					m = -mid
				}
				if setArg(m) {
					hi = mid
				} else {
					lo = mid
				}
			}
		}
	}
	// 3. Shortest prefixes.
	for _, key := range keys {
		lo, hi := 0, len(key.data(in)) // zeroing from hi on keeps the difference
		for nonzero(key.data(in)[lo:hi]) && hi-lo > 8 && tries < minimizeTries && ctx.Err() == nil {
			mid := (lo + (hi-lo)/2) &^ 7
			if mid <= lo {
				break
			}
			if zeroFrom(key, mid) {
				hi = mid
			} else {
				lo = mid
			}
		}
	}
	// 4. Elements: zero, else 1 or -1.
	for _, key := range keys {
		u := max(key.unit, 1)
		for off := 0; off+u <= len(key.data(in)) && tries < minimizeTries && ctx.Err() == nil; off += u {
			if !nonzero(key.data(in)[off : off+u]) {
				continue
			}
			for _, fill := range []func([]byte){
				func(e []byte) { clear(e) },
				func(e []byte) { clear(e); e[0] = 1 },
				func(e []byte) {
					for i := range e {
						e[i] = 0xff
					}
				},
			} {
				data := slices.Clone(key.data(in))
				fill(data[off : off+u])
				if slices.Equal(data, key.data(in)) || try(key.with(in, data)) {
					break
				}
			}
		}
	}
	return in, c
}

// signature reads the pair's parameters (inputs.Classify).
func signature(p *pair.Pair) inputs.Signature { return inputs.Classify(funcDebug(p)) }

// funcDebug is the function's DWARF description from either file (the
// source's first), or nil.
func funcDebug(p *pair.Pair) *x86.FuncDebug {
	for _, s := range []pair.Side{p.Src, p.Dst} {
		if s.Fn.Func != nil && s.Fn.Func.Debug != nil {
			return s.Fn.Func.Debug
		}
	}
	return nil
}
