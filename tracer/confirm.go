package tracer

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"eqc/ub"
	"eqc/x86"
)

// Confirming a counterexample (confirm.go)
//
// A verdict of not-equivalent needs a concrete input on which both binaries,
// run natively, show different observables (DESIGN, "Verdicts"). Confirm
// runs the source and the optimized function on one Input and compares what
// DESIGN calls observable: the return value (its width from the source's
// DWARF signature), the memory outside the stack (every global both
// executables define, and the fixed heap) and the call sequence (callee and
// arguments, from the stubs' call log).
//
// Confirm errs on the side of "not confirmed": Differ is set only for
// differences that cannot come from the tracer's own setup. The two
// executables place their code, data and literals at different addresses and
// the two functions lay out their frames differently, so a value that may be
// an address inside an executable's image or inside the run stack is not a
// confirmed difference unless it names the same symbol and offset on both
// sides; and a stub's result hashes its raw arguments, so once a non-void
// stub received such layout-dependent (or, without a prototype, possibly
// garbage) arguments that differ in their raw bits, everything observed after
// it is incomparable.

// Input is a concrete input to a function: argument values and the initial
// contents of global variables (by symbol; bytes from offset 0; globals not
// listed start with their executable's initializer: .data with its
// relocations applied, zeros for .bss and the driver's externs). Args are the raw 64-bit values of the
// integer argument registers in order (rdi, rsi, rdx, rcx, r8, r9); only the
// low bytes the parameter's type uses are meaningful.
type Input struct {
	Args    []uint64
	Globals map[string][]byte

	// FloatArgs are the low quadwords of xmm0..xmm7 (float and double
	// parameters, as bit patterns).
	FloatArgs []uint64
	// Mem is further memory to set, after Globals: typically the heap
	// buffers (at HeapAddr and up) that pointer arguments point to. Entries
	// naming a Symbol must name a data symbol both executables define.
	Mem []MemInit
}

// Observation is what one run of one binary showed.
type Observation struct {
	Outcome Outcome
	// Return is the return value masked to the return type's width (the
	// bit pattern of float and double results); 0 for void and for types
	// not compared (ReturnKind says which).
	Return uint64
	// ReturnHi is the upper half of a 16-byte integer result (rdx), or
	// bytes 8..15 of a struct result.
	ReturnHi   uint64
	ReturnKind string // "int8".."int128", "float32", "float64", "structN", "structN in memory", "void", or "unknown: ..." when not compared
	// ResultBlock is the block a struct returned in memory was written to
	// (Vector.ResultBlock), after the run.
	ResultBlock []byte
	Globals     map[string][]byte // every global of the executable after the run
	Heap        []byte            // the fixed heap at HeapAddr after the run
	Calls       []Call            // stub calls, in order
	Truncated   bool              // the call log overflowed
	Detail      string            // how the run ended (Result.String)
}

// Confirmation compares the two runs.
type Confirmation struct {
	Src, Dst Observation
	// Args are the argument registers both runs were given: Input.Args
	// padded to the signature's registers, with integer parameters narrower
	// than 8 bytes sign- or zero-extended from their meaningful bytes and
	// bool parameters normalised to 0 or 1.
	Args []uint64
	// Differ says the runs showed a confirmed observable difference; each
	// one is described in Differences (for example "return: src 0x5 dst
	// 0x6", "global a[4..8]: src 01000000 dst 02000000", "calls[1]: src
	// h(0x3) dst h(0x4)", "outcome: src returned, dst fault ...").
	Differ      bool
	Differences []string
	// Regions lists the differing byte ranges of memory, by region, for
	// showing them as typed elements (Differences says the same in hex).
	Regions []RegionDiff
	// UB is set when the runs differed but the source may have undefined
	// behaviour on the input under the Confirmer's models (Differ is then
	// false; Differences still says what differed).
	UB *UBEvent
	// UBChecked are the models the monitor watched the source's whole run
	// for and found nothing of (with Differ set).
	UBChecked ub.Set
	// Detail says why the runs could not be compared, or which observables
	// were left out (one line per reason, "; "-joined); empty when every
	// observable was compared.
	Detail string
}

// RegionDiff is one range of bytes [Lo, Hi) of a memory region whose
// final contents differ: a global (Global is its name) or the heap at
// HeapAddr (Global empty).
type RegionDiff struct {
	Global string
	Lo, Hi int
}

// UnknownGlobalError reports a global of an Input that neither executable
// defines.
type UnknownGlobalError struct {
	Name     string
	Src, Dst string // the objects
}

func (e *UnknownGlobalError) Error() string {
	return fmt.Sprintf("tracer: confirm: global %q is defined by neither %s nor %s", e.Name, e.Src, e.Dst)
}

// confirmSide is one of the two programs of a Confirm call.
type confirmSide struct {
	objPath string
	fn      string
	obj     *Object
	file    *x86.File
	exe     *Executable
	proc    *Process
	img     *exeImage
}

// Confirm links both objects, runs srcFunc in srcObj and dstFunc in dstObj
// on in, and compares their observables per DESIGN: the return value (width
// from the source's DWARF signature, else the destination's; void has
// none), every global both executables define and the heap after the run,
// and the call sequence (callee and arguments). Undefined data symbols are
// given the same size in both executables (LinkOptions.Sizes from the union
// of both objects' DWARF and definitions).
//
// A difference counts only when both runs return normally, or when the
// source returns and the destination faults (reported as an "outcome"
// difference). If the source faults, times out or attempts a system call, or
// the destination times out or attempts one, Differ is false and Detail says
// why: the source may have undefined behaviour there, and a timeout proves
// nothing. Confirm does not check that the input triggers no modelled
// undefined behaviour in the source; ConfirmUnder does.
//
// Executables and processes live for this call only: each object is linked
// once (a single link and process when srcObj and dstObj are the same file)
// into a temporary directory removed before Confirm returns. Each run may
// take 5 s; with a deadline on ctx, the source run at most half the time
// left and the destination run the rest. To run many inputs on one pair,
// NewConfirmer links once for all of them.
//
// Errors are for bad input only, and name the file: a file that is not an
// x86-64 relocatable object (*NotObjectError, or an x86 harvesting error), a
// function it does not define (*x86.FunctionNotFoundError), a link failure
// (*LinkError), a global of in defined by neither executable
// (*UnknownGlobalError), a malformed memory initialisation
// (*BadVectorError); plus ctx's error and tracer failures.
func Confirm(ctx context.Context, srcObj, srcFunc, dstObj, dstFunc string, in Input) (*Confirmation, error) {
	return ConfirmUnder(ctx, srcObj, srcFunc, dstObj, dstFunc, in, 0)
}

// ConfirmUnder is Confirm with a difference counted only when the source's
// run has no undefined behaviour under models (Confirmer.UB).
func ConfirmUnder(ctx context.Context, srcObj, srcFunc, dstObj, dstFunc string, in Input, models ub.Set) (*Confirmation, error) {
	cf, err := NewConfirmer(ctx, srcObj, srcFunc, dstObj, dstFunc)
	if err != nil {
		return nil, err
	}
	defer cf.Close()
	cf.UB = models
	return cf.Confirm(ctx, in)
}

