package tracer

import (
	"golang.org/x/arch/x86/x86asm"

	"eqc/x86"
)

// Argument registers at a call site (callsite.go)
//
// A callee without a prototype, and the variadic part of one with, has no
// argument count both builds agree on: its stub records all six integer
// argument registers, and only those the caller really set are arguments;
// the others hold whatever the caller left there, which differs between
// builds without meaning anything. siteArgCount decides the count from the
// source side's call site, where the unoptimized code sets the arguments
// just before the call: walking back from the call over plain register
// moves (mov and its extensions, lea, SSE moves) and arithmetic with
// explicit operands on a register (add, sub, imul with two or three
// operands, logic, shifts, neg, not, inc, dec), stopping at anything else or at a branch target, an argument
// register counts as set when that run writes it and nothing later in the
// run reads it (a write that is read again was a temporary, like the
// address arithmetic before `mov esi, edx`). The count is the longest
// prefix of rdi, rsi, rdx, rcx, r8, r9 that is set. It errs towards fewer
// arguments: a register it misses is not compared, one it adds would
// compare garbage. A register the run writes 32 bits or fewer of carries
// an int (or narrower, promoted): the ABI leaves its upper half
// unspecified, so only the low 32 bits of it are compared (SiteArgs.Narrow).

// sysvIntArgs are the SysV integer argument registers by GPR number.
var sysvIntArgs = [6]int{7, 6, 2, 1, 8, 9}

// siteArgs are the integer argument registers a call sets: the first N of
// rdi, rsi, rdx, rcx, r8, r9, and which of them it writes 32 bits or
// fewer of.
type siteArgs struct {
	N      int
	Narrow [6]bool
}

// siteArgCount is what the call that returns to site sets, from the code
// of the function of x containing the call; ok is false when the call
// cannot be found.
func siteArgCount(x *Executable, site uint64) (siteArgs, bool) {
	fn, ok := x.funcAt(site - 1)
	if !ok {
		return siteArgs{}, false
	}
	code := x.code(fn.Value, int(fn.Size))
	if len(code) == 0 {
		return siteArgs{}, false
	}
	ins := x86.DecodeBytes(code, fn.Value)
	targets := map[uint64]bool{}
	call := -1
	for i, in := range ins {
		if in.HasTarget {
			targets[in.Target] = true
		}
		if in.Addr+uint64(in.Len) == site && !in.Bad && in.Inst.Op == x86asm.CALL {
			call = i
		}
	}
	if call < 0 {
		return siteArgs{}, false
	}
	return argsSetBefore(ins[:call], targets), true
}

// argsSetBefore applies the rule of siteArgCount to the instructions before
// a call.
func argsSetBefore(ins []x86.Instruction, targets map[uint64]bool) siteArgs {
	var set, narrow, readLater [16]bool
	for i := len(ins) - 1; i >= 0; i-- {
		in := ins[i]
		w, reads, ok := plainMove(in)
		if !ok {
			break
		}
		if w >= 0 && !readLater[w] && !set[w] {
			set[w] = true
			if d, ok := in.Inst.Args[0].(x86asm.Reg); ok && x86.RegWidth(d) <= 32 {
				narrow[w] = true
			}
		}
		if w >= 0 {
			// An earlier write of w is dead at the call whatever reads it.
			readLater[w] = false
		}
		for _, r := range reads {
			readLater[r] = true
		}
		if targets[in.Addr] {
			break // earlier instructions are on one path in only
		}
	}
	var out siteArgs
	for out.N < len(sysvIntArgs) && set[sysvIntArgs[out.N]] {
		out.Narrow[out.N] = narrow[sysvIntArgs[out.N]]
		out.N++
	}
	return out
}

// plainMove describes an instruction of the argument set-up: the GPR it
// writes (-1 for none: a store or an SSE register), the GPRs it reads; ok
// is false for any other instruction.
func plainMove(in x86.Instruction) (write int, reads []int, ok bool) {
	if in.Bad {
		return 0, nil, false
	}
	inst := in.Inst
	regsOf := func(a x86asm.Arg) {
		switch a := a.(type) {
		case x86asm.Reg:
			if g, ok := x86.GPRIndex(a); ok {
				reads = append(reads, g)
			}
		case x86asm.Mem:
			for _, r := range []x86asm.Reg{a.Base, a.Index} {
				if g, ok := x86.GPRIndex(r); ok {
					reads = append(reads, g)
				}
			}
		}
	}
	write = -1
	switch inst.Op {
	case x86asm.MOV, x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD, x86asm.LEA,
		x86asm.MOVSS, x86asm.MOVSD_XMM, x86asm.MOVAPS, x86asm.MOVAPD, x86asm.MOVQ, x86asm.MOVD,
		x86asm.CVTSS2SD, x86asm.CVTSD2SS, x86asm.CVTSI2SD, x86asm.CVTSI2SS:
		switch d := inst.Args[0].(type) {
		case x86asm.Reg:
			if g, ok := x86.GPRIndex(d); ok {
				if w := x86.RegWidth(d); w < 32 {
					reads = append(reads, g) // a partial write keeps the rest
				}
				write = g
			}
		case x86asm.Mem:
			regsOf(d)
		}
		regsOf(inst.Args[1])
		return write, reads, true
	case x86asm.XOR, x86asm.ADD, x86asm.SUB, x86asm.AND, x86asm.OR, x86asm.IMUL,
		x86asm.SHL, x86asm.SHR, x86asm.SAR, x86asm.NEG, x86asm.NOT, x86asm.INC, x86asm.DEC:
		// Arithmetic on a register destination with explicit operands
		// only (one-operand imul, mul and div use rdx:rax implicitly).
		d, ok := inst.Args[0].(x86asm.Reg)
		g, gpr := x86.GPRIndex(d)
		if !ok || !gpr || inst.Op == x86asm.IMUL && inst.Args[1] == nil {
			return 0, nil, false
		}
		if s, ok := inst.Args[1].(x86asm.Reg); inst.Op == x86asm.XOR && ok && s == d {
			return g, nil, true // zeroing: reads nothing
		}
		reads = append(reads, g)
		for _, a := range inst.Args[1:] {
			if a != nil {
				regsOf(a)
			}
		}
		return g, reads, true
	}
	return 0, nil, false
}
