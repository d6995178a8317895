package x86

import (
	"debug/elf"
	"fmt"
	"strconv"

	"golang.org/x/arch/x86/x86asm"
)

// RefKind says how a Ref was found.
type RefKind uint8

const (
	// RefReloc comes from a relocation of a relocatable object: exact.
	RefReloc RefKind = iota
	// RefPCRelative is a rip-relative operand or a direct branch target of
	// a linked file, mapped back through the symbol table: exact.
	RefPCRelative
	// RefAbsolute is a displacement or immediate of a non-PIE executable
	// that falls inside a symbol; a heuristic, since a number can look like
	// an address.
	RefAbsolute
)

func (k RefKind) String() string {
	switch k {
	case RefReloc:
		return "reloc"
	case RefPCRelative:
		return "pc-relative"
	case RefAbsolute:
		return "absolute"
	}
	return fmt.Sprintf("RefKind(%d)", uint8(k))
}

// Ref is what an instruction field refers to, named as symbol+offset so that
// two binaries with different layouts can be compared.
type Ref struct {
	// Symbol is the referenced symbol, or a section name when no symbol
	// covers the target (jump tables, merged string literals).
	Symbol string
	Offset int64
	Kind   RefKind
	// External says Symbol is undefined in this file.
	External bool
	// GOT says the field addresses the GOT slot holding Symbol's address
	// rather than Symbol itself (GOTPCREL relocations).
	GOT bool
	// Literal is the NUL-terminated string at the target when it lies in a
	// string-merging section: string literals compare by content.
	Literal    string
	HasLiteral bool

	// Field is the byte offset of the referring field in the instruction,
	// -1 when unknown; Arg is the index in Inst.Args of the operand it
	// encodes, -1 when unknown.
	Field int
	Arg   int

	// The raw relocation, for RefReloc.
	RelocType   elf.R_X86_64
	RelocSymbol string
	Addend      int64

	// section and target locate the referent in the file when it is
	// defined there (section offset or virtual address as Func.Addr is).
	section  elf.SectionIndex
	target   uint64
	resolved bool
}

func (r Ref) String() string {
	s := r.Symbol
	if r.Offset > 0 {
		s += "+0x" + strconv.FormatInt(r.Offset, 16)
	} else if r.Offset < 0 {
		s += "-0x" + strconv.FormatUint(uint64(-r.Offset), 16)
	}
	if r.GOT {
		s += "@GOT"
	}
	return s
}

// Instruction is one decoded instruction of a function.
type Instruction struct {
	Addr  uint64 // in the function's address space (see Func.Addr)
	Len   int
	Bytes []byte
	Inst  x86asm.Inst
	// Bad says the bytes did not decode; the instruction then covers one
	// byte and Inst is zero.
	Bad  bool
	Refs []Ref
	// Target is the destination of a direct jump, conditional branch or
	// call, when it lies in the function's own section; HasTarget is false
	// for indirect transfers and for targets named only by a relocation to
	// another section or an external symbol.
	Target    uint64
	HasTarget bool
	// Table, for a jmp through a jump table in read-only data, is the
	// target of each index, in the function's address space
	// (jumptable.go); nil for every other instruction.
	Table []uint64
	// TableLoad says the jmp goes through the register the instruction
	// before it loaded from Table (index: that load's index register).
	TableLoad bool
	// TableBase, for a jmp through a register that a table of 4-byte
	// offsets may feed (position-independent code), names the table's
	// start as the lea before it does; the lifter checks that the jump
	// goes through it (jumptable.go).
	TableBase *Ref
	// TableBaseReg, when not -1, is the register the lea of TableBase
	// loads, which no other instruction of the function may write, and
	// TableBaseAt that lea's address.
	TableBaseReg int
	TableBaseAt  uint64
	// TableLea says this lea loads the address of a relative table some
	// jmp goes through: the lifter names it as that table's (tableAddr).
	TableLea bool
}

func (in *Instruction) String() string {
	if in.Bad {
		return fmt.Sprintf("%#x: (bad) %#02x", in.Addr, in.Bytes)
	}
	s := fmt.Sprintf("%#x: %s", in.Addr, x86asm.IntelSyntax(in.Inst, in.Addr, nil))
	for _, r := range in.Refs {
		s += " <" + r.String() + ">"
	}
	return s
}

