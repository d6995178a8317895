package tracer

import (
	"fmt"
	"math/big"
	"sort"
	"time"

	"eqc/ub"
	"eqc/x86"

	"golang.org/x/arch/x86/x86asm"
)

// The undefined-behaviour monitor (ubmonitor.go)
//
// A not-equivalent verdict under a UB model needs an input on which the
// source has no undefined behaviour the model excludes (seed 003 §3: the
// target may do anything after such UB). The source is -O0 code, so every
// C operation is an instruction of its own, executed in C's order; the
// monitor single-steps the source's real run on the input and asks, of each
// instruction of the object's code (the driver's stubs are not C), whether
// it may be one of the model's undefined operations on the values it got:
//
//   - sio: a 32- or 64-bit add, sub, imul, neg, inc or dec whose result
//     overflows as a signed number (the CPU's OF), an lea whose sum
//     overflows the signed range of its width (gcc -O0 adds with lea), a
//     left shift that loses bits of a signed value (gcc -O0 multiplies by a
//     power of two with sal).
//   - shift: a shift by a count (the whole ecx, not just cl) at least the
//     operand's width.
//   - align: a 2-, 4- or 8-byte memory operand at an address that is not a
//     multiple of its size.
//   - obva: an access into the called function's frame [rsp−StackLimit,
//     rsp+8) whose address is computed (an index register, or a base other
//     than rsp and rbp) and does not stay inside the local variable the
//     computation starts from (by the function's DWARF; none known, or
//     another function's frame: any computed frame access counts); and a
//     computed access that leaves the data object (a global or a static
//     of the function's file, a const table too, by the executable's
//     symbols) its pointer was derived from (ubprovenance.go:
//     the pointer's object is followed through moves, spills, adds and
//     subs, so q = H; q[4] is caught even where H[4] is the next object).
//   - obva: a pointer subtraction whose byte distance is no multiple of
//     the element size (ubptrdiff.go).
//   - div, null: a division by zero or INT_MIN/−1 and an access to page 0
//     fault in the source's run, which Confirm never counts as a
//     difference.
//
// The monitor over-approximates: it cannot tell an unsigned C operation from
// a signed one, so wrapping unsigned arithmetic counts as possible signed
// overflow, and a pointer into a local array kept in a register counts as
// possible OBVA unless DWARF places it. An input it flags is only dropped,
// never reported; the cost is an unknown where a typed analysis would have
// found a difference. What it cannot see: a shift count narrowed to ecx
// from a 64-bit variable before the shift (-O0 code moves a long count into
// ecx), accesses out of bounds of a heap buffer (generated inputs place
// each buffer at its own address, but the model's bounds are not checked),
// and TBSA and restrict, which have no run-time check (align checks the
// arguments of a counterexample against them: align/tbsa.go).

// UBEvent is one executed source instruction that may have undefined
// behaviour under the models in Models.
type UBEvent struct {
	Models ub.Set
	Func   string // the object's function holding the instruction
	Offset uint64 // of the instruction from the function's start
	Intel  string
	What   string
}

func (e *UBEvent) String() string {
	return fmt.Sprintf("%s at %s+%#x (%s): %s", e.Models, e.Func, e.Offset, e.Intel, e.What)
}

// ubMonitor watches one single-stepped run of fn (RunOptions.Step) and
// stops it at the first event under models.
type ubMonitor struct {
	exe    *Executable
	proc   *Process
	insts  map[uint64]decoded // by address: each instruction decoded once
	shlMem []byte             // the memory operand of the shl about to run
	models ub.Set
	scope  []funcRange
	fn     string
	debug  *x86.FuncDebug // fn's DWARF; nil when none
	rsp0   uint64         // rsp at fn's entry: the first state the run steps
	start  bool
	event  *UBEvent
	// objects are the executable's data objects, sorted: a computed access
	// must stay inside the object its address computation starts from.
	objects []funcRange
	prov    provenance
	ptrDiff ptrDiffMarks // registers holding a pointer difference (ubptrdiff.go)
}

