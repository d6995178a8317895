package tracer

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	"eqc/ir"
	"eqc/x86"

	"golang.org/x/arch/x86/x86asm"
)

// CrossCheckOptions controls CrossCheck. The zero value is usable.
type CrossCheckOptions struct {
	MaxSteps      int           // instructions per run (default 200,000)
	MaxMismatches int           // distinct mismatching instructions reported in detail (default 20)
	Timeout       time.Duration // wall-clock limit of one single-stepped run (default 60 s)
	// AllCode also checks instructions outside the object's own functions
	// (the driver's stubs, static libc routines). By default only the
	// object's code is checked: the lifter's business is compiled C.
	AllCode bool
}

// CrossCheckReport is what CrossCheck found.
type CrossCheckReport struct {
	Function string
	Runs     int
	Outcomes map[string]int // how the runs ended
	Executed int            // instructions single-stepped in scope
	Checked  int            // of which lifted and compared with the CPU
	// Unsupported counts executed instructions the semantics do not lift,
	// by their Effect.Unsupported name.
	Unsupported map[string]int
	// Skipped counts instructions the check cannot judge under single
	// stepping, by reason (a rep string instruction traps after every
	// iteration, so only counts 0 and 1 are compared).
	Skipped map[string]int
	// Uninterpreted counts state parts (registers, flags, memory) not
	// compared because their terms apply uninterpreted functions (SSE
	// floating point).
	Uninterpreted int
	Mismatches    int        // checked instructions whose semantics disagreed with the CPU
	First         []Mismatch // the first mismatch of each distinct instruction, in order found
	Wall          time.Duration
}

// Mismatch is one instruction whose lifted semantics, evaluated on the
// recorded pre-state, disagree with the state the CPU produced.
type Mismatch struct {
	Function string // the object's function containing the instruction ("" outside)
	Addr     uint64 // in the executable
	Bytes    []byte
	Intel    string
	Pre      State // registers, and the memory blocks read or written before the instruction
	Post     State // the CPU's state after it
	Diffs    []string
	Count    int // how many executions of this instruction mismatched
}

func (m *Mismatch) String() string {
	return fmt.Sprintf("%#x %s: %x %s: %s", m.Addr, m.Function, m.Bytes, m.Intel, strings.Join(m.Diffs, "; "))
}

// CrossCheck single-steps t on every vector and, for each executed
// instruction of the object, lifts it with x86.Step on a fresh symbolic
// state, evaluates the resulting registers, rip, status flags, xmm
// registers and memory on the recorded pre-state (memory from the blocks the
// instruction's terms read or write, read from the tracee before it runs)
// and compares them with the CPU's post-state: every GPR, rip, the flags the
// semantics define (bits that differ between two evaluations of the
// undefined values are not compared), xmm0-15, and every byte written, by
// the semantics or by the CPU. Architecturally undefined values are never
// mismatches; parts built from uninterpreted functions are counted, not
// compared.
func CrossCheck(ctx context.Context, t *Target, vectors []Vector, o CrossCheckOptions) (*CrossCheckReport, error) {
	if o.MaxSteps <= 0 {
		o.MaxSteps = 200000
	}
	if o.MaxMismatches <= 0 {
		o.MaxMismatches = 20
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Minute
	}
	if err := t.init(); err != nil {
		return nil, err
	}
	p, done, err := t.process()
	if err != nil {
		return nil, err
	}
	defer done()
	rep := &CrossCheckReport{Function: t.Name, Outcomes: map[string]int{}, Unsupported: map[string]int{}, Skipped: map[string]int{}}
	c := newChecker(t.Exe, p, rep, o)
	start := time.Now()
	ro := &RunOptions{Step: c.step, BeforeStep: c.before, MaxSteps: o.MaxSteps, Timeout: o.Timeout}
	for i := range vectors {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		res, err := p.Run(t.addr, vectors[i], ro)
		if err != nil {
			return rep, err
		}
		rep.Runs++
		rep.Outcomes[res.Outcome.String()]++
	}
	rep.Wall = time.Since(start)
	return rep, nil
}

type checker struct {
	exe    *Executable
	p      *Process
	rep    *CrossCheckReport
	o      CrossCheckOptions
	scope  []funcRange // sorted by start
	cache  map[uint64]*lifted
	cur    *lifted // the instruction about to run, nil when not checked
	byAddr map[uint64]int
}

