package x86

import (
	"fmt"
	"strconv"

	"eqc/ir"

	"golang.org/x/arch/x86/x86asm"
)

// GPR names in x86 encoding order: the index of a register in State.GPR is
// its 4-bit register number in ModRM/REX encodings, which is also the order
// of x86asm's RAX…R15.
var GPRNames = [16]string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}

// Register numbers of the GPRs the semantics name directly.
const (
	RAX = 0
	RCX = 1
	RDX = 2
	RBX = 3
	RSP = 4
	RBP = 5
	RSI = 6
	RDI = 7
)

// State is the symbolic machine state of one path through machine code: the
// value of every register, flag and memory byte as an ir term over the
// initial state's variables. The zero State is not usable; make one with
// NewState.
//
// Flags are lazy (see flags.go): the state keeps the last flag-producing
// operation and builds a flag's term only when something reads it, because
// most flag results are overwritten before any instruction looks at them.
type State struct {
	GPR [16]ir.Term // 64-bit each
	RIP ir.Term     // 64-bit
	XMM [16]ir.Term // 128-bit each
	Mem ir.Term     // the one memory of the program

	flags lazyFlags

	// Prefix is put in front of the names of the fresh variables that stand
	// for architecturally undefined results, so that two programs lifted into
	// one Builder do not share them.
	Prefix string
	// AnyNaN makes SSE addition and multiplication functions of the
	// unordered pair of their operands: which NaN two NaNs give is left to
	// the function, as C leaves it, where the CPU returns the first
	// operand's (fpBinary). Exact semantics have it false.
	AnyNaN bool
	// fresh counts fresh variables; it is shared by clones of a state so
	// that forks of one path never reuse a name for two different values.
	fresh *uint64
}

// StateNames names the variables of an initial state. The zero value
// gives the plain architectural names ("rax", "xmm0", "mem", "cf", …).
type StateNames struct {
	// Prefix goes in front of every name, e.g. "src." and "dst." when two
	// binaries are lifted into one Builder.
	Prefix string
}

// Var name helpers, so that callers building an ir.Env for an initial state
// need not know the naming convention.

// GPRVar is the name of GPR i's initial variable.
func (n StateNames) GPRVar(i int) string { return n.Prefix + GPRNames[i] }

// XMMVar is the name of xmm register i's initial variable.
func (n StateNames) XMMVar(i int) string { return n.Prefix + "xmm" + strconv.Itoa(i) }

// FlagVar is the name of flag f's initial variable.
func (n StateNames) FlagVar(f Flag) string { return n.Prefix + flagNames[f] }

// MemVar is the name of the initial memory.
func (n StateNames) MemVar() string { return n.Prefix + "mem" }

// RIPVar is the name of the initial instruction pointer.
func (n StateNames) RIPVar() string { return n.Prefix + "rip" }

// UndefPrefix begins the name of every fresh variable that stands for an
// architecturally undefined value (after the state's Prefix).
const UndefPrefix = "undef."

// NewState returns the initial state whose every register, flag and the
// memory are the free variables named by StateNames{} (rax, …, r15, rip,
// xmm0…xmm15, mem, cf, pf, af, zf, sf, of). DF is assumed clear throughout.
func NewState(b *ir.Builder) *State { return NewStateNamed(b, StateNames{}) }

// NewStateNamed is NewState with the variable names of n.
func NewStateNamed(b *ir.Builder, n StateNames) *State {
	s := &State{Prefix: n.Prefix, fresh: new(uint64)}
	for i := range s.GPR {
		s.GPR[i] = b.Var(n.GPRVar(i), ir.BVSort(64))
	}
	for i := range s.XMM {
		s.XMM[i] = b.Var(n.XMMVar(i), ir.BVSort(128))
	}
	s.RIP = b.Var(n.RIPVar(), ir.BVSort(64))
	s.Mem = b.Var(n.MemVar(), ir.MemSort)
	for f := Flag(0); f < numFlags; f++ {
		s.flags.val[f] = b.Var(n.FlagVar(f), ir.BoolSort)
	}
	s.flags.explicit = allFlags
	return s
}