// Unsupported names what about this instruction no later stage can lift,
// "" when nothing: "bad-bytes" or "x87:<MNEMONIC>".
func (in *Instruction) Unsupported() string {
	if in.Bad {
		return "bad-bytes"
	}
	if isX87(in.Inst) {
		return "x87:" + in.Inst.Op.String()
	}
	return ""
}

// isX87 recognizes x87 floating point by encoding: the escape opcodes
// D8–DF and FWAIT. (FXSAVE and friends are 0F-prefixed and not x87 code.)
func isX87(in x86asm.Inst) bool {
	b := in.Opcode >> 24
	return (b >= 0xD8 && b <= 0xDF) || in.Op == x86asm.FWAIT
}

// relArg returns the direct branch displacement of in, if it has one.
func relArg(in x86asm.Inst) (x86asm.Rel, bool) {
	for _, a := range in.Args {
		if a == nil {
			break
		}
		if r, ok := a.(x86asm.Rel); ok {
			return r, true
		}
	}
	return 0, false
}

// fixDecoderErrata corrects known x86asm mistakes, found by comparing with
// objdump over libc: VZEROUPPER and VZEROALL (VEX 0F 77) take no ModRM byte,
// but x86asm counts one, swallowing the next instruction's first byte.
//
// x86asm also lacks ENDBR64/ENDBR32 (F3 0F 1E FA/FB), which CET-enabled code
// starts every function with; they are NOPs unless indirect branch tracking
// is on, so they decode here as a 4-byte NOP.
func fixDecoderErrata(in x86asm.Inst, code []byte) x86asm.Inst {
	if len(code) >= 4 && code[0] == 0xF3 && code[1] == 0x0F && code[2] == 0x1E && (code[3] == 0xFA || code[3] == 0xFB) {
		return x86asm.Inst{Op: x86asm.NOP, Opcode: 0x0F1E0000 | uint32(code[3])<<8, Mode: 64, AddrSize: 64,
			DataSize: 32, Len: 4, Prefix: x86asm.Prefixes{x86asm.PrefixREP}}
	}
	if in.Op == x86asm.VZEROUPPER || in.Op == x86asm.VZEROALL {
		for i := 0; i+2 < len(code) && i < in.Len; i++ {
			switch code[i] {
			case 0xC5: // two-byte VEX: C5 xx 77
				if code[i+2] == 0x77 {
					in.Len = i + 3
					return in
				}
			case 0xC4: // three-byte VEX: C4 xx xx 77
				if i+3 < len(code) && code[i+3] == 0x77 {
					in.Len = i + 4
					return in
				}
			}
		}
	}
	return in
}

// DecodeBytes decodes code as 64-bit instructions starting at addr, with no
// file to resolve references against.
func DecodeBytes(code []byte, addr uint64) []Instruction {
	return decode(code, addr, nil)
}

func decode(code []byte, addr uint64, annotate func(*Instruction)) []Instruction {
	// Compiled x86-64 code averages 3.5–4 bytes an instruction; a third of
	// the byte count rarely needs to grow.
	out := make([]Instruction, 0, len(code)/3+4)
	for pc := 0; pc < len(code); {
		in := Instruction{Addr: addr + uint64(pc)}
		inst, err := x86asm.Decode(code[pc:], 64)
		if err == nil {
			inst = fixDecoderErrata(inst, code[pc:])
		}
		// An Inst with no Op is x86asm's way of saying that only a
		// prefix was understood: the rest is not a known instruction.
		if err != nil || inst.Op == 0 || inst.Len <= 0 || inst.Len > len(code)-pc {
			in.Bad, in.Len = true, 1
		} else {
			in.Inst, in.Len = inst, inst.Len
			if rel, ok := relArg(inst); ok {
				in.Target = in.Addr + uint64(in.Len) + uint64(int64(rel))
				in.HasTarget = true
			}
		}
		in.Bytes = code[pc : pc+in.Len : pc+in.Len]
		out = append(out, in)
		// Annotate in place: handing &in to the callback would move every
		// Instruction to the heap.
		if annotate != nil && !in.Bad {
			annotate(&out[len(out)-1])
		}
		pc += in.Len
	}
	return out
}

