package x86

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
)

// FileKind says how addresses in a harvested file are to be read.
type FileKind uint8

const (
	// Relocatable is an ET_REL object: addresses are offsets in their
	// section, and relocations name what the unfilled fields refer to.
	Relocatable FileKind = iota
	// Executable is an ET_EXEC file: addresses are virtual addresses.
	Executable
	// SharedObject is an ET_DYN file (shared library or PIE): addresses are
	// virtual addresses relative to the load base.
	SharedObject
)

func (k FileKind) String() string {
	switch k {
	case Relocatable:
		return "relocatable"
	case Executable:
		return "executable"
	case SharedObject:
		return "shared"
	}
	return fmt.Sprintf("FileKind(%d)", uint8(k))
}

// Symbol is one named ELF symbol.
type Symbol struct {
	Name         string
	Section      string // "" when undefined or absolute
	SectionIndex elf.SectionIndex
	Value        uint64 // section offset (Relocatable) or virtual address
	Size         uint64
	Type         elf.SymType
	Bind         elf.SymBind
	Defined      bool
}

// Reloc is one relocation applied to a function's code in a relocatable
// object, as recorded in the file (objdump -r shows the same triple).
type Reloc struct {
	Offset uint64 // section offset of the patched field
	Type   elf.R_X86_64
	// Symbol is the name of the relocation's symbol as objdump prints it:
	// the section name when the symbol is a section symbol, "" for none.
	Symbol string
	Addend int64

	symIndex int // index into File.allSyms, -1 for none
}

// Func is one harvested function: a sized FUNC symbol in an executable
// section, its bytes, the relocations that fall in it and, when the file has
// DWARF, its signature and frame-resident locals.
type Func struct {
	Name         string
	Section      string
	SectionIndex elf.SectionIndex
	Addr         uint64 // section offset (Relocatable) or virtual address
	Size         uint64
	Local        bool // STB_LOCAL: a static function
	Weak         bool
	Code         []byte
	Relocs       []Reloc // sorted by Offset

	// Debug is nil when the file has no DWARF entry for this function.
	Debug *FuncDebug
}

// File is a harvested ELF file.
type File struct {
	Path      string
	Kind      FileKind
	Functions []*Func // in section, then address order
	Symbols   []Symbol
	// Globals are the DWARF variables at file scope (defined or extern),
	// keyed by name. Empty without DWARF.
	Globals map[string]*GlobalVar
	// Warnings list what was skipped or degraded while harvesting; they are
	// never fatal.
	Warnings []string

	sections []sectionInfo
	// plainLiterals: the file's .comment names gcc and no clang, so its
	// plain read-only data may hold string literals (literalAt).
	plainLiterals bool
	allSyms       []elf.Symbol // index i is ELF symbol i+1 (debug/elf drops the null symbol)
	// dataRelocs are the relocations of each read-only data section, by
	// offset (jump tables, jumptable.go).
	dataRelocs map[elf.SectionIndex][]Reloc
	// refStarts are the offsets of each section that relocations of any
	// allocated section point to through the section's symbol (sorted; a
	// PC-relative field's target taken as its addend plus 4): where the
	// unnamed objects in it start (literalAt).
	refStarts map[elf.SectionIndex][]uint64
	bySect    map[elf.SectionIndex][]*Symbol
	byName    map[string][]*Func
	protos    map[string]*FuncDebug // declarations' prototypes, by name
	plt       map[uint64]string     // PLT entry address → "name@plt"
}

type sectionInfo struct {
	name  string
	typ   elf.SectionType
	flags elf.SectionFlag
	addr  uint64
	size  uint64
	// align is sh_addralign: every link places the section at a multiple
	// of it. entsize is sh_entsize: a mergeable section's entry size.
	align, entsize uint64
	data           []byte // nil for NOBITS or unread sections
	// relocated: a relocation section patches this section, so data
	// holds placeholders where the patched fields are.
	relocated bool
	// relOnly: a REL section (no addends, which eqc does not read)
	// patches it, so which of its bytes are placeholders is not known.
	relOnly bool
}

