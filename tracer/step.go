package tracer

import (
	"errors"
	"syscall"
	"time"

	"golang.org/x/arch/x86/x86asm"
)

// lazyBreakpoint reports whether the breakpoint at a may stay lifted after a
// hit until the next stop: every path from a must reach another breakpoint,
// or the sentinel, before it can come back to a. The scan follows the block
// at a to its end; a jump or call back to a, an indirect transfer, a return,
// a jump to an address that is not a breakpoint, or an undecodable byte makes
// it false, and the breakpoint is then stepped over (two stops per hit
// instead of one).
func (p *Process) lazyBreakpoint(a uint64) bool {
	pc := a
	for i := 0; i < 1000; i++ {
		if pc != a && p.bps[pc] != nil {
			return true
		}
		code := p.exe.code(pc, 15)
		inst, err := x86asm.Decode(code, 64)
		if err != nil {
			return false
		}
		next := pc + uint64(inst.Len)
		rel, direct := inst.Args[0].(x86asm.Rel)
		target := next + uint64(int64(rel))
		switch {
		case inst.Op == x86asm.JMP:
			return direct && target != a && p.bps[target] != nil
		case isCondJump(inst.Op):
			if !direct || target == a || p.bps[target] == nil {
				return false
			}
		case inst.Op == x86asm.CALL:
			if !direct || target == a {
				return false
			}
		case isStop(inst.Op):
			return false
		}
		pc = next
	}
	return false
}

func isCondJump(op x86asm.Op) bool {
	switch op {
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE,
		x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO,
		x86asm.JP, x86asm.JS, x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ,
		x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
		return true
	}
	return false
}

func isStop(op x86asm.Op) bool {
	switch op {
	case x86asm.RET, x86asm.LRET, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ, x86asm.INT,
		x86asm.UD1, x86asm.UD2, x86asm.HLT, x86asm.SYSCALL, x86asm.SYSENTER, x86asm.LJMP, x86asm.LCALL:
		return true
	}
	return false
}

// regValue is the value of an addressing register in s; next is the address
// of the following instruction (for rip-relative operands).
func regValue(r x86asm.Reg, s *State, next uint64) uint64 {
	switch {
	case r == 0:
		return 0
	case r >= x86asm.RAX && r <= x86asm.R15:
		return s.Regs[r-x86asm.RAX]
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return uint64(uint32(s.Regs[r-x86asm.EAX]))
	case r == x86asm.RIP:
		return next
	case r == x86asm.EIP:
		return uint64(uint32(next))
	case r == x86asm.FS:
		return s.FsBase
	case r == x86asm.GS:
		return s.GsBase
	}
	return 0
}

// memAddr is the address memory operand m of inst, about to run from s,
// refers to.
func memAddr(inst x86asm.Inst, m x86asm.Mem, s *State) uint64 {
	next := s.Rip + uint64(inst.Len)
	addr := regValue(m.Segment, s, next) + regValue(m.Base, s, next) +
		regValue(m.Index, s, next)*uint64(m.Scale) + uint64(m.Disp)
	if inst.AddrSize == 32 {
		addr = uint64(uint32(addr))
	}
	return addr
}

// memAccesses lists the memory an instruction at s.Rip reads or writes: its
// explicit memory operands (MemBytes wide) and the implicit stack slot of
// push, pop, call, ret and leave.
func memAccesses(inst x86asm.Inst, s *State) []MemBytes {
	switch inst.Op {
	case x86asm.LEA, x86asm.NOP, x86asm.PREFETCHNTA, x86asm.PREFETCHT0, x86asm.PREFETCHT1,
		x86asm.PREFETCHT2, x86asm.PREFETCHW:
		return nil
	}
	var out []MemBytes
	for _, a := range inst.Args {
		m, ok := a.(x86asm.Mem)
		if !ok {
			continue
		}
		addr := memAddr(inst, m, s)
		n := inst.MemBytes
		if n <= 0 || n > 4096 {
			n = 8
		}
		out = append(out, MemBytes{Addr: addr, Bytes: make([]byte, n)})
	}
	rsp := s.Regs[RSP]
	switch inst.Op {
	case x86asm.PUSH, x86asm.CALL, x86asm.PUSHFQ:
		out = append(out, MemBytes{Addr: rsp - 8, Bytes: make([]byte, 8)})
	case x86asm.POP, x86asm.RET, x86asm.POPFQ:
		out = append(out, MemBytes{Addr: rsp, Bytes: make([]byte, 8)})
	case x86asm.LEAVE:
		out = append(out, MemBytes{Addr: s.Regs[RBP], Bytes: make([]byte, 8)})
	}
	return out
}

