package x86

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"

	"golang.org/x/arch/x86/x86asm"
)

// TypeKind is the shape of a C type once typedefs and qualifiers are peeled.
type TypeKind uint8

const (
	KindUnknown TypeKind = iota
	KindVoid
	KindBool
	KindInt
	KindFloat
	KindComplex
	KindPointer
	KindStruct
	KindUnion
	KindArray
	KindEnum
	KindFunc
)

var kindNames = [...]string{"unknown", "void", "bool", "int", "float", "complex", "pointer", "struct", "union", "array", "enum", "func"}

func (k TypeKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("TypeKind(%d)", uint8(k))
}

// Type is what the rest of eqc needs to know of a C type: how many bytes it
// takes, whether it extends signed, and for pointers how wide the pointee is.
type Type struct {
	Name   string // C spelling as DWARF gives it, typedef names kept
	Kind   TypeKind
	Size   int64 // bytes; -1 when unknown (void, incomplete types)
	Signed bool  // signed integer, signed char or an enum with negative values
	// Restrict: a restrict-qualified pointer (int *restrict p), the
	// qualifier on the type itself or on a typedef it names.
	Restrict bool
	// Pointee and PointeeSize describe what a pointer points to (for arrays:
	// the element), arrays peeled to their elements (elementOf: a pointer
	// to double[2] or an array of int[8] has double or int elements);
	// PointeeSize is -1 for void and incomplete pointees.
	Pointee     string
	PointeeSize int64
	// PointeeKind and PointeeSigned are the pointee's (an array's
	// element's) kind and signedness.
	PointeeKind   TypeKind
	PointeeSigned bool
	// PointeeLinks are the byte offsets, within a struct pointee (an
	// array's struct element), of its pointer members, nested structs'
	// included: a list's next, a tree's children.
	PointeeLinks []int64
	// PointeeScalars are the scalar members of a struct pointee (an
	// array's struct element) of at most maxPointeeScalarBytes, as
	// Scalars lists them: which bytes of each element are a float or a
	// double. Nil for other pointees.
	PointeeScalars []Scalar
	// Members are, for a struct (not a union) of at most
	// maxPointeeScalarBytes, its scalar members as Scalars lists them.
	Members []Scalar
	// Scalars are the members of a struct or union of at most 16 bytes,
	// nested structs and arrays flattened, in offset order (a union's
	// members overlap): what the ABI passes in registers and, for a
	// struct, what of those bytes is not padding. Nil for other types, and
	// for bit-fields or members of unknown shape.
	Scalars []Scalar
}

// Scalar is one scalar member of a struct (Type.Scalars).
type Scalar struct {
	Off, Size int64
	Float     bool // float or double
	Pointer   bool
	Bool      bool // C's _Bool: 0 or 1 is its only value
	// InUnion: a union's member, whose bytes beyond it may belong to
	// another member or to none (which member is live, the type does not
	// say).
	InUnion bool
}

// IsPointer says whether values of the type are addresses.
func (t Type) IsPointer() bool { return t.Kind == KindPointer }

// Variable is a parameter or local variable of a function.
type Variable struct {
	Name string
	Type Type
	// InFrame says the variable lives at FrameOffset from the function's
	// frame base (DW_OP_fbreg), as every variable does at -O0.
	InFrame     bool
	FrameOffset int64
	// Static says the variable lives at the fixed address Addr (DW_OP_addr):
	// a static local.
	Static bool
	Addr   uint64
}

// FrameBase is the DWARF frame base that FrameOffsets count from.
type FrameBase struct {
	// CFA: the frame base is the canonical frame address, the value rsp had
	// before the call, so the return address sits at CFA-8 (gcc's choice).
	CFA bool
	// Reg (when not CFA) is the register holding the frame base plus Offset
	// (clang at -O0 uses rbp); 0 when the frame base is unknown.
	Reg    x86asm.Reg
	Offset int64
}

// FuncDebug holds a function's DWARF facts.
type FuncDebug struct {
	Params   []Variable
	Return   Type // Kind KindVoid for void functions
	Variadic bool
	// NoReturn: the declaration says the function never returns
	// (DW_AT_noreturn: C11 _Noreturn or the noreturn attribute).
	NoReturn  bool
	Locals    []Variable // including those of nested lexical blocks
	FrameBase FrameBase
}