// Open reads and harvests the ELF file at path.
func Open(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse harvests an ELF image held in memory; name is used in messages.
func Parse(name string, data []byte) (f *File, err error) {
	if err := checkHeader(name, data); err != nil {
		return nil, err
	}
	ef, err := newELF(name, data)
	if err != nil {
		return nil, err
	}
	f = &File{Path: name, Globals: map[string]*GlobalVar{}, byName: map[string][]*Func{}, protos: map[string]*FuncDebug{}}
	switch ef.Type {
	case elf.ET_REL:
		f.Kind = Relocatable
	case elf.ET_EXEC:
		f.Kind = Executable
	case elf.ET_DYN:
		f.Kind = SharedObject
	default:
		return nil, &MalformedError{File: name, Detail: fmt.Sprintf("unsupported ELF type %v", ef.Type)}
	}
	if err := f.readSections(ef, data); err != nil {
		return nil, err
	}
	f.readSymbols(ef)
	f.collectFunctions()
	if f.Kind == Relocatable {
		f.readRelocations(ef)
	} else {
		f.readPLT(ef)
	}
	f.readDWARF(ef)
	return f, nil
}

// checkHeader sorts out the input errors that are plain from the first bytes,
// before debug/elf gives its less specific answers.
func checkHeader(name string, data []byte) error {
	if len(data) < 4 || !bytes.Equal(data[:4], []byte(elf.ELFMAG)) {
		return &NotELFError{File: name}
	}
	if len(data) < 20 {
		return &TruncatedError{File: name, Detail: fmt.Sprintf("%d bytes, shorter than the ELF header", len(data))}
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if elf.Data(data[elf.EI_DATA]) == elf.ELFDATA2MSB {
		bo = binary.BigEndian
	}
	class := elf.Class(data[elf.EI_CLASS])
	machine := elf.Machine(bo.Uint16(data[18:20]))
	if class != elf.ELFCLASS64 || machine != elf.EM_X86_64 || bo != binary.LittleEndian {
		return &NotX86_64Error{File: name, Machine: machine, Class: class}
	}
	if len(data) < 64 {
		return &TruncatedError{File: name, Detail: fmt.Sprintf("%d bytes, shorter than the ELF header", len(data))}
	}
	shoff := bo.Uint64(data[40:48])
	shentsize := uint64(bo.Uint16(data[58:60]))
	shnum := uint64(bo.Uint16(data[60:62]))
	if shnum > 0 && (shoff > uint64(len(data)) || shnum*shentsize > uint64(len(data))-shoff) {
		return &TruncatedError{File: name, Detail: fmt.Sprintf("section headers end at %#x past the file end %#x", shoff+shnum*shentsize, len(data))}
	}
	phoff := bo.Uint64(data[32:40])
	phentsize := uint64(bo.Uint16(data[54:56]))
	phnum := uint64(bo.Uint16(data[56:58]))
	if phnum > 0 && (phoff > uint64(len(data)) || phnum*phentsize > uint64(len(data))-phoff) {
		return &TruncatedError{File: name, Detail: fmt.Sprintf("program headers end at %#x past the file end %#x", phoff+phnum*phentsize, len(data))}
	}
	return nil
}

// newELF wraps debug/elf so that its failures, including panics on hostile
// input, come back as typed errors.
func newELF(name string, data []byte) (ef *elf.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			ef, err = nil, &MalformedError{File: name, Detail: fmt.Sprint("debug/elf: ", r)}
		}
	}()
	ef, err = elf.NewFile(bytes.NewReader(data))
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &TruncatedError{File: name, Detail: oneLine(err.Error())}
		}
		return nil, &MalformedError{File: name, Detail: oneLine(err.Error())}
	}
	return ef, nil
}