func newChecker(exe *Executable, p *Process, rep *CrossCheckReport, o CrossCheckOptions) *checker {
	return &checker{exe: exe, p: p, rep: rep, o: o, scope: objectScope(exe), cache: map[uint64]*lifted{}, byAddr: map[uint64]int{}}
}

// funcAt names the object's function containing pc ("" if none).
func (c *checker) funcAt(pc uint64) string {
	fr, _ := scopeAt(c.scope, pc)
	return fr.name
}

// lifted is one instruction lifted on a fresh state, in a Builder of its
// own (so that evaluators stay small).
type lifted struct {
	pc          uint64
	code        []byte
	inst        x86asm.Inst
	decoded     bool
	intel       string
	b           *ir.Builder
	s           *x86.State
	eff         x86.Effect
	flags       [x86.NumFlags]ir.Term
	access      []ir.Term // Select and Store nodes of every result
	unsupported string
	rep         bool // a rep-prefixed string instruction (lifted per count)

	slots    map[ir.Term]int // initial-state variables → stateVarSlot
	undef    bool            // some result uses a fresh variable (an undefined value)
	sameGPR  [16]bool        // the result is the initial value: compared without evaluation
	sameXMM  [16]bool
	sameFlag [x86.NumFlags]bool
}

func hasRep(inst x86asm.Inst) bool {
	for _, p := range inst.Prefix {
		if p == 0 {
			break
		}
		if p&0xFF == x86asm.PrefixREP || p&0xFF == x86asm.PrefixREPN {
			return true
		}
	}
	return false
}

func isStringOp(op x86asm.Op) bool {
	switch op {
	case x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ, x86asm.STOSB, x86asm.STOSW, x86asm.STOSD, x86asm.STOSQ,
		x86asm.LODSB, x86asm.LODSW, x86asm.LODSD, x86asm.LODSQ, x86asm.SCASB, x86asm.SCASW, x86asm.SCASD, x86asm.SCASQ,
		x86asm.CMPSB, x86asm.CMPSW, x86asm.CMPSD, x86asm.CMPSQ:
		return true
	}
	return false
}

// lift lifts the instruction at pc; rcx is the pre-state's rcx, used as the
// count of rep string instructions (which are not cached).
func (c *checker) lift(pc uint64, rcx uint64) *lifted {
	if l, ok := c.cache[pc]; ok && !l.rep {
		return l
	}
	code := c.exe.code(pc, 15)
	if len(code) == 0 {
		code, _ = c.p.ReadMem(pc, 15)
	}
	l := &lifted{pc: pc, b: ir.NewBuilder()}
	inst, err := x86asm.Decode(code, 64)
	if err == nil {
		l.inst, l.decoded = inst, true
		l.code = append([]byte(nil), code[:inst.Len]...)
		l.intel = x86asm.IntelSyntax(inst, pc, nil)
		l.rep = hasRep(inst) && isStringOp(inst.Op)
	} else if len(code) > 0 {
		l.code = append([]byte(nil), code[:min(len(code), 4)]...)
		l.intel = "(bad)"
	}
	l.s = x86.NewState(l.b)
	if l.rep {
		l.s.GPR[x86.RCX] = l.b.Const(64, rcx)
	}
	eff, n, err := x86.StepBytes(l.b, l.s, code, pc)
	l.eff = eff
	if n > 0 && n <= len(code) {
		l.code = append([]byte(nil), code[:n]...)
	}
	if err != nil {
		var ue *x86.UnsupportedError
		if errors.As(err, &ue) {
			l.unsupported = ue.Mnemonic
		} else {
			l.unsupported = err.Error()
		}
		if l.unsupported == "" {
			l.unsupported = "unknown"
		}
	} else {
		var roots []ir.Term
		roots = append(roots, l.s.RIP, l.s.Mem)
		roots = append(roots, l.s.GPR[:]...)
		roots = append(roots, l.s.XMM[:]...)
		for f := x86.Flag(0); int(f) < x86.NumFlags; f++ {
			l.flags[f] = l.s.Flag(l.b, f)
			roots = append(roots, l.flags[f])
		}
		if eff.Fault != ir.NoTerm {
			roots = append(roots, eff.Fault)
		}
		l.slots = map[ir.Term]int{}
		for name, slot := range stateVarSlot {
			if v, ok := l.b.LookupVar(name); ok {
				l.slots[v] = slot
			}
		}
		for _, t := range l.b.PostOrder(roots...) {
			switch l.b.Op(t) {
			case ir.OpSelect, ir.OpStore:
				l.access = append(l.access, t)
			case ir.OpVar:
				if _, ok := l.slots[t]; !ok {
					l.undef = true
				}
			}
		}
		var n x86.StateNames
		for i := range l.s.GPR {
			v, _ := l.b.LookupVar(n.GPRVar(i))
			l.sameGPR[i] = l.s.GPR[i] == v
			v, _ = l.b.LookupVar(n.XMMVar(i))
			l.sameXMM[i] = l.s.XMM[i] == v
		}
		for f := x86.Flag(0); int(f) < x86.NumFlags; f++ {
			v, _ := l.b.LookupVar(n.FlagVar(f))
			l.sameFlag[f] = l.flags[f] == v
		}
	}
	if !l.rep {
		c.cache[pc] = l
	}
	return l
}

