package tracer

import (
	"debug/dwarf"
	"fmt"
	"strings"

	"eqc/x86"
)

// Aggregates by value. A callee that takes a struct (or a complex
// number) by value, or returns one, gets a stub whose C signature passes
// the same bytes in the same places as the real declaration, so that its
// log holds the aggregate's contents and its result is one the caller
// reads as it would a real callee's:
//
//   - one of at most 16 bytes travels in registers by its eightbytes'
//     classes (x86.Eightbytes), so the stub declares a struct with an
//     unsigned long member per INTEGER eightbyte and a double per SSE
//     one: the same classes, so the same registers (or, when the
//     registers run out, the same stack slots);
//   - one of more bytes travels in memory (stack slots for an argument,
//     the caller's block behind a hidden first argument for a result),
//     so the stub declares a struct of that many bytes.
//
// The stub logs an aggregate argument as one word per eightbyte, masked
// to the bytes its members hold (padding is unspecified), and hashes
// those words; it builds a result member by member from its hash (a
// _Bool 0 or 1, a float a number in [0, 1), a pointer an object), its
// padding zero. Unions (which member is live, the type does not say),
// bit-fields, members DWARF does not describe and types aligned to more
// than 8 bytes stay unprototyped: the stub then records six registers.

// maxAggregateWords bounds the eightbytes of an aggregate a stub logs and
// hashes.
const maxAggregateWords = 64

// Aggregate is a struct or complex number an external function takes or
// returns by value.
type Aggregate struct {
	Size int64
	// Classes are the eightbytes' classes of one of at most 16 bytes
	// (true: SSE); nil for one passed in memory.
	Classes []bool
	// Mask says which bytes of eightbyte i members hold.
	Mask []uint64
	// FloatSize is the float width of an SSE eightbyte (4 or 8).
	FloatSize []int64
	// Members are the scalar members, nested structs and arrays flattened.
	Members []x86.Scalar
}

// Words is how many eightbytes the aggregate takes.
func (a *Aggregate) Words() int { return int(a.Size+7) / 8 }

// InMemory says the aggregate travels in memory, not in registers.
func (a *Aggregate) InMemory() bool { return a.Classes == nil }

// aggregateOf is how a stub passes a value of DWARF type dt, or false
// when it cannot (see the comment at the top of the file).
func aggregateOf(dt dwarf.Type) (*Aggregate, bool) {
	t := x86.TypeOf(dt)
	if t.Kind != x86.KindStruct && t.Kind != x86.KindComplex || t.Size <= 0 {
		return nil, false
	}
	a := &Aggregate{Size: t.Size}
	if a.Words() > maxAggregateWords {
		return nil, false
	}
	if t.Size <= 16 {
		e, ok := t.Eightbytes()
		if !ok || !e.Exact {
			return nil, false
		}
		a.Members = t.Scalars
		if t.Kind == x86.KindComplex {
			h := t.Size / 2
			a.Members = []x86.Scalar{{Off: 0, Size: h, Float: true}, {Off: h, Size: h, Float: true}}
		}
		for i := range e.N {
			a.Classes = append(a.Classes, e.SSE[i])
			a.Mask = append(a.Mask, e.Mask[i])
			a.FloatSize = append(a.FloatSize, e.FloatSize[i])
		}
		return a, true
	}
	if !t.MembersExact() {
		return nil, false
	}
	a.Members = t.Members
	a.Mask = make([]uint64, a.Words())
	a.FloatSize = make([]int64, a.Words())
	for _, m := range t.Members {
		for b := m.Off; b < m.Off+m.Size; b++ {
			a.Mask[b/8] |= 0xff << (8 * uint(b%8))
		}
	}
	return a, true
}

// aggregateWords are the Params of a stub's log an aggregate argument
// takes: one word per eightbyte (a pointer when it is one pointer
// member, a double's bits when it is of class SSE).
func aggregateWords(a *Aggregate) []Param {
	ptr := map[int64]bool{}
	for _, m := range a.Members {
		if m.Pointer && m.Size == 8 && m.Off%8 == 0 {
			ptr[m.Off/8] = true
		}
	}
	var out []Param
	for i := range a.Words() {
		p := Param{Kind: ScalarInt, Size: 8, Agg: a, Word: i}
		switch {
		case !a.InMemory() && a.Classes[i]:
			p.Kind = ScalarFloat64
		case ptr[int64(i)] && a.Mask[i] == ^uint64(0):
			p.Pointer = true
		}
		out = append(out, p)
	}
	return out
}

// aggregateCType is the C definition of the struct a stub passes a as,
// named name.
func aggregateCType(a *Aggregate, name string) string {
	if a.InMemory() {
		return fmt.Sprintf("struct %s { unsigned char b[%d]; };", name, a.Size)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "struct %s {", name)
	for i, sse := range a.Classes {
		if sse {
			fmt.Fprintf(&b, " double e%d;", i)
		} else {
			fmt.Fprintf(&b, " __eqc_u64 e%d;", i)
		}
	}
	b.WriteString(" };")
	return b.String()
}

// aggregateWiden is the C expression of word i of the aggregate argument
// named arg, masked to its members' bytes.
func aggregateWiden(a *Aggregate, arg string, i int) string {
	var w string
	switch {
	case a.InMemory():
		n := min(8, a.Size-int64(8*i))
		w = fmt.Sprintf("__eqc_word(%s.b + %d, %d)", arg, 8*i, n)
	case a.Classes[i]:
		w = fmt.Sprintf("__eqc_dbits(%s.e%d)", arg, i)
	default:
		w = fmt.Sprintf("%s.e%d", arg, i)
	}
	if a.Mask[i] == ^uint64(0) {
		return w
	}
	return fmt.Sprintf("(%s & %#xUL)", w, a.Mask[i])
}

// aggregateResult is the C statements by which a stub returning a (as
// struct ctype) builds its result from its hash h and returns it: every
// byte zero, then each member a value made from h and the member's place.
func aggregateResult(a *Aggregate, ctype string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s r;\n\t__eqc_zero(&r, sizeof r);", ctype)
	for k, m := range a.Members {
		mix := fmt.Sprintf("__eqc_mix(h ^ %dUL * 0x9e3779b97f4a7c15UL)", k+1)
		var decl string
		switch {
		case m.Float && m.Size == 4:
			decl = "float v = (float)__eqc_tofloat(" + mix + ")"
		case m.Float && m.Size == 8:
			decl = "double v = __eqc_tofloat(" + mix + ")"
		case m.Pointer && m.Size == 8:
			decl = "__eqc_u64 v = __eqc_object(" + mix + ")"
		case m.Bool:
			decl = fmt.Sprintf("unsigned char v = %s & 1", mix)
		default:
			ctype := map[int64]string{1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "__eqc_u64"}[m.Size]
			if ctype == "" {
				continue // not a size aggregateOf admits
			}
			decl = fmt.Sprintf("%s v = (%s)%s", ctype, ctype, mix)
		}
		fmt.Fprintf(&b, "\n\t{ %s; __eqc_put((unsigned char *)&r + %d, &v, sizeof v); }", decl, m.Off)
	}
	b.WriteString("\n\treturn r;")
	return b.String()
}
