package x86

import (
	"fmt"
	"sort"

	"eqc/ir"

	"golang.org/x/arch/x86/x86asm"
)

// FlowKind says where control goes after an instruction.
type FlowKind uint8

const (
	// FlowNext: on to the next instruction, at Effect.Next.
	FlowNext FlowKind = iota
	// FlowJump: unconditionally to Effect.Target.
	FlowJump
	// FlowBranch: to Effect.Target when Effect.Cond holds, else to Next.
	FlowBranch
	// FlowCall: a call of Effect.Target that returns to Next. The state is
	// the callee's entry state (return address pushed, rip = Target); the
	// TFG builder replaces the call by an uninterpreted function.
	FlowCall
	// FlowRet: return to Effect.Target, the popped return address.
	FlowRet
	// FlowTrap: the instruction always traps (ud2, int3, hlt); Fault is true.
	FlowTrap
	// FlowUnsupported: the semantics cannot express the instruction;
	// Effect.Unsupported names it and the state is unchanged.
	FlowUnsupported
)

var flowNames = [...]string{"next", "jump", "branch", "call", "ret", "trap", "unsupported"}

func (k FlowKind) String() string {
	if int(k) < len(flowNames) {
		return flowNames[k]
	}
	return fmt.Sprintf("flow%d", uint8(k))
}

// Effect is the control-flow outcome of one instruction, beside its update
// of the State.
type Effect struct {
	Kind FlowKind
	// Next is the address of the following instruction (pc + length).
	Next uint64
	// Target is the 64-bit destination of a jump, branch, call or return;
	// a constant for direct transfers. NoTerm for FlowNext.
	Target ir.Term
	// Cond is the boolean under which a FlowBranch is taken.
	Cond ir.Term
	// Fault is the boolean under which the instruction raises an exception
	// instead of completing (#DE of div/idiv, #GP of a misaligned SSE
	// access, traps); NoTerm when it cannot. The updated state is only
	// meaningful where Fault is false: a zero divisor is never silently
	// given SMT-LIB's division-by-zero value.
	Fault ir.Term
	// Unsupported names what could not be lifted, for FlowUnsupported:
	// the mnemonic, "x87:<mnemonic>", or "<mnemonic>:<why>" for operand
	// forms the semantics do not cover.
	Unsupported string
}

// UnsupportedError is the error Step returns with a FlowUnsupported Effect.
type UnsupportedError struct {
	Mnemonic string // as in Effect.Unsupported
	Detail   string // a sentence for people
}

func (e *UnsupportedError) Error() string {
	if e.Detail == "" {
		return "unsupported instruction " + e.Mnemonic
	}
	return "unsupported instruction " + e.Mnemonic + ": " + e.Detail
}

// ctx is one instruction being lifted.
type ctx struct {
	b    *ir.Builder
	s    *State
	in   *x86asm.Inst
	pc   uint64
	next uint64
	eff  Effect
}

// semFunc updates c.s for c.in. It reports forms it cannot express through
// c.unsupported, which unwinds to Step.
type semFunc func(c *ctx)

// semTable maps mnemonics to their semantics; filled at init from the
// per-area tables (sem_int.go, sem_vec.go, sem_fp.go).
var semTable = map[x86asm.Op]semFunc{}

// semByOp is semTable as a slice, for the lookup on the hot path.
var semByOp []semFunc

func registerSems(t map[x86asm.Op]semFunc) {
	for op, f := range t {
		if _, dup := semTable[op]; dup {
			panic("x86: two semantics for " + op.String())
		}
		semTable[op] = f
	}
}

func init() {
	registerSems(intSems)
	registerSems(vecSems)
	registerSems(fpSems)
	maxOp := x86asm.Op(0)
	for op := range semTable {
		maxOp = max(maxOp, op)
	}
	semByOp = make([]semFunc, maxOp+1)
	for op, f := range semTable {
		semByOp[op] = f
	}
}

// Mnemonics returns every mnemonic the semantics implement, sorted by name.
func Mnemonics() []x86asm.Op {
	ops := make([]x86asm.Op, 0, len(semTable))
	for op := range semTable {
		ops = append(ops, op)
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].String() < ops[j].String() })
	return ops
}

// Supported reports whether op has semantics (some operand forms of a
// supported mnemonic may still be unsupported).
func Supported(op x86asm.Op) bool { return int(op) < len(semByOp) && semByOp[op] != nil }

// unsupportedPanic carries an UnsupportedError from deep in a semantic
// function back to Step.
type unsupportedPanic struct{ err *UnsupportedError }

func (c *ctx) unsupported(format string, args ...any) {
	panic(unsupportedPanic{&UnsupportedError{Mnemonic: c.in.Op.String() + ":" + fmt.Sprintf(format, args...)}})
}