func newUBMonitor(proc *Process, exe *Executable, fn string, debug *x86.FuncDebug, models ub.Set) *ubMonitor {
	m := &ubMonitor{exe: exe, proc: proc, insts: map[uint64]decoded{}, models: models, scope: objectScope(exe), fn: fn, debug: debug}
	seen := map[uint64]bool{}
	for name, s := range exe.data {
		if s.Size > 0 {
			m.objects = append(m.objects, funcRange{name, s.Value, s.Value + s.Size})
			seen[s.Value] = true
		}
	}
	for _, s := range exe.localObjects {
		if !seen[s.Value] {
			m.objects = append(m.objects, funcRange{s.Name, s.Value, s.Value + s.Size})
			seen[s.Value] = true
		}
	}
	sortRanges(m.objects)
	m.prov = provenance{slots: map[uint64]*funcRange{}, obj: func(a uint64) *funcRange {
		if o, ok := scopeAt(m.objects, a); ok {
			return &o
		}
		return nil
	}}
	return m
}

// decoded is an instruction of the object's code, decoded.
type decoded struct {
	inst x86asm.Inst
	fr   funcRange
	ok   bool // in the object's code and decodable
}

func (m *ubMonitor) decode(pc uint64) decoded {
	if d, ok := m.insts[pc]; ok {
		return d
	}
	var d decoded
	if fr, ok := scopeAt(m.scope, pc); ok {
		inst, err := x86asm.Decode(m.exe.code(pc, 15), 64)
		d = decoded{inst, fr, err == nil}
	}
	m.insts[pc] = d
	return d
}

// runOptions are the options of the monitored run: light single steps,
// with the one memory operand the checks read fetched before its step.
func (m *ubMonitor) runOptions(timeout time.Duration) *RunOptions {
	return &RunOptions{Step: m.step, BeforeStep: m.before, Light: true, MaxSteps: maxMonitoredSteps, Timeout: timeout}
}

// before reads the memory operand of a shl about to run: the value it
// shifts.
func (m *ubMonitor) before(pre *State) {
	m.shlMem = nil
	d := m.decode(pre.Rip)
	if !d.ok || d.inst.Op != x86asm.SHL {
		return
	}
	if mem, ok := d.inst.Args[0].(x86asm.Mem); ok {
		addr := memAddr(d.inst, mem, pre)
		if n := d.inst.MemBytes; n > 0 && n <= 8 {
			m.shlMem, _ = m.proc.ReadMem(addr, n)
		}
	}
}

const flagOF = 1 << 11

// step checks the instruction pre ran; it returns false (stop the run) at
// the first event under the monitor's models.
func (m *ubMonitor) step(pre, post *State) bool {
	if !m.start {
		m.start, m.rsp0 = true, pre.Regs[RSP]
	}
	d := m.decode(pre.Rip)
	if !d.ok {
		return true
	}
	inst, fr := d.inst, d.fr
	models, what := m.check(inst, fr, pre, post)
	if models&m.models == 0 {
		m.prov.update(inst, pre, pre.Rip+uint64(inst.Len))
		m.updatePtrDiff(inst, pre, post)
		return true
	}
	m.event = &UBEvent{Models: models, Func: fr.name, Offset: pre.Rip - fr.start, Intel: x86asm.IntelSyntax(inst, pre.Rip, nil), What: what}
	return false
}