func (f *File) readSections(ef *elf.File, data []byte) error {
	f.sections = make([]sectionInfo, len(ef.Sections))
	for i, s := range ef.Sections {
		si := sectionInfo{name: s.Name, typ: s.Type, flags: s.Flags, addr: s.Addr, size: s.Size, align: s.Addralign, entsize: s.Entsize}
		if s.Type != elf.SHT_NOBITS && s.Type != elf.SHT_NULL && s.Size > 0 {
			if s.Offset > uint64(len(data)) || s.Size > uint64(len(data))-s.Offset {
				return &TruncatedError{File: f.Path, Detail: fmt.Sprintf("section %s ends at %#x past the file end %#x", s.Name, s.Offset+s.Size, len(data))}
			}
			if s.Flags&elf.SHF_COMPRESSED == 0 {
				si.data = data[s.Offset : s.Offset+s.Size]
			}
		}
		f.sections[i] = si
		if si.name == ".comment" {
			f.plainLiterals = bytes.Contains(si.data, []byte("GCC:")) && !bytes.Contains(bytes.ToLower(si.data), []byte("clang"))
		}
	}
	for _, s := range ef.Sections {
		if (s.Type == elf.SHT_RELA || s.Type == elf.SHT_REL) && int(s.Info) > 0 && int(s.Info) < len(f.sections) {
			f.sections[s.Info].relocated = true
			f.sections[s.Info].relOnly = f.sections[s.Info].relOnly || s.Type == elf.SHT_REL
		}
	}
	return nil
}

// DataSymbol describes a data object a file defines.
type DataSymbol struct {
	// Bytes are its initial contents as the file holds them (nil for
	// zero-filled sections).
	Bytes []byte
	// ReadOnly: its section is allocated, neither writable nor
	// executable, so every run reads exactly these contents.
	ReadOnly bool
	// Relocated: relocations patch its bytes, so Bytes hold placeholders
	// there rather than what a run reads (a table of pointers).
	Relocated bool
	// Relocs are those relocations, by what they point to (a section
	// named as a whole: the section's relocations, unread).
	Relocs []DataReloc
	// Size is the object's size in bytes.
	Size uint64
	// Align is the largest power of two its address is a multiple of in
	// every link of the file (at most 4096): for an object file, what the
	// section's alignment and the symbol's offset in it guarantee; for a
	// linked file, what its address shows. 1 when nothing more is known.
	Align uint64
}

// DataReloc is one relocation that patches a data object, by what it
// points to, as the lifter names addresses (GlobalAddrVar,
// LiteralAddrVar): two files whose objects hold the same bytes and
// relocations with the same Off, Type, Target and Addend hold the same
// table, whatever the layout of each.
type DataReloc struct {
	Off  uint64 // the patched field's offset in the object
	Type elf.R_X86_64
	// Target is the address variable of the symbol or string literal it
	// points into; "" when nothing but a section offset names it, or the
	// field is not an absolute address.
	Target string
	Addend int64 // the target's address plus Addend is the field's value
}

// SameContents reports whether d and o hold the same constants: the same
// bytes where no relocation patches them and, where relocations do, the
// same absolute addresses of the same symbols and literals. A relocation
// whose target has no name (Target "") matches nothing.
func (d DataSymbol) SameContents(o DataSymbol) bool {
	if d.Relocated != o.Relocated || len(d.Bytes) != len(o.Bytes) || len(d.Relocs) != len(o.Relocs) {
		return false
	}
	patched := make([]bool, len(d.Bytes))
	for i, r := range d.Relocs {
		if r != o.Relocs[i] || r.Target == "" || !absoluteField(r.Type) {
			return false
		}
		for k := r.Off; k < r.Off+uint64(relocFieldSize(r.Type)) && k < uint64(len(patched)); k++ {
			patched[k] = true
		}
	}
	if d.Relocated && len(d.Relocs) == 0 {
		return false // relocated by a REL section, unread
	}
	for i := range d.Bytes {
		if !patched[i] && d.Bytes[i] != o.Bytes[i] {
			return false
		}
	}
	return true
}

// absoluteField says whether a relocation of type t stores an absolute
// address: all 64 bits of it, or 32 that the linker checks it fits.
func absoluteField(t elf.R_X86_64) bool {
	return t == elf.R_X86_64_64 || t == elf.R_X86_64_32 || t == elf.R_X86_64_32S
}