// Clone returns an independent copy of s that shares its fresh-name counter.
func (s *State) Clone() *State {
	c := *s
	return &c
}

// Fresh returns a new unconstrained variable of sort so, for a value the
// architecture leaves undefined. It is never a guess: every use of an
// undefined value stays free for the solver.
func (s *State) Fresh(b *ir.Builder, so ir.Sort) ir.Term {
	for {
		*s.fresh++
		name := s.Prefix + UndefPrefix + strconv.FormatUint(*s.fresh, 10)
		if _, taken := b.LookupVar(name); !taken {
			return b.Var(name, so)
		}
	}
}

// regInfo is where an x86asm register lives in the state.
type regInfo struct {
	kind  uint8  // regGPR, regXMM, or 0 for registers the state does not hold
	index uint8  // GPR or xmm number
	width uint32 // bits
	high  bool   // ah, ch, dh, bh: bits 15:8
}

const (
	regNone = iota
	regGPR
	regXMM
)

func lookupReg(r x86asm.Reg) regInfo {
	switch {
	case r >= x86asm.AL && r <= x86asm.BL:
		return regInfo{kind: regGPR, index: uint8(r - x86asm.AL), width: 8}
	case r >= x86asm.AH && r <= x86asm.BH:
		return regInfo{kind: regGPR, index: uint8(r - x86asm.AH), width: 8, high: true}
	case r >= x86asm.SPB && r <= x86asm.R15B:
		return regInfo{kind: regGPR, index: uint8(r-x86asm.SPB) + 4, width: 8}
	case r >= x86asm.AX && r <= x86asm.R15W:
		return regInfo{kind: regGPR, index: uint8(r - x86asm.AX), width: 16}
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return regInfo{kind: regGPR, index: uint8(r - x86asm.EAX), width: 32}
	case r >= x86asm.RAX && r <= x86asm.R15:
		return regInfo{kind: regGPR, index: uint8(r - x86asm.RAX), width: 64}
	case r >= x86asm.X0 && r <= x86asm.X15:
		return regInfo{kind: regXMM, index: uint8(r - x86asm.X0), width: 128}
	}
	return regInfo{}
}

// RegWidth is the width in bits of a register the state holds, 0 otherwise.
func RegWidth(r x86asm.Reg) uint32 { return lookupReg(r).width }

// Reg returns the value of register r (any size of GPR, or an xmm register).
// It panics for registers the state does not hold; the semantics check
// operands before reading them.
func (s *State) Reg(b *ir.Builder, r x86asm.Reg) ir.Term {
	ri := lookupReg(r)
	switch ri.kind {
	case regGPR:
		full := s.GPR[ri.index]
		if ri.high {
			return extract(b, full, 15, 8)
		}
		return extract(b, full, ri.width-1, 0)
	case regXMM:
		return s.XMM[ri.index]
	}
	panic(fmt.Sprintf("x86: state has no register %v", r))
}

// SetReg writes v to register r with the architectural rules: a 32-bit
// write zeroes bits 63:32, 8- and 16-bit writes keep the other bits, and
// ah/bh/ch/dh write bits 15:8.
func (s *State) SetReg(b *ir.Builder, r x86asm.Reg, v ir.Term) {
	ri := lookupReg(r)
	if w := b.Width(v); w != ri.width {
		panic(fmt.Sprintf("x86: writing %d bits to %v (%d bits)", w, r, ri.width))
	}
	switch ri.kind {
	case regGPR:
		old := s.GPR[ri.index]
		switch {
		case ri.width == 64:
			s.GPR[ri.index] = v
		case ri.width == 32:
			s.GPR[ri.index] = zext(b, v, 64)
		case ri.high:
			s.GPR[ri.index] = concat(b, extract(b, old, 63, 16), concat(b, v, extract(b, old, 7, 0)))
		default:
			s.GPR[ri.index] = concat(b, extract(b, old, 63, ri.width), v)
		}
		return
	case regXMM:
		s.XMM[ri.index] = v
		return
	}
	panic(fmt.Sprintf("x86: state has no register %v", r))
}

