package pair

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand"
	"slices"
	"sort"
	"strings"

	"eqc/inputs"
	"eqc/ir"
	"eqc/prove"
	"eqc/x86"
)

// Co-execution bounds: the first run goes far (often to the end, which is
// what pins the exit's correlation and the loop bounds); the others only
// add variety for learning.
const (
	longRunSteps  = 150000
	shortRunSteps = 4000
	coRuns        = inputs.CoRuns
	// maxRunVisits bounds the anchor visits a run keeps, whatever its
	// steps: each holds a whole state (about 2 KiB, more with the memory's
	// copied paths), and where every step reaches an anchor (a loop that
	// calls: each call site is one) 150000 steps on both sides outgrew a
	// 4 GiB worker before the run ended (lua's propagateall, TSVC's s176:
	// memout). A TSVC kernel's long run keeps 32003 (LEN 32000).
	maxRunVisits = 50000
	// maxLongExtraVisits bounds the visits of a long run from a model
	// (prove.ExtraRun.Long, kept only where it ends: LongRunEnds).
	// clang's s162 reaches the vector loop's exit into its remainder,
	// and the end, within 25169 source visits.
	maxLongExtraVisits = 30000
)

// Co-execution: both lifted functions run on the same concrete entry
// state with the evaluator (not natively: the product program is about the
// lifted TFGs, and the evaluator sees every anchor, every stack store and
// every register). The runs supply the loop engine with what the solver
// cannot guess cheaply: how far the source must run for each step of the
// target (the correlation), the stack slots each side keeps, and the
// concrete states at each product node that invariants are learned from.
// Nothing here is trusted: every correlation and invariant it suggests is
// proved by the solver or dropped.

// Visit is one arrival of a run at an anchor.
type Visit struct {
	Node     ir.NodeID
	State    []ir.Value
	Retreats int   // retreating edges taken before this arrival
	Path     []int // target runs: the IDs of the edges taken since the last arrival
}

// Run is one side's run from the entry.
type Run struct {
	Visits []Visit
	// stackStores are the (offset from the entry rsp, size) of every store
	// into the stack region the run made.
	stackStores map[[2]int64]bool
	Ended       bool              // reached a node with no edges out (not cut by the step cap or a fault)
	counts      map[ir.NodeID]int // arrivals per node, filled when the run ends
}

// CoRun is one co-execution: both sides from one entry state.
type CoRun struct {
	env *hashEnv
	// Globals are the addresses the run gives the globals, by address
	// variable ("&sym"), as env evaluates them.
	Globals  map[string]uint64
	Entry    []ir.Value // the shared entry state, in src state order
	RSP0     uint64
	Src, Dst *Run
}

// Env evaluates the run's free variables and uninterpreted functions, as
// both sides met them.
func (cr *CoRun) Env() ir.Env { return cr.env }

// hashEnv gives every free variable a value derived from its name and the
// run's seed (global addresses are placed apart), and every
// uninterpreted function a value derived from its arguments, so that the
// two sides meet the same values for the same names; the C library's
// functions of fixed meaning return their real results instead
// (libcresults.go).
type hashEnv struct {
	seed    uint64
	globals map[string]uint64
	// known are the C library callees whose calls return their known
	// result (libcresults.go).
	known map[string]bool
	ctype uint64 // where the ctype tables' locations lie (ctypeBase)
}

func (e *hashEnv) hash(s string, xs ...uint64) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", e.seed, s)
	for _, x := range xs {
		fmt.Fprintf(h, "/%x", x)
	}
	v := h.Sum64()
	v ^= v >> 29
	v *= 0xbf58476d1ce4e5b9
	return v ^ v>>32
}

func (e *hashEnv) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	name := b.VarName(t)
	if a, ok := e.globals[name]; ok {
		return ir.BVValue(ir.NewBV(64, a)), true
	}
	return ir.ValueFromHash(b.Sort(t), e.hash(name)), true
}