// GlobalVar is a file-scope variable described by DWARF.
type GlobalVar struct {
	Name   string
	Type   Type
	Extern bool // only a declaration was seen: defined in another unit
	Static bool // file-local (no DW_AT_external)
	// Align is the alignment the declaration states (DW_AT_alignment, from
	// an alignment attribute); 0 when it states none.
	Align int64
	// Encoded says the variable's value is not the bytes at its symbol: its
	// location computes it from them (clang at -O2 keeps a static that
	// only ever holds two values as a one-byte flag: DW_OP_addrx;
	// DW_OP_deref_size 1; ...; DW_OP_stack_value), or is no address at all.
	Encoded bool
}

// dwarfRegs maps DWARF x86-64 register numbers to x86asm registers.
var dwarfRegs = [...]x86asm.Reg{x86asm.RAX, x86asm.RDX, x86asm.RCX, x86asm.RBX, x86asm.RSI, x86asm.RDI,
	x86asm.RBP, x86asm.RSP, x86asm.R8, x86asm.R9, x86asm.R10, x86asm.R11, x86asm.R12, x86asm.R13, x86asm.R14, x86asm.R15}

type dieVar struct {
	name     string
	linkage  string // DW_AT_linkage_name: the symbol, when the name is not it
	typeOff  dwarf.Offset
	hasType  bool
	origin   dwarf.Offset // DW_AT_abstract_origin or DW_AT_specification, 0 if none
	loc      []byte
	decl     bool
	external bool
	align    int64 // DW_AT_alignment; 0 when absent
}

// AttrNoreturn is DW_AT_noreturn (DWARF 5, 0x87), which debug/dwarf does
// not name.
const AttrNoreturn = dwarf.Attr(0x87)

type dieSub struct {
	dieVar
	lowPC     uint64
	hasLowPC  bool
	frameBase []byte
	variadic  bool
	noreturn  bool
	params    []*dieVar
	locals    []*dieVar
}

// readDWARF attaches DWARF facts to functions and fills Globals. Missing or
// unreadable DWARF leaves them empty, with a warning for the latter.
func (f *File) readDWARF(ef *elf.File) {
	if f.sectionNamed(".debug_info") == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			f.Warnings = append(f.Warnings, fmt.Sprint("DWARF: ", r))
		}
	}()
	d, err := ef.DWARF()
	if err != nil {
		f.Warnings = append(f.Warnings, "DWARF: "+oneLine(err.Error()))
		return
	}
	w := dwarfWalk{d: d, subs: map[dwarf.Offset]*dieSub{}, vars: map[dwarf.Offset]*dieVar{}, types: map[dwarf.Offset]Type{}}
	if err := w.walk(); err != nil {
		f.Warnings = append(f.Warnings, "DWARF: "+oneLine(err.Error()))
	}
	for _, s := range w.concrete {
		name := w.subName(s)
		fn := f.matchDebug(name, s.lowPC)
		if fn == nil || fn.Debug != nil {
			continue
		}
		fn.Debug = w.funcDebug(s)
	}
	for _, s := range w.decls {
		if name := w.subName(s); name != "" && f.protos[name] == nil {
			f.protos[name] = w.funcDebug(s)
		}
		// glibc renames some functions for its large-file interface
		// (lstat is declared with the symbol lstat64): calls name the
		// symbol.
		if s.linkage != "" && f.protos[s.linkage] == nil {
			f.protos[s.linkage] = w.funcDebug(s)
		}
	}
	for _, v := range w.globals {
		name, typ := w.varName(v), w.varType(v)
		if name == "" {
			continue
		}
		g := &GlobalVar{Name: name, Type: typ, Extern: v.decl, Static: !w.external(v), Align: v.align, Encoded: encodedLocation(v.loc)}
		if old, ok := f.Globals[name]; ok && !old.Extern {
			continue
		}
		f.Globals[name] = g
	}
}

// Prototype returns the parameters and return type of the function name
// as this file's DWARF states them: from its definition here, or from a
// declaration of it (a callee defined elsewhere); ok is false when the
// file states none.
func (f *File) Prototype(name string) (*FuncDebug, bool) {
	if fs := f.byName[name]; len(fs) == 1 && fs[0].Debug != nil {
		return fs[0].Debug, true
	}
	p, ok := f.protos[name]
	return p, ok
}