// dataRelocsIn lists the relocations that patch [off, off+n) of section
// i, by what they point to.
func (f *File) dataRelocsIn(i elf.SectionIndex, off, n uint64) []DataReloc {
	var out []DataReloc
	for k := range f.dataRelocs[i] {
		r := &f.dataRelocs[i][k]
		if r.Offset+uint64(relocFieldSize(r.Type)) <= off || r.Offset >= off+n {
			continue
		}
		d := DataReloc{Off: r.Offset - off, Type: r.Type}
		if r.symIndex >= 0 && !pcRelative(r.Type) && !gotRelative(r.Type) && r.Offset >= off {
			var ref Ref
			sectionOnly := f.resolveRelocTarget(&ref, r, r.Addend)
			switch {
			case ref.HasLiteral:
				d.Target = LiteralAddrVar(ref.Literal)
			case !sectionOnly:
				d.Target, d.Addend = GlobalAddrVar(ref.Symbol), ref.Offset
			}
		}
		out = append(out, d)
	}
	return out
}

// DataSymbol returns the data object name, if f defines one: a data
// symbol, or else an allocated non-code section of that name (relocations
// against a section with no covering symbol name the section).
func (f *File) DataSymbol(name string) (DataSymbol, bool) {
	for i := range f.Symbols {
		sym := &f.Symbols[i]
		if sym.Name != name || !sym.Defined || sym.Type == elf.STT_FUNC {
			continue
		}
		sec := f.section(sym.SectionIndex)
		if sec == nil {
			return DataSymbol{}, false
		}
		d := DataSymbol{
			ReadOnly: sec.flags&elf.SHF_ALLOC != 0 && sec.flags&(elf.SHF_WRITE|elf.SHF_EXECINSTR) == 0,
			Size:     sym.Size,
		}
		off := sym.Value
		if f.Kind != Relocatable {
			off -= sec.addr
			d.Align = addressAlign(sym.Value, maxKnownAlign)
		} else {
			d.Align = addressAlign(off, sec.alignLimit())
		}
		d.Relocated = sec.relocated && (sec.relOnly || !f.unrelocated(sym.SectionIndex, off, max(d.Size, 1)))
		if d.Relocated && !sec.relOnly {
			d.Relocs = f.dataRelocsIn(sym.SectionIndex, off, d.Size)
		}
		if d.Size == 0 && sec.flags&elf.SHF_MERGE != 0 && sec.flags&elf.SHF_STRINGS == 0 && sec.entsize > 0 {
			// A constant-pool label (gcc's .LC0 in .rodata.cst16) has no
			// size; it names one entry of its mergeable section.
			d.Size = sec.entsize
		}
		if sec.data != nil && off <= uint64(len(sec.data)) && d.Size <= uint64(len(sec.data))-off {
			d.Bytes = sec.data[off : off+d.Size]
		}
		return d, true
	}
	// References to data without a symbol of its own (clang's constant
	// pools, tables moved into mergeable sections) name the section.
	for i := range f.sections {
		sec := &f.sections[i]
		if sec.name != name || sec.flags&elf.SHF_ALLOC == 0 || sec.flags&elf.SHF_EXECINSTR != 0 {
			continue
		}
		d := DataSymbol{
			Bytes:     sec.data,
			Size:      sec.size,
			ReadOnly:  sec.flags&elf.SHF_WRITE == 0,
			Relocated: sec.relocated,
			Align:     addressAlign(0, sec.alignLimit()),
		}
		if f.Kind != Relocatable {
			d.Align = addressAlign(sec.addr, maxKnownAlign)
		}
		if d.Relocated && !sec.relOnly {
			// A section's relocations name their targets like an
			// object's do (clang's static tables of functions and
			// strings in .rodata, referred to as .rodata+off).
			d.Relocs = f.dataRelocsIn(elf.SectionIndex(i), 0, sec.size)
		}
		return d, true
	}
	return DataSymbol{}, false
}