func (e *hashEnv) ApplyFunc(f *ir.Func, args []ir.Value) (ir.Value, bool) {
	if f.Result.Kind == ir.KindMem {
		m := args[len(args)-1]
		if !f.Callee || !loggedCall(f.Name) {
			return m, true
		}
		// The memory a callee leaves: what it was given, with the call
		// log (callLogAddr) extended by this call. Two runs' memories
		// then agree outside the stack only where they have made the
		// same calls in the same order, which is what the alignments'
		// memory checks (HeapEqual) need to pair call sites in step.
		prev := binary.LittleEndian.Uint64(m.Mem().Read(callLogAddr, 8))
		h := e.hash(f.Name, append([]uint64{prev}, e.argWords(args[:len(args)-2], args[len(args)-2])...)...)
		return ir.MemValue(m.Mem().With(callLogAddr, binary.LittleEndian.AppendUint64(nil, h))), true
	}
	// A call's result: in the lifter's form its arguments come before the
	// stack pointer and memory; in the calling convention's (callc:,
	// x86.CallConvention) before the view of memory it reads, and it
	// gives what the lifter's form of the same call gives in a run, so
	// that the rewritten terms of product edges evaluate on samples to
	// the values the co-executions computed.
	callee, name := f.Callee, f.Name
	fn, isCall := x86.ParseCallFunc(f.Name)
	vals, sp, mem := args, ir.Value{}, ir.Value{}
	switch {
	case isCall && f.Callee && len(args) >= 2:
		vals, sp, mem = args[:len(args)-2], args[len(args)-2], args[len(args)-1]
	case isCall && fn.Convention && len(args) >= 1:
		vals, mem = args[:len(args)-1], args[len(args)-1]
		callee, name = true, "call:"+strings.TrimPrefix(f.Name, "callc:")
	default:
		callee = false
	}
	if callee && e.known[fn.Callee] && fn.Result == "rax" && f.Result.IsBV() && f.Result.Width == 64 && len(vals) >= fn.N && mem.Sort().Kind == ir.KindMem {
		words := make([]uint64, fn.N)
		for i := range words {
			if vals[i].Sort().Kind == ir.KindBV && vals[i].Sort().Width <= 64 {
				words[i] = vals[i].BV().Uint64()
			}
		}
		if v, ok := knownResult(fn.Callee, words, mem.Mem(), e.ctype); ok {
			return ir.BVValue(ir.NewBV(64, v)), true
		}
	}
	if callee {
		// A callee's result depends on its argument values only here:
		// the stack pointer and memory it is also applied to differ
		// between two builds' frames, and runs that only suggest an
		// alignment should see equal calls return equal values.
		h := e.hash(name, e.argWords(vals, sp)...)
		if f.Result.IsBV() && f.Result.Width <= 64 && h%4 == 0 {
			// A quarter of the calls return 0, 1 or 2: C functions
			// answer yes or no, a count or a status far more often than
			// a random word, and a run whose every call returned
			// nonzero never took the branch of a failed call (gnugo's
			// improve_lunch_attack: no run reached its loops, so no
			// product edge held the calls there).
			h = (h >> 8) % 3
		}
		return ir.ValueFromHash(f.Result, h), true
	}
	return ir.ValueFromHash(f.Result, e.hash(f.Name, e.argWords(args, ir.Value{})...)), true
}

// argWords are the words of argument values a result's hash takes. With
// sp, the stack pointer at a call, an address in the caller's frame just
// above it (g(&x)) counts as one value: the two builds' frames differ.
func (e *hashEnv) argWords(args []ir.Value, sp ir.Value) []uint64 {
	frame := func(uint64) bool { return false }
	if sp.Sort().Kind == ir.KindBV {
		top := sp.BV().Uint64()
		frame = func(v uint64) bool { return v-top < StackLimit }
	}
	var xs []uint64
	for _, a := range args {
		if a.Sort().Kind == ir.KindBV && a.Sort().Width <= 64 {
			v := a.BV().Uint64()
			if frame(v) {
				v = frameArgToken
			}
			xs = append(xs, v)
		}
	}
	return xs
}

// callLogAddr is where a co-execution's memory keeps its call log: far
// from the globals, the arrays and the stack its runs place.
const callLogAddr = 0x5a5a_0000_0000

