package x86

// Eightbytes is how the SysV convention passes and returns an aggregate of
// at most 16 bytes in registers: each 8-byte half ("eightbyte") is of
// class SSE (the next xmm register) when every member in it is a float
// or double, else INTEGER (the next general register). Complex numbers
// are a struct of their two parts. One classification serves the
// parameters inputs read (inputs.Classify), the results proofs compare
// (pair.returnObservables) and the results real runs compare
// (tracer/confirm.go).
type Eightbytes struct {
	N   int     // eightbytes: 1 or 2
	SSE [2]bool // eightbyte i is of class SSE
	// Mask says which bits of eightbyte i hold members: the rest is
	// padding, unspecified. Meaningful only when Exact.
	Mask [2]uint64
	// Pointer says eightbyte i is one pointer member.
	Pointer [2]bool
	// FloatSize is the size of an SSE eightbyte's floats: 4 or 8.
	FloatSize [2]int64
	// Exact says no member belongs to a union, so Mask says which bytes
	// a value holds (a union's live member is not known).
	Exact bool
}

// Eightbytes classifies t, a struct, union or complex type of 1 to 16
// bytes whose members DWARF gives (Type.Scalars); false for other types,
// bit-fields, and members that straddle two eightbytes (packed structs).
func (t Type) Eightbytes() (Eightbytes, bool) {
	scalars := t.Scalars
	if t.Kind == KindComplex {
		h := t.Size / 2
		if h != 4 && h != 8 {
			return Eightbytes{}, false
		}
		scalars = []Scalar{{Off: 0, Size: h, Float: true}, {Off: h, Size: h, Float: true}}
	} else if t.Kind != KindStruct && t.Kind != KindUnion {
		return Eightbytes{}, false
	}
	if t.Size <= 0 || t.Size > 16 || len(scalars) == 0 {
		return Eightbytes{}, false
	}
	e := Eightbytes{N: int(t.Size+7) / 8, SSE: [2]bool{true, true}, Exact: true}
	for _, m := range scalars {
		i := m.Off / 8
		if m.Off < 0 || m.Size <= 0 || m.Off+m.Size > t.Size || (m.Off+m.Size-1)/8 != i {
			return Eightbytes{}, false
		}
		if m.Float {
			e.FloatSize[i] = m.Size
		} else {
			e.SSE[i] = false
		}
		e.Pointer[i] = m.Pointer && m.Size == 8
		e.Exact = e.Exact && !m.InUnion
		for b := m.Off; b < m.Off+m.Size; b++ {
			e.Mask[i] |= 0xff << (8 * uint(b%8))
		}
	}
	for i := range 2 {
		if i >= e.N || e.Mask[i] == 0 {
			e.SSE[i] = false // no member: padding, passed as an integer
		}
	}
	return e, true
}

// Reg is the register eightbyte i travels in: its index among the
// integer registers of a result (rax, rdx) or parameter list when the
// eightbyte is INTEGER, among the xmm registers when it is SSE.
func (e Eightbytes) Reg(i int) int {
	n := 0
	for j := range i {
		if e.SSE[j] == e.SSE[i] {
			n++
		}
	}
	return n
}

// Counts are how many general and xmm registers the eightbytes take.
func (e Eightbytes) Counts() (ints, sses int) {
	for i := range e.N {
		if e.SSE[i] {
			sses++
		} else {
			ints++
		}
	}
	return ints, sses
}

// ReturnClass says how a function returning t gives its result.
type ReturnClass uint8

const (
	ReturnInRegisters ReturnClass = iota // rax, rdx, xmm0, xmm1 or st0 (and void)
	ReturnInMemory                       // where the hidden first argument points (its address back in rax)
	ReturnUnknown                        // an aggregate DWARF does not describe well enough to say
)

// ReturnClass is how the SysV convention returns a value of type t: an
// aggregate of over 16 bytes in memory the caller provides, whose address
// it passes as a hidden first argument in rdi (so the declared parameters
// start at rsi); one of at most 16 bytes in registers by its eightbytes'
// classes; every scalar in registers.
func (t Type) ReturnClass() ReturnClass {
	switch t.Kind {
	case KindStruct, KindUnion:
	case KindComplex:
		if t.Size > 16 {
			return ReturnUnknown // complex long double: x87 registers
		}
		return ReturnInRegisters
	default:
		return ReturnInRegisters
	}
	switch _, ok := t.Eightbytes(); {
	case t.Size > 16:
		return ReturnInMemory
	case ok:
		return ReturnInRegisters
	}
	return ReturnUnknown
}

// MembersExact says t is a struct whose bytes its members say, member by
// member, as one passed or returned in memory (over 16 bytes) is
// compared: DWARF gives every member (Type.Members), none belongs to a
// union, none is over 8 bytes (an alignment of 16 would move the struct
// on the stack) and none of 8 bytes sits off an 8-byte boundary (a
// packed struct).
func (t Type) MembersExact() bool {
	if t.Kind != KindStruct || len(t.Members) == 0 {
		return false
	}
	for _, m := range t.Members {
		if m.InUnion || m.Off < 0 || m.Size <= 0 || m.Size > 8 || m.Off+m.Size > t.Size || m.Size == 8 && m.Off%8 != 0 {
			return false
		}
	}
	return true
}