// SectionObject returns the unnamed object that starts at offset off of
// the allocated data section name, when code refers to that section as
// a whole (no symbol of that name): its bytes up to where the next object
// may start (nextStart: a symbol, another relocation's target, the end).
// clang puts a function's switch lookup table, other functions' jump
// tables and constants in one .rodata, each referred to as .rodata+off;
// the object at off is the part one reference reads.
func (f *File) SectionObject(name string, off uint64) (DataSymbol, bool) {
	for i := range f.Symbols {
		if f.Symbols[i].Name == name && f.Symbols[i].Defined {
			return DataSymbol{}, false
		}
	}
	for i := range f.sections {
		sec := &f.sections[i]
		if sec.name != name || sec.flags&elf.SHF_ALLOC == 0 || sec.flags&elf.SHF_EXECINSTR != 0 || off >= sec.size {
			continue
		}
		idx := elf.SectionIndex(i)
		end := f.nextStart(idx, off)
		d := DataSymbol{
			Size:      end - off,
			ReadOnly:  sec.flags&elf.SHF_WRITE == 0,
			Relocated: sec.relocated && (sec.relOnly || !f.unrelocated(idx, off, end-off)),
			Align:     addressAlign(off, sec.alignLimit()),
		}
		if f.Kind != Relocatable {
			d.Align = addressAlign(sec.addr+off, maxKnownAlign)
		}
		if sec.data != nil && end <= uint64(len(sec.data)) {
			d.Bytes = sec.data[off:end]
		}
		if d.Relocated && !sec.relOnly {
			d.Relocs = f.dataRelocsIn(idx, off, end-off)
		}
		return d, true
	}
	return DataSymbol{}, false
}

// alignLimit is the section's alignment as a bound for addressAlign.
func (sec *sectionInfo) alignLimit() uint64 { return min(max(sec.align, 1), maxKnownAlign) }

// maxKnownAlign caps the alignments DataSymbol reports: a page.
const maxKnownAlign = 4096

// addressAlign is the largest power of two, at most limit (a power of
// two), that divides a.
func addressAlign(a, limit uint64) uint64 {
	if limit&(limit-1) != 0 {
		return 1 // sh_addralign must be a power of two; trust nothing else
	}
	al := uint64(1)
	for al < limit && a&(al<<1-1) == 0 {
		al <<= 1
	}
	return al
}

func (f *File) section(i elf.SectionIndex) *sectionInfo {
	if int(i) <= 0 || int(i) >= len(f.sections) {
		return nil
	}
	return &f.sections[i]
}

func (f *File) readSymbols(ef *elf.File) {
	syms, err := ef.Symbols()
	if err != nil {
		if !errors.Is(err, elf.ErrNoSymbols) {
			f.Warnings = append(f.Warnings, "symbol table: "+oneLine(err.Error()))
		}
		return
	}
	f.allSyms = syms
	f.bySect = map[elf.SectionIndex][]*Symbol{}
	for _, s := range syms {
		typ := elf.ST_TYPE(s.Info)
		if typ == elf.STT_SECTION || typ == elf.STT_FILE || s.Name == "" {
			continue
		}
		sym := Symbol{Name: s.Name, SectionIndex: s.Section, Value: s.Value, Size: s.Size,
			Type: typ, Bind: elf.ST_BIND(s.Info)}
		if sec := f.section(s.Section); sec != nil && s.Section < elf.SHN_LORESERVE {
			sym.Section = sec.name
			sym.Defined = true
		} else if s.Section == elf.SHN_COMMON || s.Section == elf.SHN_ABS {
			sym.Defined = true
		}
		f.Symbols = append(f.Symbols, sym)
	}
	for i := range f.Symbols {
		s := &f.Symbols[i]
		if s.Defined && s.Section != "" && s.Type != elf.STT_TLS {
			f.bySect[s.SectionIndex] = append(f.bySect[s.SectionIndex], s)
		}
	}
	for _, list := range f.bySect {
		sort.SliceStable(list, func(i, j int) bool { return list[i].Value < list[j].Value })
	}
}

