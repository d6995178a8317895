package tracer

import (
	"encoding/binary"
	"fmt"
	"syscall"
)

// Register indices of State.Regs, in x86 encoding order.
const (
	RAX = iota
	RCX
	RDX
	RBX
	RSP
	RBP
	RSI
	RDI
	R8
	R9
	R10
	R11
	R12
	R13
	R14
	R15
)

// RegNames are the names of State.Regs, in x86 encoding order.
var RegNames = [16]string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}

// MemBytes is a block of memory contents at an address.
type MemBytes struct {
	Addr  uint64
	Bytes []byte
}

// State is a machine state of the traced process.
type State struct {
	Regs   [16]uint64 // rax rcx rdx rbx rsp rbp rsi rdi r8..r15
	Rip    uint64
	Rflags uint64
	Xmm    [16][2]uint64 // low, high quadword
	FsBase uint64
	GsBase uint64
	// Mem, in single-step mode, holds the memory the instruction accesses
	// through its memory operand (and the stack slot of push, pop, call, ret
	// and leave): in the pre-state its contents before, in the post-state
	// after the instruction. Nil in breakpoint mode.
	Mem []MemBytes
}

func (s *State) String() string {
	out := fmt.Sprintf("rip=%#x rflags=%#x", s.Rip, s.Rflags)
	for i, r := range s.Regs {
		out += fmt.Sprintf(" %s=%#x", RegNames[i], r)
	}
	return out
}

func stateFrom(r *syscall.PtraceRegs, fp *fpregs) State {
	s := State{
		Regs: [16]uint64{r.Rax, r.Rcx, r.Rdx, r.Rbx, r.Rsp, r.Rbp, r.Rsi, r.Rdi,
			r.R8, r.R9, r.R10, r.R11, r.R12, r.R13, r.R14, r.R15},
		Rip: r.Rip, Rflags: r.Eflags, FsBase: r.Fs_base, GsBase: r.Gs_base,
	}
	if fp != nil {
		for i := range s.Xmm {
			o := fpregsXmmOffset + 16*i
			s.Xmm[i][0] = binary.LittleEndian.Uint64(fp[o:])
			s.Xmm[i][1] = binary.LittleEndian.Uint64(fp[o+8:])
		}
	}
	return s
}

func setArgRegs(r *syscall.PtraceRegs, args []uint64) {
	dst := []*uint64{&r.Rdi, &r.Rsi, &r.Rdx, &r.Rcx, &r.R8, &r.R9}
	for i, a := range args {
		if i < len(dst) {
			*dst[i] = a
		}
	}
}