// before lifts the instruction about to run and records, in pre.Mem, the
// memory its terms read or write.
func (c *checker) before(pre *State) {
	c.cur = nil
	if !c.o.AllCode && c.funcAt(pre.Rip) == "" {
		return
	}
	c.rep.Executed++
	l := c.lift(pre.Rip, pre.Regs[RCX])
	if l.unsupported != "" {
		c.rep.Unsupported[l.unsupported]++
		return
	}
	if l.rep && pre.Regs[RCX] > 1 {
		c.rep.Skipped["rep iteration"]++
		return
	}
	c.cur = l
	if len(l.access) == 0 {
		return
	}
	ev := ir.NewEvaluator(l.b, &stateEnv{s: pre, mem: ir.NewMem(0), slots: l.slots})
	for _, t := range l.access {
		a, err := ev.Eval(l.b.Arg(t, 1))
		if err != nil {
			continue
		}
		n, _ := l.b.Params(t)
		if n == 0 || n > 4096 {
			continue
		}
		if data, err := c.p.ReadMem(a.BV().Uint64(), int(n)); err == nil {
			pre.Mem = append(pre.Mem, MemBytes{Addr: a.BV().Uint64(), Bytes: data})
		}
	}
}

// stateEnv is a recorded machine state as an ir.Env for the variables of
// x86.NewState; the fresh variables of undefined values are all zeros
// (mode 0) or all ones (mode 1).
type stateEnv struct {
	s     *State
	mem   *ir.Mem
	mode  int
	slots map[ir.Term]int // stateVarSlot by term, when known
}

var stateVarSlot = func() map[string]int {
	var n x86.StateNames
	m := map[string]int{n.RIPVar(): 32, n.MemVar(): 33}
	for i := 0; i < 16; i++ {
		m[n.GPRVar(i)] = i
		m[n.XMMVar(i)] = 16 + i
	}
	for f := x86.Flag(0); int(f) < x86.NumFlags; f++ {
		m[n.FlagVar(f)] = 34 + int(f)
	}
	return m
}()

func bv128(x [2]uint64) ir.BV {
	v := new(big.Int).SetUint64(x[1])
	v.Lsh(v, 64)
	v.Or(v, new(big.Int).SetUint64(x[0]))
	return ir.NewBVBig(128, v)
}

func split128(x ir.BV) [2]uint64 {
	v := x.Big()
	lo := new(big.Int).And(v, new(big.Int).SetUint64(^uint64(0))).Uint64()
	return [2]uint64{lo, v.Rsh(v, 64).Uint64()}
}

func (e *stateEnv) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	slot, ok := e.slots[t]
	if !ok {
		slot, ok = stateVarSlot[b.VarName(t)]
	}
	if !ok {
		name := b.VarName(t)
		if !strings.HasPrefix(name, x86.UndefPrefix) {
			return ir.Value{}, false
		}
		s := b.Sort(t)
		switch s.Kind {
		case ir.KindBool:
			return ir.BoolValue(e.mode == 1), true
		case ir.KindBV:
			if e.mode == 1 {
				return ir.BVValue(ir.OnesBV(s.Width)), true
			}
			return ir.BVValue(ir.ZeroBV(s.Width)), true
		}
		return ir.Value{}, false
	}
	switch {
	case slot < 16:
		return ir.BVValue(ir.NewBV(64, e.s.Regs[slot])), true
	case slot < 32:
		return ir.BVValue(bv128(e.s.Xmm[slot-16])), true
	case slot == 32:
		return ir.BVValue(ir.NewBV(64, e.s.Rip)), true
	case slot == 33:
		return ir.MemValue(e.mem), true
	}
	f := x86.Flag(slot - 34)
	return ir.BoolValue(e.s.Rflags>>x86.RflagsBit[f]&1 == 1), true
}