// matchDebug finds the function a concrete DWARF subprogram describes: by
// name, and by address among same-named static functions. Compiler clones
// (foo.constprop.0) have other names and get no facts, since their
// parameters are not the source's.
func (f *File) matchDebug(name string, lowPC uint64) *Func {
	cands := f.byName[name]
	for _, fn := range cands {
		if fn.Addr == lowPC {
			return fn
		}
	}
	if len(cands) == 1 {
		return cands[0]
	}
	return nil
}

type dwarfWalk struct {
	d        *dwarf.Data
	subs     map[dwarf.Offset]*dieSub
	vars     map[dwarf.Offset]*dieVar
	types    map[dwarf.Offset]Type
	concrete []*dieSub
	decls    []*dieSub // declarations of functions defined elsewhere
	globals  []*dieVar
}

func (w *dwarfWalk) walk() error {
	type frame struct {
		tag dwarf.Tag
		sub *dieSub // innermost enclosing subprogram, nil inside inlined code
	}
	var stack []frame
	r := w.d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return err
		}
		if e == nil {
			return nil
		}
		if e.Tag == 0 {
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		var parent frame
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		cur := frame{tag: e.Tag, sub: parent.sub}
		switch e.Tag {
		case dwarf.TagSubprogram:
			s := &dieSub{dieVar: readVar(e)}
			if v, ok := e.Val(dwarf.AttrLowpc).(uint64); ok {
				s.lowPC, s.hasLowPC = v, true
			}
			s.frameBase, _ = e.Val(dwarf.AttrFrameBase).([]byte)
			s.noreturn, _ = e.Val(AttrNoreturn).(bool)
			if proto, _ := e.Val(dwarf.AttrPrototyped).(bool); s.decl && !proto {
				// Declared without a prototype (C's f()): the call
				// sites say what is passed, as for a variadic callee.
				s.variadic = true
			}
			w.subs[e.Offset] = s
			if s.hasLowPC && !s.decl {
				w.concrete = append(w.concrete, s)
			}
			if s.decl && parent.tag == dwarf.TagCompileUnit {
				w.decls = append(w.decls, s)
			}
			cur.sub = s
		case dwarf.TagInlinedSubroutine:
			cur.sub = nil
		case dwarf.TagFormalParameter:
			v := readVar(e)
			w.vars[e.Offset] = &v
			if parent.tag == dwarf.TagSubprogram && parent.sub != nil {
				parent.sub.params = append(parent.sub.params, &v)
			}
		case dwarf.TagUnspecifiedParameters:
			if parent.tag == dwarf.TagSubprogram && parent.sub != nil {
				parent.sub.variadic = true
			}
		case dwarf.TagVariable:
			v := readVar(e)
			w.vars[e.Offset] = &v
			switch {
			case parent.tag == dwarf.TagCompileUnit || parent.tag == dwarf.TagPartialUnit:
				w.globals = append(w.globals, &v)
			case parent.sub != nil:
				parent.sub.locals = append(parent.sub.locals, &v)
			}
		}
		if e.Children {
			stack = append(stack, cur)
		}
	}
}

func readVar(e *dwarf.Entry) dieVar {
	var v dieVar
	v.name, _ = e.Val(dwarf.AttrName).(string)
	v.linkage, _ = e.Val(dwarf.AttrLinkageName).(string)
	if t, ok := e.Val(dwarf.AttrType).(dwarf.Offset); ok {
		v.typeOff, v.hasType = t, true
	}
	if o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok {
		v.origin = o
	} else if o, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset); ok {
		v.origin = o
	}
	v.loc, _ = e.Val(dwarf.AttrLocation).([]byte)
	v.decl, _ = e.Val(dwarf.AttrDeclaration).(bool)
	v.external, _ = e.Val(dwarf.AttrExternal).(bool)
	if a, ok := e.Val(dwarf.AttrAlignment).(int64); ok && a > 0 {
		v.align = a
	}
	return v
}

// origin follows abstract-origin and specification links to the DIE that
// carries names and types; bounded because the links come from the file.
func (w *dwarfWalk) origin(v *dieVar) []*dieVar {
	chain := []*dieVar{v}
	for i := 0; i < 8 && v.origin != 0; i++ {
		next := w.vars[v.origin]
		if next == nil {
			if s := w.subs[v.origin]; s != nil {
				next = &s.dieVar
			}
		}
		if next == nil {
			break
		}
		chain = append(chain, next)
		v = next
	}
	return chain
}

func (w *dwarfWalk) varName(v *dieVar) string {
	for _, c := range w.origin(v) {
		if c.name != "" {
			return c.name
		}
	}
	return ""
}