// check returns the models under which inst, run from pre to post, may be
// undefined, and why.
func (m *ubMonitor) check(inst x86asm.Inst, fr funcRange, pre, post *State) (ub.Set, string) {
	next := pre.Rip + uint64(inst.Len)
	if models, what, exact := m.checkPtrDiff(inst, pre, post, next); models != 0 || exact {
		return models, what
	}
	w := uint(inst.DataSize)
	switch inst.Op {
	case x86asm.ADD, x86asm.SUB, x86asm.IMUL, x86asm.NEG, x86asm.INC, x86asm.DEC:
		if w >= 32 && post.Rflags&flagOF != 0 {
			return set(ub.SIO), fmt.Sprintf("%d-bit signed overflow", w)
		}
	case x86asm.LEA:
		mem, _ := inst.Args[1].(x86asm.Mem)
		if w < 32 || isFrameReg(mem.Base) || mem.Base == x86asm.RIP {
			break // an address of a local or a global, not arithmetic
		}
		sum := new(big.Int).SetInt64(int64(mem.Disp))
		if mem.Base != 0 {
			sum.Add(sum, signedAt(regValue(mem.Base, pre, next), w))
		}
		if mem.Index != 0 {
			sum.Add(sum, new(big.Int).Mul(signedAt(regValue(mem.Index, pre, next), w), big.NewInt(int64(mem.Scale))))
		}
		if !fitsSigned(sum, w) {
			return set(ub.SIO), fmt.Sprintf("%d-bit signed overflow", w)
		}
	case x86asm.SHL, x86asm.SHR, x86asm.SAR:
		if w < 32 {
			break
		}
		var count uint64
		switch c := inst.Args[1].(type) {
		case x86asm.Reg:
			count = uint64(uint32(pre.Regs[RCX])) // the whole int count, before the CPU masks it
		case x86asm.Imm:
			count = uint64(c)
		default:
			count = 1
		}
		if count >= uint64(w) {
			return set(ub.Shift), fmt.Sprintf("shift count %d of a %d-bit value", count, w)
		}
		if inst.Op == x86asm.SHL {
			v, ok := m.operandValue(inst.Args[0], pre, next)
			if ok && count > 0 && !fitsSigned(new(big.Int).Lsh(signedAt(v, w), uint(count)), w) {
				return set(ub.SIO) | set(ub.Shift), fmt.Sprintf("left shift by %d overflows %d bits", count, w)
			}
		}
	}
	return m.checkMemory(inst, fr, pre, next)
}

// checkMemory checks inst's explicit memory operand for the align and obva
// models.
func (m *ubMonitor) checkMemory(inst x86asm.Inst, fr funcRange, pre *State, next uint64) (ub.Set, string) {
	switch inst.Op {
	case x86asm.LEA, x86asm.NOP, x86asm.PREFETCHNTA, x86asm.PREFETCHT0, x86asm.PREFETCHT1, x86asm.PREFETCHT2, x86asm.PREFETCHW:
		return 0, ""
	}
	if isStringOp(inst.Op) {
		return 0, ""
	}
	for _, a := range inst.Args {
		mem, ok := a.(x86asm.Mem)
		if !ok {
			continue
		}
		addr := memAddr(inst, mem, pre)
		n := uint64(inst.MemBytes)
		computed := mem.Index != 0 || (mem.Base != 0 && !isFrameReg(mem.Base) && mem.Base != x86asm.RIP)
		// Only a computed address can be a misaligned C pointer: a frame
		// slot or a global named by its displacement is the compiler's
		// own layout (gcc -O0 copies a 12-byte struct of floats with an
		// 8-byte move at its 4-aligned slot, and packed members are
		// misaligned by definition).
		if computed && (n == 2 || n == 4 || n == 8) && addr%n != 0 {
			return set(ub.Align), fmt.Sprintf("%d-byte access at %#x", n, addr)
		}
		if addr < m.rsp0-ub.StackLimit || addr >= m.rsp0+8 {
			if computed {
				// A global object: the access must lie inside the object
				// its computation starts from (the displacement of an
				// indexed absolute address, or the base register).
				obj := m.prov.obj(uint64(mem.Disp))
				if mem.Base != 0 {
					obj = m.prov.of(mem.Base, regValue(mem.Base, pre, next))
				}
				if obj != nil && (addr < obj.start || addr+n > obj.end) {
					return set(ub.OBVA), fmt.Sprintf("computed access at %#x outside the object %s it starts from", addr, obj.name)
				}
			}
			continue
		}
		if isFrameReg(mem.Base) && mem.Index == 0 {
			continue
		}
		anchor := regValue(mem.Base, pre, next)
		if isFrameReg(mem.Base) {
			anchor += uint64(mem.Disp)
		}
		if mem.Base == 0 || !m.withinLocal(fr, pre, anchor, addr, n) && !m.outgoingArea(fr, pre, anchor, addr, n) {
			return set(ub.OBVA), fmt.Sprintf("computed access at frame offset %d outside the local variable it starts from", int64(addr-m.rsp0))
		}
	}
	return 0, ""
}

// withinLocal reports whether [addr, addr+n) lies inside the local
// variable of the monitored function that holds anchor.
func (m *ubMonitor) withinLocal(fr funcRange, pre *State, anchor, addr, n uint64) bool {
	for _, r := range m.frameVars(fr, pre) {
		if anchor >= r[0] && anchor < r[1] {
			return addr >= r[0] && addr+n <= r[1]
		}
	}
	return false
}