// Step lifts one instruction at address pc: it updates s to the state after
// inst and returns where control goes. For an instruction it cannot express
// it leaves s unchanged and returns a FlowUnsupported Effect together with
// an *UnsupportedError; it never panics on any decoded instruction.
func Step(b *ir.Builder, s *State, inst x86asm.Inst, pc uint64) (eff Effect, err error) {
	next := pc + uint64(inst.Len)
	unsup := func(name, detail string) (Effect, error) {
		return Effect{Kind: FlowUnsupported, Next: next, Unsupported: name},
			&UnsupportedError{Mnemonic: name, Detail: detail}
	}
	if isX87Inst(inst) {
		return unsup("x87:"+inst.Op.String(), "x87 floating point is out of scope")
	}
	if inst.Op == 0 {
		// x86asm returns a lone prefix as an instruction of Op 0; this is
		// how it splits endbr64 (f3 0f 1e fa), which StepBytes recognizes.
		return unsup("bad-bytes", "the decoder did not recognize the instruction")
	}
	if inst.Mode != 64 && inst.Mode != 0 {
		return unsup(inst.Op.String(), "only 64-bit mode is lifted")
	}
	for _, p := range inst.Prefix {
		if p == 0 {
			break
		}
		// lock changes nothing for a single thread; VEX and EVEX forms
		// (AVX) are a later extension.
		if p.IsVEX() || p.IsEVEX() {
			return unsup(inst.Op.String(), "VEX/EVEX-encoded instructions are not lifted")
		}
	}
	if !Supported(inst.Op) {
		return unsup(inst.Op.String(), "no semantics for this mnemonic")
	}
	c := &ctx{b: b, s: s, in: &inst, pc: pc, next: next}
	c.eff = Effect{Kind: FlowNext, Next: next}
	saved := *s
	defer func() {
		if r := recover(); r != nil {
			u, ok := r.(unsupportedPanic)
			if !ok {
				panic(fmt.Sprintf("x86: lifting %s at %#x: %v", x86asm.IntelSyntax(inst, pc, nil), pc, r))
			}
			*s = saved
			eff, err = Effect{Kind: FlowUnsupported, Next: next, Unsupported: u.err.Mnemonic}, u.err
		}
	}()
	semByOp[inst.Op](c)
	switch c.eff.Kind {
	case FlowNext:
		s.RIP = b.Const(64, next)
	case FlowBranch:
		s.RIP = b.Ite(c.eff.Cond, c.eff.Target, b.Const(64, next))
	case FlowTrap:
		s.RIP = b.Const(64, pc)
	default:
		s.RIP = c.eff.Target
	}
	return c.eff, nil
}

// endbr64 and endbr32 are the CET landing pads, no-ops for the semantics;
// x86asm does not know them.
var endbr = [][]byte{{0xf3, 0x0f, 0x1e, 0xfa}, {0xf3, 0x0f, 0x1e, 0xfb}}

// StepBytes decodes the instruction at the start of code (at address pc)
// and lifts it with Step. It knows the encodings x86asm does not: endbr64
// and endbr32 are no-ops. It returns the decoded length too.
func StepBytes(b *ir.Builder, s *State, code []byte, pc uint64) (Effect, int, error) {
	for _, e := range endbr {
		if len(code) >= len(e) && string(code[:len(e)]) == string(e) {
			s.RIP = b.Const(64, pc+uint64(len(e)))
			return Effect{Kind: FlowNext, Next: pc + uint64(len(e))}, len(e), nil
		}
	}
	inst, err := x86asm.Decode(code, 64)
	if err != nil {
		return Effect{Kind: FlowUnsupported, Next: pc + 1, Unsupported: "bad-bytes"}, 1,
			&UnsupportedError{Mnemonic: "bad-bytes", Detail: err.Error()}
	}
	eff, err := Step(b, s, inst, pc)
	return eff, inst.Len, err
}

// isX87Inst recognizes x87 floating point by its escape opcodes D8–DF and
// FWAIT.
func isX87Inst(in x86asm.Inst) bool {
	op := in.Opcode >> 24
	return (op >= 0xD8 && op <= 0xDF) || in.Op == x86asm.FWAIT
}

// Fault conditions accumulate: an instruction faults if any of its checks
// does.
func (c *ctx) fault(cond ir.Term) {
	if c.eff.Fault == ir.NoTerm {
		c.eff.Fault = cond
		return
	}
	c.eff.Fault = c.b.Or(c.eff.Fault, cond)
}

// Operands.

func (c *ctx) arg(i int) x86asm.Arg {
	if i >= len(c.in.Args) || c.in.Args[i] == nil {
		c.unsupported("missing operand %d", i)
	}
	return c.in.Args[i]
}

// nargs is the number of operands.
func (c *ctx) nargs() int {
	n := 0
	for n < len(c.in.Args) && c.in.Args[n] != nil {
		n++
	}
	return n
}

// memBits is the size of the instruction's memory operand.
func (c *ctx) memBits() uint32 {
	if c.in.MemBytes > 0 {
		return uint32(c.in.MemBytes) * 8
	}
	return uint32(c.in.DataSize)
}

// width is the size in bits of operand i (0 for immediates).
func (c *ctx) width(i int) uint32 {
	switch a := c.arg(i).(type) {
	case x86asm.Reg:
		w := RegWidth(a)
		if w == 0 {
			c.unsupported("register %v", a)
		}
		return w
	case x86asm.Mem:
		return c.memBits()
	}
	return 0
}

