package x86

import (
	"debug/elf"

	"golang.org/x/arch/x86/x86asm"
)

// Jump tables (jumptable.go).
//
// A switch compiled to a jump table ends in jmp *table(,%index,8): the
// table is in read-only data, one 8-byte entry per case, each the address
// of a block of the function. In a relocatable object every entry is an
// R_X86_64_64 relocation against the function's section, so the targets
// are read from the relocations, not from the bytes (which are zero until
// the link). The table is the run of such entries from the one the jmp's
// displacement names, up to the first that is not one or points outside
// the function: the machine loads exactly those for those indices (two
// tables of one function side by side are read as one, which is still
// what memory holds). An index past the run is left to the lifter
// (tfg.go: a fault, which C code reaches only through undefined
// behaviour: compilers emit the bound check otherwise).

// jumpTable reads the table of in, a jmp through memory at table +
// index·8 whose displacement a relocation names in read-only data, or the
// load of a 64-bit register from there (unoptimized code loads the entry,
// then jumps through the register: linkTableLoads); nil when in is not
// one or the table has no entry.
func (f *File) jumpTable(fn *Func, in *Instruction) []uint64 {
	if in.Bad {
		return nil
	}
	arg := 0
	switch in.Inst.Op {
	case x86asm.JMP:
	case x86asm.MOV:
		if r, ok := in.Inst.Args[0].(x86asm.Reg); !ok || RegWidth(r) != 64 {
			return nil
		}
		arg = 1
	default:
		return nil
	}
	m, ok := in.Inst.Args[arg].(x86asm.Mem)
	if !ok || m.Base != 0 || m.Index == 0 || m.Scale != 8 || m.Segment != 0 {
		return nil
	}
	var ref *Ref
	for i := range in.Refs {
		if r := &in.Refs[i]; r.Arg == arg && r.resolved && !r.GOT {
			ref = r
		}
	}
	if ref == nil {
		return nil
	}
	sec := f.section(ref.section)
	if sec == nil || sec.flags&elf.SHF_WRITE != 0 || sec.flags&elf.SHF_EXECINSTR != 0 {
		return nil
	}
	relocs := f.dataRelocs[ref.section]
	var out []uint64
	for _, r := range relocs {
		want := ref.target + 8*uint64(len(out))
		if r.Offset < want {
			continue
		}
		if r.Offset > want || r.Type != elf.R_X86_64_64 || r.symIndex < 0 {
			break
		}
		s := f.allSyms[r.symIndex]
		target := s.Value + uint64(r.Addend)
		if s.Section != fn.SectionIndex || target < fn.Addr || target >= fn.Addr+fn.Size {
			break
		}
		out = append(out, target)
	}
	return out
}

// linkTableLoads gives a jmp through a register the table of the load
// just before it into that register (TableLoad): the pair is one jump
// through the table, indexed by the load's index register.
func linkTableLoads(insts []Instruction) {
	for i := 1; i < len(insts); i++ {
		in, load := &insts[i], &insts[i-1]
		if in.Bad || in.Inst.Op != x86asm.JMP || load.Inst.Op != x86asm.MOV || load.Table == nil {
			continue
		}
		if r, ok := in.Inst.Args[0].(x86asm.Reg); ok && r == load.Inst.Args[0] {
			in.Table, in.TableLoad = load.Table, true
		}
	}
}