// outgoingArea reports whether [addr, addr+n) lies in the monitored
// function's outgoing argument area, reached through a copy of the stack
// pointer: anchor is rsp itself, the bytes lie above it and in no local
// variable or parameter DWARF places in the frame. gcc -O0 copies a struct
// passed by value into its stack slots that way (mov rcx, rsp; mov [rcx],
// rax): the compiler's own access, no C pointer's.
func (m *ubMonitor) outgoingArea(fr funcRange, pre *State, anchor, addr, n uint64) bool {
	if anchor != pre.Regs[RSP] || addr < anchor || addr+n > m.rsp0 {
		return false
	}
	vars := m.frameVars(fr, pre)
	if vars == nil {
		return false
	}
	for _, r := range vars {
		if addr < r[1] && r[0] < addr+n {
			return false
		}
	}
	return true
}

// frameVars are the [lo, hi) addresses of the monitored function's local
// variables and parameters that DWARF places in its frame, at pre; nil
// when fr is another function or the frame base is not known.
func (m *ubMonitor) frameVars(fr funcRange, pre *State) [][2]uint64 {
	if fr.name != m.fn || m.debug == nil {
		return nil
	}
	var base uint64
	switch fb := m.debug.FrameBase; {
	case fb.CFA:
		base = m.rsp0 + 8
	case fb.Reg == x86asm.RBP:
		base = pre.Regs[RBP] + uint64(fb.Offset)
	default:
		return nil
	}
	out := [][2]uint64{}
	for _, vs := range [][]x86.Variable{m.debug.Locals, m.debug.Params} {
		for _, v := range vs {
			if v.InFrame && v.Type.Size > 0 {
				lo := base + uint64(v.FrameOffset)
				out = append(out, [2]uint64{lo, lo + uint64(v.Type.Size)})
			}
		}
	}
	return out
}

func set(m ub.Model) ub.Set { return 1 << m }

func isFrameReg(r x86asm.Reg) bool {
	return r == x86asm.RSP || r == x86asm.RBP || r == x86asm.ESP || r == x86asm.EBP
}

// signedAt is the low w bits of v as a signed number.
func signedAt(v uint64, w uint) *big.Int {
	if w < 64 {
		v <<= 64 - w
		return big.NewInt(int64(v) >> (64 - w))
	}
	return big.NewInt(int64(v))
}

// fitsSigned reports whether x lies in the signed range of w bits.
func fitsSigned(x *big.Int, w uint) bool {
	lim := new(big.Int).Lsh(big.NewInt(1), w-1)
	return x.Cmp(lim) < 0 && x.Cmp(new(big.Int).Neg(lim)) >= 0
}

// operandValue is the value of a register operand, or of the memory
// operand before read.
func (m *ubMonitor) operandValue(a x86asm.Arg, pre *State, next uint64) (uint64, bool) {
	switch a := a.(type) {
	case x86asm.Reg:
		if a >= x86asm.AL && a <= x86asm.R15B || a >= x86asm.AX && a <= x86asm.R15W {
			return 0, false
		}
		return regValue(a, pre, next), true
	case x86asm.Mem:
		if len(m.shlMem) == 0 {
			return 0, false
		}
		var v uint64
		for i, b := range m.shlMem {
			v |= uint64(b) << (8 * i)
		}
		return v, true
	}
	return 0, false
}

// funcRange is one function of the object in the executable.
type funcRange struct {
	name       string
	start, end uint64
}

// objectScope lists the object's functions in exe, sorted by address.
func objectScope(exe *Executable) []funcRange {
	var out []funcRange
	for _, f := range exe.Object.Funcs {
		if a, n, err := exe.FuncRange(f); err == nil && n > 0 {
			out = append(out, funcRange{f, a, a + n})
		}
	}
	sortRanges(out)
	return out
}

func sortRanges(rs []funcRange) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].start < rs[j].start })
}

// scopeAt finds the function of scope holding pc.
func scopeAt(scope []funcRange, pc uint64) (funcRange, bool) {
	lo := sort.Search(len(scope), func(i int) bool { return scope[i].end > pc })
	if lo < len(scope) && scope[lo].start <= pc {
		return scope[lo], true
	}
	return funcRange{}, false
}