func (w *dwarfWalk) external(v *dieVar) bool {
	for _, c := range w.origin(v) {
		if c.external {
			return true
		}
	}
	return false
}

func (w *dwarfWalk) subName(s *dieSub) string { return w.varName(&s.dieVar) }

// varType returns the type of a variable, or the return type of a
// subprogram (void when it has none).
func (w *dwarfWalk) varType(v *dieVar) Type {
	for _, c := range w.origin(v) {
		if c.hasType {
			return w.typeAt(c.typeOff)
		}
	}
	return Type{Name: "void", Kind: KindVoid, Size: -1, PointeeSize: -1}
}

func (w *dwarfWalk) funcDebug(s *dieSub) *FuncDebug {
	fd := &FuncDebug{Return: w.varType(&s.dieVar), Variadic: s.variadic, NoReturn: s.noreturn, FrameBase: frameBase(s.frameBase)}
	// A concrete out-of-line copy may list its parameters only through the
	// abstract origin; take them from there when it lists none.
	params := s.params
	if len(params) == 0 && s.origin != 0 {
		if o := w.subs[s.origin]; o != nil {
			params = o.params
			fd.Variadic = fd.Variadic || o.variadic
		}
	}
	if s.origin != 0 {
		if o := w.subs[s.origin]; o != nil {
			fd.NoReturn = fd.NoReturn || o.noreturn
		}
	}
	for _, p := range params {
		fd.Params = append(fd.Params, w.variable(p))
	}
	for _, l := range s.locals {
		fd.Locals = append(fd.Locals, w.variable(l))
	}
	return fd
}

func (w *dwarfWalk) variable(v *dieVar) Variable {
	out := Variable{Name: w.varName(v), Type: w.varType(v)}
	loc := v.loc
	switch {
	case len(loc) > 1 && loc[0] == 0x91: // DW_OP_fbreg
		if off, n := sleb128(loc[1:]); n > 0 && 1+n == len(loc) {
			out.InFrame, out.FrameOffset = true, off
		}
	case len(loc) == 9 && loc[0] == 0x03: // DW_OP_addr
		var a uint64
		for i := 8; i >= 1; i-- {
			a = a<<8 | uint64(loc[i])
		}
		out.Static, out.Addr = true, a
	}
	return out
}

func frameBase(expr []byte) FrameBase {
	switch {
	case len(expr) == 1 && expr[0] == 0x9c: // DW_OP_call_frame_cfa
		return FrameBase{CFA: true}
	case len(expr) == 1 && expr[0] >= 0x50 && expr[0] < 0x50+byte(len(dwarfRegs)): // DW_OP_regN
		return FrameBase{Reg: dwarfRegs[expr[0]-0x50]}
	case len(expr) > 1 && expr[0] >= 0x70 && expr[0] < 0x70+byte(len(dwarfRegs)): // DW_OP_bregN off
		if off, n := sleb128(expr[1:]); n > 0 && 1+n == len(expr) {
			return FrameBase{Reg: dwarfRegs[expr[0]-0x70], Offset: off}
		}
	}
	return FrameBase{}
}

// sleb128 decodes a signed LEB128 number and says how many bytes it took
// (0 when malformed).
func sleb128(b []byte) (int64, int) {
	var v int64
	var shift uint
	for i, c := range b {
		if shift >= 64 {
			return 0, 0
		}
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1
		}
	}
	return 0, 0
}

func (w *dwarfWalk) typeAt(off dwarf.Offset) Type {
	if t, ok := w.types[off]; ok {
		return t
	}
	dt, err := w.d.Type(off)
	t := Type{Kind: KindUnknown, Size: -1, PointeeSize: -1}
	if err == nil {
		t = convertType(dt)
	}
	w.types[off] = t
	return t
}

// peel strips typedefs and qualifiers, bounded against cyclic input.
func peel(t dwarf.Type) dwarf.Type {
	for i := 0; i < 64; i++ {
		switch u := t.(type) {
		case *dwarf.TypedefType:
			t = u.Type
		case *dwarf.QualType:
			t = u.Type
		default:
			return t
		}
	}
	return t
}

// restrictQualified reports whether a restrict qualifier is among the
// qualifiers and typedefs peel strips from dt.
func restrictQualified(dt dwarf.Type) bool {
	for i := 0; i < 64; i++ {
		switch u := dt.(type) {
		case *dwarf.TypedefType:
			dt = u.Type
		case *dwarf.QualType:
			if u.Qual == "restrict" {
				return true
			}
			dt = u.Type
		default:
			return false
		}
	}
	return false
}