// loggedCall reports whether a callee's memory result (the function
// named name) extends the call log: not the C library's const and pure
// functions, which one build may call where the other computes inline
// (clang's abs), and which write no memory.
func loggedCall(name string) bool {
	fn, ok := x86.ParseCallFunc(name)
	return !ok || !x86.ConstCallees[fn.Callee] && !x86.PureCallees[fn.Callee]
}

// frameArgToken stands for any address in the caller's frame among a
// callee's arguments, in the hash of its result.
const frameArgToken = 0xf4a3e

// randomizedBytes is how much of each global a co-execution fills with
// random bytes (the rest reads as the memory's default byte): enough for
// the iterations invariants are learned from, small enough to compare.
const randomizedBytes = 512

// newCoRun builds the entry state of co-execution number k: rsp and the
// globals at seed-dependent places (globals 64-byte aligned, apart from
// each other and from the stack), arguments and memory from the seed;
// x, when given, sets the integer parameters' registers and the first
// bytes the pointer parameters point to instead (a run from a
// counterexample, cexruns.go).
func (p *Pair) newCoRun(k int, x *prove.ExtraRun) *CoRun {
	b := p.B
	env := &hashEnv{seed: uint64(k)*7919 + 1, globals: map[string]uint64{}, known: p.knownCallees()}
	base := uint64(0x1000_0000) + uint64(k)*0x40
	mem := ir.NewMem(byte(env.hash("mem.default")))
	for _, g := range p.GlobalVars() {
		name := b.VarName(g)
		size := p.GlobalSize(name)
		if size == 0 || size > 1<<24 {
			size = UnknownGlobalSize
		}
		env.globals[name] = base
		n := min(size, randomizedBytes)
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(env.hash(name, uint64(i)))
		}
		mem = mem.With(base, data)
		// Gaps differ per run and per global, so that no two globals are
		// a constant distance apart across runs.
		base += (size + 0x10000 + 63) &^ 63
		base += (env.hash("gap", uint64(len(env.globals))) % 4096) * 64
	}
	// Escaped locals' blocks lie beyond the globals, apart and 64-byte
	// aligned, and their slots where each side's frame has them, as
	// escapePremises say.
	for _, e := range p.escaped {
		env.globals[b.VarName(e.addr)] = base
		base += (e.size + 0x10000 + 63) &^ 63
	}
	rsp0 := uint64(0x7ff0_0000_0000) - (env.hash("rsp")%(1<<20))*16 + 8
	for _, e := range p.escaped {
		for k := range 2 {
			if e.on(k) {
				env.globals[b.VarName(e.slot[k])] = rsp0 + uint64(e.lo[k])
			}
		}
	}
	ret := make([]byte, 8)
	for i := range ret {
		ret[i] = byte(0x40 + i)
	}
	mem = mem.With(rsp0, ret)
	if env.known["__ctype_b_loc"] || env.known["__ctype_tolower_loc"] || env.known["__ctype_toupper_loc"] {
		env.ctype = ctypeBase(k)
		mem = ctypeTables(mem, env.ctype, ctypeTableBase(k))
	}
	g := p.Src.TFG
	st := make([]ir.Value, len(g.State))
	for i, sv := range g.State {
		st[i], _ = env.VarValue(b, sv.Var)
	}
	st[x86.StateGPR0+x86.RSP] = ir.BVValue(ir.NewBV(64, rsp0))
	st[x86.StateMem] = ir.MemValue(mem)
	// The arguments follow co-execution's schedule (inputs.CoArg); a
	// string parameter points to a string of the length it gives.
	regs, nparams := p.registerParams()
	consts := p.boundConstants()
	marks := p.byteMarks()
	arrays := 0            // pointer parameters placed so far
	var firstString []byte // the bytes of the first string parameter
	separate := p.tbsaSeparate()
	for r := range p.restrictSeparate() {
		separate[r] = true
	}
	traps := len(p.SanitizerTraps()) > 0 // moderate elements (arrayFill)
	for i, r := range x86.CalleeArgRegs {
		a := inputs.CoArg(k, i, regs[i], nparams, consts, env.hash)
		if x != nil && i < len(x.Args) && integerParam(regs, nparams, i) {
			a = uint64(x.Args[i])
		}
		switch {
		case i >= nparams:
		case regs[i].String:
			var s []byte
			a, s = placeString(env, k, i, a, firstString, marks)
			if firstString == nil {
				firstString = s
			}
			mem = mem.With(a, s)
			mem = mem.With(a, x.Pointee(i))
		case regs[i].Pointer:
			lo, data := placeArray(env, k, i, arrays, regs[i].Elem, !separate[r], traps)
			if x != nil && i < len(x.Shared) && x.Shared[i] >= 0 {
				lo = sharedArrays + uint64(x.Shared[i])
			}
			mem = mem.With(lo, data)
			mem = mem.With(lo+arraySlack, x.Pointee(i))
			a = lo + arraySlack
			arrays++
		}
		st[x86.StateGPR0+r] = ir.BVValue(ir.NewBV(64, a))
	}
	st[x86.StateMem] = ir.MemValue(mem)
	return &CoRun{env: env, Globals: env.globals, Entry: st, RSP0: rsp0}
}

