package pair

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"eqc/ir"
	"eqc/ub"
	"eqc/x86"
)

// Side is one function of a pair: where it came from and its TFG.
type Side struct {
	Path string    // the ELF file
	File *x86.File // its harvest
	Fn   *x86.Function
	TFG  *ir.TFG
}

// Pair is a source and a target function lifted into one Builder. Their
// state variables are kept apart by the prefixes "src." and "dst." (so that
// the fresh values each side makes, such as undefined flags, stay distinct);
// Entry maps every dst entry-state variable to the src one, which is how
// both sides start from the same machine state: the same caller, the same
// arguments, the same memory.
type Pair struct {
	B        *ir.Builder
	Src, Dst Side
	Entry    map[ir.Term]ir.Term
	// Context are more files whose DWARF describes the pair's globals.
	Context []*x86.File
	// OBVA says the UB model lets the loop engines assume that source
	// accesses not derived from the entry rsp miss the frame (ub.FrameTaint;
	// the product program's hypotheses, align/product's obva.go).
	OBVA bool
	// Models are the UB models of the check: the source's sanitizer
	// checks of those models (SanitizerTraps) are premises.
	Models ub.Set
	// Callees gives both lifts each callee's prototype and the argument
	// registers the source's call sites set (x86.PairCallees).
	Callees *x86.Callees
	// SmallArgs restricts the loop-free engine to small integer arguments,
	// to look for a counterexample again; it then never proves
	// (smallinputs.go).
	SmallArgs bool

	mirrorOffs  []uint64 // AddressOffsets, computed once
	objectSizes map[ir.Term]uint64
	// escaped are the escaped locals last paired (escapedLocalsOf), whose
	// blocks and slots the co-executions place where the premises say
	// (newCoRun), so that a run's entry state can witness a precondition
	// that mentions them (SatisfiedByRun).
	escaped []*escapedLocal

	knownOnce sync.Once
	known     map[string]bool // knownCallees
}

// DWARFFiles are the files whose DWARF globals facts come from.
func (p *Pair) DWARFFiles() []*x86.File {
	return append([]*x86.File{p.Src.File, p.Dst.File}, p.Context...)
}

// GlobalIn is f's DWARF description of the global sym, f one of
// DWARFFiles. A context file's static variable is another object that
// happens to share the name (two units of a program may each have a
// static count), so only the pair's own files describe statics.
func (p *Pair) GlobalIn(f *x86.File, sym string) (*x86.GlobalVar, bool) {
	g, ok := f.Globals[sym]
	if !ok || g.Static && f != p.Src.File && f != p.Dst.File {
		return nil, false
	}
	return g, true
}

// Prefixes of the two sides' state variables.
const (
	SrcPrefix = "src."
	DstPrefix = "dst."
)

// Load harvests both files and lifts the two named functions; context
// are more files whose DWARF describes the pair's globals.
func Load(srcPath, srcFunc, dstPath, dstFunc string, context ...string) (*Pair, error) {
	b := ir.NewBuilder()
	p := &Pair{B: b, Entry: map[ir.Term]ir.Term{}}
	var err error
	if p.Src, err = open(srcPath, srcFunc); err != nil {
		return nil, err
	}
	if p.Dst, err = open(dstPath, dstFunc); err != nil {
		return nil, err
	}
	// One prototype per callee for both lifts, and the argument
	// registers the source's call sites set.
	p.Callees = x86.PairCallees(p.Src.File, p.Src.Fn, p.Dst.File, p.Dst.Fn)
	p.lift()
	for _, path := range context {
		f, err := x86.Open(path)
		if err != nil {
			return nil, err
		}
		p.Context = append(p.Context, f)
	}
	return p, nil
}

// lift lifts both sides, exactly or, under the model nan, with SSE
// addition and multiplication commutative (x86.TFGOptions.AnyNaN).
func (p *Pair) lift() {
	anyNaN := p.Models.Has(ub.NaN)
	p.Src.lift(p.B, SrcPrefix, p.Callees, anyNaN)
	p.Dst.lift(p.B, DstPrefix, p.Callees, anyNaN)
	// The target's loop exits followed by loads and stores are anchors
	// (ir.LoopExits): a vector loop's scalar tail is a step of its own.
	// Not the source's: -O0 code has no tail, and its steps follow the
	// target's.
	p.Dst.TFG.MarkLoopExits(p.Dst.TFG.State[x86.StateGPR0+x86.RSP].Var)
	for i, sv := range p.Dst.TFG.State {
		p.Entry[sv.Var] = p.Src.TFG.State[i].Var
	}
}

// SetModels sets the UB models of the check (Models, OBVA), lifting both
// sides again when the model nan changes what they compute. Call it
// before anything reads the TFGs.
func (p *Pair) SetModels(models ub.Set) {
	relift := models.Has(ub.NaN) != p.Models.Has(ub.NaN)
	p.OBVA, p.Models = models.Has(ub.OBVA), models
	if relift {
		p.lift()
	}
}

// open harvests the file at path and decodes its function name.
func open(path, name string) (Side, error) {
	f, err := x86.Open(path)
	if err != nil {
		return Side{}, err
	}
	fn, err := f.Function(name)
	if err != nil {
		return Side{}, err
	}
	return Side{Path: path, File: f, Fn: fn}, nil
}