// elementOf peels dt and the arrays it is made of (a pointer to a row
// double (*)[4], a global int m[8][8]): the element type, peeled, and as
// named. What the code reads and writes through such a pointer or in
// such an array are those elements, one after another.
func elementOf(dt dwarf.Type) (peeled, named dwarf.Type) {
	named, peeled = dt, peel(dt)
	for i := 0; i < 64; i++ {
		a, ok := peeled.(*dwarf.ArrayType)
		if !ok || a.Type == nil {
			break
		}
		named, peeled = a.Type, peel(a.Type)
	}
	return peeled, named
}

// TypeOf is what eqc knows of the C type DWARF describes as dt (the
// tracer reads undefined functions' declarations with debug/dwarf itself).
func TypeOf(dt dwarf.Type) Type { return convertType(dt) }

func convertType(dt dwarf.Type) Type {
	t := Type{Name: dt.String(), Kind: KindUnknown, Size: -1, PointeeSize: -1}
	t.Restrict = restrictQualified(dt)
	u := peel(dt)
	if u == nil {
		return t
	}
	if sz := u.Size(); sz >= 0 {
		t.Size = sz
	}
	switch u := u.(type) {
	case *dwarf.VoidType:
		t.Kind, t.Size = KindVoid, -1
	case *dwarf.BoolType:
		t.Kind = KindBool
	case *dwarf.IntType, *dwarf.CharType:
		t.Kind, t.Signed = KindInt, true
	case *dwarf.UintType, *dwarf.UcharType:
		t.Kind = KindInt
	case *dwarf.FloatType:
		t.Kind = KindFloat
	case *dwarf.ComplexType:
		t.Kind = KindComplex
	case *dwarf.PtrType:
		t.Kind, t.Size = KindPointer, 8
		if u.Type != nil {
			p, named := elementOf(u.Type)
			t.Pointee = named.String()
			if _, void := p.(*dwarf.VoidType); !void && p != nil && p.Size() > 0 {
				t.PointeeSize = p.Size()
			}
			t.PointeeKind, t.PointeeSigned = scalarKind(p)
			t.PointeeLinks = pointerMembers(p, 0, 0)
			t.PointeeScalars = pointeeScalars(p)
		} else {
			t.Pointee = "void"
		}
	case *dwarf.StructType:
		t.Kind = KindStruct
		if u.Kind == "union" {
			t.Kind = KindUnion
		}
		if u.Incomplete {
			t.Size = -1
		}
		if t.Size > 0 && t.Size <= 16 {
			t.Scalars = scalarMembers(u, 0, nil)
		}
		t.Members = pointeeScalars(u)
	case *dwarf.ArrayType:
		t.Kind = KindArray
		if u.Type != nil {
			p, named := elementOf(u.Type)
			t.Pointee = named.String()
			if p != nil && p.Size() > 0 {
				t.PointeeSize = p.Size()
			}
			t.PointeeKind, t.PointeeSigned = scalarKind(p)
			t.PointeeLinks = pointerMembers(p, 0, 0)
			t.PointeeScalars = pointeeScalars(p)
		}
	case *dwarf.EnumType:
		t.Kind = KindEnum
		for _, v := range u.Val {
			if v.Val < 0 {
				t.Signed = true
			}
		}
	case *dwarf.FuncType:
		t.Kind, t.Size = KindFunc, -1
	}
	return t
}

// maxPointeeScalarBytes bounds the structs whose members PointeeScalars
// lists (the list has a member per array element inside).
const maxPointeeScalarBytes = 4096

// pointeeScalars are the scalar members of p when it is a struct (not a
// union) of at most maxPointeeScalarBytes (PointeeScalars, Members).
func pointeeScalars(p dwarf.Type) []Scalar {
	st, ok := p.(*dwarf.StructType)
	if !ok || st.Kind != "struct" || st.Size() <= 0 || st.Size() > maxPointeeScalarBytes {
		return nil
	}
	return scalarMembers(st, 0, nil)
}