// Pointer parameters (not strings) point into arrays of their own, as a
// caller's do: arrayBytes bytes from arraySlack before the pointer (a
// stencil reads a[i-1]), at an alignment that varies with the run (a
// vectorized loop peels to its alignment), filled with the run's kind of
// elements at the pointee's width: random values mostly, small ones
// (-3..3: zeros and ties, which a count of zeros or a maximum needs) in
// runs 1, 4 and 7 (4 is inputs.SmallLongRun, whose counts are long
// enough for a vectorized loop's passes), zeros in ZeroRun. Runs used to
// leave pointers small integers over a memory of one repeated byte: every
// element equal, and every two arrays overlapping.
//
// In overlapRun the pointers share one array instead, each one
// arrayOverlap bytes past the next parameter's: a loop versioned on
// whether its arrays overlap takes its scalar fallback there, over as
// many elements as run 6's length gives, which no other run does.
//
// A run from a counterexample whose pointers lie close together
// (prove.ExtraRun.Shared) has them in one array at sharedArrays, as far
// apart as the model has them.
const (
	sharedArrays = 0x6000_0000_0000 + 0x1000
	arrayBytes   = 1024
	arraySlack   = 64
	arrayOverlap = 8
	overlapRun   = 6
	sortedRun    = 0
)

// placeArray returns the lowest address and the bytes of the array
// co-execution k gives pointer parameter i, the nth pointer parameter,
// whose pointee is e. The pointer is arraySlack past the address. With
// overlap false, the parameter has an array of its own in overlapRun too.
// traps says the source traps on overflow (arrayFill).
func placeArray(env *hashEnv, k, i, nth int, e inputs.Elem, overlap, traps bool) (uint64, []byte) {
	align := uint64(4)
	if e.Unit() >= 8 {
		align = 8
	}
	// Up to 512 alignment steps past its slot, not just the 8 of an
	// alignment class: with 8, two runs gave one array the same address
	// often enough (s in runs 0, 2 and 5 of addn) that the canonical
	// addresses took a pointer parameter for a constant.
	lo := uint64(0x6000_0000_0000) + uint64(i)<<32 + (env.hash("array.align", uint64(i))%512)*align
	if k == overlapRun && overlap {
		lo = 0x6000_0000_0000 + uint64(5-nth)*arrayOverlap
	}
	rng := rand.New(rand.NewSource(int64(env.hash("array", uint64(i)))))
	return lo, inputs.Fill(rng, arraySlack+arrayBytes, e, arrayFill(k, traps))
}

// arrayFill is the kind of elements co-execution k fills its arrays with.
// One run's are sorted (sortedRun): in the others a loop that stops at the
// first descent (is_sorted, a search's bounds) stopped within a few
// elements, and the zero run, whose elements are ordered too, has no
// elements to go over. Where the source traps on overflow (a sanitizer
// build), random elements are moderate ones (inputs.FillModerate).
func arrayFill(k int, traps bool) inputs.FillKind {
	switch {
	case k == inputs.ZeroRun:
		return inputs.FillZero
	case k == sortedRun:
		return inputs.FillSorted
	case k%3 == 1: // 1, inputs.SmallLongRun, 7
		return inputs.FillSmall
	case traps:
		return inputs.FillModerate
	}
	return inputs.FillRandom
}