// ApplyFunc implements ir.Env: uninterpreted functions have no value here.
func (e *stateEnv) ApplyFunc(*ir.Func, []ir.Value) (ir.Value, bool) { return ir.Value{}, false }

// memOf builds the memory of the recorded blocks (unrecorded bytes are 0).
func memOf(blocks []MemBytes) *ir.Mem {
	m := ir.NewMem(0)
	for _, b := range blocks {
		m = m.With(b.Addr, b.Bytes)
	}
	return m
}

// step compares the lifted instruction with the CPU's post-state.
func (c *checker) step(pre, post *State) bool {
	l := c.cur
	if l == nil {
		return true
	}
	c.cur = nil
	c.rep.Checked++
	mem := memOf(pre.Mem)
	ev0 := ir.NewEvaluator(l.b, &stateEnv{s: pre, mem: mem, mode: 0, slots: l.slots})
	evs := [2]*ir.Evaluator{ev0, ev0}
	if l.undef {
		evs[1] = ir.NewEvaluator(l.b, &stateEnv{s: pre, mem: mem, mode: 1, slots: l.slots})
	}
	var diffs []string
	// eval2 evaluates t in both modes; ok is false when t cannot be
	// evaluated (uninterpreted functions), which is counted.
	eval2 := func(what string, t ir.Term) (v0, v1 ir.Value, ok bool) {
		var err error
		if v0, err = evs[0].Eval(t); err == nil {
			v1, err = evs[1].Eval(t)
		}
		if err != nil {
			var ue *ir.UnboundError
			if errors.As(err, &ue) && ue.Func {
				c.rep.Uninterpreted++
			} else {
				diffs = append(diffs, fmt.Sprintf("%s: cannot evaluate: %v", what, err))
			}
			return v0, v1, false
		}
		return v0, v1, true
	}
	if l.eff.Fault != ir.NoTerm {
		if f0, f1, ok := eval2("fault", l.eff.Fault); ok && f0.Bool() && f1.Bool() {
			diffs = append(diffs, "the semantics fault, the CPU did not")
		}
	}
	if diffs == nil {
		if r0, _, ok := eval2("rip", l.s.RIP); ok && r0.BV().Uint64() != post.Rip {
			diffs = append(diffs, fmt.Sprintf("rip: lifted %#x, cpu %#x", r0.BV().Uint64(), post.Rip))
		}
		for i := range l.s.GPR {
			if l.sameGPR[i] {
				if pre.Regs[i] != post.Regs[i] {
					diffs = append(diffs, fmt.Sprintf("%s: lifted %#x (unchanged), cpu %#x", RegNames[i], pre.Regs[i], post.Regs[i]))
				}
				continue
			}
			v0, v1, ok := eval2(RegNames[i], l.s.GPR[i])
			if !ok {
				continue
			}
			a, b := v0.BV().Uint64(), v1.BV().Uint64()
			defined := ^(a ^ b)
			if want := post.Regs[i]; a&defined != want&defined {
				d := fmt.Sprintf("%s: lifted %#x, cpu %#x", RegNames[i], a, want)
				if defined != ^uint64(0) {
					d += fmt.Sprintf(" (defined bits %#x)", defined)
				}
				diffs = append(diffs, d)
			}
		}
		for f := x86.Flag(0); int(f) < x86.NumFlags; f++ {
			if l.sameFlag[f] {
				if b := x86.RflagsBit[f]; pre.Rflags>>b&1 != post.Rflags>>b&1 {
					diffs = append(diffs, fmt.Sprintf("%v: lifted %v (unchanged), cpu %v", f, pre.Rflags>>b&1 == 1, post.Rflags>>b&1 == 1))
				}
				continue
			}
			v0, v1, ok := eval2(f.String(), l.flags[f])
			if !ok || v0.Bool() != v1.Bool() {
				continue // undefined
			}
			if want := post.Rflags>>x86.RflagsBit[f]&1 == 1; v0.Bool() != want {
				diffs = append(diffs, fmt.Sprintf("%v: lifted %v, cpu %v", f, v0.Bool(), want))
			}
		}
		for i := range l.s.XMM {
			if l.sameXMM[i] {
				if pre.Xmm[i] != post.Xmm[i] {
					a, want := pre.Xmm[i], post.Xmm[i]
					diffs = append(diffs, fmt.Sprintf("xmm%d: lifted %016x%016x (unchanged), cpu %016x%016x", i, a[1], a[0], want[1], want[0]))
				}
				continue
			}
			v0, v1, ok := eval2(fmt.Sprintf("xmm%d", i), l.s.XMM[i])
			if !ok {
				continue
			}
			a, b := split128(v0.BV()), split128(v1.BV())
			want := post.Xmm[i]
			for h := 0; h < 2; h++ {
				defined := ^(a[h] ^ b[h])
				if a[h]&defined != want[h]&defined {
					diffs = append(diffs, fmt.Sprintf("xmm%d: lifted %016x%016x, cpu %016x%016x", i, a[1], a[0], want[1], want[0]))
					break
				}
			}
		}
		diffs = append(diffs, c.compareMem(l, evs, pre, post, eval2)...)
	}
	if len(diffs) > 0 {
		c.rep.Mismatches++
		if i, ok := c.byAddr[pre.Rip]; ok {
			c.rep.First[i].Count++
		} else if len(c.rep.First) < c.o.MaxMismatches {
			c.byAddr[pre.Rip] = len(c.rep.First)
			c.rep.First = append(c.rep.First, Mismatch{Function: c.funcAt(pre.Rip), Addr: pre.Rip,
				Bytes: l.code, Intel: l.intel, Pre: cloneState(pre), Post: cloneState(post), Diffs: diffs, Count: 1})
		}
	}
	return true
}

