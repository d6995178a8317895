package align

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"eqc/align/product/pair"
	"eqc/inputs"
	"eqc/tracer"
	"eqc/x86"
)

// Counterexamples as a person reads them (explain.go).
//
// A confirmed difference is two real runs on one input, which the tracer
// reports in machine terms: argument registers, bytes at addresses, byte
// ranges that differ. explain names it in the source's terms, from DWARF:
// each parameter by name and C type with its value in decimal (a pointer,
// and an integer too large to be a count, in hex as well); the input's
// memory as typed elements (A[3] = -7), the non-zero ones only (a minimized
// input keeps those that matter, the rest zero); and each differing
// observable by name: the return value, each differing element of a
// global or of a pointer parameter's buffer, the calls, the way a run
// ended. Nothing here decides anything: it only shows what the runs did.

// Counterexample is a confirmed difference in the source's terms.
type Counterexample struct {
	Params      []Value      `json:"params"`
	Memory      []Value      `json:"memory,omitempty"`
	Differences []Difference `json:"differences"`
}

// Value is one named input value.
type Value struct {
	Name  string `json:"name"`
	Type  string `json:"type,omitempty"`
	Value string `json:"value"`
}

// Difference is one observable the two runs disagree on.
type Difference struct {
	What string `json:"what"`
	Type string `json:"type,omitempty"`
	Src  string `json:"src"`
	Dst  string `json:"dst"`
}

// Bounds of what a counterexample lists.
const (
	explainMemElems  = 16 // non-zero input elements per memory block
	explainDiffElems = 8  // differing elements per region
)

// scalar is how one element is shown: its C type and how to read it.
type scalar struct {
	name    string
	size    int
	signed  bool
	float   bool
	pointer bool
}

