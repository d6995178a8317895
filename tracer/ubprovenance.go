package tracer

import "golang.org/x/arch/x86/x86asm"

// Pointer provenance for the UB monitor's object bounds (ubprovenance.go).
//
// -O0 code often computes a pointer before it dereferences it (q = H;
// q[i] becomes mov rax, q; add rax, rdx; mov eax, [rax]), so the object an
// access belongs to is not the one its final address lands in: H[4] may
// be the next object's first element. The monitor therefore follows, for
// the general registers and the memory slots they are spilled to, which
// data object a pointer value was derived from: an address of the object
// (an lea, an immediate), then moves, adds and subs carry it; any other
// write to a register, and a call, forgets it. An access through a
// register with no recorded object falls back to the object its value
// lies in.

// provenance is what the monitor knows of pointer values.
type provenance struct {
	regs  [16]*funcRange          // by register number (RAX = 0)
	slots map[uint64]*funcRange   // spilled pointers, by slot address
	obj   func(uint64) *funcRange // the data object holding an address
}

func regIndex(r x86asm.Reg) (int, bool) {
	switch {
	case r >= x86asm.RAX && r <= x86asm.R15:
		return int(r - x86asm.RAX), true
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return int(r - x86asm.EAX), true
	}
	return 0, false
}

// of is the object pointer register r was derived from, else the one its
// value v lies in.
func (pv *provenance) of(r x86asm.Reg, v uint64) *funcRange {
	if i, ok := regIndex(r); ok && pv.regs[i] != nil {
		return pv.regs[i]
	}
	return pv.obj(v)
}

// update records what inst, run from pre, does to provenance (next is the
// address after inst, for rip-relative operands).
func (pv *provenance) update(inst x86asm.Inst, pre *State, next uint64) {
	switch inst.Op {
	case x86asm.CALL:
		for _, r := range []int{RAX, RCX, RDX, RSI, RDI, R8, R9, R10, R11} {
			pv.regs[r] = nil
		}
		return
	case x86asm.CDQE, x86asm.CDQ, x86asm.CQO, x86asm.CWDE, x86asm.MUL, x86asm.IMUL, x86asm.DIV, x86asm.IDIV:
		// Writes rax and rdx without naming them (one-operand forms).
		pv.regs[RAX], pv.regs[RDX] = nil, nil
	}
	if len(inst.Args) == 0 || inst.Args[0] == nil {
		return
	}
	switch dst := inst.Args[0].(type) {
	case x86asm.Mem:
		if inst.Op != x86asm.MOV {
			return
		}
		slot := memAddr(inst, dst, pre)
		var o *funcRange
		switch src := inst.Args[1].(type) {
		case x86asm.Reg:
			if i, ok := regIndex(src); ok && src >= x86asm.RAX {
				o = pv.regs[i]
			}
		case x86asm.Imm:
			if inst.MemBytes == 8 {
				o = pv.obj(uint64(int64(src)))
			}
		}
		if o != nil {
			pv.slots[slot] = o
		} else {
			delete(pv.slots, slot)
		}
	case x86asm.Reg:
		i, ok := regIndex(dst)
		if !ok {
			return
		}
		var o *funcRange
		if dst >= x86asm.RAX { // a 32-bit write is no pointer
			switch inst.Op {
			case x86asm.MOV:
				switch src := inst.Args[1].(type) {
				case x86asm.Reg:
					if j, ok := regIndex(src); ok {
						o = pv.regs[j]
					}
				case x86asm.Mem:
					o = pv.slots[memAddr(inst, src, pre)]
				case x86asm.Imm:
					o = pv.obj(uint64(int64(src)))
				}
			case x86asm.LEA:
				if m, ok := inst.Args[1].(x86asm.Mem); ok {
					switch {
					case m.Base != 0 && m.Base != x86asm.RIP:
						o = pv.of(m.Base, regValue(m.Base, pre, next))
					default:
						o = pv.obj(memAddr(inst, m, pre))
					}
				}
			case x86asm.ADD, x86asm.SUB:
				o = pv.regs[i]
				if o == nil {
					o = pv.obj(pre.Regs[i])
				}
				if src, ok := inst.Args[1].(x86asm.Reg); ok && o == nil && inst.Op == x86asm.ADD {
					o = pv.of(src, regValue(src, pre, next))
				}
			}
		}
		pv.regs[i] = o
	}
}
