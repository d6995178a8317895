package tracer

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"eqc/x86"
)

// DefaultExternSize is the size given to an undefined data symbol whose size
// the object's DWARF does not state (no -g, clang's omission of unused extern
// declarations, or an incomplete array type such as `extern int a[];`).
const DefaultExternSize = 1 << 20

// ExternKind says whether an undefined symbol is data or a function.
type ExternKind int

const (
	// ExternData is an undefined data symbol; the driver defines it as a
	// zero-initialised, 64-byte aligned object.
	ExternData ExternKind = iota
	// ExternFunc is an undefined function; the driver defines it as a stub
	// unless it is kept from libc (LinkOptions.Libc).
	ExternFunc
)

func (k ExternKind) String() string {
	if k == ExternFunc {
		return "func"
	}
	return "data"
}

// ScalarKind classifies a stub parameter or result.
type ScalarKind int

// Scalar kinds of stub parameters and results.
const (
	ScalarVoid ScalarKind = iota
	ScalarInt
	ScalarFloat32
	ScalarFloat64
	// ScalarAggregate is a struct or complex number returned by value
	// (Param.Agg); one passed by value is a Param per eightbyte.
	ScalarAggregate
)

// Param is one parameter of an external function as declared in DWARF.
type Param struct {
	Kind    ScalarKind
	Size    int  // bytes: 1, 2, 4 or 8
	Signed  bool // integer parameters: sign- (true) or zero-extended to 64 bits
	Pointer bool // a pointer: compared and hashed by what it points to (canon.go)
	// Bool: C's _Bool, whose value the SysV ABI fixes at 0 or 1 in the
	// low byte; a stub returning one returns (_Bool)h, as a real callee
	// would, since callers test the byte as they like (al ^ 1, test al).
	Bool bool
	// Out is the scalar a pointer parameter points to when the callee may
	// write it (not const-qualified, not a pointer, an aggregate or void);
	// the stub writes one there (StubOut). Kind ScalarVoid otherwise.
	Out Pointee
	// Agg, when set, is the aggregate passed by value the parameter is
	// eightbyte Word of (aggregate.go), or the aggregate a function
	// returns (Kind ScalarAggregate).
	Agg  *Aggregate
	Word int
}

// Pointee is the scalar object a pointer parameter points to.
type Pointee struct {
	Kind ScalarKind
	Size int
	Bool bool
}

// Extern is an undefined symbol of an object.
type Extern struct {
	Name string
	Kind ExternKind

	// Data symbols.
	Size      int64 // bytes the driver reserves
	SizeKnown bool  // Size comes from DWARF (or LinkOptions.Sizes), not the default
	TLS       bool  // a thread-local variable (defined __thread; not an observable Global)

	// Functions. When Prototyped is false the DWARF declaration was missing or
	// had a parameter the stub cannot model (a union by value, long double);
	// the stub then hashes rdi..r9 as six 64-bit integers, whose upper halves
	// are unspecified by the ABI for narrower arguments. A struct passed by
	// value is a Param per eightbyte (aggregate.go), so Params are the words
	// the stub logs, not the C parameters.
	Params     []Param
	Variadic   bool
	Ret        Param
	Prototyped bool
	NoReturn   bool // the declaration says it never returns (DW_AT_noreturn)
}

// DataSym is a data object defined by the object itself in a writable
// section (.data, .bss and friends).
type DataSym struct {
	Name  string
	Local bool
	Size  uint64
}

// Object is what the tracer needs to know about a relocatable object.
type Object struct {
	Path    string
	File    string   // the STT_FILE symbol (source file name), if any
	Funcs   []string // defined function symbols, sorted
	Data    []DataSym
	Externs []Extern // undefined symbols, sorted by name
}

// Extern returns the undefined symbol called name.
func (o *Object) Extern(name string) (*Extern, bool) {
	for i := range o.Externs {
		if o.Externs[i].Name == name {
			return &o.Externs[i], true
		}
	}
	return nil, false
}