// Decode decodes every instruction of fn and annotates the fields that refer
// to symbols: from relocations in relocatable objects, from the symbol table
// in linked files.
func (f *File) Decode(fn *Func) []Instruction {
	relocs := fn.Relocs
	return decode(fn.Code, fn.Addr, func(in *Instruction) {
		end := in.Addr + uint64(in.Len)
		if f.Kind == Relocatable {
			for len(relocs) > 0 && relocs[0].Offset < in.Addr {
				relocs = relocs[1:]
			}
			relocated := false
			for len(relocs) > 0 && relocs[0].Offset < end {
				f.annotateReloc(fn, in, &relocs[0])
				relocated = relocated || uint64(in.Inst.PCRelOff) == relocs[0].Offset-in.Addr
				relocs = relocs[1:]
			}
			// The assembler resolves branches to local symbols of the
			// same section itself and leaves no relocation: name their
			// targets through the symbol table.
			if !relocated && in.HasTarget {
				f.annotateBranch(fn, in)
			}
			in.Table = f.jumpTable(fn, in)
			return
		}
		f.annotateLinked(fn, in)
	})
}

// pcRelative lists the relocation types whose field holds target - P, so the
// target seen by the CPU is S + A + (end of instruction - P).
func pcRelative(t elf.R_X86_64) bool {
	switch t {
	case elf.R_X86_64_PC32, elf.R_X86_64_PLT32, elf.R_X86_64_PC64, elf.R_X86_64_PC8, elf.R_X86_64_PC16,
		elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPCRELX, elf.R_X86_64_REX_GOTPCRELX, elf.R_X86_64_GOTPCREL64,
		elf.R_X86_64_GOTTPOFF, elf.R_X86_64_TLSGD, elf.R_X86_64_TLSLD, elf.R_X86_64_GOTPC32, elf.R_X86_64_GOTPC32_TLSDESC:
		return true
	}
	return false
}

func gotRelative(t elf.R_X86_64) bool {
	switch t {
	case elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPCRELX, elf.R_X86_64_REX_GOTPCRELX, elf.R_X86_64_GOTPCREL64, elf.R_X86_64_GOTTPOFF:
		return true
	}
	return false
}

func relocFieldSize(t elf.R_X86_64) int {
	switch t {
	case elf.R_X86_64_64, elf.R_X86_64_PC64, elf.R_X86_64_GOTPCREL64, elf.R_X86_64_GOTOFF64:
		return 8
	case elf.R_X86_64_16, elf.R_X86_64_PC16:
		return 2
	case elf.R_X86_64_8, elf.R_X86_64_PC8:
		return 1
	}
	return 4
}

// fieldArg finds which operand the field at byte offset field of size n
// encodes: the pc-relative field is the Rel or rip-based Mem operand; a
// field ending the instruction is the immediate; otherwise a displacement.
func fieldArg(in x86asm.Inst, field, n int) int {
	pcrel := in.PCRel > 0 && field == in.PCRelOff
	imm, mem := -1, -1
	for i, a := range in.Args {
		if a == nil {
			break
		}
		switch a := a.(type) {
		case x86asm.Rel:
			if pcrel {
				return i
			}
		case x86asm.Mem:
			if pcrel && a.Base == x86asm.RIP {
				return i
			}
			mem = i
		case x86asm.Imm:
			imm = i
		}
	}
	if imm >= 0 && field+n == in.Len {
		return imm
	}
	return mem
}

func (f *File) annotateReloc(fn *Func, in *Instruction, r *Reloc) {
	field := int(r.Offset - in.Addr)
	ref := Ref{Kind: RefReloc, Field: field, Arg: fieldArg(in.Inst, field, relocFieldSize(r.Type)),
		RelocType: r.Type, RelocSymbol: r.Symbol, Addend: r.Addend, GOT: gotRelative(r.Type)}
	off := r.Addend
	if pcRelative(r.Type) {
		off += int64(in.Addr) + int64(in.Len) - int64(r.Offset)
	}
	if r.symIndex < 0 {
		ref.Symbol, ref.Offset = "*ABS*", off
		in.Refs = append(in.Refs, ref)
		return
	}
	f.resolveRelocTarget(&ref, r, off)
	// A relocated branch field overrides the zero displacement the
	// assembler left: the target is what the relocation names.
	if _, ok := relArg(in.Inst); ok && in.Inst.PCRel > 0 && field == in.Inst.PCRelOff {
		in.Target, in.HasTarget = ref.target, ref.resolved && !ref.GOT && ref.section == fn.SectionIndex
	}
	in.Refs = append(in.Refs, ref)
}