// Confirmer confirms many inputs on one pair: linking both objects costs a
// few hundred milliseconds, a run of a small function a few, so a caller
// that tries several inputs (differential testing) links once. Its
// executables and processes live until Close. Not safe for concurrent use.
type Confirmer struct {
	// UB are the undefined-behaviour models a difference must not rest
	// on: when set, the source's run on an input that shows a difference
	// is repeated under the UB monitor (ubmonitor.go), and an input on which
	// it may have undefined behaviour under UB is no difference.
	UB ub.Set
	// Witness, when set, is an object of the same source built with its
	// signed-overflow, shift and division checks compiled as traps
	// (-fsanitize=signed-integer-overflow,shift,integer-divide-by-zero
	// with traps: eqc cflags --opt O0+ubsan), defining the source
	// function. Its run decides sio and shift exactly where the monitor
	// can only guess from the instructions (witness.go).
	Witness string

	src, dst *confirmSide
	witness  *confirmSide   // linked on first use
	link     LinkOptions    // how both sides were linked (the witness is too)
	sides    []*confirmSide // the distinct ones: one when both are the same file
	same     bool
	sig      *x86.FuncDebug
}

// NewConfirmer reads and links both objects for Confirmer.Confirm. Its
// errors are those of Confirm that do not depend on the input. The caller
// must Close it.
func NewConfirmer(ctx context.Context, srcObj, srcFunc, dstObj, dstFunc string) (*Confirmer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	src := &confirmSide{objPath: srcObj, fn: srcFunc}
	dst := &confirmSide{objPath: dstObj, fn: dstFunc}
	cf := &Confirmer{src: src, dst: dst, same: sameFile(srcObj, dstObj)}
	cf.sides = []*confirmSide{src, dst}
	if cf.same {
		cf.sides = cf.sides[:1]
	}
	for _, s := range cf.sides {
		if err := s.read(); err != nil {
			return nil, err
		}
	}
	if cf.same {
		dst.obj, dst.file = src.obj, src.file
	}
	for _, s := range []*confirmSide{src, dst} {
		if _, err := s.file.Func(s.fn); err != nil {
			return nil, err
		}
	}
	cf.link = LinkOptions{Sizes: unionSizes(src.obj, dst.obj), Protos: unionProtos(src.obj, dst.obj), NoReturn: unionNoReturn(src.obj, dst.obj)}
	for _, s := range cf.sides {
		if err := ctx.Err(); err != nil {
			cf.Close()
			return nil, err
		}
		exe, err := Link(s.objPath, cf.link)
		if err != nil {
			cf.Close()
			return nil, err
		}
		s.exe = exe
		if s.img, err = readImage(exe); err != nil {
			cf.Close()
			return nil, err
		}
	}
	if cf.same {
		dst.exe, dst.img = src.exe, src.img
	}
	cf.sig = signatureOf(src, dst)
	return cf, nil
}

// Close ends the processes and removes the executables.
func (cf *Confirmer) Close() {
	for _, s := range cf.sides {
		if s.proc != nil {
			s.proc.Close()
			s.proc = nil
		}
		if s.exe != nil {
			s.exe.Remove()
			s.exe = nil
		}
	}
	if cf.same {
		cf.dst.proc, cf.dst.exe = nil, nil
	}
	if w := cf.witness; w != nil {
		if w.proc != nil {
			w.proc.Close()
		}
		if w.exe != nil {
			w.exe.Remove()
		}
		cf.witness = nil
	}
}