// maxStringLen bounds the strings co-executions pass: long enough for a
// word-at-a-time loop's passes to learn from, short enough that a bound
// constant taken as the length does not make megabytes of memory.
const maxStringLen = 200

// placeString returns the address and bytes of the string co-execution k
// passes in argument register i, with n the length the argument would
// have had as an integer: at least n bytes, placed and ended as inputs'
// strings are (StringStart, StringLen). Two strings are a distance apart
// that varies with the run (at one distance in every run, the canonical
// addresses took one for the other plus that distance). In sameStringRuns
// a later string repeats the first one's bytes (like), the last one
// before its NUL changed in the second of them: two random strings differ
// at their first byte, so a loop that compares them (cmpn, strcmp's
// kind) never went around in the other runs. In the first eight runs it is at
// least 16 bytes long, so that a word-at-a-time warm-up ends at every
// alignment (clang unrolls it: each alignment is its own way to the main
// loop); later runs may end it sooner. Random bytes, zeros among them,
// follow the NUL: a word-at-a-time loop reads them. Runs 1, 4 and 7
// make their strings of text (inputs.TextBytes), and run 4's starts with
// a negative number, so that a loop that runs on digits makes passes to
// learn from. Runs 3 and 7 (markedRun, paddedTextRun) start with the
// bytes the code compares bytes with (marks), thrice each; run 7's then
// has blanks, and ends with blanks.
func placeString(env *hashEnv, k, i int, n uint64, like, marks []byte) (uint64, []byte) {
	start := inputs.StringStart(k)
	n = min(n, maxStringLen)
	if k < 8 {
		n = max(n, 16)
	}
	n = inputs.StringLen(k, start, n)
	addr := 0x3000_0000 + uint64(i)*0x10_0000 + uint64(k)*0x1000 + start
	addr += (env.hash("str.gap", uint64(i)) % 256) * 64
	s := make([]byte, n+1+16)
	for j := range s {
		h := env.hash("str", uint64(i), uint64(j))
		s[j] = byte(h)
		if k%3 == 1 && uint64(j) < n {
			s[j] = inputs.TextBytes[h%uint64(len(inputs.TextBytes))]
		}
		if uint64(j) < n && s[j] == 0 {
			s[j] = 0x5a
		}
	}
	if k == 4 && n > 1 {
		s[0], s[1] = '-', '7'
	}
	if (k == paddedTextRun || k == markedRun) && n > 4 {
		// The bytes the code looks for, thrice each, first: a loop
		// that skips '>' quote marks goes round on them, and a peeled
		// first pass still leaves two (a counterexample's run, a single
		// '>', does not show the loop's step); two runs, so that what
		// is learned of the count is not one string's address.
		j := uint64(0)
		for _, c := range marks {
			for range 3 {
				if j+4 < n {
					s[j], j = c, j+1
				}
			}
		}
		if k == paddedTextRun {
			// Then blanks at both ends: a text's leading and trailing
			// white space is what trimming and skipping loops go
			// round on, and random text seldom starts or ends with it.
			s[j], s[j+1], s[n-2], s[n-1] = ' ', '\t', ' ', '\n'
		}
	}
	if like != nil && (k == sameStringRuns[0] || k == sameStringRuns[1]) {
		j := uint64(0)
		for ; j < n && j < uint64(len(like)) && like[j] != 0; j++ {
			s[j] = like[j]
		}
		if k == sameStringRuns[1] && j > 0 {
			s[j-1] = s[j-1]%0x7f + 1 // another byte, not a NUL
		}
	}
	s[n] = 0
	return addr, s
}

// sameStringRuns are the co-executions whose later string parameters
// repeat the first one (placeString).
var sameStringRuns = [2]int{2, 5}

// paddedTextRun, a text run (k%3 == 1), and markedRun, one of random
// bytes, are the runs whose strings start with the bytes the code
// compares with, the first also with blanks after them and at the end
// (placeString). Text run 1 keeps its text from the start: a loop over
// digits goes round on it (atoi_dec).
const (
	paddedTextRun = 7
	markedRun     = 3
)