func (f *File) collectFunctions() {
	for i := range f.Symbols {
		s := &f.Symbols[i]
		if (s.Type != elf.STT_FUNC && s.Type != elf.STT_GNU_IFUNC) || !s.Defined || s.Size == 0 {
			continue
		}
		sec := f.section(s.SectionIndex)
		if sec == nil || sec.flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		off := s.Value
		if f.Kind != Relocatable {
			off -= sec.addr
		}
		if sec.data == nil || off > uint64(len(sec.data)) || s.Size > uint64(len(sec.data))-off {
			f.Warnings = append(f.Warnings, fmt.Sprintf("function %s: [%#x,+%#x) lies outside section %s", s.Name, s.Value, s.Size, sec.name))
			continue
		}
		fn := &Func{Name: s.Name, Section: sec.name, SectionIndex: s.SectionIndex, Addr: s.Value,
			Size: s.Size, Local: s.Bind == elf.STB_LOCAL, Weak: s.Bind == elf.STB_WEAK,
			Code: sec.data[off : off+s.Size]}
		f.Functions = append(f.Functions, fn)
	}
	sort.SliceStable(f.Functions, func(i, j int) bool {
		a, b := f.Functions[i], f.Functions[j]
		if a.SectionIndex != b.SectionIndex {
			return a.SectionIndex < b.SectionIndex
		}
		return a.Addr < b.Addr
	})
	for _, fn := range f.Functions {
		f.byName[fn.Name] = append(f.byName[fn.Name], fn)
	}
}

// Func returns the function called name. When a linked file holds several
// static functions of that name, the first in address order is returned.
func (f *File) Func(name string) (*Func, error) {
	if fns := f.byName[name]; len(fns) > 0 {
		return fns[0], nil
	}
	empty := false
	for i := range f.Symbols {
		s := &f.Symbols[i]
		empty = empty || s.Name == name && s.Type == elf.STT_FUNC && s.Defined && s.Size == 0
	}
	return nil, &FunctionNotFoundError{File: f.Path, Function: name, Empty: empty}
}

func (f *File) readRelocations(ef *elf.File) {
	const relaSize = 24
	bySection := map[elf.SectionIndex][]Reloc{}
	for idx, s := range ef.Sections {
		if s.Type != elf.SHT_RELA {
			continue
		}
		target := elf.SectionIndex(s.Info)
		tsec := f.section(target)
		// Allocated sections only (not debug sections: many entries);
		// all of them tell where objects start (refStarts), those of
		// code and read-only data are kept.
		if tsec == nil || tsec.flags&elf.SHF_ALLOC == 0 {
			continue
		}
		kept := tsec.flags&elf.SHF_WRITE == 0
		data := f.sections[idx].data
		for off := 0; off+relaSize <= len(data); off += relaSize {
			rOff := binary.LittleEndian.Uint64(data[off:])
			info := binary.LittleEndian.Uint64(data[off+8:])
			addend := int64(binary.LittleEndian.Uint64(data[off+16:]))
			r := Reloc{Offset: rOff, Type: elf.R_X86_64(info & 0xffffffff), Addend: addend, symIndex: -1}
			if si := int(info >> 32); si > 0 && si <= len(f.allSyms) {
				r.symIndex = si - 1
			}
			f.addRefStart(r)
			if kept {
				if r.symIndex >= 0 {
					r.Symbol = f.elfSymName(r.symIndex)
				}
				bySection[target] = append(bySection[target], r)
			}
		}
	}
	for _, starts := range f.refStarts {
		slices.Sort(starts)
	}
	f.dataRelocs = map[elf.SectionIndex][]Reloc{}
	for sec, rs := range bySection {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].Offset < rs[j].Offset })
		bySection[sec] = rs
		if f.section(sec).flags&elf.SHF_EXECINSTR == 0 {
			f.dataRelocs[sec] = rs
		}
	}
	for _, fn := range f.Functions {
		rs := bySection[fn.SectionIndex]
		lo := sort.Search(len(rs), func(i int) bool { return rs[i].Offset >= fn.Addr })
		hi := sort.Search(len(rs), func(i int) bool { return rs[i].Offset >= fn.Addr+fn.Size })
		if lo < hi {
			fn.Relocs = rs[lo:hi:hi]
		}
	}
}

