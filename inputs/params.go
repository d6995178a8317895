package inputs

import (
	"fmt"
	"strings"

	"eqc/x86"
)

// Kind is how a parameter is passed under the SysV x86-64 convention, as
// far as choosing values goes.
type Kind uint8

// Kinds of parameters.
const (
	Int       Kind = iota // integer, bool or enum of at most 8 bytes: one general register
	Pointer               // pointer, array or function: one general register holding an address
	Float                 // float or double: the low lane of an xmm register
	Aggregate             // struct, union or 9..16-byte integer by value: one or two general registers
	Unknown               // no signature: a general register of unknown meaning
	Memory                // passed in memory or not modelled (a struct over 16 bytes, long double, _Complex, a float beyond xmm7): no register, no value
)

var kindNames = [...]string{"int", "pointer", "float", "aggregate", "unknown", "memory"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Elem describes what a pointer parameter (or an array) points to.
type Elem struct {
	Size    int  // the pointee's size in bytes; 0 for void and incomplete pointees
	Float   bool // float or double elements
	Pointer bool // the elements are pointers
	Char    bool // a char type: the pointer is a string, which inputs end with a NUL
	// Links are the byte offsets of a struct element's pointer members
	// (a list's next): the differential test chains the elements of a
	// buffer through them (Link), where random bytes would only make
	// the source fault.
	Links []int64
}

// Param is one parameter as the caller passes it.
type Param struct {
	Name   string // from DWARF, or argN
	Kind   Kind
	Size   int  // bytes of the value, as DWARF states it (0 or less: unknown)
	Signed bool // integers: sign-extended to 64 bits
	// Reg is the index of the first register: among rdi, rsi, rdx, rcx,
	// r8, r9 (and beyond, for parameters passed on the stack) for every
	// kind but Float, among xmm0..xmm7 for Float.
	Reg  int
	Regs int      // general registers taken: 0 for floats, 2 for 9..16-byte aggregates, else 1
	Elem Elem     // Pointer: the pointee
	Type x86.Type // the DWARF type (zero for Unknown)
}

// Signature is a function's parameters as inputs give them values.
type Signature struct {
	Params []Param
	GPRs   int // general registers the parameters take
	XMMs   int // xmm registers the parameters take
	// DWARF says the parameters come from a DWARF signature (else they
	// are six Unknown registers).
	DWARF bool
	// Skipped says some parameter is of Kind Memory: inputs leave it as
	// the caller's stack has it.
	Skipped  bool
	Variadic bool
	// Lost says a parameter's registers could not be told (a struct or
	// union with bit-fields passed by value): Params ends before it, as
	// the registers of the later ones are not known either.
	Lost bool
}

// Classify reads the parameters of a DWARF signature; without one (nil)
// the six integer argument registers are parameters of unknown type.
func Classify(sig *x86.FuncDebug) Signature {
	var s Signature
	if sig == nil {
		for i := range x86.CalleeArgRegs {
			s.Params = append(s.Params, Param{Name: fmt.Sprintf("arg%d", i), Kind: Unknown, Size: 8, Reg: i, Regs: 1, Elem: Elem{Size: 1}})
		}
		s.GPRs = len(x86.CalleeArgRegs)
		return s
	}
	s.DWARF, s.Variadic = true, sig.Variadic
	if r := sig.Return; (r.Kind == x86.KindStruct || r.Kind == x86.KindUnion) && r.Size > 16 {
		// Returned in memory: the caller passes the block's address in
		// rdi, and the parameters start at rsi.
		s.GPRs, s.Skipped = 1, true
	}
	for i, v := range sig.Params {
		t := v.Type
		p := Param{Name: v.Name, Size: int(t.Size), Signed: t.Signed, Type: t}
		if p.Name == "" {
			p.Name = fmt.Sprintf("arg%d", i)
		}
		xmms := 0 // xmm registers an aggregate takes besides its general ones
		switch t.Kind {
		case x86.KindInt, x86.KindBool, x86.KindEnum:
			p.Kind, p.Regs = Int, 1
			if t.Size > 8 {
				p.Kind, p.Regs = Aggregate, 2
			}
		case x86.KindPointer, x86.KindArray, x86.KindFunc:
			p.Kind, p.Size, p.Regs = Pointer, 8, 1
			p.Elem = PointeeOf(t)
		case x86.KindFloat:
			p.Kind = Float
			if t.Size != 4 && t.Size != 8 || s.XMMs >= 8 {
				p.Kind = Memory
			}
		case x86.KindStruct, x86.KindUnion:
			p.Kind = Memory
			if t.Size > 0 && t.Size <= 16 {
				e, ok := t.Eightbytes()
				if !ok {
					// Which registers it takes is not known (a
					// bit-field): nor are the later parameters'.
					s.Lost, s.Skipped = true, true
					return s
				}
				p.Kind = Aggregate
				p.Regs, xmms = e.Counts()
			}
		default:
			p.Kind = Memory
		}
		if p.Kind == Aggregate && (s.GPRs+p.Regs > len(x86.CalleeArgRegs) || s.XMMs+xmms > 8) {
			p.Kind, p.Regs, xmms = Memory, 0, 0 // all of it on the stack (SysV: no register or all)
		}
		switch p.Kind {
		case Memory:
			s.Skipped = true
			p.Reg = -1
		case Float:
			p.Reg = s.XMMs
			s.XMMs++
		default:
			p.Reg = s.GPRs
			s.GPRs += p.Regs
			s.XMMs += xmms
		}
		s.Params = append(s.Params, p)
	}
	return s
}

// PointeeOf describes the elements of a pointer or array type: by the
// pointee's kind where DWARF gives it (a typedef such as TSVC's real_t is
// a float), else by its spelling.
func PointeeOf(t x86.Type) Elem {
	e := Elem{Size: int(max(t.PointeeSize, 0))}
	name := strings.TrimSpace(t.Pointee)
	switch t.PointeeKind {
	case x86.KindUnknown:
		e.Pointer = strings.HasPrefix(name, "*") || strings.HasSuffix(name, "*") // Go's debug/dwarf spells pointers *T
		e.Float = !e.Pointer && (name == "float" || name == "double")
	case x86.KindPointer:
		e.Pointer = true
	case x86.KindFloat:
		e.Float = true
	}
	e.Char = !e.Pointer && !e.Float && e.Size == 1 && strings.Contains(name, "char")
	if t.PointeeKind == x86.KindStruct {
		e.Links = t.PointeeLinks
	}
	return e
}

// IsCharPointer reports whether t points to a char type: a string.
func IsCharPointer(t x86.Type) bool {
	return t.Kind == x86.KindPointer && PointeeOf(t).Char
}

// RegisterParam is what co-execution and the solver's small-input
// constraint need to know of one integer argument register.
type RegisterParam struct {
	Narrow  bool // the parameter is narrower than 8 bytes (an int: the upper half is undefined)
	Size    int  // the parameter's bytes (8 for a pointer)
	Pointer bool
	String  bool // a char pointer
	Elem    Elem // Pointer: the pointee
}

// RegisterParams walks the signature over the six integer argument
// registers in order, past float and double parameters (they take xmm
// registers, and the integer ones after them are assigned in order), up
// to the first parameter that is not a scalar in one of them (an
// aggregate, one passed in memory: the registers after it are not
// followed), and returns what each register carries and
// how many carry parameters; a variadic or missing signature carries
// parameters in all six.
func RegisterParams(sig *x86.FuncDebug) ([]RegisterParam, int) {
	out := make([]RegisterParam, len(x86.CalleeArgRegs))
	s := Classify(sig)
	if !s.DWARF || s.Variadic || s.Lost || len(s.Params) > 0 && s.Params[0].Reg > 0 {
		return out, len(out) // (a first parameter past rdi: a struct result's address is there)
	}
	n := 0
	for _, p := range s.Params {
		if p.Kind == Float {
			continue // in an xmm register: the next integer one is the next integer parameter's
		}
		if p.Kind != Int && p.Kind != Pointer {
			return out, len(out)
		}
		if n < len(out) {
			out[n] = RegisterParam{Narrow: p.Kind == Int && p.Size > 0 && p.Size < 8, Size: p.Size, Pointer: p.Kind == Pointer, String: p.Elem.Char, Elem: p.Elem}
		}
		n++
	}
	return out, n
}

// FloatParams is what the DWARF signature passes in each xmm argument
// register: a float (4) or double (8) parameter's bytes in the low lane,
// 0 where the register carries none. Without a signature, none is known.
func FloatParams(sig *x86.FuncDebug) []int {
	s := Classify(sig)
	if !s.DWARF {
		return nil
	}
	var out []int
	for _, p := range s.Params {
		if p.Kind != Float {
			continue
		}
		for len(out) <= p.Reg {
			out = append(out, 0)
		}
		out[p.Reg] = p.Size
	}
	return out
}

// Unit is the element size inputs fill memory of e's elements in: the
// pointee's size when it is 1, 2, 4 or 8 bytes (8 for pointers), else 4
// (the fields of a struct are mostly ints).
func (e Elem) Unit() int {
	switch {
	case e.Pointer:
		return 8
	case e.Size == 1 || e.Size == 2 || e.Size == 4 || e.Size == 8:
		return e.Size
	}
	return 4
}