// ReadObject inspects an x86-64 ELF relocatable object: its defined functions
// and writable data objects, and every undefined symbol, classified as data
// or function and described from the object's DWARF where present.
func ReadObject(path string) (*Object, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	f, err := elf.NewFile(file)
	if err != nil {
		return nil, &NotObjectError{Path: path, Reason: err.Error()}
	}
	if f.Type != elf.ET_REL {
		return nil, &NotObjectError{Path: path, Reason: "ELF type " + f.Type.String()}
	}
	if f.Machine != elf.EM_X86_64 || f.Class != elf.ELFCLASS64 {
		return nil, &NotObjectError{Path: path, Reason: "machine " + f.Machine.String()}
	}
	syms, err := f.Symbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return nil, &NotObjectError{Path: path, Reason: err.Error()}
	}
	o := &Object{Path: path}
	undef := map[string]ExternKind{}
	tls := map[string]bool{}
	for _, s := range syms {
		typ := elf.ST_TYPE(s.Info)
		bind := elf.ST_BIND(s.Info)
		switch {
		case typ == elf.STT_FILE:
			if o.File == "" {
				o.File = s.Name
			}
		case s.Section == elf.SHN_UNDEF:
			if s.Name == "" || s.Name == "_GLOBAL_OFFSET_TABLE_" {
				continue
			}
			undef[s.Name] = ExternData
			tls[s.Name] = typ == elf.STT_TLS
		case typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC:
			o.Funcs = append(o.Funcs, s.Name)
		case typ == elf.STT_OBJECT && s.Section < elf.SHN_LORESERVE && int(s.Section) < len(f.Sections):
			sec := f.Sections[s.Section]
			if sec.Flags&elf.SHF_WRITE != 0 && s.Name != "" {
				o.Data = append(o.Data, DataSym{Name: s.Name, Local: bind == elf.STB_LOCAL, Size: s.Size})
			}
		case typ == elf.STT_OBJECT && s.Section == elf.SHN_COMMON:
			o.Data = append(o.Data, DataSym{Name: s.Name, Size: s.Size})
		}
	}
	// Relocations: a PLT32 reference (call/jmp) makes a symbol a function.
	for _, sec := range f.Sections {
		if sec.Type != elf.SHT_RELA || strings.Contains(sec.Name, ".debug") {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			return nil, &NotObjectError{Path: path, Reason: err.Error()}
		}
		for i := 0; i+24 <= len(data); i += 24 {
			info := f.ByteOrder.Uint64(data[i+8:])
			symIdx, typ := int(info>>32), elf.R_X86_64(info&0xffffffff)
			if symIdx == 0 || symIdx-1 >= len(syms) {
				continue
			}
			name := syms[symIdx-1].Name
			if _, ok := undef[name]; ok && typ == elf.R_X86_64_PLT32 {
				undef[name] = ExternFunc
			}
		}
	}
	decls := readDeclarations(f)
	for name, kind := range undef {
		e := Extern{Name: name, Kind: kind}
		if d, ok := decls[name]; ok {
			e = d
			e.Name = name
		}
		e.TLS = tls[name] && e.Kind == ExternData
		if e.Kind == ExternData && e.Size <= 0 {
			e.Size, e.SizeKnown = DefaultExternSize, false
		}
		o.Externs = append(o.Externs, e)
	}
	sort.Strings(o.Funcs)
	sort.Slice(o.Externs, func(i, j int) bool { return o.Externs[i].Name < o.Externs[j].Name })
	return o, nil
}

// readDeclarations is the minimal DWARF reader the driver needs: the
// top-level declarations (DW_AT_declaration) of variables, with their sizes,
// and of subprograms, with their scalar parameters and result. Objects without
// DWARF, or with DWARF Go cannot read, yield an empty map.
func readDeclarations(f *elf.File) map[string]Extern {
	out := map[string]Extern{}
	d, err := f.DWARF()
	if err != nil {
		return out
	}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			return out
		}
		switch e.Tag {
		case dwarf.TagCompileUnit, dwarf.TagPartialUnit:
			continue // descend into the unit
		case dwarf.TagVariable:
			name, _ := e.Val(dwarf.AttrName).(string)
			decl, _ := e.Val(dwarf.AttrDeclaration).(bool)
			if decl && name != "" {
				x := Extern{Name: name, Kind: ExternData}
				if off, ok := e.Val(dwarf.AttrType).(dwarf.Offset); ok {
					if t, err := d.Type(off); err == nil && t.Size() > 0 {
						x.Size, x.SizeKnown = t.Size(), true
					}
				}
				out[name] = x
			}
		case dwarf.TagSubprogram:
			name, _ := e.Val(dwarf.AttrName).(string)
			decl, _ := e.Val(dwarf.AttrDeclaration).(bool)
			proto, _ := e.Val(dwarf.AttrPrototyped).(bool)
			x := Extern{Name: name, Kind: ExternFunc, Prototyped: proto}
			x.NoReturn, _ = e.Val(x86.AttrNoreturn).(bool)
			x.Ret = Param{Kind: ScalarVoid}
			if off, ok := e.Val(dwarf.AttrType).(dwarf.Offset); ok {
				var ok bool
				if x.Ret, ok = scalarOf(d, off); !ok {
					if a, isAgg := aggregateAt(d, off); isAgg {
						x.Ret = Param{Kind: ScalarAggregate, Agg: a}
					} else {
						x.Prototyped = false
					}
				}
			}
			aggArgs := false
			if e.Children {
				for {
					c, err := r.Next()
					if err != nil || c == nil {
						return out
					}
					if c.Tag == 0 {
						break
					}
					switch c.Tag {
					case dwarf.TagFormalParameter:
						off, ok := c.Val(dwarf.AttrType).(dwarf.Offset)
						p, good := Param{}, false
						if ok {
							p, good = scalarOf(d, off)
						}
						if a, isAgg := aggregateAt(d, off); ok && !good && isAgg {
							x.Params = append(x.Params, aggregateWords(a)...)
							aggArgs = true
							break
						}
						if !good || p.Kind == ScalarVoid {
							x.Prototyped = false
						}
						x.Params = append(x.Params, p)
					case dwarf.TagUnspecifiedParameters:
						x.Variadic = true
					}
					if c.Children {
						r.SkipChildren()
					}
				}
			}
			if aggArgs && x.Variadic {
				// Which registers the variadic part begins at depends on
				// the aggregates' classes: left to the six registers.
				x.Prototyped = false
			}
			if decl && name != "" {
				out[name] = x
			}
			continue
		}
		if e.Children {
			r.SkipChildren()
		}
	}
}