// addRefStart adds to refStarts the target of relocation r when it names
// a section symbol.
func (f *File) addRefStart(r Reloc) {
	if r.symIndex < 0 || elf.ST_TYPE(f.allSyms[r.symIndex].Info) != elf.STT_SECTION {
		return
	}
	if f.refStarts == nil {
		f.refStarts = map[elf.SectionIndex][]uint64{}
	}
	sym := f.allSyms[r.symIndex]
	target := sym.Value + uint64(r.Addend)
	if pcRelative(r.Type) {
		target += 4
	}
	f.refStarts[sym.Section] = append(f.refStarts[sym.Section], target)
}

// nextStart is the first offset after off of section i where an object
// may start: a symbol's value, a relocation's target (refStarts), or the
// section's end.
func (f *File) nextStart(i elf.SectionIndex, off uint64) uint64 {
	end := f.section(i).size
	starts := f.refStarts[i]
	if k, _ := slices.BinarySearch(starts, off+1); k < len(starts) {
		end = min(end, starts[k])
	}
	syms := f.bySect[i]
	if k := sort.Search(len(syms), func(k int) bool { return syms[k].Value > off }); k < len(syms) {
		end = min(end, syms[k].Value)
	}
	return end
}

// unrelocated reports whether no relocation patches a byte of
// [off, off+n) of section i: there the file's bytes are what every run
// reads (the relocations of read-only sections are all read, see
// readRelocations).
func (f *File) unrelocated(i elf.SectionIndex, off, n uint64) bool {
	sec := f.section(i)
	if sec == nil || sec.relOnly {
		return false
	}
	if !sec.relocated {
		return true
	}
	for _, r := range f.dataRelocs[i] {
		if r.Offset < off+n && off < r.Offset+uint64(relocFieldSize(r.Type)) {
			return false
		}
	}
	return true
}

// sectionNamed returns the first section called name, or nil.
func (f *File) sectionNamed(name string) *sectionInfo {
	for i := range f.sections {
		if f.sections[i].name == name {
			return &f.sections[i]
		}
	}
	return nil
}

// elfSymName names ELF symbol i+1 the way objdump does: section symbols by
// their section's name.
func (f *File) elfSymName(i int) string {
	s := f.allSyms[i]
	if elf.ST_TYPE(s.Info) == elf.STT_SECTION {
		if sec := f.section(s.Section); sec != nil {
			return sec.name
		}
	}
	return s.Name
}

// readPLT names the PLT entries of a dynamically linked file after the
// functions they jump to, so that calls through them read "puts@plt".
func (f *File) readPLT(ef *elf.File) {
	rela := f.sectionNamed(".rela.plt")
	if rela == nil {
		return
	}
	dyn, err := ef.DynamicSymbols()
	if err != nil {
		return
	}
	data := rela.data
	var base, first uint64
	if s := f.sectionNamed(".plt.sec"); s != nil {
		base, first = s.addr, 0
	} else if s := f.sectionNamed(".plt"); s != nil {
		base, first = s.addr, 1 // .plt starts with the resolver stub
	} else {
		return
	}
	f.plt = map[uint64]string{}
	for i := 0; (i+1)*24 <= len(data); i++ {
		si := int(binary.LittleEndian.Uint64(data[i*24+8:]) >> 32)
		if si <= 0 || si > len(dyn) {
			continue
		}
		f.plt[base+16*(uint64(i)+first)] = dyn[si-1].Name + "@plt"
	}
}

// symbolCovering returns the best named symbol of section sec whose range
// holds off (an exact start for zero-sized symbols), or nil.
func (f *File) symbolCovering(sec elf.SectionIndex, off uint64) *Symbol {
	list := f.bySect[sec]
	i := sort.Search(len(list), func(i int) bool { return list[i].Value > off })
	var best *Symbol
	// Scan back a bounded distance: nested or aliased symbols sit close
	// together, and hostile inputs must not make this quadratic.
	for j, n := i-1, 0; j >= 0 && n < 64; j, n = j-1, n+1 {
		s := list[j]
		if !(off < s.Value+s.Size || off == s.Value) {
			continue
		}
		if best == nil || betterSymbol(s, best) {
			best = s
		}
	}
	return best
}

