package x86

import (
	"debug/elf"
	"slices"

	"eqc/ir"

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

// Relative jump tables (linkRelativeTables and below; the lifter's half is
// tfg.go's relativeJumpTable).
//
// Position-independent code, the default of Debian's gcc and clang, keeps
// a table of 4-byte offsets from the table's own start: lea table(%rip),B;
// movslq (B,I,4),D; add B,D; jmp *D (gcc -O0 computes the same with a
// scaled lea, a 4-byte load, cltq and a second lea). Each entry is an
// R_X86_64_PC32 relocation against the function's section, whose field
// the link fills with S + A − P; at P = table + 4k, the jump lands on
// table + (S + A − P) = S + A − 4k, an address of the function's own
// section whatever the layout. The decoder only proposes the table: the
// run of such entries at the target of the nearest lea of read-only data
// before the jmp. The lifter proves that the jump goes through it (the
// register jumped through holds that lea's address plus the sign-extended
// 4-byte load, relativeTableLoad, where the lea's register is known to
// hold the table's address when the lea is its only writer and dominates
// the jmp) and branches on the load's offset from the table (offsetFrom);
// otherwise the jump stays unsupported. The table's address is a variable
// of each binary's own (tfg.go's tableAddr): the two files' tables differ.

// maxTableSetup is how many instructions before a jmp through a register
// may compute its target from the table's address (gcc -O0 uses six).
const maxTableSetup = 8

// linkRelativeTables gives each jmp through a 64-bit register whose table
// decoding proposes (above) the table's targets (Table), the lea's
// reference to its start (TableBase) and, when the lea is the only
// instruction of fn that may write its register, that register and the
// lea's address (TableBaseReg, TableBaseAt; the lifter adds that the lea
// runs before the jmp on every path). The lea is the nearest before the
// jmp, in address order, that loads the address of such a table into a
// register the instructions just before the jmp use: optimized code
// loads it once, before the loop the switch is in.
func (f *File) linkRelativeTables(fn *Func, insts []Instruction) {
	starts := map[uint64]bool{}
	for i := range insts {
		starts[insts[i].Addr] = true
	}
	for i := range insts {
		in := &insts[i]
		if in.Bad || in.Inst.Op != x86asm.JMP || in.Table != nil {
			continue
		}
		if r, ok := in.Inst.Args[0].(x86asm.Reg); !ok || RegWidth(r) != 64 {
			continue
		}
		used := map[int]bool{}
		for j := max(0, i-maxTableSetup); j <= i; j++ {
			for _, a := range insts[j].Inst.Args {
				switch a := a.(type) {
				case x86asm.Reg:
					if g, ok := GPRIndex(a); ok {
						used[g] = true
					}
				case x86asm.Mem:
					if g, ok := GPRIndex(a.Base); ok {
						used[g] = true
					}
				}
			}
		}
		for j := i - 1; j >= 0; j-- {
			lea := &insts[j]
			if lea.Bad || lea.Inst.Op != x86asm.LEA {
				continue
			}
			dst, _ := lea.Inst.Args[0].(x86asm.Reg)
			ref := readOnlyRef(f, lea, 1)
			if g, ok := GPRIndex(dst); !ok || !used[g] || ref == nil {
				continue
			}
			if t := f.relativeTable(fn, ref, starts); len(t) > 0 {
				base := *ref
				in.Table, in.TableBase, in.TableBaseReg = t, &base, -1
				if g, _ := GPRIndex(dst); onlyWriter(insts, j, g) {
					in.TableBaseReg, in.TableBaseAt = g, lea.Addr
				}
				markTableLeas(f, insts, ref)
				break
			}
		}
	}
}

// readOnlyRef returns in's resolved reference of operand arg when it
// names read-only, non-executable data; nil otherwise.
func readOnlyRef(f *File, in *Instruction, arg int) *Ref {
	for i := range in.Refs {
		r := &in.Refs[i]
		if r.Arg != arg || !r.resolved || r.GOT {
			continue
		}
		sec := f.section(r.section)
		if sec == nil || sec.flags&elf.SHF_WRITE != 0 || sec.flags&elf.SHF_EXECINSTR != 0 {
			return nil
		}
		return r
	}
	return nil
}

// relativeTable reads the targets of the table of 4-byte offsets at ref:
// the run of R_X86_64_PC32 entries from its target whose jumps land on an
// instruction of fn (starts). The next table of the section follows
// without a gap, and its offsets, taken from the wrong start, land
// anywhere; every entry of the table itself lands on an instruction.
func (f *File) relativeTable(fn *Func, ref *Ref, starts map[uint64]bool) []uint64 {
	var out []uint64
	for _, r := range f.dataRelocs[ref.section] {
		k := uint64(len(out))
		want := ref.target + 4*k
		if r.Offset < want {
			continue
		}
		if r.Offset > want || r.Type != elf.R_X86_64_PC32 || r.symIndex < 0 {
			break
		}
		s := f.allSyms[r.symIndex]
		target := s.Value + uint64(r.Addend) - 4*k
		if s.Section != fn.SectionIndex || !starts[target] {
			break
		}
		out = append(out, target)
	}
	return out
}

// relativeTableLoad matches the term a jmp through a relative table jumps
// to, base + sext(load), where load reads 4 bytes and base is the table's
// address (a symbol plus a constant): it returns the load's address. The
// sums are compared as multisets of summands with their constants added
// (withoutBase), so the order the code added them in does not matter.
func relativeTableLoad(b *ir.Builder, t, base ir.Term) (ir.Term, bool) {
	var load ir.Term = ir.NoTerm
	rest, off := summands(b, t)
	for i, s := range rest {
		if b.Op(s) != ir.OpSignExt || b.Width(s) != 64 {
			continue
		}
		sel := b.Arg(s, 0)
		if n, _ := b.Params(sel); b.Op(sel) != ir.OpSelect || n != 4 || load != ir.NoTerm {
			continue
		}
		load = sel
		rest = append(rest[:i:i], rest[i+1:]...)
		break
	}
	if load == ir.NoTerm {
		return ir.NoTerm, false
	}
	if left, d, ok := withoutBase(b, rest, off, base); !ok || len(left) > 0 || d != 0 {
		return ir.NoTerm, false
	}
	return b.Arg(load, 1), true
}

// summands splits the 64-bit sum t (ir.Builder.Addends) into its
// non-constant terms and the sum of its constants.
func summands(b *ir.Builder, t ir.Term) (out []ir.Term, off uint64) {
	for _, a := range b.Addends(t) {
		if c, ok := constOf(b, a); ok {
			off += c
		} else {
			out = append(out, a)
		}
	}
	return out, off
}

// withoutBase takes base's summands out of the summands have (whose
// constants add up to off): what is left, and the constants' difference;
// false when have lacks one of base's summands.
func withoutBase(b *ir.Builder, have []ir.Term, off uint64, base ir.Term) ([]ir.Term, uint64, bool) {
	want, wantOff := summands(b, base)
	have = slices.Clone(have)
	for _, w := range want {
		i := slices.Index(have, w)
		if i < 0 {
			return nil, 0, false
		}
		have = slices.Delete(have, i, i+1)
	}
	return have, off - wantOff, true
}

// offsetFrom returns addr − base without base's symbols, when addr is base
// plus other summands: the sum of those and of the constants' difference.
func offsetFrom(b *ir.Builder, addr, base ir.Term) (ir.Term, bool) {
	have, off := summands(b, addr)
	left, d, ok := withoutBase(b, have, off, base)
	if !ok {
		return ir.NoTerm, false
	}
	t := b.Const(64, d)
	for _, h := range left {
		t = b.Add(t, h)
	}
	return t, true
}

// markTableLeas marks every lea of insts that loads the address of the
// table at ref (TableLea): gcc -O0 loads it twice, once for the entry's
// address and once to add to the entry.
func markTableLeas(f *File, insts []Instruction, ref *Ref) {
	for i := range insts {
		in := &insts[i]
		if in.Bad || in.Inst.Op != x86asm.LEA {
			continue
		}
		if r := readOnlyRef(f, in, 1); r != nil && r.section == ref.section && r.target == ref.target {
			in.TableLea = true
		}
	}
}

// onlyWriter reports whether insts[j] is the only instruction of insts
// that may write general-purpose register g (at any width).
func onlyWriter(insts []Instruction, j, g int) bool {
	for i := range insts {
		if i != j && mayWriteGPR(&insts[i], g) {
			return false
		}
	}
	return true
}

// mayWriteGPR reports whether in may write general-purpose register g: a
// superset of what it writes (mayWrite's, every register for a call or an
// instruction it does not know, and the stack pointer and frame pointer for
// the stack's instructions), less the first operand of the instructions
// that only read it (writesFirst).
func mayWriteGPR(in *Instruction, g int) bool {
	if in.Bad {
		return true
	}
	switch in.Inst.Op {
	case x86asm.CALL, x86asm.LCALL, x86asm.SYSCALL, x86asm.SYSENTER, x86asm.INT, x86asm.INTO,
		x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE, x86asm.CMPXCHG8B, x86asm.CMPXCHG16B, x86asm.RDTSCP,
		x86asm.MULX, x86asm.PCMPESTRI, x86asm.PCMPISTRI, x86asm.LAHF, x86asm.XLATB, x86asm.RDPMC,
		x86asm.XGETBV, x86asm.RDMSR:
		return true
	case x86asm.PUSH:
		return g == RSP
	case x86asm.POP, x86asm.PUSHF, x86asm.PUSHFQ, x86asm.POPF, x86asm.POPFQ,
		x86asm.ENTER, x86asm.LEAVE, x86asm.RET:
		if g == RSP || g == RBP {
			return true
		}
	case x86asm.CMPXCHG:
		if g == RAX {
			return true
		}
	}
	ws := mayWrite(in.Inst)
	if _, ok := in.Inst.Args[0].(x86asm.Reg); ok && !writesFirst(in.Inst) {
		ws = ws[1:] // a comparison's first operand, read only
	}
	for _, r := range ws {
		if i, ok := GPRIndex(r); ok && i == g {
			return true
		}
	}
	return false
}