// scalarOf classifies a DWARF type as a stub can pass it; ok is false for
// aggregates and x87 long double.
func scalarOf(d *dwarf.Data, off dwarf.Offset) (Param, bool) {
	t, err := d.Type(off)
	if err != nil {
		return Param{}, false
	}
	t, _ = unqualified(t)
	return scalarOfType(t)
}

// aggregateAt is aggregateOf of the DWARF type at off.
func aggregateAt(d *dwarf.Data, off dwarf.Offset) (*Aggregate, bool) {
	t, err := d.Type(off)
	if err != nil {
		return nil, false
	}
	return aggregateOf(t)
}

// unqualified is t without its typedefs and qualifiers, and whether a
// const was among them.
func unqualified(t dwarf.Type) (dwarf.Type, bool) {
	isConst := false
	for {
		switch tt := t.(type) {
		case *dwarf.TypedefType:
			t = tt.Type
			continue
		case *dwarf.QualType:
			isConst = isConst || tt.Qual == "const"
			t = tt.Type
			continue
		}
		return t, isConst
	}
}

func scalarOfType(t dwarf.Type) (Param, bool) {
	switch tt := t.(type) {
	case *dwarf.PtrType:
		return Param{Kind: ScalarInt, Size: 8, Pointer: true, Out: writablePointee(tt.Type)}, true
	case *dwarf.BoolType:
		return Param{Kind: ScalarInt, Size: 1, Bool: true}, true
	case *dwarf.IntType, *dwarf.CharType:
		return intParam(t.Size(), true)
	case *dwarf.UintType, *dwarf.UcharType:
		return intParam(t.Size(), false)
	case *dwarf.EnumType:
		return intParam(t.Size(), false)
	case *dwarf.FloatType:
		switch tt.ByteSize {
		case 4:
			return Param{Kind: ScalarFloat32, Size: 4}, true
		case 8:
			return Param{Kind: ScalarFloat64, Size: 8}, true
		}
	case *dwarf.VoidType:
		return Param{Kind: ScalarVoid}, true
	}
	return Param{}, false
}

// writablePointee is the scalar a callee may write through a pointer to
// t: none when t is const-qualified (at its top level, through typedefs),
// a pointer (a made-up pointer would be dereferenced later), an aggregate
// or void.
func writablePointee(t dwarf.Type) Pointee {
	t, isConst := unqualified(t)
	if isConst || t == nil {
		return Pointee{}
	}
	p, ok := scalarOfType(t)
	if !ok || p.Pointer || p.Kind == ScalarVoid {
		return Pointee{}
	}
	return Pointee{Kind: p.Kind, Size: p.Size, Bool: p.Bool}
}

func intParam(size int64, signed bool) (Param, bool) {
	switch size {
	case 1, 2, 4, 8:
		return Param{Kind: ScalarInt, Size: int(size), Signed: signed}, true
	}
	return Param{}, false
}

func (p Param) cType() string {
	switch p.Kind {
	case ScalarVoid:
		return "void"
	case ScalarFloat32:
		return "float"
	case ScalarFloat64:
		return "double"
	}
	if p.Bool {
		return "_Bool"
	}
	s := map[int]string{1: "char", 2: "short", 4: "int", 8: "long"}[p.Size]
	if p.Size == 1 && p.Signed {
		return "signed char"
	}
	if !p.Signed {
		return "unsigned " + s
	}
	return s
}

func (e Extern) String() string {
	if e.Kind == ExternData {
		return fmt.Sprintf("data %s[%d]", e.Name, e.Size)
	}
	return fmt.Sprintf("func %s/%d", e.Name, len(e.Params))
}
