package tracer

import (
	"fmt"
	"sort"
	"strings"

	"eqc/inputs"
	"eqc/x86"

	"golang.org/x/arch/x86/x86asm"
)

// ArgKind is how a parameter is given a value.
type ArgKind uint8

// Kinds of parameters.
const (
	ArgInt       ArgKind = iota // integer, bool or enum: one general register
	ArgPointer                  // pointer: the address of its heap buffer (or, rarely, NULL)
	ArgFloat                    // float or double: the low lane of an xmm register
	ArgAggregate                // struct, union or __int128 by value of at most 16 bytes: one or two registers of random bytes
	ArgUnknown                  // no DWARF signature: a register holding a small integer or a buffer's address
)

var argKindNames = [...]string{"int", "pointer", "float", "aggregate", "unknown"}

func (k ArgKind) String() string {
	if int(k) < len(argKindNames) {
		return argKindNames[k]
	}
	return fmt.Sprintf("ArgKind(%d)", uint8(k))
}

// ArgSlot is one parameter of a Layout.
type ArgSlot struct {
	Name   string
	Kind   ArgKind
	Size   int  // bytes of the value
	Signed bool // integers: sign-extended to 64 bits (else zero-extended)
	Reg    int  // index in Vector.Args (Vector.FloatArgs for ArgFloat)
	Regs   int  // general registers taken: 0 for floats, 2 for 9..16-byte aggregates, else 1
	// LengthLike marks an integer that probably bounds a loop: named like a
	// length (n, len, size, count, ...) or any integer parameter of a
	// function with loops. It is drawn from [0, MaxLen] most of the time.
	LengthLike bool
	// Named says LengthLike comes from the name (a stronger hint: the value
	// leaves [0, MaxLen] only through dictionary constants).
	Named bool
	// Buffer of ArgPointer and ArgUnknown parameters.
	Buf         uint64
	BufSize     int
	Elem        int  // element size: the DWARF pointee size, 1 for void and unknown
	ElemPointer bool // the elements are pointers: filled with addresses into the pool
}

// MemSlot is one block of memory a Vector sets: a pointer argument's heap
// buffer, the pool that pointers in memory point into, or a global.
type MemSlot struct {
	Name        string // parameter name, "pool", or the global's symbol
	Symbol      string // for globals: the data symbol (Addr is then per executable)
	Addr        uint64 // heap address of buffers and the pool
	Size        int
	Elem        int
	ElemPointer bool
}

// Layout is the shape of a function's inputs, from its DWARF signature: how
// each parameter is passed and which memory a vector fills. Vectors of a
// Layout run unchanged in every executable the tracer links for the same
// source function: arguments go to the same registers, buffers sit at the
// same fixed heap addresses, and globals are named by symbol.
type Layout struct {
	Function  string
	Signature bool // parameters come from DWARF (else six ArgUnknown registers)
	// Approximate says some parameter could not be passed exactly (a struct
	// over 16 bytes, long double, _Complex, floats beyond xmm7): it gets no
	// value or an approximate one.
	Approximate bool
	Loops       bool // some target has a loop
	Args        []ArgSlot
	NArgs       int // length of Vector.Args
	NFloat      int // length of Vector.FloatArgs
	Mem         []MemSlot
	PoolAddr    uint64
	PoolSize    int
	// Dict holds the immediates of the targets' code (comparison constants
	// and the like), tried as integer values and memory contents.
	Dict []uint64
}

// lengthNames are parameter names that mean a length or count.
var lengthNames = map[string]bool{
	"n": true, "m": true, "len": true, "length": true, "size": true, "sz": true, "count": true,
	"cnt": true, "num": true, "nelem": true, "nelems": true, "nmemb": true, "nitems": true,
	"width": true, "height": true, "rows": true, "cols": true, "nbytes": true, "limit": true,
}

