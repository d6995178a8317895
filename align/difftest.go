package align

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"eqc/align/product/pair"
	"eqc/inputs"
	"eqc/prove"
	"eqc/tracer"
	"eqc/ub"
	"eqc/x86"
)

// Differential testing (difftest.go)
//
// The loop engine answers only "equivalent" or "unknown": a failed loop
// obligation speaks of product nodes, not of entry states, so it gives no
// counterexample to confirm, and a search that cannot correlate a mutant
// with its source may spend the whole timeout failing. So before the proof
// search starts, Check runs both binaries natively on a few concrete inputs
// chosen to catch the usual ways loop code goes wrong (a changed constant,
// bound or operator): random bytes, small element values that sit next to
// comparison constants, uniform patterns, and arguments 0, 1, small,
// array-sized and negative. A difference tracer.Confirm reports (it counts
// one only when the source returns normally) is a real run of both binaries
// disagreeing, which is what DESIGN asks of "not-equivalent"; nothing here
// is decided by the evaluator. Every input is a valid calling context of
// the shape the proof assumes: arguments in registers, the globals the code
// names filled, read-only data left as the binaries hold it.

// Bounds of one differential test. Linking both objects costs a few
// hundred milliseconds and one run of a loop kernel a few, so a handful of
// inputs is cheap next to a proof search.
const (
	diffMaxInputs = 12
	diffBudget    = 3 * time.Second
	// diffRunLimit bounds one input (both runs): an input that makes the
	// source loop for long (a huge bound) proves nothing and must not eat
	// the others' time.
	diffRunLimit = time.Second
	// diffHeapBuf is the heap buffer each pointer parameter points to, at
	// tracer.HeapAddr + k*diffHeapBuf (the tracer maps 256 KiB there).
	diffHeapBuf = 16 << 10
	// diffDefaultCount is the "array-sized" argument when the code names
	// no array of known size.
	diffDefaultCount = 1000
	// diffUnsizedFill is how much of a global of unknown size an input
	// fills (at most tracer.DefaultExternSize, what the drivers give it):
	// enough for TSVC's arrays of 32000 ints.
	diffUnsizedFill = 128 << 10
)

// diffOutcome is what one differential test did.
type diffOutcome struct {
	runs int                  // inputs run on both binaries
	in   tracer.Input         // the input that showed a difference
	c    *tracer.Confirmation // its confirmation; nil when no input differed
	note string               // why testing stopped early, if it did
	// ubNote says why the first input that differed was not counted: the
	// source may have undefined behaviour on it under the model, or the
	// monitor could not watch the whole run.
	ubNote string
}

// diffBudgetFor is the share of the check's time the test's runs may take
// (linking both objects comes first, outside it): at most diffBudget and a
// third of what is left before ctx's deadline.
func diffBudgetFor(ctx context.Context) time.Duration {
	b := diffBudget
	if dl, ok := ctx.Deadline(); ok {
		b = min(b, time.Until(dl)/3)
	}
	return b
}

// diffTest runs the pair's binaries on the inputs of diffInputs until one
// shows a confirmed difference, the inputs run out or the budget is spent.
// A difference is minimized (minimize.go) so that
// the input shown stays small.
func diffTest(ctx context.Context, req Request, models ub.Set, p *pair.Pair) diffOutcome {
	return diffTestOn(ctx, req, models, p, diffInputs(p))
}

