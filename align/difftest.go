package align

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"time"

	"eqc/align/product/pair"
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
	diffMaxInputs = 8
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
// A difference is shrunk (memory it does not need is set to zero) so that
// the input shown stays small.
func diffTest(ctx context.Context, req Request, models ub.Set, p *pair.Pair) diffOutcome {
	var out diffOutcome
	// Linking comes before the budget: on a loaded machine it alone can
	// take the few seconds the runs get, and then no input would run.
	cf, err := tracer.NewConfirmer(ctx, req.SrcPath, req.SrcFunc, req.DstPath, req.DstFunc)
	if err != nil {
		out.note = err.Error()
		return out
	}
	defer cf.Close()
	checkCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, diffBudgetFor(ctx))
	defer cancel()
	dropped := map[string]bool{} // globals neither executable defines
	candidates := 0
	for _, in := range diffInputs(p) {
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
		in, c = shrink(ctx, cf, in, c)
		if !models.None() {
			// The UB monitor single-steps the source, which on a loop
			// kernel takes seconds: it watches the shrunk input only, on
			// the check's time rather than the test's, and at most
			// diffMonitored of them.
			if candidates++; candidates > diffMonitored {
				return out
			}
			if c = monitored(checkCtx, cf, in, models); !c.Differ {
				if out.ubNote == "" {
					out.ubNote = "an input that differs was not counted: " + c.Detail
				}
				continue
			}
		}
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

// shrinkTries bounds the runs shrink makes.
const shrinkTries = 48

// shrink makes a differing input smaller, so that the input shown holds
// what matters: first every memory block (a global or a heap buffer) whose
// contents the difference does not need is set to zero, then each
// remaining one is cut to the shortest prefix (binary search, in 8-byte
// steps) such that zeroing the rest keeps a difference (trailing zeros are
// not shown). A global stays in the input as zeros rather than being left
// out, since left out it would keep each executable's own initializer.
// Every try is a run of both binaries and only a confirmed difference is
// kept; what the budget does not allow stays as it was.
func shrink(ctx context.Context, cf *tracer.Confirmer, in tracer.Input, c *tracer.Confirmation) (tracer.Input, *tracer.Confirmation) {
	// The blocks: globals by name, then heap buffers by index in in.Mem.
	type blockKey struct {
		global string
		mem    int
	}
	var keys []blockKey
	for n := range in.Globals {
		keys = append(keys, blockKey{global: n, mem: -1})
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].global < keys[j].global })
	for k := range in.Mem {
		keys = append(keys, blockKey{mem: k})
	}
	block := func(in tracer.Input, key blockKey) []byte {
		if key.mem >= 0 {
			return in.Mem[key.mem].Data
		}
		return in.Globals[key.global]
	}
	tries := 0
	// zeroFrom tries in with the block zero from byte off on.
	zeroFrom := func(key blockKey, off int) bool {
		if tries >= shrinkTries || ctx.Err() != nil {
			return false
		}
		tries++
		try := in
		data := slices.Clone(block(in, key))
		clear(data[off:])
		if key.mem >= 0 {
			try.Mem = slices.Clone(in.Mem)
			try.Mem[key.mem].Data = data
		} else {
			try.Globals = maps.Clone(in.Globals)
			try.Globals[key.global] = data
		}
		c2, err := confirmOn(ctx, cf, &try, diffRunLimit, nil)
		if err != nil || !c2.Differ {
			return false
		}
		in, c = try, c2
		return true
	}
	nonzero := func(b []byte) bool { return slices.ContainsFunc(b, func(x byte) bool { return x != 0 }) }
	for _, key := range keys {
		if nonzero(block(in, key)) {
			zeroFrom(key, 0)
		}
	}
	for _, key := range keys {
		lo, hi := 0, len(block(in, key)) // zeroing from hi on keeps the difference
		for nonzero(block(in, key)[lo:hi]) && hi-lo > 8 && tries < shrinkTries && ctx.Err() == nil {
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
	return in, c
}

// elemShape is how the input generator sees a memory region: its element
// size and whether the elements are floating-point numbers or pointers.
type elemShape struct {
	size    int
	float   bool
	pointer bool
}

// region is one block of memory an input fills: a global (by symbol) or a
// pointer parameter's heap buffer (by address).
type region struct {
	symbol string
	addr   uint64
	size   int
	elem   elemShape
	sized  bool // size is the whole object's (else a prefix of one of unknown size)
	text   bool // a char pointer parameter's buffer: it holds a NUL-terminated string
}

// param is one parameter passed in a register.
type param struct {
	reg    int  // index in Args, or in FloatArgs for floats
	float  bool // an xmm register; size 4 or 8
	size   int
	signed bool
	buf    int // pointers: index of its heap buffer region; -1 otherwise
}

// Kinds of element values an input fills memory with.
type fillKind int

const (
	fillRandom fillKind = iota // random bytes; floats random but finite
	fillSmall                  // integers in -3..3, floats -3.0..3.0 in steps of 0.5
	fillZero                   // all zero
	fillOne                    // every element 1 (1.0)
	fillOnes                   // every byte 0xff (floats: -1.0)
	fillRamp                   // element i is i mod 7 - 3 (neighbours differ)
)

// Kinds of argument values.
type argKind int

const (
	argRandom argKind = iota // below 64, like the co-execution
	argSmall                 // 3
	argCount                 // the smallest array's element count
	argZero
	argOne
	argNeg // -1 (2 for unsigned parameters, for which -1 is a huge bound)
)

// diffPlan is the order inputs are tried in: the most telling first, since
// the first difference ends the test.
var diffPlan = [diffMaxInputs]struct {
	fill fillKind
	arg  argKind
}{
	{fillRandom, argRandom},
	{fillSmall, argCount},
	{fillRandom, argCount},
	{fillOne, argSmall},
	{fillSmall, argNeg},
	{fillZero, argZero},
	{fillOnes, argOne},
	{fillRamp, argCount},
}

// diffInputs are the differential test's inputs, deterministic for the
// pair: memory patterns and arguments per diffPlan.
func diffInputs(p *pair.Pair) []tracer.Input {
	regions, params := diffShape(p)
	count := 0
	for _, r := range regions {
		if n := r.size / max(r.elem.size, 1); r.sized && n >= 2 && (count == 0 || n < count) {
			count = n
		}
	}
	if count == 0 {
		count = diffDefaultCount
	}
	var out []tracer.Input
	for k, plan := range diffPlan {
		rng := rand.New(rand.NewSource(int64(k)*7919 + 1))
		in := tracer.Input{Globals: map[string][]byte{}, Args: make([]uint64, 6)}
		start := make([]uint64, len(regions)) // where each region's pointer points
		for i, r := range regions {
			data := fillRegion(rng, r, plan.fill)
			start[i] = r.addr
			if r.text {
				start[i] += terminate(data, k)
			}
			if r.symbol != "" {
				in.Globals[r.symbol] = data
			} else {
				in.Mem = append(in.Mem, tracer.MemInit{Addr: r.addr, Data: data})
			}
		}
		for _, pm := range params {
			v := argValue(rng, pm, plan.arg, count)
			switch {
			case pm.buf >= 0:
				v = start[pm.buf]
			case pm.float && pm.reg >= 8:
				continue // beyond xmm7: on the stack, left zero
			case pm.float:
				for len(in.FloatArgs) <= pm.reg {
					in.FloatArgs = append(in.FloatArgs, 0)
				}
				in.FloatArgs[pm.reg] = v
				continue
			}
			if pm.reg < len(in.Args) {
				in.Args[pm.reg] = v
			}
		}
		out = append(out, in)
	}
	return out
}

// diffShape lists the memory regions inputs fill (the writable globals the
// pair's code names, then one heap buffer per pointer parameter) and the
// register parameters, from the DWARF of either file. Without a signature
// the six integer argument registers are parameters of unknown type.
func diffShape(p *pair.Pair) ([]region, []param) {
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
	var sig *x86.FuncDebug
	for _, s := range []pair.Side{p.Src, p.Dst} {
		if s.Fn.Func != nil && s.Fn.Func.Debug != nil {
			sig = s.Fn.Func.Debug
			break
		}
	}
	var params []param
	if sig == nil {
		for i := range x86.CalleeArgRegs {
			params = append(params, param{reg: i, size: 8, signed: true, buf: -1})
		}
		return regions, params
	}
	ints, floats, bufs := 0, 0, 0
	for _, v := range sig.Params {
		t := v.Type
		switch {
		case t.Kind == x86.KindFloat && (t.Size == 4 || t.Size == 8):
			params = append(params, param{reg: floats, float: true, size: int(t.Size), buf: -1})
			floats++
		case t.Kind == x86.KindPointer:
			pm := param{reg: ints, size: 8, buf: -1}
			if bufs < 8 {
				pm.buf = len(regions)
				regions = append(regions, region{addr: tracer.HeapAddr + uint64(bufs)*diffHeapBuf, size: diffHeapBuf, elem: pointeeShape(t), sized: true, text: pair.IsCharPointer(t)})
				bufs++
			}
			params = append(params, pm)
			ints++
		case t.Kind == x86.KindInt || t.Kind == x86.KindBool || t.Kind == x86.KindEnum:
			params = append(params, param{reg: ints, size: int(t.Size), signed: t.Signed, buf: -1})
			ints++
		case t.Size > 0 && t.Size <= 16:
			// A small aggregate by value: its eightbytes take integer
			// registers here (one holding floats would take an xmm
			// register; its bytes then are whatever the plan gives).
			for k := int64(0); k < (t.Size+7)/8; k++ {
				params = append(params, param{reg: ints, size: 8, buf: -1})
				ints++
			}
		}
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
func globalElem(p *pair.Pair, sym string) elemShape {
	for _, f := range p.DWARFFiles() {
		g, ok := f.Globals[sym]
		if !ok {
			continue
		}
		t := g.Type
		switch t.Kind {
		case x86.KindArray:
			return pointeeShape(t)
		case x86.KindFloat:
			return elemShape{size: int(t.Size), float: true}
		case x86.KindPointer:
			return elemShape{size: 8, pointer: true}
		case x86.KindInt, x86.KindBool, x86.KindEnum:
			return elemShape{size: int(t.Size)}
		}
		return elemShape{size: 4}
	}
	return elemShape{size: 4}
}

// terminate makes input k's string in a char buffer: it starts k mod 8
// bytes in (every alignment of the start over the eight inputs) and ends
// with a NUL at offset 3k+1 mod 8 of its 8-byte word (every place, where
// a word-at-a-time loop takes a different way out), 8 to 31 bytes long
// with no NUL before; in odd inputs the 8 bytes after the NUL are not
// NULs either (a loop that misses the NUL runs on). The fill pattern is
// kept elsewhere. It returns the start's offset.
func terminate(data []byte, k int) uint64 {
	start := k % 8
	end := 8 + 8*(k%3) + start
	end += (3*k + 1 - end%8 + 16) % 8
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
	return uint64(start)
}

// pointeeShape is the shape of the elements of an array or pointer type.
func pointeeShape(t x86.Type) elemShape {
	name := strings.TrimSpace(t.Pointee)
	switch {
	case strings.HasPrefix(name, "*") || strings.HasSuffix(name, "*"):
		return elemShape{size: 8, pointer: true}
	case name == "float" || name == "double":
		return elemShape{size: int(t.PointeeSize), float: true}
	case t.PointeeSize == 1 || t.PointeeSize == 2 || t.PointeeSize == 4 || t.PointeeSize == 8:
		return elemShape{size: int(t.PointeeSize)}
	}
	return elemShape{size: 4}
}

// fillRegion returns r's initial bytes for one fill kind. Pointers in
// memory are left zero (NULL): a random address would only make the source
// fault, which confirms nothing.
func fillRegion(rng *rand.Rand, r region, kind fillKind) []byte {
	data := make([]byte, r.size)
	if r.elem.pointer {
		return data
	}
	es := r.elem.size
	if es != 1 && es != 2 && es != 4 && es != 8 {
		es = 1
	}
	float := r.elem.float && (es == 4 || es == 8)
	for i, off := 0, 0; off+es <= len(data); i, off = i+1, off+es {
		var v uint64
		switch kind {
		case fillRandom:
			v = rng.Uint64()
			if float {
				v = finite(v, es)
			}
		case fillSmall:
			if float {
				v = floatBits(float64(rng.Intn(13)-6)/2, es)
			} else {
				v = uint64(int64(rng.Intn(7) - 3))
			}
		case fillZero:
		case fillOne:
			v = 1
			if float {
				v = floatBits(1, es)
			}
		case fillOnes:
			v = ^uint64(0)
			if float {
				v = floatBits(-1, es)
			}
		case fillRamp:
			if float {
				v = floatBits(float64(i%7-3), es)
			} else {
				v = uint64(int64(i%7 - 3))
			}
		}
		var buf [8]byte
		binary.LittleEndian.PutUint64(buf[:], v)
		copy(data[off:off+es], buf[:es])
	}
	return data
}

// finite turns random bits into a finite float of es bytes: an all-ones
// exponent (NaN or infinity) loses its top bit. NaN payloads are not
// something two correct compilations must agree on.
func finite(v uint64, es int) uint64 {
	if es == 4 {
		if v>>23&0xff == 0xff {
			v &^= 1 << 30
		}
		return v & 0xffffffff
	}
	if v>>52&0x7ff == 0x7ff {
		v &^= 1 << 62
	}
	return v
}

func floatBits(x float64, es int) uint64 {
	if es == 4 {
		return uint64(math.Float32bits(float32(x)))
	}
	return math.Float64bits(x)
}

// argValue is a parameter's value for one argument kind (pointers are set
// by the caller).
func argValue(rng *rand.Rand, pm param, kind argKind, count int) uint64 {
	var x int64
	switch kind {
	case argRandom:
		x = int64(rng.Intn(64))
	case argSmall:
		x = 3
	case argCount:
		x = int64(count)
	case argZero:
		x = 0
	case argOne:
		x = 1
	case argNeg:
		x = -1
		if !pm.signed && !pm.float {
			x = 2
		}
	}
	if pm.float {
		return floatBits(float64(x)/2, pm.size)
	}
	return uint64(x)
}

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