func lengthName(name string) bool {
	l := strings.ToLower(name)
	if lengthNames[l] {
		return true
	}
	for _, s := range []string{"len", "size", "count", "_n", "num"} {
		if strings.HasSuffix(l, s) {
			return true
		}
	}
	for _, p := range []string{"num_", "n_", "len", "count"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// layoutOptions are the knobs of NewLayout.
type layoutOptions struct {
	bufElems int
	maxLen   int
	maxFill  int
}

// NewLayout derives the input layout of the targets (one function, or the
// two functions of a pair). The signature comes from the first target with
// DWARF; globals are those every target's executable defines (the smallest
// size wins); the dictionary collects the immediates of every target.
func NewLayout(targets []*Target) (*Layout, error) {
	return newLayout(targets, layoutOptions{bufElems: 64, maxLen: 40, maxFill: 1 << 20})
}

func newLayout(targets []*Target, o layoutOptions) (*Layout, error) {
	if len(targets) == 0 {
		return nil, fmt.Errorf("tracer: no targets")
	}
	for _, t := range targets {
		if err := t.init(); err != nil {
			return nil, err
		}
	}
	l := &Layout{Function: targets[0].Name}
	var sig *x86.FuncDebug
	for _, t := range targets {
		if t.Func != nil && t.Func.Debug != nil {
			sig = t.Func.Debug
			break
		}
	}
	for _, t := range targets {
		if len(t.CFG.Loops) > 0 {
			l.Loops = true
		}
	}
	heap := targets[0].Exe.HeapSize
	for _, t := range targets {
		heap = min(heap, t.Exe.HeapSize)
	}
	l.PoolSize = int(min(heap/8, 16<<10))
	l.PoolAddr = HeapAddr + heap - uint64(l.PoolSize)

	// Parameters: how the convention passes each (inputs.Classify), and
	// how this generator draws its values.
	sg := inputs.Classify(sig)
	l.Signature, l.Approximate = sg.DWARF, sg.Skipped
	for _, p := range sg.Params {
		s := ArgSlot{Name: p.Name, Size: p.Size, Signed: p.Signed, Reg: p.Reg, Regs: p.Regs}
		switch p.Kind {
		case inputs.Memory:
			continue
		case inputs.Unknown:
			s.Kind, s.Elem = ArgUnknown, 1
		case inputs.Int:
			s.Kind = ArgInt
			if s.Size <= 0 {
				s.Size = 4
			}
			if p.Type.Kind == x86.KindInt && s.Size >= 2 {
				s.Named = lengthName(p.Name)
				s.LengthLike = s.Named || l.Loops
			}
		case inputs.Pointer:
			s.Kind, s.Elem, s.ElemPointer = ArgPointer, max(p.Elem.Size, 1), p.Elem.Pointer
		case inputs.Float:
			s.Kind = ArgFloat
		case inputs.Aggregate:
			s.Kind = ArgAggregate
		}
		l.Args = append(l.Args, s)
	}
	l.NArgs, l.NFloat = sg.GPRs, sg.XMMs

	// Heap buffers: one slot per pointer, below the pool.
	nbuf := 0
	for _, s := range l.Args {
		if s.Kind == ArgPointer || s.Kind == ArgUnknown {
			nbuf++
		}
	}
	if nbuf > 0 {
		slot := (uint64(l.PoolAddr-HeapAddr) / uint64(nbuf)) &^ 63
		slot = min(slot, 64<<10)
		next := uint64(HeapAddr)
		for i := range l.Args {
			s := &l.Args[i]
			if s.Kind != ArgPointer && s.Kind != ArgUnknown {
				continue
			}
			size := uint64(max(s.Elem*o.bufElems, 256))
			s.Buf, s.BufSize = next, int(min(size, slot))
			next += slot
			l.Mem = append(l.Mem, MemSlot{Name: s.Name, Addr: s.Buf, Size: s.BufSize, Elem: s.Elem, ElemPointer: s.ElemPointer})
		}
	}
	l.Mem = append(l.Mem, MemSlot{Name: "pool", Addr: l.PoolAddr, Size: l.PoolSize, Elem: 1})

	// Globals every executable defines.
	sizes := map[string]uint64{}
	for i, t := range targets {
		here := map[string]uint64{}
		for _, g := range t.Exe.Globals {
			here[g.Name] = g.Size
		}
		if i == 0 {
			sizes = here
			continue
		}
		for n, s := range sizes {
			if hs, ok := here[n]; ok {
				sizes[n] = min(s, hs)
			} else {
				delete(sizes, n)
			}
		}
	}
	names := make([]string, 0, len(sizes))
	for n, s := range sizes {
		if s > 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		ms := MemSlot{Name: n, Symbol: n, Size: int(min(sizes[n], uint64(o.maxFill))), Elem: 1}
		for _, t := range targets {
			if t.File == nil {
				continue
			}
			if gv := t.File.Globals[n]; gv != nil {
				switch gv.Type.Kind {
				case x86.KindPointer:
					ms.Elem, ms.ElemPointer = 8, true
				case x86.KindArray:
					if gv.Type.PointeeSize > 0 {
						ms.Elem = int(gv.Type.PointeeSize)
					}
					ms.ElemPointer = inputs.PointeeOf(gv.Type).Pointer
				case x86.KindInt, x86.KindEnum:
					ms.Elem = int(max(gv.Type.Size, 1))
				}
				break
			}
		}
		l.Mem = append(l.Mem, ms)
	}

	// The dictionary.
	seen := map[uint64]bool{}
	for _, t := range targets {
		for i := range t.CFG.Insts {
			in := &t.CFG.Insts[i]
			if in.Bad || isBranchOp(in.Inst.Op) {
				continue
			}
			for _, a := range in.Inst.Args {
				imm, ok := a.(x86asm.Imm)
				if !ok {
					continue
				}
				v := uint64(imm)
				if v <= 1 || v == ^uint64(0) || seen[v] || len(l.Dict) >= 64 {
					continue
				}
				seen[v] = true
				l.Dict = append(l.Dict, v)
			}
		}
	}
	return l, nil
}

func isBranchOp(op x86asm.Op) bool {
	return isCondJump(op) || op == x86asm.JMP || op == x86asm.CALL || op == x86asm.RET ||
		op == x86asm.ENTER || op == x86asm.LEAVE
}

// String describes the layout on one line.
func (l *Layout) String() string {
	var parts []string
	for _, s := range l.Args {
		d := fmt.Sprintf("%s:%v%d", s.Name, s.Kind, s.Size)
		if s.LengthLike {
			d += "(len)"
		}
		if s.BufSize > 0 {
			d += fmt.Sprintf("@%#x[%d]", s.Buf, s.BufSize)
		}
		parts = append(parts, d)
	}
	return fmt.Sprintf("%s(%s) mem=%d dict=%d", l.Function, strings.Join(parts, ", "), len(l.Mem), len(l.Dict))
}