// format shows the little-endian bits of an element.
func (s scalar) format(bits uint64) string {
	switch {
	case s.float && s.size == 4:
		return fmt.Sprintf("%g", math.Float32frombits(uint32(bits)))
	case s.float && s.size == 8:
		return fmt.Sprintf("%g", math.Float64frombits(bits))
	case s.pointer:
		return fmt.Sprintf("%#x", bits)
	}
	v := inputs.Extend(bits, s.size, s.signed)
	if s.char() && bits&0xff >= 0x20 && bits&0xff < 0x7f {
		return fmt.Sprintf("%d %s", int64(v), strconv.QuoteRune(rune(bits&0xff)))
	}
	if s.signed {
		x := int64(v)
		if x >= -1<<16 && x < 1<<16 {
			return fmt.Sprint(x)
		}
		return fmt.Sprintf("%d (%#x)", x, inputs.Extend(v, s.size, false))
	}
	if v < 1<<16 {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%d (%#x)", v, v)
}

// char says the elements are C characters.
func (s scalar) char() bool { return s.size == 1 && strings.Contains(s.name, "char") }

// read reads the element at off of data (zero past its end).
func (s scalar) read(data []byte, off int) uint64 {
	var buf [8]byte
	if off < len(data) {
		copy(buf[:min(s.size, 8)], data[off:])
	}
	return binary.LittleEndian.Uint64(buf[:])
}

// cName is the C spelling of a type Go's debug/dwarf spells ("*int" is
// "int *", "[8]int" is "int[8]").
func cName(goName string) string {
	n := strings.TrimSpace(goName)
	stars := 0
	for strings.HasPrefix(n, "*") {
		n, stars = n[1:], stars+1
	}
	dims := ""
	for strings.HasPrefix(n, "[") {
		i := strings.Index(n, "]")
		if i < 0 {
			break
		}
		dims += n[:i+1]
		n = n[i+1:]
	}
	if strings.HasPrefix(n, "*") {
		n = cName(n)
	}
	if stars > 0 {
		n += " " + strings.Repeat("*", stars)
	}
	return n + dims
}

// scalarOf is how values of type t are shown; structs and the like as
// 8-byte words.
func scalarOf(t x86.Type) scalar {
	s := scalar{name: cName(t.Name), size: int(t.Size), signed: t.Signed}
	switch t.Kind {
	case x86.KindFloat:
		s.float = s.size == 4 || s.size == 8
	case x86.KindPointer, x86.KindFunc:
		s.pointer, s.size = true, 8
	case x86.KindInt, x86.KindBool, x86.KindEnum:
	default:
		s = scalar{name: "word", size: 8}
	}
	if s.size <= 0 || s.size > 8 {
		s.size = 8
	}
	return s
}

// elemScalar is how the elements of a pointer or array type are shown.
func elemScalar(t x86.Type) scalar {
	e := inputs.PointeeOf(t)
	s := scalar{name: cName(t.Pointee), size: e.Unit(), signed: t.PointeeSigned, float: e.Float, pointer: e.Pointer}
	switch t.PointeeKind {
	case x86.KindInt, x86.KindBool, x86.KindEnum, x86.KindFloat, x86.KindPointer:
	default:
		if !e.Float && !e.Pointer {
			s = scalar{name: "int", size: 4, signed: true} // void, structs, unknown: 4-byte words
		}
	}
	return s
}

// block is one memory block, named and typed: a global, or the buffer a
// pointer parameter points into.
type block struct {
	name   string
	elem   scalar
	index  bool   // elements are shown as name[i] (else name, or name+off)
	origin int    // byte offset of element 0 (where the pointer points) from data[0]
	addr   uint64 // heap buffers: the address of data[0]
	data   []byte
	// members, for elements that are structs, are their scalar members,
	// and stride the struct's size (x86.Type.PointeeScalars).
	members []x86.Scalar
	stride  int
}

// elemName names the element at byte offset off of the block's data.
func (b block) elemName(off int) string {
	es := b.elem.size
	d := off - b.origin
	switch {
	case b.index && d%es == 0:
		return fmt.Sprintf("%s[%d]", b.name, d/es)
	case b.index:
		return fmt.Sprintf("%s[%d]+%d", b.name, floorDiv(d, es), d-floorDiv(d, es)*es)
	case d == 0 && b.elem.name != "word":
		return b.name
	}
	return fmt.Sprintf("%s+%d", b.name, d)
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// nonZero lists a block's non-zero elements, at most explainMemElems; a
// char buffer a pointer points into is shown as the string there.
func (b block) nonZero() []Value {
	if b.index && b.elem.char() && b.origin < len(b.data) {
		s := b.data[b.origin:]
		if n := bytes.IndexByte(s, 0); n >= 0 {
			s = s[:n]
		}
		const maxShown = 64
		v := strconv.Quote(string(s[:min(len(s), maxShown)]))
		if len(s) > maxShown {
			v += fmt.Sprintf("… (%d bytes)", len(s))
		}
		return []Value{{Name: b.name, Type: b.elem.name + "[]", Value: v}}
	}
	var out []Value
	es := b.elem.size
	more := 0
	start := ((b.origin % es) + es) % es // element boundaries as the pointer sees them
	for off := start; off+es <= len(b.data); off += es {
		v := b.elem.read(b.data, off)
		if v == 0 {
			continue
		}
		if len(out) == explainMemElems {
			more++
			continue
		}
		out = append(out, Value{Name: b.elemName(off), Type: b.elem.name, Value: b.elem.format(v)})
	}
	if more > 0 {
		out = append(out, Value{Name: b.name, Value: fmt.Sprintf("and %d more non-zero elements", more)})
	}
	return out
}

// explain builds the counterexample of a confirmed difference on in.
func explain(p *pair.Pair, in tracer.Input, c *tracer.Confirmation) *Counterexample {
	sig := funcDebug(p)
	args := c.Args
	if len(args) == 0 {
		args = in.Args
	}
	arg := func(i int) uint64 {
		if i < len(args) {
			return args[i]
		}
		return 0
	}
	cx := &Counterexample{}
	var buffers []block // pointer parameters' heap buffers, as their pointers see them
	// The stack arguments' words follow the six registers in args (the
	// counterexample's, confirm): stackWords is how many the parameters
	// so far took, -1 once a place is not certain (pair.StackArgBytes).
	stackWords := 0
	for _, pm := range inputs.Classify(sig).Params {
		v := Value{Name: pm.Name, Type: cName(pm.Type.Name)}
		if pm.Kind != inputs.Float && pm.Kind != inputs.Memory && pm.Reg >= len(x86.CalleeArgRegs) && stackWords >= 0 {
			pm.Reg = len(x86.CalleeArgRegs) + stackWords
			stackWords++
		}
		switch pm.Kind {
		case inputs.Unknown:
			v.Name, v.Type = x86.GPRNames[x86.CalleeArgRegs[pm.Reg]], ""
			v.Value = scalar{size: 8, signed: true}.format(arg(pm.Reg))
		case inputs.Int:
			v.Value = scalarOf(pm.Type).format(arg(pm.Reg))
		case inputs.Pointer:
			ptr := arg(pm.Reg)
			v.Value = fmt.Sprintf("%#x", ptr)
			if ptr == 0 {
				v.Value = "NULL"
			}
			if b, ok := paramBuffer(in, pm, ptr); ok {
				buffers = append(buffers, b)
			}
		case inputs.Float:
			var bits uint64
			if pm.Reg < len(in.FloatArgs) {
				bits = in.FloatArgs[pm.Reg]
			}
			v.Value = scalarOf(pm.Type).format(bits)
		case inputs.Aggregate:
			var words []string
			for r := pm.Reg; r < pm.Reg+pm.Regs; r++ {
				words = append(words, fmt.Sprintf("%#x", arg(r)))
			}
			v.Value = "{" + strings.Join(words, ", ") + "} (its eightbytes)"
		case inputs.Memory:
			v.Value = "(passed in memory: not set)"
			n := int(pair.StackArgBytes(&x86.FuncDebug{Params: []x86.Variable{{Type: pm.Type}}}))
			if stackWords < 0 || n == 0 || n != int((pm.Type.Size+7)&^7) {
				stackWords = -1
				break
			}
			if first := len(x86.CalleeArgRegs) + stackWords; first+n/8 <= len(args) {
				var words []string
				for r := first; r < first+n/8; r++ {
					words = append(words, fmt.Sprintf("%#x", args[r]))
				}
				v.Value = "{" + strings.Join(words, ", ") + "} (its eightbytes, on the stack)"
			}
			stackWords += n / 8
		}
		cx.Params = append(cx.Params, v)
	}

	// The input's memory: globals by name, then the buffers.
	for _, n := range slices.Sorted(maps.Keys(in.Globals)) {
		cx.Memory = append(cx.Memory, globalBlock(p, n, in.Globals[n]).nonZero()...)
	}
	for _, b := range buffers {
		cx.Memory = append(cx.Memory, b.nonZero()...)
	}

	// The differences: memory typed from c.Regions, the rest as the
	// tracer says them.
	typed := map[string]bool{} // regions c.Regions covers: a global's name, or "" for the heap
	for _, r := range c.Regions {
		typed[r.Global] = true
	}
	for _, d := range c.Differences {
		what, rest, _ := strings.Cut(d, ": ")
		if g, ok := regionOf(what); ok && typed[g] {
			continue
		}
		if what == "return" {
			if rd, ok := returnDiff(sig, c); ok {
				cx.Differences = append(cx.Differences, rd)
				continue
			}
		}
		src, dst := rest, ""
		if a, b, ok := strings.Cut(rest, " dst "); ok && strings.HasPrefix(a, "src ") {
			src, dst = strings.TrimSuffix(strings.TrimPrefix(a, "src "), ","), b
		}
		cx.Differences = append(cx.Differences, Difference{What: what, Src: src, Dst: dst})
	}
	seen := map[string]bool{}
	for _, r := range c.Regions {
		bs, bd, lo, hi := regionBlocks(p, buffers, c, r)
		es := bs.elem.size
		start := ((bs.origin % es) + es) % es
		for off := start + floorDiv(lo-start, es)*es; off < hi; off += es {
			name := bs.elemName(off)
			if seen[name] {
				continue
			}
			if len(seen) == explainDiffElems {
				cx.Differences = append(cx.Differences, Difference{What: "…", Src: "more elements differ"})
				seen[""] = true
			}
			if len(seen) > explainDiffElems {
				break
			}
			seen[name] = true
			cx.Differences = append(cx.Differences, Difference{What: name, Type: bs.elem.name,
				Src: bs.elem.format(bs.elem.read(bs.data, off)), Dst: bd.elem.format(bd.elem.read(bd.data, off))})
		}
	}
	return cx
}

// regionBlocks are the typed blocks of both runs that differing range r
// lies in, and the range's bounds in them.
func regionBlocks(p *pair.Pair, buffers []block, c *tracer.Confirmation, r tracer.RegionDiff) (bs, bd block, lo, hi int) {
	lo, hi = r.Lo, r.Hi
	if r.Global != "" {
		return globalBlock(p, r.Global, c.Src.Globals[r.Global]), globalBlock(p, r.Global, c.Dst.Globals[r.Global]), lo, hi
	}
	bs, base := heapBlock(buffers, c.Src.Heap, lo)
	bd, _ = heapBlock(buffers, c.Dst.Heap, lo)
	return bs, bd, lo - base, hi - base
}

// regionOf reads the region a tracer difference names: "global A[4..8]"
// and "global A" are A, "heap[0..4]" and "heap" the heap ("").
func regionOf(what string) (string, bool) {
	if rest, ok := strings.CutPrefix(what, "global "); ok {
		name, _, _ := strings.Cut(rest, "[")
		return name, true
	}
	if what == "heap" || strings.HasPrefix(what, "heap[") {
		return "", true
	}
	return "", false
}

// returnDiff shows differing return values by the return type.
func returnDiff(sig *x86.FuncDebug, c *tracer.Confirmation) (Difference, bool) {
	kind := c.Src.ReturnKind
	var s scalar
	switch {
	case kind == "int128":
		return Difference{What: "return", Type: "__int128",
			Src: fmt.Sprintf("%#x:%016x", c.Src.ReturnHi, c.Src.Return), Dst: fmt.Sprintf("%#x:%016x", c.Dst.ReturnHi, c.Dst.Return)}, true
	case kind == "float32":
		s = scalar{name: "float", size: 4, float: true}
	case kind == "float64":
		s = scalar{name: "double", size: 8, float: true}
	case strings.HasPrefix(kind, "int"):
		var bits int
		if _, err := fmt.Sscanf(kind, "int%d", &bits); err != nil || bits%8 != 0 || bits > 64 {
			return Difference{}, false
		}
		s = scalar{name: kind, size: bits / 8, signed: true}
		if sig != nil {
			s.name, s.signed = cName(sig.Return.Name), sig.Return.Signed
			s.pointer = sig.Return.Kind == x86.KindPointer
		}
	default:
		return Difference{}, false
	}
	return Difference{What: "return", Type: s.name, Src: s.format(c.Src.Return), Dst: s.format(c.Dst.Return)}, true
}

// paramBuffer is the heap buffer of in that pointer parameter pm, with
// value ptr, points into, typed by its pointee.
func paramBuffer(in tracer.Input, pm inputs.Param, ptr uint64) (block, bool) {
	for _, m := range in.Mem {
		if m.Symbol == "" && ptr >= m.Addr && ptr < m.Addr+uint64(len(m.Data)) {
			return block{name: pm.Name, elem: elemScalar(pm.Type), index: true, origin: int(ptr - m.Addr), addr: m.Addr, data: m.Data,
				members: pm.Type.PointeeScalars, stride: int(pm.Type.PointeeSize)}, true
		}
	}
	return block{}, false
}

// globalBlock is a global's bytes, typed by DWARF (4-byte ints when no
// file describes it).
func globalBlock(p *pair.Pair, name string, data []byte) block {
	for _, f := range p.DWARFFiles() {
		g, ok := p.GlobalIn(f, name)
		if !ok {
			continue
		}
		switch t := g.Type; t.Kind {
		case x86.KindArray:
			return block{name: name, elem: elemScalar(t), index: true, data: data, members: t.PointeeScalars, stride: int(t.PointeeSize)}
		case x86.KindInt, x86.KindBool, x86.KindEnum, x86.KindFloat, x86.KindPointer:
			return block{name: name, elem: scalarOf(t), data: data}
		}
		return block{name: name, elem: scalar{name: "word", size: 8}, data: data, members: g.Type.Members, stride: int(g.Type.Size)}
	}
	return block{name: name, elem: scalar{name: "int", size: 4, signed: true}, index: true, data: data}
}

// heapBlock is the heap after a run as the pointer parameter whose buffer
// holds byte lo (from tracer.HeapAddr) sees it, with the buffer's offset
// from the heap's start; or the heap as bytes.
func heapBlock(buffers []block, heap []byte, lo int) (block, int) {
	at := tracer.HeapAddr + uint64(lo)
	for _, b := range buffers {
		if at >= b.addr && at < b.addr+uint64(len(b.data)) {
			base := int(b.addr - tracer.HeapAddr)
			b.data = heap[min(base, len(heap)):min(base+len(b.data), len(heap))]
			return b, base
		}
	}
	return block{name: "heap", elem: scalar{name: "unsigned char", size: 1}, index: true, data: heap}, 0
}