// diffTestOn is diffTest on the inputs ins.
func diffTestOn(ctx context.Context, req Request, models ub.Set, p *pair.Pair, ins []tracer.Input) diffOutcome {
	var out diffOutcome
	// Linking comes before the budget: on a loaded machine it alone can
	// take the few seconds the runs get, and then no input would run.
	cf, err := tracer.NewConfirmer(ctx, req.SrcPath, req.SrcFunc, req.DstPath, req.DstFunc)
	if err != nil {
		out.note = err.Error()
		return out
	}
	defer cf.Close()
	cf.Witness = req.Witness
	checkCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, diffBudgetFor(ctx))
	defer cancel()
	dropped := map[string]bool{} // globals neither executable defines
	candidates := 0
	for _, in := range ins {
		for name := range dropped {
			delete(in.Globals, name)
		}
		c, err := confirmOn(ctx, cf, &in, diffRunLimit, dropped)
		if err != nil {
			out.note = err.Error()
			return out
		}
		out.runs++
		if !c.Differ {
			continue
		}
		// Minimizing has a budget of its own, on the check's time: the
		// test's is mostly spent by now.
		mctx, cancel := minimizeContext(checkCtx)
		small, sc := minimize(mctx, cf, p, in, c)
		cancel()
		if !models.None() {
			// The UB monitor single-steps the source, which on a loop
			// kernel takes seconds: it watches the minimized input, on the
			// check's time rather than the test's, and when that one has
			// undefined behaviour (making values small can make them
			// overflow: ext(x + 1) * 2 at x = 0), the input as found; at
			// most diffMonitored inputs in all.
			if candidates++; candidates > diffMonitored {
				return out
			}
			mc := monitored(checkCtx, cf, small, models)
			if !mc.Differ && sc != c && candidates < diffMonitored {
				candidates++
				if oc := monitored(checkCtx, cf, in, models); oc.Differ {
					small, mc = in, oc
				}
			}
			if !mc.Differ {
				if out.ubNote == "" {
					out.ubNote = "an input that differs was not counted: " + mc.Detail
				}
				continue
			}
			sc = mc
		}
		in, c = small, sc
		out.in, out.c = in, c
		return out
	}
	return out
}

// diffMonitored bounds the differing inputs the UB monitor watches in one
// differential test.
const diffMonitored = 3

// monitored confirms in once more with the source's run watched by the UB
// monitor for models (tracer.Confirmer.UB), within a third of the check's
// time left.
func monitored(ctx context.Context, cf *tracer.Confirmer, in tracer.Input, models ub.Set) *tracer.Confirmation {
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Until(dl)/3)
		defer cancel()
	}
	cf.UB = models
	defer func() { cf.UB = 0 }()
	c, err := confirmOn(ctx, cf, &in, 0, nil)
	if err != nil {
		return &tracer.Confirmation{Detail: "the monitored run failed: " + err.Error()}
	}
	return c
}

// confirmOn runs in on cf, within limit when it is positive. A global the
// code names but neither executable defines (one the optimizer dropped) is
// removed from in (and recorded in dropped, if given), and the input run
// again without it.
func confirmOn(ctx context.Context, cf *tracer.Confirmer, in *tracer.Input, limit time.Duration, dropped map[string]bool) (*tracer.Confirmation, error) {
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	for {
		c, err := cf.Confirm(ctx, *in)
		var unknownGlobal *tracer.UnknownGlobalError
		if !errors.As(err, &unknownGlobal) {
			return c, err
		}
		if _, ok := in.Globals[unknownGlobal.Name]; !ok {
			return c, err
		}
		delete(in.Globals, unknownGlobal.Name)
		if dropped != nil {
			dropped[unknownGlobal.Name] = true
		}
	}
}

// region is one block of memory an input fills: a global (by symbol) or a
// pointer parameter's heap buffer (by address).
type region struct {
	symbol string
	addr   uint64
	size   int
	elem   inputs.Elem
	sized  bool // size is the whole object's (else a prefix of one of unknown size)
}

// regParam is one parameter passed in registers, and for pointers the
// index of the region it points to (-1 for none).
type regParam struct {
	inputs.Param
	buf int
}

// diffInputs are the differential test's inputs, deterministic for the
// pair: memory patterns and arguments per inputs.Plan, then the
// dictionary inputs (dictInputs).
func diffInputs(p *pair.Pair) []tracer.Input {
	regions, params := diffShape(p)
	count := 0
	for _, r := range regions {
		if n := r.size / r.elem.Unit(); r.sized && n >= 2 && (count == 0 || n < count) {
			count = n
		}
	}
	if count == 0 {
		count = diffDefaultCount
	}
	var out []tracer.Input
	for k, plan := range inputs.Plan[:diffMaxInputs] {
		rng := inputs.PlanRand(k)
		out = append(out, diffInput(k, regions, params,
			func(r region) []byte { return inputs.Fill(rng, r.size, r.elem, plan.Fill) },
			func(pm regParam, _ int) uint64 { return inputs.Arg(rng, pm.Param, plan.Arg, count) }))
	}
	return append(out, dictInputs(p, regions, params)...)
}

