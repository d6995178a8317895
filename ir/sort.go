package ir

import "fmt"

// Kind is the kind of a sort.
type Kind uint8

const (
	KindBool Kind = iota + 1
	KindBV        // bit-vector of a positive width
	KindMem       // array from 64-bit addresses to bytes
)

// Sort is the type of a term. Width is meaningful for bit-vectors only.
type Sort struct {
	Kind  Kind
	Width uint32
}

// AddrWidth is the width of a memory address.
const AddrWidth = 64

var (
	// BoolSort is the sort of booleans.
	BoolSort = Sort{Kind: KindBool}
	// MemSort is the sort of memories: arrays from 64-bit addresses to bytes.
	MemSort = Sort{Kind: KindMem}
)

// BVSort returns the sort of bit-vectors of width w. It panics if w is 0.
func BVSort(w uint32) Sort {
	if w == 0 {
		panic("ir: bit-vector of width 0")
	}
	return Sort{Kind: KindBV, Width: w}
}

// IsBV reports whether s is a bit-vector sort.
func (s Sort) IsBV() bool { return s.Kind == KindBV }

// String prints s in SMT-LIB syntax.
func (s Sort) String() string {
	switch s.Kind {
	case KindBool:
		return "Bool"
	case KindBV:
		return fmt.Sprintf("(_ BitVec %d)", s.Width)
	case KindMem:
		return "(Array (_ BitVec 64) (_ BitVec 8))"
	}
	return fmt.Sprintf("<bad sort %d/%d>", s.Kind, s.Width)
}