// addr is the effective address of a memory operand. fs and gs bases
// (thread-local storage) are not part of the state.
func (c *ctx) addr(m x86asm.Mem) ir.Term {
	b := c.b
	switch m.Segment {
	case x86asm.FS, x86asm.GS:
		c.unsupported("segment %v", m.Segment)
	}
	var a ir.Term
	add := func(t ir.Term) {
		if a == ir.NoTerm {
			a = t
		} else {
			a = b.Add(a, t)
		}
	}
	// Displacements are 32 bits, sign-extended (x86asm leaves them as
	// encoded); only the moffs forms of mov (A0–A3) carry 64.
	disp := uint64(int64(int32(m.Disp)))
	if op := c.in.Opcode >> 24; op >= 0xA0 && op <= 0xA3 {
		disp = uint64(m.Disp)
	}
	switch {
	case m.Base == x86asm.RIP:
		disp += c.next
	case m.Base == x86asm.EIP:
		disp += c.next & 0xffffffff
	case m.Base != 0:
		ri := lookupReg(m.Base)
		if ri.kind != regGPR || ri.width < 32 {
			c.unsupported("address base %v", m.Base)
		}
		add(c.s.Reg(b, m.Base))
	}
	if m.Index != 0 {
		ri := lookupReg(m.Index)
		if ri.kind != regGPR || ri.width < 32 {
			c.unsupported("address index %v", m.Index)
		}
		x := c.s.Reg(b, m.Index)
		switch m.Scale {
		case 0, 1:
		case 2, 4, 8:
			x = b.Shl(x, b.Const(b.Width(x), uint64(log2(uint32(m.Scale)))))
		default:
			c.unsupported("scale %d", m.Scale)
		}
		add(x)
	}
	w := uint32(c.in.AddrSize)
	if w != 32 {
		w = 64
	}
	if a == ir.NoTerm {
		return b.Const(64, disp&mask(w))
	}
	if disp&mask(w) != 0 {
		a = b.Add(a, b.Const(w, disp))
	}
	return zext(b, a, 64)
}

func mask(w uint32) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

func log2(x uint32) uint32 {
	n := uint32(0)
	for x > 1 {
		x >>= 1
		n++
	}
	return n
}

// read returns operand i as w bits: registers must be w bits wide, memory is
// read w/8 bytes, immediates are truncated (x86asm sign-extends them).
func (c *ctx) read(i int, w uint32) ir.Term {
	b := c.b
	switch a := c.arg(i).(type) {
	case x86asm.Reg:
		rw := RegWidth(a)
		if rw == 0 {
			c.unsupported("register %v", a)
		}
		if rw != w {
			panic(fmt.Sprintf("x86: reading %v as %d bits", a, w))
		}
		return c.s.Reg(b, a)
	case x86asm.Mem:
		return b.Select(c.s.Mem, c.addr(a), w/8)
	case x86asm.Imm:
		return b.Const(w, uint64(a))
	case x86asm.Rel:
		return b.Const(64, c.next+uint64(int64(a)))
	}
	c.unsupported("operand %v", c.arg(i))
	return ir.NoTerm
}

// write stores v into operand i (register or memory).
func (c *ctx) write(i int, v ir.Term) {
	b := c.b
	switch a := c.arg(i).(type) {
	case x86asm.Reg:
		if RegWidth(a) == 0 {
			c.unsupported("register %v", a)
		}
		c.s.SetReg(b, a, v)
		return
	case x86asm.Mem:
		c.s.Mem = b.Store(c.s.Mem, c.addr(a), b.Width(v)/8, v)
		return
	}
	c.unsupported("writing operand %v", c.arg(i))
}

// isMem reports whether operand i is a memory operand.
func (c *ctx) isMem(i int) bool {
	_, ok := c.arg(i).(x86asm.Mem)
	return ok
}

// imm returns operand i, which must be an immediate.
func (c *ctx) imm(i int) uint64 {
	v, ok := c.arg(i).(x86asm.Imm)
	if !ok {
		c.unsupported("operand %d is not an immediate", i)
	}
	return uint64(v)
}

// hasPrefix reports whether the instruction carries prefix byte p (and the
// decoder did not mark it ignored).
func (c *ctx) hasPrefix(p x86asm.Prefix) bool {
	for _, q := range c.in.Prefix {
		if q == 0 {
			return false
		}
		if q&0xFF == p && q&x86asm.PrefixIgnored == 0 {
			return true
		}
	}
	return false
}

// The stack.

func (c *ctx) push(v ir.Term) {
	b, s := c.b, c.s
	n := b.Width(v) / 8
	s.GPR[RSP] = b.Sub(s.GPR[RSP], b.Const(64, uint64(n)))
	s.Mem = b.Store(s.Mem, s.GPR[RSP], n, v)
}

func (c *ctx) pop(w uint32) ir.Term {
	b, s := c.b, c.s
	v := b.Select(s.Mem, s.GPR[RSP], w/8)
	s.GPR[RSP] = b.Add(s.GPR[RSP], b.Const(64, uint64(w/8)))
	return v
}