// dictInputs are the differential test's inputs made of the code's own
// constants (inputs/dict.go): for each constant c of pair.CodeConstants
// and each of c, c+1 and c-1, an input whose j-th integer argument is the
// (i+j)-th constant so offset (every constant in every argument position)
// and whose memory holds the constants and their neighbours.
func dictInputs(p *pair.Pair, regions []region, params []regParam) []tracer.Input {
	dict := p.CodeConstants()
	var out []tracer.Input
	for i := range dict {
		for _, delta := range []int64{0, 1, -1} {
			k := diffMaxInputs + len(out)
			rng := inputs.PlanRand(k)
			out = append(out, diffInput(k, regions, params,
				func(r region) []byte { return inputs.DictFill(rng, r.size, r.elem, dict) },
				func(pm regParam, j int) uint64 {
					v := dict[(i+j)%len(dict)] + delta
					if pm.Kind == inputs.Float {
						return inputs.FloatBits(float64(v), pm.Size)
					}
					return uint64(v)
				}))
		}
	}
	return out
}

// diffInput is input k of the differential test: each region filled by
// fill (pointer members linked, strings terminated), each register
// parameter given arg(parameter, register index), pointers their
// region's address.
func diffInput(k int, regions []region, params []regParam, fill func(region) []byte, arg func(regParam, int) uint64) tracer.Input {
	in := tracer.Input{Globals: map[string][]byte{}, Args: make([]uint64, 6)}
	start := make([]uint64, len(regions)) // where each region's pointer points
	for i, r := range regions {
		data := fill(r)
		if r.symbol == "" {
			inputs.Link(data, r.addr, r.elem)
		} else {
			inputs.Link(data, 0, r.elem) // its address is the executable's
		}
		start[i] = r.addr
		if r.elem.Char && r.symbol == "" {
			start[i] += terminate(data, k)
		}
		if r.symbol != "" {
			in.Globals[r.symbol] = data
		} else {
			in.Mem = append(in.Mem, tracer.MemInit{Addr: r.addr, Data: data})
		}
	}
	for _, pm := range params {
		if pm.Kind == inputs.Float {
			for len(in.FloatArgs) <= pm.Reg {
				in.FloatArgs = append(in.FloatArgs, 0)
			}
			in.FloatArgs[pm.Reg] = arg(pm, pm.Reg)
			continue
		}
		for j := pm.Reg; j < pm.Reg+pm.Regs; j++ {
			v := arg(pm, j) // drawn for pointers too: the plan's values stay put
			if pm.buf >= 0 {
				v = start[pm.buf]
			}
			if j < len(in.Args) {
				in.Args[j] = v
			}
		}
	}
	return in
}

// modelInputs are the differential test's first input with the integer
// parameters of each of runs (the loop engine's counterexamples, in the
// co-executions' argument registers) instead of its own, and the bytes
// the model has where a pointer parameter points copied into the test's
// buffer for it (the pointers stay the test's, which the tracer can
// place).
func modelInputs(p *pair.Pair, runs []prove.ExtraRun) []tracer.Input {
	base := diffInputs(p)
	if len(base) == 0 {
		return nil
	}
	regs := p.IntegerParamRegs()
	var out []tracer.Input
	for _, r := range runs {
		in := base[0]
		in.Args = slices.Clone(in.Args)
		for _, i := range regs {
			if i < len(r.Args) && i < len(in.Args) {
				in.Args[i] = uint64(r.Args[i])
			}
		}
		// The model's bytes where a pointer argument points, in the
		// test's buffer for it.
		in.Mem = slices.Clone(in.Mem)
		for i := range r.Pointees {
			bs := r.Pointee(i)
			if len(bs) == 0 || i >= len(in.Args) {
				continue
			}
			for k, mi := range in.Mem {
				if off := in.Args[i] - mi.Addr; off < uint64(len(mi.Data)) {
					data := slices.Clone(mi.Data)
					copy(data[off:], bs)
					in.Mem[k].Data = data
				}
			}
		}
		out = append(out, in)
	}
	return out
}