// resolveRelocTarget names in ref what relocation r (of a symbol) points
// to, off bytes past its symbol: a symbol and an offset in it — the
// covering symbol for a section symbol's target, the section itself when
// none covers it (sectionOnly) — and the string literal there, if any.
// It reports whether only the section names the target.
func (f *File) resolveRelocTarget(ref *Ref, r *Reloc, off int64) (sectionOnly bool) {
	s := f.allSyms[r.symIndex]
	sec := f.section(s.Section)
	switch {
	case sec == nil || s.Section >= elf.SHN_LORESERVE:
		ref.Symbol, ref.Offset = r.Symbol, off
		ref.External = s.Section == elf.SHN_UNDEF
	case elf.ST_TYPE(s.Info) == elf.STT_SECTION:
		target := s.Value + uint64(off)
		ref.section, ref.target, ref.resolved = s.Section, target, true
		if cov := f.symbolCovering(s.Section, target); cov != nil {
			ref.Symbol, ref.Offset = cov.Name, int64(target-cov.Value)
		} else {
			ref.Symbol, ref.Offset, sectionOnly = sec.name, int64(target), true
		}
	default:
		ref.Symbol, ref.Offset = s.Name, off
		ref.section, ref.target, ref.resolved = s.Section, s.Value+uint64(off), true
	}
	if ref.resolved && !ref.GOT {
		ref.Literal, ref.HasLiteral = f.literalAt(ref.section, ref.target)
	}
	return sectionOnly
}

// annotateLinked names the addresses a linked file's instruction refers to.
func (f *File) annotateLinked(fn *Func, in *Instruction) {
	end := in.Addr + uint64(in.Len)
	for i, a := range in.Inst.Args {
		if a == nil {
			break
		}
		switch a := a.(type) {
		case x86asm.Rel:
			f.annotateBranch(fn, in)
		case x86asm.Mem:
			switch {
			case a.Base == x86asm.RIP:
				if ref, ok := f.refForAddr(end+uint64(a.Disp), RefPCRelative); ok {
					ref.Field, ref.Arg = in.Inst.PCRelOff, i
					in.Refs = append(in.Refs, ref)
				}
			case f.Kind == Executable && a.Disp >= 0x1000 && a.Segment == 0:
				if ref, ok := f.refForAddr(uint64(a.Disp), RefAbsolute); ok {
					ref.Field, ref.Arg = -1, i
					in.Refs = append(in.Refs, ref)
				}
			}
		case x86asm.Imm:
			if f.Kind == Executable && a >= 0x1000 {
				if ref, ok := f.refForAddr(uint64(a), RefAbsolute); ok {
					ref.Field, ref.Arg = -1, i
					in.Refs = append(in.Refs, ref)
				}
			}
		}
	}
}

// annotateBranch names the target of a direct call, or of a jump that
// leaves the function, when the file has a symbol there.
func (f *File) annotateBranch(fn *Func, in *Instruction) {
	inside := in.Target >= fn.Addr && in.Target < fn.Addr+fn.Size
	if in.Inst.Op != x86asm.CALL && inside {
		return
	}
	var ref Ref
	if f.Kind == Relocatable {
		cov := f.symbolCovering(fn.SectionIndex, in.Target)
		if cov == nil {
			return
		}
		ref = Ref{Symbol: cov.Name, Offset: int64(in.Target - cov.Value), Kind: RefPCRelative,
			section: fn.SectionIndex, target: in.Target, resolved: true}
	} else {
		var ok bool
		if ref, ok = f.refForAddr(in.Target, RefPCRelative); !ok {
			return
		}
	}
	ref.Field, ref.Arg = in.Inst.PCRelOff, -1
	for i, a := range in.Inst.Args {
		if _, ok := a.(x86asm.Rel); ok {
			ref.Arg = i
		}
	}
	in.Refs = append(in.Refs, ref)
}

// refForAddr names a virtual address of a linked file. Absolute guesses
// must land inside a symbol; exact references fall back to section+offset.
func (f *File) refForAddr(addr uint64, kind RefKind) (Ref, bool) {
	if name, ok := f.plt[addr]; ok {
		return Ref{Symbol: name, Kind: kind, External: true}, true
	}
	sec := f.sectionAt(addr)
	if sec == 0 {
		return Ref{}, false
	}
	ref := Ref{Kind: kind, section: sec, target: addr, resolved: true}
	if cov := f.symbolCovering(sec, addr); cov != nil {
		ref.Symbol, ref.Offset = cov.Name, int64(addr-cov.Value)
	} else if kind == RefAbsolute {
		return Ref{}, false
	} else {
		s := f.section(sec)
		ref.Symbol, ref.Offset = s.name, int64(addr-s.addr)
	}
	return ref, true
}