// pointerMembers lists the offsets (from base) of the pointer members of
// a peeled struct type, looking into nested structs up to a few levels;
// none for other types and unions (whose members overlap).
func pointerMembers(dt dwarf.Type, base int64, depth int) []int64 {
	st, ok := dt.(*dwarf.StructType)
	if !ok || st.Kind != "struct" || st.Incomplete || depth > 3 {
		return nil
	}
	var out []int64
	for _, f := range st.Field {
		if f.BitSize != 0 || f.Type == nil {
			continue
		}
		switch m := peel(f.Type).(type) {
		case *dwarf.PtrType:
			out = append(out, base+f.ByteOffset)
		case *dwarf.StructType:
			out = append(out, pointerMembers(m, base+f.ByteOffset, depth+1)...)
		}
	}
	return out
}

// scalarMembers appends the scalar members of dt (peeled) at base to out,
// nested structs and array elements flattened; nil when a member is a
// bit-field, a union, or of no scalar shape (the caller then compares
// nothing of the struct).
func scalarMembers(dt dwarf.Type, base int64, out []Scalar) []Scalar {
	switch u := dt.(type) {
	case *dwarf.StructType:
		if u.Incomplete {
			return nil
		}
		if len(u.Field) == 0 {
			return out // an empty struct: nothing to compare, not unknown
		}
		for _, f := range u.Field {
			if f.BitSize != 0 || f.Type == nil {
				return nil
			}
			n := len(out)
			out = scalarMembers(peel(f.Type), base+f.ByteOffset, out)
			if out == nil || len(out) == n && peel(f.Type).Size() != 0 {
				return nil
			}
			if u.Kind == "union" {
				for i := n; i < len(out); i++ {
					out[i].InUnion = true
				}
			}
		}
		return out
	case *dwarf.ArrayType:
		el := peel(u.Type)
		if el == nil || el.Size() <= 0 || u.Count < 0 {
			return nil
		}
		for i := int64(0); i < u.Count; i++ {
			if out = scalarMembers(el, base+i*el.Size(), out); out == nil {
				return nil
			}
		}
		return out
	case *dwarf.PtrType:
		return append(out, Scalar{Off: base, Size: 8, Pointer: true})
	case *dwarf.FloatType:
		if u.Size() != 4 && u.Size() != 8 {
			return nil // long double: x87, not an SSE or integer register
		}
		return append(out, Scalar{Off: base, Size: u.Size(), Float: true})
	case *dwarf.IntType, *dwarf.UintType, *dwarf.CharType, *dwarf.UcharType, *dwarf.BoolType, *dwarf.EnumType:
		if dt.Size() <= 0 || dt.Size() > 8 {
			return nil
		}
		_, isBool := dt.(*dwarf.BoolType)
		return append(out, Scalar{Off: base, Size: dt.Size(), Bool: isBool})
	}
	return nil
}

// scalarKind is the kind of a peeled type, and whether it is a signed
// integer, without following it further (a pointer's pointee, an array's
// element).
func scalarKind(dt dwarf.Type) (TypeKind, bool) {
	switch u := dt.(type) {
	case nil:
		return KindUnknown, false
	case *dwarf.VoidType:
		return KindVoid, false
	case *dwarf.BoolType:
		return KindBool, false
	case *dwarf.IntType, *dwarf.CharType:
		return KindInt, true
	case *dwarf.UintType, *dwarf.UcharType:
		return KindInt, false
	case *dwarf.FloatType:
		return KindFloat, false
	case *dwarf.ComplexType:
		return KindComplex, false
	case *dwarf.PtrType:
		return KindPointer, false
	case *dwarf.StructType:
		if u.Kind == "union" {
			return KindUnion, false
		}
		return KindStruct, false
	case *dwarf.ArrayType:
		return KindArray, false
	case *dwarf.EnumType:
		for _, v := range u.Val {
			if v.Val < 0 {
				return KindEnum, true
			}
		}
		return KindEnum, false
	case *dwarf.FuncType:
		return KindFunc, false
	}
	return KindUnknown, false
}

// encodedLocation says a variable's location expression is more than its
// address (DW_OP_addr, or DW_OP_addrx / DW_OP_GNU_addr_index and an index):
// an empty one (a declaration) is not.
func encodedLocation(loc []byte) bool {
	if len(loc) == 0 {
		return false
	}
	switch loc[0] {
	case 0x03: // DW_OP_addr
		return len(loc) != 9
	case 0xa1, 0xfb: // DW_OP_addrx, DW_OP_GNU_addr_index: a ULEB128 index
		n := 1
		for n < len(loc) && loc[n]&0x80 != 0 {
			n++
		}
		return len(loc) != n+1
	}
	return true
}