// diffShape lists the memory regions inputs fill (the writable globals the
// pair's code names, then one heap buffer per pointer parameter) and the
// register parameters, from the DWARF of either file (inputs.Classify).
func diffShape(p *pair.Pair) ([]region, []regParam) {
	var regions []region
	for _, g := range p.GlobalVars() {
		name := p.B.VarName(g)
		if strings.HasPrefix(name, "&str:") {
			continue
		}
		size := p.GlobalSize(name)
		sym := strings.TrimPrefix(name, "&")
		if size > 1<<20 || readOnly(p, sym) {
			continue // read-only data holds the binaries' own contents in every run
		}
		r := region{symbol: sym, size: int(size), elem: globalElem(p, sym), sized: true}
		if size == 0 {
			// No file states its size (clang emits no DWARF for extern
			// arrays): the tracer's drivers define it with
			// tracer.DefaultExternSize bytes, of which a prefix is filled.
			r.size, r.sized = diffUnsizedFill, false
		}
		regions = append(regions, r)
	}
	var params []regParam
	bufs := 0
	for _, pm := range signature(p).Params {
		rp := regParam{Param: pm, buf: -1}
		switch pm.Kind {
		case inputs.Memory:
			continue // on the stack, left as the caller's frame has it
		case inputs.Pointer:
			if bufs < 8 {
				rp.buf = len(regions)
				regions = append(regions, region{addr: tracer.HeapAddr + uint64(bufs)*diffHeapBuf, size: diffHeapBuf, elem: pm.Elem, sized: true})
				bufs++
			}
		}
		params = append(params, rp)
	}
	return regions, params
}

// readOnly says either file defines sym in read-only data.
func readOnly(p *pair.Pair, sym string) bool {
	for _, f := range []*x86.File{p.Src.File, p.Dst.File} {
		if d, ok := f.DataSymbol(sym); ok && d.ReadOnly {
			return true
		}
	}
	return false
}

// globalElem is the element shape of a global from DWARF; 4-byte integers
// when no file describes it (clang emits no DWARF for extern arrays, and
// int is the common case).
func globalElem(p *pair.Pair, sym string) inputs.Elem {
	for _, f := range p.DWARFFiles() {
		g, ok := p.GlobalIn(f, sym)
		if !ok {
			continue
		}
		t := g.Type
		switch t.Kind {
		case x86.KindArray:
			return inputs.PointeeOf(t)
		case x86.KindFloat:
			return inputs.Elem{Size: int(t.Size), Float: true}
		case x86.KindPointer:
			return inputs.Elem{Size: 8, Pointer: true}
		case x86.KindInt, x86.KindBool, x86.KindEnum:
			return inputs.Elem{Size: int(t.Size)}
		}
		return inputs.Elem{Size: 4}
	}
	return inputs.Elem{Size: 4}
}

// terminate makes input k's string in a char buffer, starting
// inputs.StringStart(k) bytes past an 8-byte boundary and ending with its
// NUL at stringNULs[k%8] in its word (over the eight inputs every start
// alignment and every place of the NUL), 8 to 31 bytes long but in inputs
// 3 and 6 (5 and 4 bytes: a loop's short cases) and 5 (empty), with no
// NUL before its end; in odd inputs the 8 bytes after the NUL are not
// NULs either (a loop that misses the NUL runs on). The fill pattern is
// kept elsewhere. It returns the start's offset.
func terminate(data []byte, k int) uint64 {
	start := inputs.StringStart(k)
	minLen := uint64(8 + 8*(k%3))
	if k == 3 || k == 5 || k == 6 {
		minLen = 0
	}
	end := start + inputs.StringLenTo(stringNULs[k%8], start, minLen)
	last := end
	if k%2 == 1 {
		last = end + 8
	}
	for i := start; i <= last; i++ {
		if data[i] == 0 {
			data[i] = byte(0x41 + i%26)
		}
	}
	data[end] = 0
	return start
}

// stringNULs is where in its word input k's string ends: the fifth input's
// string, which starts at 5, is empty.
var stringNULs = [8]uint64{1, 4, 7, 0, 3, 5, 2, 6}

// String says what the test did, for debugging.
func (d diffOutcome) String() string {
	if d.note != "" {
		return fmt.Sprintf("differential test: %d inputs, stopped: %s", d.runs, d.note)
	}
	if d.c != nil {
		return fmt.Sprintf("differential test: %d inputs, difference %q", d.runs, d.c.Differences)
	}
	return fmt.Sprintf("differential test: %d inputs, no difference", d.runs)
}