// Peephole constructors. The Builder does not simplify, and the register
// file keeps re-reading what it just wrote (a 32-bit write is a zext that
// the next 32-bit read extracts again), so these few local folds keep the
// terms of straight-line code from growing with every sub-register access.

func extract(b *ir.Builder, t ir.Term, hi, lo uint32) ir.Term {
	w := b.Width(t)
	if lo == 0 && hi == w-1 {
		return t
	}
	switch b.Op(t) {
	case ir.OpConst:
		v := b.ConstValue(t)
		if w <= 64 {
			return b.Const(hi-lo+1, v.Uint64()>>lo)
		}
		x := v.Big()
		x.Rsh(x, uint(lo))
		return b.ConstBV(ir.NewBVBig(hi-lo+1, x))
	case ir.OpZeroExt:
		inner := b.Arg(t, 0)
		iw := b.Width(inner)
		if hi < iw {
			return extract(b, inner, hi, lo)
		}
		if lo >= iw {
			return b.Const(hi-lo+1, 0)
		}
	case ir.OpConcat:
		hiPart, loPart := b.Arg(t, 0), b.Arg(t, 1)
		lw := b.Width(loPart)
		if hi < lw {
			return extract(b, loPart, hi, lo)
		}
		if lo >= lw {
			return extract(b, hiPart, hi-lw, lo-lw)
		}
	case ir.OpExtract:
		_, ilo := b.Params(t)
		return extract(b, b.Arg(t, 0), hi+ilo, lo+ilo)
	case ir.OpSignExt:
		inner := b.Arg(t, 0)
		if hi < b.Width(inner) {
			return extract(b, inner, hi, lo)
		}
	}
	return b.Extract(t, hi, lo)
}

func concat(b *ir.Builder, hi, lo ir.Term) ir.Term {
	// concat(x[63:k], x[k-1:0]) = x, as left by a merge that wrote back the
	// value the register already had.
	if b.Op(hi) == ir.OpExtract && b.Op(lo) == ir.OpExtract && b.Arg(hi, 0) == b.Arg(lo, 0) {
		hh, hl := b.Params(hi)
		lh, ll := b.Params(lo)
		if hl == lh+1 {
			return extract(b, b.Arg(hi, 0), hh, ll)
		}
	}
	if b.Op(hi) == ir.OpConst && b.ConstValue(hi).IsZero() {
		return zext(b, lo, b.Width(hi)+b.Width(lo))
	}
	return b.Concat(hi, lo)
}

func zext(b *ir.Builder, t ir.Term, w uint32) ir.Term {
	tw := b.Width(t)
	if tw == w {
		return t
	}
	if b.Op(t) == ir.OpConst && w <= 64 {
		return b.Const(w, b.ConstValue(t).Uint64())
	}
	if b.Op(t) == ir.OpZeroExt {
		return zext(b, b.Arg(t, 0), w)
	}
	return b.ZeroExt(t, w-tw)
}

func sext(b *ir.Builder, t ir.Term, w uint32) ir.Term {
	tw := b.Width(t)
	if tw == w {
		return t
	}
	if b.Op(t) == ir.OpConst && w <= 64 {
		return b.Const(w, uint64(b.ConstValue(t).Int64()))
	}
	return b.SignExt(t, w-tw)
}

// constOf returns the value of t when it is a constant of at most 64 bits.
func constOf(b *ir.Builder, t ir.Term) (uint64, bool) {
	if b.Op(t) != ir.OpConst || b.Width(t) > 64 {
		return 0, false
	}
	return b.ConstValue(t).Uint64(), true
}

// GPRIndex is the number of the general-purpose register r, of any width
// (rax 0, rcx 1, rdx 2, rbx 3, rsp 4, rbp 5, rsi 6, rdi 7, r8 8 … r15 15);
// ok is false for other registers.
func GPRIndex(r x86asm.Reg) (index int, ok bool) {
	i := lookupReg(r)
	return int(i.index), i.kind == regGPR
}