func cloneState(s *State) State {
	out := *s
	out.Mem = nil
	for _, m := range s.Mem {
		out.Mem = append(out.Mem, MemBytes{Addr: m.Addr, Bytes: append([]byte(nil), m.Bytes...)})
	}
	return out
}

// compareMem compares the bytes the semantics store and the bytes the CPU
// changed among the recorded blocks.
func (c *checker) compareMem(l *lifted, evs [2]*ir.Evaluator, pre, post *State,
	eval2 func(string, ir.Term) (ir.Value, ir.Value, bool)) []string {
	var diffs []string
	after := map[uint64]byte{}
	for _, m := range post.Mem {
		for i, b := range m.Bytes {
			after[m.Addr+uint64(i)] = b
		}
	}
	// Where the semantics write.
	written := map[uint64]bool{}
	for m := l.s.Mem; l.b.Op(m) == ir.OpStore; m = l.b.Arg(m, 0) {
		a, err := evs[0].Eval(l.b.Arg(m, 1))
		if err != nil {
			break
		}
		n, _ := l.b.Params(m)
		for i := uint64(0); i < uint64(n); i++ {
			written[a.BV().Uint64()+i] = true
		}
	}
	var m0, m1 ir.Value
	ok := true
	if len(written) > 0 {
		m0, m1, ok = eval2("memory", l.s.Mem)
	}
	addrs := make([]uint64, 0, len(written))
	for a := range written {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	bad := 0
	if ok {
		for _, a := range addrs {
			want, known := after[a]
			if !known {
				continue // unreadable after: the CPU would have faulted
			}
			g0, g1 := m0.Mem().Load(a), m1.Mem().Load(a)
			if g0 != g1 {
				continue // undefined
			}
			if g0 != want {
				if bad < 8 {
					diffs = append(diffs, fmt.Sprintf("mem[%#x]: lifted %#02x, cpu %#02x", a, g0, want))
				}
				bad++
			}
		}
	}
	// What the CPU changed that the semantics do not write.
	for _, m := range pre.Mem {
		for i, b := range m.Bytes {
			a := m.Addr + uint64(i)
			if w, known := after[a]; known && w != b && !written[a] {
				if bad < 8 {
					diffs = append(diffs, fmt.Sprintf("mem[%#x]: cpu wrote %#02x (was %#02x), the semantics do not write it", a, w, b))
				}
				bad++
				written[a] = true // report once
			}
		}
	}
	if bad > 8 {
		diffs = append(diffs, fmt.Sprintf("... %d bytes differ", bad))
	}
	return diffs
}