// lift builds the side's TFG with the variables of prefix.
func (s *Side) lift(b *ir.Builder, prefix string, callees *x86.Callees, anyNaN bool) {
	s.TFG = x86.BuildTFG(b, s.Fn, x86.TFGOptions{Names: x86.StateNames{Prefix: prefix}, File: s.File, Callees: callees, AnyNaN: anyNaN})
	s.TFG.Simplifier = ir.NewSimplifier(b)
}

// SrcVar returns the src entry variable of state component i.
func (p *Pair) SrcVar(i int) ir.Term { return p.Src.TFG.State[i].Var }

// GlobalSize is the size in bytes of the global whose address variable is
// name ("&sym" or "&str:…"): the largest of what either side's DWARF type
// and either file's symbol say (a struct with a flexible array member,
// initialized, has a symbol larger than its type); 0 when unknown.
func (p *Pair) GlobalSize(name string) uint64 {
	if lit, ok := strings.CutPrefix(name, "&str:"); ok {
		var s string
		if _, err := fmt.Sscanf(lit, "%q", &s); err == nil {
			return uint64(len(s)) + 1
		}
		return 0
	}
	sym := strings.TrimPrefix(name, "&")
	var size uint64
	for _, f := range p.DWARFFiles() {
		if g, ok := p.GlobalIn(f, sym); ok && g.Type.Size > 0 {
			size = max(size, uint64(g.Type.Size))
		}
	}
	for _, f := range []*x86.File{p.Src.File, p.Dst.File} {
		if d, ok := f.DataSymbol(sym); ok && d.Size > 0 {
			size = max(size, d.Size)
		}
	}
	return size
}

// ObjectSizes are the sizes of the globals and literals the pair's code
// names whose size the binaries say (GlobalSize), by address variable:
// the objects the OBVA model keeps pointer arithmetic inside.
func (p *Pair) ObjectSizes() map[ir.Term]uint64 {
	if p.objectSizes == nil {
		p.objectSizes = map[ir.Term]uint64{}
		for _, g := range p.GlobalVars() {
			if n := p.GlobalSize(p.B.VarName(g)); n > 0 {
				p.objectSizes[g] = n
			}
		}
	}
	return p.objectSizes
}

// globalAlign is the alignment the two files' DWARF guarantee for the
// global whose address variable is name, and why: an alignment attribute
// on its declaration, or the SysV psABI rule (§3.1.2) that a global array
// of 16 bytes or more is 16-byte aligned, or else what the symbol tables
// guarantee (DataSymbol.Align). 0 or 1 when none says anything.
func (p *Pair) globalAlign(name string) (int64, string) {
	sym, ok := strings.CutPrefix(name, "&")
	if !ok || strings.HasPrefix(sym, "str:") {
		return 0, ""
	}
	var al int64
	why := ""
	for _, f := range p.DWARFFiles() {
		g, ok := p.GlobalIn(f, sym)
		if !ok {
			continue
		}
		if g.Align > al && g.Align&(g.Align-1) == 0 && g.Align <= 4096 {
			al, why = g.Align, "its declaration's alignment attribute in "+f.Path
		}
		if g.Type.Kind == x86.KindArray && g.Type.Size >= 16 && al < 16 {
			al, why = 16, "the SysV ABI aligns global arrays of 16 bytes or more"
		}
	}
	// The symbol tables: a constant-pool label has no DWARF, but its
	// section's alignment holds in every link. The files that define the
	// symbol must all promise it.
	var sec int64
	where := ""
	for _, f := range []*x86.File{p.Src.File, p.Dst.File} {
		d, ok := f.DataSymbol(sym)
		if !ok {
			continue
		}
		if where == "" || int64(d.Align) < sec {
			sec, where = int64(d.Align), f.Path
		}
	}
	if sec > al {
		al, why = sec, "its section's alignment and offset in "+where
	}
	return al, why
}

// AddressOffsets are the offsets the mirror search tries: every constant
// within mirrorWindow of a constant the two programs add into an address
// (relocated displacements like clang's b+0x1f3d0), and of zero, in steps
// of 4.
func (p *Pair) AddressOffsets() []uint64 {
	if p.mirrorOffs != nil {
		return p.mirrorOffs
	}
	b := p.B
	centers := map[uint64]bool{0: true}
	for _, g := range []*ir.TFG{p.Src.TFG, p.Dst.TFG} {
		var roots []ir.Term
		for _, e := range g.Edges {
			roots = append(roots, e.Transfer...)
		}
		var addrs []ir.Term
		for _, t := range b.PostOrder(roots...) {
			if op := b.Op(t); op == ir.OpSelect || op == ir.OpStore {
				addrs = append(addrs, b.Arg(t, 1))
			}
		}
		for _, a := range b.PostOrder(addrs...) {
			if b.Op(a) != ir.OpAdd {
				continue
			}
			for _, x := range b.Args(a) {
				if b.Op(x) == ir.OpConst && b.Sort(x).Width == 64 {
					if c := b.ConstValue(x).Uint64(); int64(c) > -1<<24 && int64(c) < 1<<24 {
						centers[c] = true
					}
				}
			}
		}
	}
	seen := map[uint64]bool{}
	for c := range centers {
		for d := -mirrorWindow; d <= mirrorWindow; d += 4 {
			seen[c+uint64(int64(d))] = true
		}
	}
	out := make([]uint64, 0, len(seen))
	for o := range seen {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	p.mirrorOffs = out
	return out
}

// mirrorWindow is how far, in bytes either side, the search looks around
// each address constant.
const mirrorWindow = 64