// Confirm runs both functions on in and compares them, exactly as the
// function Confirm does; every run starts from the executable's initial
// memory, whatever earlier runs did.
func (cf *Confirmer) Confirm(ctx context.Context, in Input) (*Confirmation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	src, dst := cf.src, cf.dst
	if src.exe == nil {
		return nil, fmt.Errorf("tracer: confirm %s/%s: the Confirmer is closed", src.fn, dst.fn)
	}
	args, err := normalArgs(src, in.Args, cf.sig)
	if err != nil {
		return nil, err
	}
	c := &Confirmation{Args: args}
	results := make([]*Result, 2)
	var srcVector, dstVector Vector
	for i, s := range []*confirmSide{src, dst} {
		v, err := vectorFor(s, src, dst, args, in)
		if err != nil {
			return nil, err
		}
		v.ResultBlock = resultBlockSize(cf.sig)
		if i == 0 {
			srcVector = v
		} else {
			dstVector = v
		}
		timeout := runTimeout(ctx, i == 0)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.proc == nil {
			if cf.same && i == 1 {
				s.proc = src.proc
			} else if s.proc, err = Start(s.exe, Options{Timeout: timeout}); err != nil {
				return nil, err
			}
		}
		r, err := s.proc.Call(s.fn, v, &RunOptions{Timeout: timeout})
		if err != nil {
			return nil, err
		}
		results[i] = r
	}
	c.Src = observe(results[0], cf.sig)
	c.Dst = observe(results[1], cf.sig)
	compareRuns(c, src, dst, results[0], results[1], cf.sig)
	if name := allocatorCall(results...); c.Differ && name != "" {
		c.Differ = false
		why := fmt.Sprintf("a run calls %s: the compilers merge, drop and rewrite the allocator's calls (malloc then memset to zero becomes calloc), which C allows, and its stubs' pointers are made up", name)
		if c.Detail != "" {
			why += "; " + c.Detail
		}
		c.Detail = why
	}
	// Undefined behaviour first: it names what the source did (a read past
	// a local array also reads memory the source never wrote).
	if c.Differ && !cf.UB.None() {
		if err := cf.checkUB(ctx, c, srcVector, results[0], args, in); err != nil {
			return nil, err
		}
	}
	if c.Differ && results[0].Outcome == Returned {
		if err := cf.withoutUninitialized(ctx, c, srcVector, dstVector, results[0], results[1]); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// stackPoison is how much of the stack below the entry stack pointer
// withoutUninitialized fills, and with what.
const (
	stackPoison     = 64 << 10
	stackPoisonByte = 0xa5
)

// withoutUninitialized runs the source again on v with the stack below
// its entry stack pointer (memory no caller gives a value: the callee's
// frame to be) filled with stackPoisonByte instead of the snapshot's
// bytes. A source that returns or stores a value it never set (a struct
// copied with a member left unset, which C allows: the member's value is
// indeterminate; a variable read before it is set) shows whatever the
// stack held there, which a correct optimized build need not reproduce
// (clang -O2 stores only the set members of such a copy). The bytes of
// the results and of memory that change with the stack's contents are not
// compared: c is recomputed with the source's bytes there taken as the
// target's, and a difference only there is none. A run that ends
// otherwise or makes other calls with the stack changed withdraws the
// difference whole.
//
// The target runs on the same stack too (dv): bytes that change with it
// in both runs, and differ between the two runs on it, are read by both
// from the one fill (a value a callee was to write where its stub does
// not: through a pointer to an aggregate, or a scalar a stub without a
// prototype was given), so they stay compared.
func (cf *Confirmer) withoutUninitialized(ctx context.Context, c *Confirmation, v, dv Vector, first, dst *Result) error {
	src := cf.src
	poisoned := func(s *confirmSide, v Vector, first bool) (*Result, error) {
		rsp := entryRSP(s.exe.StackSize, max(len(v.Args)-6, 0))
		poison := make([]byte, stackPoison)
		for i := range poison {
			poison[i] = stackPoisonByte
		}
		pv := v
		pv.Mem = append(append([]MemInit(nil), v.Mem...), MemInit{Addr: rsp - stackPoison, Data: poison})
		return s.proc.Call(s.fn, pv, &RunOptions{Timeout: runTimeout(ctx, first)})
	}
	r, err := poisoned(src, v, true)
	if err != nil {
		return err
	}
	// The observations are what compareRuns compares return values by.
	again := &Confirmation{Src: observe(first, cf.sig), Dst: observe(r, cf.sig)}
	compareRuns(again, src, src, first, r, cf.sig)
	if !again.Differ {
		return nil
	}
	const why = "the source's observables depend on stack memory it never wrote (an indeterminate value: not compared"
	if r.Outcome != first.Outcome || !slices.EqualFunc(r.Calls, first.Calls, func(a, b Call) bool { return a.ID == b.ID && slices.Equal(a.Args, b.Args) }) {
		c.Differ = false
		c.Detail = strings.TrimSuffix(why+"; with the stack filled otherwise: "+strings.Join(again.Differences, ", ")+"); "+c.Detail, "; ")
		return nil
	}
	masked := *first
	rd := dst
	if cf.dst.proc != nil {
		if rd, err = poisoned(cf.dst, dv, false); err != nil {
			return err
		}
		if rd.Outcome != dst.Outcome {
			rd = dst
		}
	}
	// Each byte that changed with the stack in the source's run takes
	// the target's value, unless it changed in the target's too and the
	// two differ on the same fill.
	take := func(a, b, d, d2 uint64) uint64 {
		for i := uint(0); i < 64; i += 8 {
			if (a^b)>>i&0xff != 0 && ((d^d2)>>i&0xff == 0 || (b^d2)>>i&0xff == 0) {
				a = a&^(0xff<<i) | d&(0xff<<i)
			}
		}
		return a
	}
	masked.Rax, masked.Rdx = take(first.Rax, r.Rax, dst.Rax, rd.Rax), take(first.Rdx, r.Rdx, dst.Rdx, rd.Rdx)
	masked.Xmm0[0], masked.Xmm1[0] = take(first.Xmm0[0], r.Xmm0[0], dst.Xmm0[0], rd.Xmm0[0]), take(first.Xmm1[0], r.Xmm1[0], dst.Xmm1[0], rd.Xmm1[0])
	masked.Memory = nil
	for _, m := range first.Memory {
		other, d, d2 := r.MemoryOf(m.Name), dst.MemoryOf(m.Name), rd.MemoryOf(m.Name)
		data := slices.Clone(m.Data)
		for i := range data {
			if i < len(other) && other[i] != data[i] && i < len(d) && (i >= len(d2) || d2[i] == d[i] || d2[i] == other[i]) {
				data[i] = d[i]
			}
		}
		masked.Memory = append(masked.Memory, Region{Name: m.Name, Addr: m.Addr, Data: data})
	}
	nc := &Confirmation{Args: c.Args, Src: observe(&masked, cf.sig), Dst: c.Dst}
	compareRuns(nc, src, cf.dst, &masked, dst, cf.sig)
	note := why + ": " + strings.Join(again.Differences, ", ") + ")"
	nc.Detail = strings.TrimSuffix(note+"; "+nc.Detail, "; ")
	*c = *nc
	return nil
}

// allocators are the C library's allocation functions. Natively they are
// stubs with made-up pointers (driver.go), logged as events, but a C
// program's calls of them are no observable behaviour: gcc and clang -O2
// turn malloc followed by a memset to zero into calloc, and clang drops a
// malloc whose block is freed unused. Two runs that differ where either
// allocates show no miscompilation (gnugo-style zeroed tables: a false
// not-equivalent before).
var allocators = map[string]bool{
	"malloc": true, "calloc": true, "realloc": true, "reallocarray": true, "free": true,
	"aligned_alloc": true, "posix_memalign": true, "memalign": true, "valloc": true, "pvalloc": true,
	"strdup": true, "strndup": true,
}

// allocatorCall is the first allocator call of the runs, or "".
func allocatorCall(rs ...*Result) string {
	for _, r := range rs {
		for _, c := range r.Calls {
			if allocators[c.Name] {
				return c.Name
			}
		}
	}
	return ""
}

// runTimeout is how long one run may take: 5 s, and with a deadline on
// ctx at most half the time left for the first of two runs.
func runTimeout(ctx context.Context, first bool) time.Duration {
	timeout := 5 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		if first {
			left /= 2 // leave the other half to dst
		}
		timeout = max(min(timeout, left), 10*time.Millisecond)
	}
	return timeout
}

// maxMonitoredSteps bounds the source run the UB monitor single-steps (a
// light step takes some microseconds).
const maxMonitoredSteps = 20000000

// checkUB runs the source again on v under the UB monitor and withdraws
// c's difference when the run may have undefined behaviour under cf.UB, or
// when the monitor could not watch the whole run; with a witness, the
// witness's run on the input (args, in) decides sio and shift instead
// (rs is the source's first run, which the witness's must match).
func (cf *Confirmer) checkUB(ctx context.Context, c *Confirmation, v Vector, rs *Result, args []uint64, in Input) error {
	src := cf.src
	var debug *x86.FuncDebug
	if f, err := src.file.Func(src.fn); err == nil {
		debug = f.Debug
	}
	models := cf.UB
	witnessed := cf.Witness != "" && (models.Has(ub.SIO) || models.Has(ub.Shift))
	if witnessed {
		models &^= 1<<ub.SIO | 1<<ub.Shift
	}
	mon := newUBMonitor(src.proc, src.exe, src.fn, debug, models)
	timeout := time.Minute
	if dl, ok := ctx.Deadline(); ok {
		timeout = max(min(timeout, time.Until(dl)), 10*time.Millisecond)
	}
	r, err := src.proc.Call(src.fn, v, mon.runOptions(timeout))
	if err != nil {
		return err
	}
	why := ""
	switch {
	case mon.event != nil:
		c.UB = mon.event
		why = "the source may have undefined behaviour on this input: " + mon.event.String()
	case r.Outcome != Returned && r.Outcome != EndedInCall:
		why = fmt.Sprintf("the source's run could not be checked for undefined behaviour (%s under the monitor)", r)
	case witnessed:
		ev, err := cf.witnessUB(ctx, rs, args, in)
		if err != nil {
			why = "the source's sanitizer build could not decide: " + err.Error()
			break
		}
		if ev != nil {
			c.UB = ev
			why = "the source has undefined behaviour on this input: " + ev.String()
			break
		}
		c.UBChecked = cf.UB
		return nil
	default:
		c.UBChecked = cf.UB
		return nil
	}
	c.Differ = false
	if c.Detail != "" {
		why += "; " + c.Detail
	}
	c.Detail = why
	return nil
}

// ConfirmMany confirms every input of ins on one pair, linking once: the
// i-th Confirmation is what Confirm would give for ins[i]. On an error it
// returns the confirmations of the inputs before the failing one with the
// error.
func ConfirmMany(ctx context.Context, srcObj, srcFunc, dstObj, dstFunc string, ins []Input) ([]*Confirmation, error) {
	cf, err := NewConfirmer(ctx, srcObj, srcFunc, dstObj, dstFunc)
	if err != nil {
		return nil, err
	}
	defer cf.Close()
	out := make([]*Confirmation, 0, len(ins))
	for _, in := range ins {
		c, err := cf.Confirm(ctx, in)
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// read inspects the side's object: the tracer's view (externs) and the
// harvested view (DWARF signature, globals' types).
func (s *confirmSide) read() error {
	obj, err := ReadObject(s.objPath)
	if err != nil {
		return err
	}
	file, err := x86.Open(s.objPath)
	if err != nil {
		return err
	}
	s.obj, s.file = obj, file
	return nil
}

// unionSizes gives every undefined data symbol of either object the size
// either object knows for it (its definition or a sized DWARF declaration;
// the larger if they disagree), so that both drivers define it alike.
// Symbols neither knows keep DefaultExternSize in both.
func unionSizes(objs ...*Object) map[string]int64 {
	known := map[string]int64{}
	undef := map[string]bool{}
	for _, o := range objs {
		for _, d := range o.Data {
			if !d.Local && d.Size > 0 {
				known[d.Name] = max(known[d.Name], int64(d.Size))
			}
		}
		for _, e := range o.Externs {
			if e.Kind != ExternData || e.TLS {
				continue
			}
			undef[e.Name] = true
			if e.SizeKnown && e.Size > 0 {
				known[e.Name] = max(known[e.Name], e.Size)
			}
		}
	}
	sizes := map[string]int64{}
	for n := range undef {
		if known[n] > 0 {
			sizes[n] = known[n]
		}
	}
	return sizes
}

// pastEndMatch says x (src) and y (dst), whose keys differ, may still mean
// the same pointer: one past the end of the same object, where each layout
// puts a different neighbour.
func (st *cmpState) pastEndMatch(x, y, kx, ky uint64) bool {
	ex, okx := st.src.exe.canon.pastEnd(x)
	ey, oky := st.dst.exe.canon.pastEnd(y)
	return okx && (ex == ky || oky && ex == ey) || oky && ey == kx
}

// unionProtos gives every undefined function of either object the
// prototype either object's DWARF declares (the first object's if both
// do), so that both drivers' stubs record and hash its arguments alike:
// clang declares a callee in DWARF at -O2 but not at -O0.
func unionProtos(objs ...*Object) map[string]Extern {
	protos := map[string]Extern{}
	for _, o := range objs {
		for _, e := range o.Externs {
			if _, ok := protos[e.Name]; !ok && e.Kind == ExternFunc && e.Prototyped {
				protos[e.Name] = e
			}
		}
	}
	return protos
}

// unionNoReturn are the undefined functions either object's DWARF
// declares never to return (clang declares callees only when optimizing),
// so both builds' runs end at the same calls.
func unionNoReturn(objs ...*Object) map[string]bool {
	out := map[string]bool{}
	for _, o := range objs {
		for _, e := range o.Externs {
			if e.Kind == ExternFunc && e.NoReturn {
				out[e.Name] = true
			}
		}
	}
	return out
}

// signatureOf is the DWARF signature of the source function, else of the
// destination function, else nil.
func signatureOf(src, dst *confirmSide) *x86.FuncDebug {
	for _, s := range []*confirmSide{src, dst} {
		if fn, err := s.file.Func(s.fn); err == nil && fn.Debug != nil {
			return fn.Debug
		}
	}
	return nil
}

// normalArgs pads the argument registers to the signature's and extends
// each integer parameter narrower than 8 bytes from its meaningful bytes
// (bool to 0 or 1), as callers compiled by gcc and clang do: the two
// functions then see the same, ABI-conforming registers.
func normalArgs(src *confirmSide, raw []uint64, sig *x86.FuncDebug) ([]uint64, error) {
	args := append([]uint64(nil), raw...)
	if sig == nil {
		return args, nil
	}
	t, err := NewTarget(src.file, src.exe, src.fn)
	if err != nil {
		return nil, err
	}
	if t.Func.Debug == nil {
		// The signature is the destination's: lay it out alike.
		t.Func = &x86.Func{Name: t.Func.Name, Debug: sig}
	}
	l, err := NewLayout([]*Target{t})
	if err != nil {
		return nil, err
	}
	for len(args) < l.NArgs {
		args = append(args, 0)
	}
	kinds := map[string]x86.TypeKind{}
	for i, p := range sig.Params {
		name := p.Name
		if name == "" {
			name = fmt.Sprintf("arg%d", i)
		}
		kinds[name] = p.Type.Kind
	}
	for _, s := range l.Args {
		if s.Kind != ArgInt || s.Size >= 8 || s.Reg >= len(args) {
			continue
		}
		v := args[s.Reg]
		switch {
		case kinds[s.Name] == x86.KindBool:
			if v&0xff != 0 {
				v = 1
			} else {
				v = 0
			}
		case s.Signed:
			sh := 64 - 8*uint(s.Size)
			v = uint64(int64(v<<sh) >> sh)
		default:
			v &= 1<<(8*uint(s.Size)) - 1
		}
		args[s.Reg] = v
	}
	return args, nil
}

// vectorFor builds the Vector of one side: the globals of in that its
// executable defines, then in.Mem.
func vectorFor(s, src, dst *confirmSide, args []uint64, in Input) (Vector, error) {
	v := Vector{Args: args, FloatArgs: in.FloatArgs}
	names := make([]string, 0, len(in.Globals))
	for n := range in.Globals {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if incomparableGlobal(src, dst, n) != "" {
			continue // set on neither side: both keep their initializers
		}
		_, _, errHere := s.exe.DataAddr(n)
		if errHere != nil {
			_, _, errSrc := src.exe.DataAddr(n)
			_, _, errDst := dst.exe.DataAddr(n)
			if errSrc != nil && errDst != nil {
				return Vector{}, &UnknownGlobalError{Name: n, Src: src.objPath, Dst: dst.objPath}
			}
			continue // the other side's only: this side cannot read it
		}
		v.Mem = append(v.Mem, MemInit{Symbol: n, Data: in.Globals[n]})
	}
	for _, m := range in.Mem {
		if m.Symbol != "" && incomparableGlobal(src, dst, m.Symbol) != "" {
			continue
		}
		v.Mem = append(v.Mem, m)
	}
	return v, nil
}

// incomparableGlobal says why the bytes of global name do not mean the
// same in the two executables, or "": its DWARF location computes its
// value from them (x86.GlobalVar.Encoded) in either object, or the two
// define it with different sizes (a shrunken static). Such a global is
// neither set by an input nor compared.
func incomparableGlobal(src, dst *confirmSide, name string) string {
	for _, f := range []*x86.File{src.file, dst.file} {
		if gv := f.Globals[name]; gv != nil && gv.Encoded {
			return "its value is encoded in its bytes (DWARF location) in " + f.Path
		}
	}
	_, a, errS := src.exe.DataAddr(name)
	_, b, errD := dst.exe.DataAddr(name)
	if errS == nil && errD == nil && a != b {
		return fmt.Sprintf("sizes %d and %d", a, b)
	}
	return ""
}

// retShape is how the return value is read and compared.
type retShape struct {
	kind    string // ReturnKind
	size    int    // bytes (0: nothing compared)
	float   bool
	pointer bool // may hold an address (8-byte non-float)
	// A struct or complex number of at most 16 bytes, each eightbyte in
	// the next integer or SSE return register by its class, compared on
	// its members' bits (padding is unspecified).
	structural bool
	eb         x86.Eightbytes
	// A struct over 16 bytes, returned in the block the caller passes
	// (Vector.ResultBlock), compared member by member (members).
	memory  bool
	members []x86.Scalar
}

func returnShape(sig *x86.FuncDebug) retShape {
	if sig == nil {
		return retShape{kind: "unknown: no DWARF signature"}
	}
	t := sig.Return
	switch t.Kind {
	case x86.KindVoid:
		return retShape{kind: "void"}
	case x86.KindInt, x86.KindBool, x86.KindEnum, x86.KindPointer:
		switch t.Size {
		case 1, 2, 4, 8, 16:
			return retShape{kind: fmt.Sprintf("int%d", 8*t.Size), size: int(t.Size), pointer: t.Size == 8}
		}
	case x86.KindFloat:
		switch t.Size {
		case 4, 8:
			return retShape{kind: fmt.Sprintf("float%d", 8*t.Size), size: int(t.Size), float: true}
		}
	case x86.KindStruct, x86.KindComplex:
		if t.ReturnClass() == x86.ReturnInMemory && t.MembersExact() && t.Size <= MaxResultBlock {
			return retShape{kind: fmt.Sprintf("struct%d in memory", 8*t.Size), size: int(t.Size), memory: true, members: t.Members}
		}
		if e, ok := t.Eightbytes(); ok && e.Exact {
			sh := retShape{kind: fmt.Sprintf("struct%d", 8*t.Size), size: int(t.Size), structural: true, eb: e}
			if t.Kind == x86.KindComplex {
				sh.kind = fmt.Sprintf("complex%d", 8*t.Size)
			}
			return sh
		}
	}
	return retShape{kind: fmt.Sprintf("unknown: %s return (%s, %d bytes) not compared", t.Name, t.Kind, t.Size)}
}

// resultBlockSize is the Vector.ResultBlock of a run of a function of
// signature sig: the size of the struct it returns in memory, when the
// comparison reads it (returnShape), else 0. The block is then where rdi
// points, not a register the input sets.
func resultBlockSize(sig *x86.FuncDebug) int {
	if sh := returnShape(sig); sh.memory {
		return sh.size
	}
	return 0
}

// nanLanes says two SSE eightbytes differ only in NaN payloads: every
// float lane of width w (4 or 8 bytes) the mask covers is equal or NaN in
// both (C leaves a NaN's payload unspecified; align/nanpayload.go is the
// same rule for scalar results and memory).
func nanLanes(a, b uint64, w int64, mask uint64) bool {
	if w != 4 && w != 8 {
		return false
	}
	for off := int64(0); off < 8; off += w {
		lane := uint64(1)<<(8*uint(w)) - 1
		if w == 8 {
			lane = ^uint64(0)
		}
		lane <<= 8 * uint(off)
		if mask&lane == 0 {
			continue
		}
		x, y := (a&lane)>>(8*uint(off)), (b&lane)>>(8*uint(off))
		if x == y {
			continue
		}
		if w == 4 && (!math.IsNaN(float64(math.Float32frombits(uint32(x)))) || !math.IsNaN(float64(math.Float32frombits(uint32(y))))) {
			return false
		}
		if w == 8 && (!math.IsNaN(math.Float64frombits(x)) || !math.IsNaN(math.Float64frombits(y))) {
			return false
		}
	}
	return true
}

// structWords are a struct result's two eightbytes, read from the return
// registers by their classes (rax then rdx for INTEGER, xmm0 then xmm1
// for SSE) and masked to its members.
func structWords(r *Result, sh retShape) [2]uint64 {
	ints := []uint64{r.Rax, r.Rdx}
	sses := []uint64{r.Xmm0[0], r.Xmm1[0]}
	var w [2]uint64
	for i := range sh.eb.N {
		if sh.eb.SSE[i] {
			w[i] = sses[sh.eb.Reg(i)]
		} else {
			w[i] = ints[sh.eb.Reg(i)]
		}
		w[i] &= sh.eb.Mask[i]
	}
	return w
}

func observe(r *Result, sig *x86.FuncDebug) Observation {
	sh := returnShape(sig)
	o := Observation{Outcome: r.Outcome, ReturnKind: sh.kind, Calls: r.Calls, Truncated: r.CallsTruncated,
		Detail: r.String(), Globals: map[string][]byte{}}
	for _, m := range r.Memory {
		switch m.Name {
		case "heap":
			o.Heap = m.Data
		case ResultRegion:
			if r.Outcome == Returned {
				o.ResultBlock = m.Data
			}
		case stubObjects:
		default:
			o.Globals[m.Name] = m.Data
		}
	}
	if r.Outcome != Returned || sh.size == 0 {
		return o
	}
	v := r.Rax
	if sh.float {
		v = r.Xmm0[0]
	}
	switch {
	case sh.structural:
		w := structWords(r, sh)
		o.Return, o.ReturnHi = w[0], w[1]
	case sh.size == 16:
		o.Return, o.ReturnHi = r.Rax, r.Rdx
	case sh.size < 8:
		o.Return = v & (1<<(8*uint(sh.size)) - 1)
	default:
		o.Return = v
	}
	return o
}

// cmpState accumulates the comparison.
type cmpState struct {
	c      *Confirmation
	src    *confirmSide
	dst    *confirmSide
	notes  []string
	noteOK map[string]bool
	sites  map[uint64]siteArgs // siteArgs: call site → argument registers set (N −1: not found)
}

func (st *cmpState) differ(format string, a ...any) {
	st.c.Differ = true
	st.c.Differences = append(st.c.Differences, fmt.Sprintf(format, a...))
}

func (st *cmpState) note(format string, a ...any) {
	s := fmt.Sprintf(format, a...)
	if !st.noteOK[s] {
		st.noteOK[s] = true
		st.notes = append(st.notes, s)
	}
}

// word compares two 64-bit values that may be addresses: equal raw values
// are equal; values naming the same symbol and offset in their executables
// are equal (but not bit-equal); otherwise a value that may be a
// layout-dependent address (in an executable's image or the run stack)
// makes the comparison inconclusive.
type wordCmp int

const (
	wordEqual        wordCmp = iota // bit-equal
	wordSameSymbol                  // different bits, same symbol+offset
	wordInconclusive                // a layout-dependent value differs
	wordDiffer                      // a confirmed difference
)

func (st *cmpState) word(a, b uint64) wordCmp {
	if a == b {
		return wordEqual
	}
	sa, oka := st.src.img.symbolize(a)
	sb, okb := st.dst.img.symbolize(b)
	if oka && okb && sa == sb {
		return wordSameSymbol
	}
	if st.src.img.layoutDependent(a) || st.dst.img.layoutDependent(b) {
		return wordInconclusive
	}
	return wordDiffer
}

func compareRuns(c *Confirmation, src, dst *confirmSide, rs, rd *Result, sig *x86.FuncDebug) {
	st := &cmpState{c: c, src: src, dst: dst, noteOK: map[string]bool{}, sites: map[uint64]siteArgs{}}
	defer func() { c.Detail = strings.Join(st.notes, "; ") }()
	// A run that ends in a call that never returns (EndedInCall) ends
	// normally, as the program would: the call log shows the call.
	ends := func(r *Result) bool { return r.Outcome == Returned || r.Outcome == EndedInCall }
	switch {
	case !ends(rs):
		st.note("src %s: not a confirmed difference (the source may have undefined behaviour on this input)", rs)
		return
	case rd.Outcome == Fault || (ends(rd) && rd.Outcome != rs.Outcome):
		if st.compareCalls(rs.Calls, rd.Calls, rs.CallsTruncated, rd.CallsTruncated, true) {
			what := "returned"
			if rs.Outcome == EndedInCall {
				what = rs.String()
			}
			st.differ("outcome: src %s, dst %s", what, rd)
		} else {
			st.note("dst %s after incomparable calls", rd)
		}
		return
	case !ends(rd):
		st.note("dst %s: not a confirmed difference", rd)
		return
	}
	if !st.compareCalls(rs.Calls, rd.Calls, rs.CallsTruncated, rd.CallsTruncated, false) {
		return
	}
	if rs.Outcome == Returned {
		st.compareReturn(c.Src, c.Dst, returnShape(sig))
	}
	st.compareGlobals(rs, rd)
}

// compareCalls compares the call logs by meaning. It returns false when
// what follows (later calls, the return value, memory) is incomparable
// because a non-void stub hashed arguments that differ without a confirmed
// difference (its results then differ). With prefix (dst ended early),
// dst's calls are compared only as a prefix of src's.
//
// The arguments compared are a callee's named parameters (one prototype for
// both sides: LinkOptions.Protos), and of the registers a stub records
// beyond them (a variadic callee's, or all six of an unprototyped one's)
// those the source's call site sets (siteArgCount). Pointers compare by
// their canonical keys (canon.go): symbol and offset, the bytes of
// read-only data, any stack address alike.
func (st *cmpState) compareCalls(sc, dc []Call, strunc, dtrunc, prefix bool) bool {
	n := min(len(sc), len(dc))
	for i := 0; i < n; i++ {
		a, b := sc[i], dc[i]
		if handled, result := st.compareOutputs(i, a, b); handled {
			return result
		}
		if a.Name != b.Name || a.ID != b.ID {
			st.differ("calls[%d]: src %s dst %s", i, st.showCall(st.src, a), st.showCall(st.dst, b))
			return true
		}
		ext := st.callee(a.Name)
		if a.N != b.N || ext == nil {
			st.note("calls[%d]: %s recorded %d and %d arguments (the two objects declare it differently): later observables not compared", i, a.Name, a.N, b.N)
			return false
		}
		named := 0
		if ext.Prototyped {
			named = len(ext.Params)
		}
		compared := named
		var set siteArgs
		intNamed := 0
		if a.N > named {
			// Registers recorded beyond the named parameters: those the
			// source's call sets are arguments.
			var ok bool
			set, ok = st.siteArgs(a.Site)
			if !ok {
				st.note("calls[%d]: %s: the source's call site was not found; arguments past the named ones not compared", i, a.Name)
			}
			for _, p := range ext.Params[:named] {
				if p.Kind == ScalarInt {
					intNamed++
				}
			}
			compared = named + max(set.N-intNamed, 0)
			if a.N-named > 0 && compared < a.N {
				st.note("calls[%d]: %s: %d of %d recorded argument registers compared (the others the source's call does not set)", i, a.Name, compared, a.N)
			}
		}
		resultsEqual, incon := true, false
		for j := 0; j < min(compared, len(a.Args), len(b.Args)); j++ {
			x, y := a.Args[j], b.Args[j]
			var p *Param
			if j < named {
				p = &ext.Params[j]
			} else if r := intNamed + j - named; r < len(set.Narrow) && set.Narrow[r] && st.plainInts(x, y) {
				// The source writes an int there: the upper half
				// is unspecified (the ABI's rule for an int).
				x, y = uint64(uint32(x)), uint64(uint32(y))
			}
			switch st.arg(p, x, y) {
			case wordDiffer:
				st.differ("calls[%d]: src %s dst %s", i, st.showCall(st.src, a), st.showCall(st.dst, b))
				return true
			case wordInconclusive:
				incon = true
				st.note("calls[%d]: %s argument %d is a layout-dependent address (%#x vs %#x)", i, a.Name, j, x, y)
				if j < named {
					resultsEqual = false
				}
			}
		}
		void := ext.Prototyped && ext.Ret.Kind == ScalarVoid
		if !resultsEqual && !void {
			if !incon {
				st.note("calls[%d]: %s got arguments equal in meaning but not in bits", i, a.Name)
			}
			st.note("the stub results differ from calls[%d] on: later observables not compared", i)
			return false
		}
	}
	if len(sc) != len(dc) {
		switch {
		case prefix && len(dc) < len(sc):
			// dst stopped early: its calls are a prefix.
		case len(sc) < len(dc) && strunc, len(dc) < len(sc) && dtrunc:
			st.note("call log truncated; calls beyond %d not compared", n)
		default:
			if len(sc) > n {
				st.differ("calls: src made %d calls, dst %d (first extra: src %s)", len(sc), len(dc), st.showCall(st.src, sc[n]))
			} else {
				st.differ("calls: src made %d calls, dst %d (first extra: dst %s)", len(sc), len(dc), st.showCall(st.dst, dc[n]))
			}
		}
	} else if strunc || dtrunc {
		st.note("call log truncated; calls beyond %d not compared", n)
	}
	return true
}

// callee is the declaration both stubs of name were generated from: the
// source object's prototype, else the destination's (LinkOptions.Protos),
// else the source's unprototyped extern.
func (st *cmpState) callee(name string) *Extern {
	es, _ := st.src.obj.Extern(name)
	if es != nil && es.Prototyped {
		return es
	}
	if ed, _ := st.dst.obj.Extern(name); ed != nil && ed.Prototyped {
		return ed
	}
	return es
}

// siteArgs is siteArgCount on the source's executable, remembered per site.
func (st *cmpState) siteArgs(site uint64) (siteArgs, bool) {
	if sa, ok := st.sites[site]; ok {
		return siteArgs{N: max(sa.N, 0), Narrow: sa.Narrow}, sa.N >= 0
	}
	sa, ok := siteArgCount(st.src.exe, site)
	if !ok {
		sa = siteArgs{N: -1}
	}
	st.sites[site] = sa
	return siteArgs{N: max(sa.N, 0), Narrow: sa.Narrow}, ok
}

// plainInts reports whether neither x nor y may be an address whose bits
// depend on the layout: then they compare as integers.
func (st *cmpState) plainInts(x, y uint64) bool {
	_, cx := st.src.exe.canon.key(x)
	_, cy := st.dst.exe.canon.key(y)
	return cx == 0 && cy == 0 && !st.src.img.layoutDependent(x) && !st.dst.img.layoutDependent(y)
}

// arg compares one argument, x from src and y from dst: p is its declared
// type (nil when unknown: a register past the named parameters). Integers
// narrower than a pointer and floats compare by bits; pointers, 8-byte
// integers and arguments of unknown type by canonical key, where a
// difference counts only if neither value may be an address whose bits
// depend on the layout (one on the stack, or in an executable's image
// outside its symbols and read-only data), and unless one may be a pointer
// one past the end of the object the other means (pastEndMatch). A pointer one past the end
// of a string literal compares by the literal after it: such a pointer
// passed to a callee would be reported as a difference.
func (st *cmpState) arg(p *Param, x, y uint64) wordCmp {
	if p != nil && p.Agg != nil && p.Kind == ScalarFloat64 && x != y &&
		nanLanes(x, y, p.Agg.FloatSize[p.Word], p.Agg.Mask[p.Word]) {
		return wordEqual // an SSE eightbyte of a struct: equal floats but for NaN payloads
	}
	if p != nil && !p.Pointer && (p.Kind != ScalarInt || p.Size < 8) {
		if x == y {
			return wordEqual
		}
		return wordDiffer
	}
	kx, cx := st.src.exe.canon.key(x)
	ky, cy := st.dst.exe.canon.key(y)
	if x == y && (p == nil || !p.Pointer) {
		return wordEqual // the same integer (what a pointer parameter hashes is its key)
	}
	switch {
	case kx == ky && cx == canonStack:
		st.note("stack addresses passed to callees are not compared")
		return wordSameSymbol
	case kx == ky:
		if x == y {
			return wordEqual
		}
		return wordSameSymbol
	case st.pastEndMatch(x, y, kx, ky):
		st.note("a pointer one past the end of an object may be another object's first byte: not compared")
		return wordInconclusive
	case cx == canonStack || cy == canonStack,
		cx == 0 && st.src.img.layoutDependent(x),
		cy == 0 && st.dst.img.layoutDependent(y):
		return wordInconclusive
	}
	return wordDiffer
}

// showCall writes a call as the user reads it: each argument in hex, and
// after it what it points to when that is a symbol (&name+offset) or
// read-only data (the string there).
func (st *cmpState) showCall(s *confirmSide, c Call) string {
	var parts []string
	for _, a := range c.Args {
		parts = append(parts, st.show(s, a))
	}
	if c.N > len(c.Args) {
		parts = append(parts, "...")
	}
	name := c.Name
	if name == "" {
		name = fmt.Sprintf("stub#%x", c.ID)
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// show is a value of side s in hex, with its meaning if it may be a pointer.
func (st *cmpState) show(s *confirmSide, v uint64) string {
	if _, kind := s.exe.canon.key(v); kind == canonReadOnly {
		var b []byte
		for p := v; len(b) < 40; p++ {
			c := s.exe.canon.byteAt(p)
			if c == 0 {
				break
			}
			b = append(b, c)
		}
		return fmt.Sprintf("%#x %q", v, b)
	}
	if v >= 4096 {
		if sym, ok := s.img.symbolize(v); ok {
			return fmt.Sprintf("%#x &%s", v, sym)
		}
	}
	return fmt.Sprintf("%#x", v)
}

func (st *cmpState) compareReturn(s, d Observation, sh retShape) {
	if sh.size == 0 {
		if sh.kind != "void" {
			st.note("return value %s", strings.TrimPrefix(sh.kind, "unknown: "))
		}
		return
	}
	if sh.memory {
		st.compareResultBlock(s.ResultBlock, d.ResultBlock, sh)
		return
	}
	if s.Return == d.Return && s.ReturnHi == d.ReturnHi {
		return
	}
	if sh.structural {
		for i, pair := range [2][2]uint64{{s.Return, d.Return}, {s.ReturnHi, d.ReturnHi}} {
			fsize := int64(0)
			if sh.eb.SSE[i] {
				fsize = sh.eb.FloatSize[i]
			}
			st.returnBytes(8*i, min(8*i+8, sh.size), pair[0], pair[1], fsize, sh.eb.Mask[i], sh.eb.Pointer[i])
		}
		return
	}
	if sh.size == 16 {
		st.differ("return: src %#x:%016x dst %#x:%016x", s.ReturnHi, s.Return, d.ReturnHi, d.Return)
		return
	}
	if sh.pointer {
		switch st.word(s.Return, d.Return) {
		case wordSameSymbol:
			return
		case wordInconclusive:
			st.note("return: layout-dependent addresses %#x and %#x", s.Return, d.Return)
			return
		}
	}
	st.differ("return: src %#x dst %#x", s.Return, d.Return)
}

// compareResultBlock compares a struct returned in memory member by
// member (padding is unspecified): floats equal but for NaN payloads,
// pointers by what they name.
func (st *cmpState) compareResultBlock(s, d []byte, sh retShape) {
	if len(s) < sh.size || len(d) < sh.size {
		st.note("return: the result block was not read")
		return
	}
	for _, m := range sh.members {
		x, y := s[m.Off:m.Off+m.Size], d[m.Off:m.Off+m.Size]
		if string(x) == string(y) {
			continue
		}
		var a, b [8]byte
		copy(a[:], x)
		copy(b[:], y)
		fsize := int64(0)
		if m.Float {
			fsize = m.Size
		}
		st.returnBytes(int(m.Off), int(m.Off+m.Size), binary.LittleEndian.Uint64(a[:]), binary.LittleEndian.Uint64(b[:]),
			fsize, 1<<(8*uint(m.Size))-1, m.Pointer && m.Size == 8) // the mask is all ones for 8 bytes
	}
}

// returnBytes compares bytes lo..hi of a struct result, x and y (masked to
// mask): floats of fsize bytes (0: none) equal up to NaN payloads, a
// pointer by what it names.
func (st *cmpState) returnBytes(lo, hi int, x, y uint64, fsize int64, mask uint64, pointer bool) {
	if x == y || fsize > 0 && nanLanes(x, y, fsize, mask) {
		return
	}
	if pointer {
		switch st.word(x, y) {
		case wordSameSymbol:
			return
		case wordInconclusive:
			st.note("return bytes %d..%d: layout-dependent addresses %#x and %#x", lo, hi, x, y)
			return
		}
	}
	st.differ("return bytes %d..%d: src %#x dst %#x", lo, hi, x, y)
}

// compareGlobals compares every global both executables define, then the
// heap. A global only one executable defines is not compared (an optimizer
// may drop a static variable nothing reads, and with it its stores).
func (st *cmpState) compareGlobals(rs, rd *Result) {
	sg := map[string]Global{}
	for _, g := range st.src.exe.Globals {
		sg[g.Name] = g
	}
	dg := map[string]Global{}
	for _, g := range st.dst.exe.Globals {
		dg[g.Name] = g
	}
	names := map[string]bool{}
	for n := range sg {
		names[n] = true
	}
	for n := range dg {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		_, inS := sg[n]
		_, inD := dg[n]
		switch {
		case inS && inD:
			if why := incomparableGlobal(st.src, st.dst, n); why != "" {
				st.note("global %s: not compared: %s", n, why)
				continue
			}
			st.compareRegion("global "+n, n, true, rs.MemoryOf(n), rd.MemoryOf(n), st.mayHoldPointers(n))
		case inS:
			st.note("global %s: defined by src only; not compared", n)
		default:
			st.note("global %s: defined by dst only; not compared", n)
		}
	}
	st.compareRegion("heap", "", true, rs.MemoryOf("heap"), rd.MemoryOf("heap"), true)
	// Not a global: told, but no Region (Regions name the heap or a
	// global, which explain.go types).
	st.compareRegion(stubObjects, "", false, rs.MemoryOf(stubObjects), rd.MemoryOf(stubObjects), true)
}

// mayHoldPointers says a global's bytes may hold addresses (so that words
// differing between the two layouts need care): anything but integers,
// floats, enums and arrays of elements narrower than a pointer or of
// 8-byte arithmetic types.
func (st *cmpState) mayHoldPointers(name string) bool {
	for _, f := range []*x86.File{st.src.file, st.dst.file} {
		gv := f.Globals[name]
		if gv == nil {
			continue
		}
		switch gv.Type.Kind {
		case x86.KindBool, x86.KindEnum, x86.KindFloat:
			return false
		case x86.KindInt:
			return gv.Type.Size >= 8 && !arithmetic8[gv.Type.Name]
		case x86.KindArray:
			if gv.Type.PointeeSize > 0 && gv.Type.PointeeSize < 8 {
				return false
			}
			return !arithmetic8[strings.TrimSpace(gv.Type.Pointee)]
		}
		return true
	}
	return true
}

// arithmetic8 are 8-byte C types that cannot hold a pointer.
var arithmetic8 = map[string]bool{
	"long": true, "long int": true, "unsigned long": true, "long unsigned int": true,
	"long long": true, "long long int": true, "unsigned long long": true, "long long unsigned int": true,
	"double": true, "int64_t": true, "uint64_t": true, "size_t": true, "ssize_t": true, "ptrdiff_t": true,
}

// compareRegion compares the final bytes of one region, told as name:
// the global named global, the heap (""), or with typed false the stub
// objects, whose differences get no RegionDiff; with pointers, each
// aligned 8-byte word that differs goes through word.
func (st *cmpState) compareRegion(name, global string, typed bool, a, b []byte, pointers bool) {
	var runs [][2]int // differing byte ranges [lo, hi)
	add := func(lo, hi int) {
		if k := len(runs); k > 0 && runs[k-1][1] == lo {
			runs[k-1][1] = hi
			return
		}
		runs = append(runs, [2]int{lo, hi})
	}
	for i := 0; i < len(a); {
		if pointers && i%8 == 0 && i+8 <= len(a) {
			x, y := binary.LittleEndian.Uint64(a[i:]), binary.LittleEndian.Uint64(b[i:])
			switch st.word(x, y) {
			case wordInconclusive:
				st.note("%s[%d..%d]: layout-dependent addresses %#x and %#x", name, i, i+8, x, y)
			case wordDiffer:
				lo, hi := i, i+8
				for lo < hi && a[lo] == b[lo] {
					lo++
				}
				for hi > lo && a[hi-1] == b[hi-1] {
					hi--
				}
				add(lo, hi)
			}
			i += 8
			continue
		}
		if a[i] != b[i] {
			add(i, i+1)
		}
		i++
	}
	const maxRuns = 4
	if typed {
		for _, r := range runs[:min(len(runs), 4*maxRuns)] {
			st.c.Regions = append(st.c.Regions, RegionDiff{Global: global, Lo: r[0], Hi: r[1]})
		}
	}
	for k, r := range runs {
		if k == maxRuns {
			st.differ("%s: %d more differing ranges", name, len(runs)-maxRuns)
			break
		}
		st.differ("%s[%d..%d]: src %s dst %s", name, r[0], r[1], hexBytes(a[r[0]:r[1]]), hexBytes(b[r[0]:r[1]]))
	}
}

func hexBytes(b []byte) string {
	const max = 32
	if len(b) > max {
		return fmt.Sprintf("%x…", b[:max])
	}
	return fmt.Sprintf("%x", b)
}

// exeImage is what the comparison needs to know of an executable's layout:
// the extent of its loaded image and its sized symbols.
type exeImage struct {
	lo, hi  uint64
	stackHi uint64
	syms    []imageSym // sorted by address
}

type imageSym struct {
	addr, size uint64
	name       string
}

func readImage(x *Executable) (*exeImage, error) {
	f, err := elf.Open(x.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img := &exeImage{lo: ^uint64(0), stackHi: StackAddr + x.StackSize}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			img.lo = min(img.lo, p.Vaddr)
			img.hi = max(img.hi, p.Vaddr+p.Memsz)
		}
	}
	for _, m := range []map[string]elf.Symbol{x.funcs, x.data} {
		for n, s := range m {
			img.syms = append(img.syms, imageSym{addr: s.Value, size: max(s.Size, 1), name: n})
		}
	}
	sort.Slice(img.syms, func(i, j int) bool {
		if img.syms[i].addr != img.syms[j].addr {
			return img.syms[i].addr < img.syms[j].addr
		}
		return img.syms[i].name < img.syms[j].name
	})
	return img, nil
}

// symbolize names the symbol and offset an address falls in.
func (img *exeImage) symbolize(a uint64) (string, bool) {
	i := sort.Search(len(img.syms), func(i int) bool { return img.syms[i].addr > a }) - 1
	// Symbols may nest or alias: look a few back for one that covers a.
	for k := 0; i >= 0 && k < 16; i, k = i-1, k+1 {
		if s := img.syms[i]; a-s.addr < s.size {
			return fmt.Sprintf("%s+%d", s.name, a-s.addr), true
		}
	}
	return "", false
}

// layoutDependent says a value may be an address whose bits depend on the
// executable (its image) or on the function's frame layout (the run stack).
func (img *exeImage) layoutDependent(a uint64) bool {
	return (a >= img.lo && a < img.hi) || (a >= StackAddr && a < img.stackHi)
}