// readAccesses fills acc from the tracee, dropping unreadable blocks.
func (p *Process) readAccesses(acc []MemBytes) []MemBytes {
	out := acc[:0]
	for _, m := range acc {
		if processVM(p.pid, []span{{m.Addr, m.Bytes}}, false) == nil {
			out = append(out, m)
		}
	}
	return out
}

func cloneAccesses(acc []MemBytes) []MemBytes {
	out := make([]MemBytes, len(acc))
	for i, m := range acc {
		out[i] = MemBytes{Addr: m.Addr, Bytes: make([]byte, len(m.Bytes))}
	}
	return out
}

// errLight stands for an instruction a light step does not decode.
var errLight = errors.New("not decoded")

// stepLoop single-steps from the prepared registers until the run ends.
func (p *Process) stepLoop(res *Result, regs *syscall.PtraceRegs, fp *fpregs, o *RunOptions, start time.Time, timeout time.Duration) error {
	maxSteps := o.MaxSteps
	if maxSteps <= 0 {
		maxSteps = 1000000
	}
	cur, curFP := *regs, *fp
	pre := stateFrom(&cur, &curFP)
	// end collects the run's result; a light run reads the fp registers
	// only now.
	end := func(outcome Outcome) error {
		if o.Light {
			if err := getFPRegs(p.pid, &curFP); err != nil {
				return err
			}
			pre = stateFrom(&cur, &curFP)
		}
		res.Outcome = outcome
		if outcome == Returned {
			res.Rax, res.Rdx, res.Xmm0, res.Xmm1 = cur.Rax, cur.Rdx, pre.Xmm[0], pre.Xmm[1]
		}
		return p.collect(res, &cur, &curFP)
	}
	for {
		switch {
		case pre.Rip == p.exe.Sentinel:
			return end(Returned)
		case pre.Rip == p.exe.NoReturn:
			return end(EndedInCall)
		case res.Steps >= maxSteps:
			return end(StepLimit)
		case time.Since(start) > timeout:
			return end(Timeout)
		}
		var inst x86asm.Inst
		derr := errLight
		if !o.Light {
			code := p.exe.code(pre.Rip, 15)
			if len(code) == 0 {
				code, _ = p.ReadMem(pre.Rip, 15)
			}
			if inst, derr = x86asm.Decode(code, 64); derr == nil {
				pre.Mem = p.readAccesses(memAccesses(inst, &pre))
			}
		}
		if o.BeforeStep != nil {
			o.BeforeStep(&pre)
		}
		if err := syscall.PtraceSingleStep(p.pid); err != nil {
			return err
		}
		ws, err := p.wait()
		if err != nil {
			return err
		}
		if !ws.Stopped() || ws.StopSignal() != syscall.SIGTRAP || ws.TrapCause() != 0 ||
			(derr == nil && inst.Op == x86asm.INT && inst.Opcode>>24 == 0xcc) {
			return p.ended(res, ws)
		}
		if err := syscall.PtraceGetRegs(p.pid, &cur); err != nil {
			return err
		}
		var post State
		if o.Light {
			post = stateFrom(&cur, nil)
		} else {
			if err := getFPRegs(p.pid, &curFP); err != nil {
				return err
			}
			post = stateFrom(&cur, &curFP)
			post.Mem = p.readAccesses(cloneAccesses(pre.Mem))
		}
		res.Steps++
		if !o.Step(&pre, &post) {
			pre = post
			return end(Stopped)
		}
		pre = post
		pre.Mem = nil
	}
}