// betterSymbol orders candidate symbols for the same address: tighter
// start, then sized, then data or code over untyped labels, then global.
func betterSymbol(a, b *Symbol) bool {
	if a.Value != b.Value {
		return a.Value > b.Value
	}
	if (a.Size > 0) != (b.Size > 0) {
		return a.Size > 0
	}
	aTyped := a.Type == elf.STT_OBJECT || a.Type == elf.STT_FUNC
	bTyped := b.Type == elf.STT_OBJECT || b.Type == elf.STT_FUNC
	if aTyped != bTyped {
		return aTyped
	}
	if (a.Bind == elf.STB_GLOBAL) != (b.Bind == elf.STB_GLOBAL) {
		return a.Bind == elf.STB_GLOBAL
	}
	return a.Name < b.Name
}

// sectionAt returns the allocated section holding virtual address addr.
func (f *File) sectionAt(addr uint64) elf.SectionIndex {
	for i := range f.sections {
		s := &f.sections[i]
		if s.flags&elf.SHF_ALLOC != 0 && s.addr != 0 && addr >= s.addr && addr-s.addr < s.size {
			return elf.SectionIndex(i)
		}
	}
	return 0
}

// literalAt returns the NUL-terminated string at offset off of a read-only
// section. Compilers put string literals in string-merging sections, and at
// -O0 gcc in plain .rodata, where nothing marks them: there the bytes must
// be non-empty printable text, so constants and jump tables are not taken
// for strings.
func (f *File) literalAt(sec elf.SectionIndex, off uint64) (string, bool) {
	s := f.section(sec)
	if s == nil || s.data == nil || off >= uint64(len(s.data)) ||
		s.flags&(elf.SHF_WRITE|elf.SHF_EXECINSTR) != 0 || s.flags&elf.SHF_ALLOC == 0 {
		return "", false
	}
	rest := s.data[off:]
	n := bytes.IndexByte(rest, 0)
	if n < 0 {
		return "", false
	}
	if sym := f.symbolCovering(sec, off); sym != nil && sym.Size > 0 && (sym.Value != off || sym.Size != uint64(n)+1) {
		// Bytes of a sized object that are not exactly one string:
		// a table whose first entries happen to read as text
		// (static const char t[16] = {'a', 0, 3, ...}). Named as a
		// literal it would be an object of n+1 bytes, and its other
		// entries outside it — the OBVA premises would then exclude
		// every run that reads them.
		return "", false
	}
	if s.flags&elf.SHF_STRINGS != 0 {
		return string(rest[:n]), true
	}
	// Outside a string section, a literal is named by its text only where
	// the compiler puts literals: gcc -O0 puts them all in .rodata (and at
	// every level those with a NUL inside). clang puts there the
	// initializers of local arrays ("ab\0cd…" copied or indexed whole),
	// gcc its constant pools in mergeable sections, and at -O0 the
	// initializers it copies with rep movs in .rodata: named by their
	// first NUL-terminated bytes, two different blobs with the same start
	// would be one object on both sides, and a read past that NUL,
	// legitimate in the blob, out of bounds. So the bytes after the NUL,
	// up to where the next object may start (nextStart: a symbol, a
	// relocation's target), must be padding: a literal with its own text
	// past a NUL ("xy\0cd", indexed up to its end) is no literal "xy".
	// The empty literal alike: gcc -O0's "" is a NUL the next literal
	// follows; an initializer {0, 0, 3, ...} runs on.
	if !f.plainLiterals || s.flags&elf.SHF_MERGE != 0 {
		return "", false
	}
	for _, c := range s.data[min(off+uint64(n)+1, uint64(len(s.data))):min(f.nextStart(sec, off+uint64(n)), uint64(len(s.data)))] {
		if c != 0 {
			return "", false
		}
	}
	for _, c := range rest[:n] {
		if !textByte(c) {
			return "", false
		}
	}
	return string(rest[:n]), true
}

// textByte says whether c is printable ASCII or a tab or line break.
func textByte(c byte) bool {
	return c >= 0x20 && c <= 0x7e || c == '\t' || c == '\n' || c == '\r'
}

func oneLine(s string) string {
	return string(bytes.ReplaceAll([]byte(s), []byte("\n"), []byte(" ")))
}