// boundConstants are the constants the target's branch conditions use
// that could be loop bounds (16 to 2^24), in increasing order.
func (p *Pair) boundConstants() []uint64 {
	b, g := p.B, p.Dst.TFG
	seen := map[uint64]bool{}
	var roots []ir.Term
	for _, e := range g.Edges {
		roots = append(roots, e.Cond)
	}
	for _, t := range b.PostOrder(roots...) {
		if b.Op(t) != ir.OpConst || !b.Sort(t).IsBV() || b.Sort(t).Width > 64 {
			continue
		}
		if v := b.ConstValue(t).Uint64(); v >= 16 && v <= 1<<24 {
			seen[v] = true
		}
	}
	out := make([]uint64, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// maxByteMarks bounds the bytes byteMarks gives.
const maxByteMarks = 4

// byteMarks are the nonzero 8-bit constants both sides' branch
// conditions compare with (a string loop's '>', ' ' or ','), lowest
// first, at most maxByteMarks.
func (p *Pair) byteMarks() []byte {
	b := p.B
	var roots []ir.Term
	for _, g := range []*ir.TFG{p.Src.TFG, p.Dst.TFG} {
		for _, e := range g.Edges {
			roots = append(roots, e.Cond)
		}
	}
	seen := map[byte]bool{}
	for _, t := range b.PostOrder(roots...) {
		if b.Op(t) == ir.OpConst && b.Sort(t) == ir.BVSort(8) {
			if v := byte(b.ConstValue(t).Uint64()); v != 0 {
				seen[v] = true
			}
		}
	}
	var out []byte
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out[:min(len(out), maxByteMarks)]
}

// ArgBits reports, per integer argument register, the bits of the
// parameter the source's DWARF signature passes in it when that is
// narrower than the register (32 for an int, 8 for a char: the bits above
// are undefined), else 0; and how many registers carry parameters (all of
// them when there is no signature, or one too complicated to follow).
func (p *Pair) ArgBits() ([]uint32, int) {
	regs, n := p.registerParams()
	out := make([]uint32, len(regs))
	for i, r := range regs {
		if r.Narrow {
			out[i] = uint32(8 * r.Size)
		}
	}
	return out, n
}

// FloatArgBytes is what the source's DWARF signature passes in each xmm
// argument register (inputs.FloatParams): 4 for a float, 8 for a double,
// 0 for none.
func (p *Pair) FloatArgBytes() []int {
	if f := p.Src.Fn.Func; f != nil {
		return inputs.FloatParams(f.Debug)
	}
	return nil
}

// registerParams is what the source's DWARF signature passes in each
// integer argument register (inputs.RegisterParams).
func (p *Pair) registerParams() ([]inputs.RegisterParam, int) {
	var sig *x86.FuncDebug
	if f := p.Src.Fn.Func; f != nil {
		sig = f.Debug
	}
	return inputs.RegisterParams(sig)
}

// runLimits bound a run: its steps (edges) and the anchor visits it
// keeps; a probe keeps no states (it only finds where the run goes) and
// stops, cut, when its ctx is done (a long probe of a loop sent around
// for ever took seconds past the check's deadline). Runs whose states are
// kept never look at a context: the proof records them, and the checker
// must find the same run.
type runLimits struct {
	steps, visits int
	probe         bool
	ctx           context.Context
}

// probeCtxEvery is how many steps a probe goes between looks at its ctx.
const probeCtxEvery = 4096

// execute runs g from the entry on st within lim, recording every arrival
// at an anchor and every stack store, and with paths the edges taken
// between arrivals (the target's, which via sets are made of).
func execute(g *ir.TFG, anchors map[ir.NodeID]bool, st []ir.Value, env ir.Env, rsp0 uint64, lim runLimits, paths bool) *Run {
	r := &Run{stackStores: map[[2]int64]bool{}}
	defer r.count()
	n := g.Entry
	r.Visits = append(r.Visits, Visit{Node: n, State: st})
	retreats := 0
	var path []int
	b := g.B
	// States no visit keeps are written over: spare is the buffer of the
	// last such state, which the next step may fill.
	var spare []ir.Value
	kept := true // st is a visit's state
	for steps := 0; steps < lim.steps; steps++ {
		if lim.ctx != nil && steps%probeCtxEvery == 0 && lim.ctx.Err() != nil {
			return r
		}
		if len(g.Out(n)) == 0 {
			r.Ended = true
			return r
		}
		s, err := g.EvalStepInto(n, st, env, spare)
		if err != nil {
			return r
		}
		if s.Fault {
			// A step that faults (a sanitizer build's trap on an
			// overflow, a division by zero) stops the run, which did
			// not end: like one cut by the step cap, it tells the
			// correlators nothing about where the other side goes on
			// to. Counted as ended, every random-element run of a
			// witness that traps on a sum "ended" where the source
			// went on, and no alignment of the source against its
			// sanitizer build fit (clang's stencil3).
			return r
		}
		recordStackStores(b, g, s.Edge, st, env, rsp0, r.stackStores)
		if g.Retreating(s.Edge) {
			retreats++
		}
		if paths {
			path = append(path, s.Edge.ID)
		}
		spare = nil
		if !kept {
			spare = st
		}
		st, n, kept = s.Next, s.Edge.To, false
		if anchors[n] {
			v := Visit{Node: n, State: st, Retreats: retreats, Path: path}
			kept = true
			if lim.probe {
				v.State, v.Path = nil, nil
				kept = false
			}
			r.Visits = append(r.Visits, v)
			path = nil
			if len(r.Visits) >= lim.visits {
				return r
			}
		}
	}
	return r
}

// recordStackStores evaluates the address of every store in e's memory
// transfer (both arms of an ite) on the from-state and records those that
// fall in the stack region, as offsets from the entry rsp.
func recordStackStores(b *ir.Builder, g *ir.TFG, e *ir.Edge, st []ir.Value, env ir.Env, rsp0 uint64, out map[[2]int64]bool) {
	m := e.Transfer[x86.StateMem]
	if m == g.State[x86.StateMem].Var {
		return
	}
	ev := ir.NewEvaluator(b, g.StateEnv(st, env))
	defer ev.Release()
	seen := map[ir.Term]bool{}
	var walk func(ir.Term)
	walk = func(m ir.Term) {
		for !seen[m] {
			seen[m] = true
			switch b.Op(m) {
			case ir.OpStore:
				n, _ := b.Params(m)
				if a, err := ev.Eval(b.Arg(m, 1)); err == nil {
					off := int64(a.BV().Uint64() - rsp0)
					if off >= -StackLimit && off < 8 {
						out[[2]int64{off, int64(n)}] = true
					}
				}
				m = b.Arg(m, 0)
			case ir.OpIte:
				walk(b.Arg(m, 2))
				m = b.Arg(m, 1)
			default:
				return
			}
		}
	}
	walk(m)
}

// coExecute runs both sides from co-execution k's entry state.
func (p *Pair) coExecute(k int, lim runLimits, x *prove.ExtraRun) *CoRun {
	cr := p.newCoRun(k, x)
	srcAnchors, dstAnchors := AnchorSet(p.Src.TFG), AnchorSet(p.Dst.TFG)
	cr.Src = execute(p.Src.TFG, srcAnchors, cr.Entry, cr.env, cr.RSP0, lim, false)
	cr.Dst = execute(p.Dst.TFG, dstAnchors, cr.Entry, cr.env, cr.RSP0, lim, true)
	return cr
}

func AnchorSet(g *ir.TFG) map[ir.NodeID]bool {
	m := map[ir.NodeID]bool{}
	for _, a := range g.Anchors() {
		m[a] = true
	}
	return m
}

// HeapEqual reports whether two memories agree on every address outside
// the stack region of the entry rsp rsp0.
func HeapEqual(m1, m2 *ir.Mem, rsp0 uint64) bool {
	return m1.EqualOutside(m2, rsp0-StackLimit, rsp0+8)
}

// SlotsOf merges the stack stores of runs into disjoint slots: byte ranges
// [off, off+size) relative to the entry rsp, sorted. Overlapping stores of
// different shapes become one slot covering both.
func SlotsOf(runs []*Run) []Slot {
	var all [][2]int64
	for _, r := range runs {
		for s := range r.stackStores {
			all = append(all, s)
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i][0] != all[j][0] {
			return all[i][0] < all[j][0]
		}
		return all[i][1] > all[j][1]
	})
	var out []Slot
	for _, s := range all {
		lo, hi := s[0], s[0]+s[1]
		if n := len(out); n > 0 && lo < out[n-1].Off+out[n-1].Size {
			last := &out[n-1]
			last.Size = max(last.Off+last.Size, hi) - last.Off
			continue
		}
		out = append(out, Slot{Off: lo, Size: hi - lo})
	}
	return out
}

// Slot is a stack range one side keeps values in across anchors.
type Slot struct{ Off, Size int64 }

func (s Slot) String() string {
	if s.Off < 0 {
		return fmt.Sprintf("stack-%#x/%d", -s.Off, s.Size)
	}
	return fmt.Sprintf("stack+%#x/%d", s.Off, s.Size)
}

// ReadSlot reads a slot's little-endian value from a concrete memory.
func ReadSlot(m *ir.Mem, rsp0 uint64, s Slot) uint64 {
	var v uint64
	for i, x := range m.Read(rsp0+uint64(s.Off), int(min(s.Size, 8))) {
		v |= uint64(x) << (8 * i)
	}
	return v
}

// Describe is a short text of a run, for debugging.
func (r *Run) Describe(g *ir.TFG) string {
	var sb strings.Builder
	for i, v := range r.Visits {
		if i > 12 {
			fmt.Fprintf(&sb, "… (%d visits)", len(r.Visits))
			break
		}
		fmt.Fprintf(&sb, "%#x/%d ", g.Nodes[v.Node].PC, v.Retreats)
	}
	return sb.String()
}

// NewRun is a run with the given visits, counted: for runs made by hand.
func NewRun(visits []Visit, ended bool) *Run {
	r := &Run{Visits: visits, Ended: ended}
	r.count()
	return r
}

// count fills r.counts once the run has ended: racing engines share the
// runs, so nothing in them may change afterwards.
func (r *Run) count() {
	r.counts = map[ir.NodeID]int{}
	for _, v := range r.Visits {
		r.counts[v.Node]++
	}
}

// Arrivals is how many of the run's visits are at node n.
func (r *Run) Arrivals(n ir.NodeID) int { return r.counts[n] }

// HeldOutCoRuns are n co-executions after those CoExecuteAll runs (short
// ones): an engine may test its alignments on them, and nothing is learned
// from them (nil when ctx ends first).
func (p *Pair) HeldOutCoRuns(ctx context.Context, n int) []*CoRun {
	runs := make([]*CoRun, n)
	for k := range runs {
		runs[k] = p.coExecute(coRuns+k, runLimits{steps: shortRunSteps, visits: maxRunVisits}, nil)
		if ctx.Err() != nil {
			return nil
		}
	}
	return runs
}

// CoExecuteAll runs the co-executions the loop engine learns from; nil
// when ctx ends first. They are deterministic (seeded), which is what lets
// the proof checker rebuild the same product from a recorded alignment.
//
// Runs go far (longRunSteps) until one of them has gone around a loop:
// that long run is what shows a loop's exit after many passes (a
// vectorized loop's exit into its remainder). The first seed alone is not
// enough: where an argument guards the loop (s162's k > 0), the first
// run may skip it, and no run then reached the vector loop's exit.
func (p *Pair) CoExecuteAll(ctx context.Context) []*CoRun {
	runs := make([]*CoRun, coRuns)
	looped := false
	for k := range runs {
		steps := shortRunSteps
		if !looped {
			steps = longRunSteps
		}
		runs[k] = p.coExecute(k, runLimits{steps: steps, visits: maxRunVisits}, nil)
		if ctx.Err() != nil {
			return nil
		}
		looped = looped || runs[k].Src.looped() || runs[k].Dst.looped()
	}
	return runs
}

// looped says whether the run took a retreating edge.
func (r *Run) looped() bool {
	n := len(r.Visits)
	return n > 0 && r.Visits[n-1].Retreats > 0
}
