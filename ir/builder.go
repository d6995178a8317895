package ir

import (
	"fmt"
	"strings"
)

// Term names a hash-consed term of a Builder by a dense id. The zero Term is
// no term.
type Term uint32

// NoTerm is the zero Term, which names nothing.
const NoTerm Term = 0

// Func is an uninterpreted function declared in a Builder.
type Func struct {
	id     uint32
	Name   string
	Args   []Sort
	Result Sort
	// Callee marks a function standing for a call's result, whose last
	// two arguments are the stack pointer and the memory at the call and
	// the others the values passed: analyses of where values come from
	// (the frame taint) look at the values only.
	Callee bool
	// View marks a callee's result in the calling convention's model
	// (x86.CallConvention): its last argument is the memory the callee
	// reads, the others the values passed.
	View bool
}

// ID is the function's dense index in its Builder.
func (f *Func) ID() uint32 { return f.id }

// node is the stored form of a term.
type node struct {
	op     Op
	sort   Sort
	p0, p1 uint32
	args   []Term
}

// key identifies a node for hash-consing. Terms of up to three arguments
// (all but some applications) are keyed without allocation.
type key struct {
	op         Op
	sort       Sort
	p0, p1     uint32
	a0, a1, a2 Term
	rest       string // arguments beyond the third, encoded
}

// Builder creates and owns terms. It is not safe for concurrent use.
type Builder struct {
	nodes   []node // indexed by Term; nodes[0] is unused
	index   map[key]Term
	names   []string          // OpVar names, indexed by P0
	vars    map[string]Term   // variable name → term
	consts  []BV              // OpConst values, indexed by P0
	cindex  map[constKey]Term // constant → term
	funcs   []*Func
	fnIndex map[string]*Func
}

type constKey struct {
	w   uint32
	v   uint64
	big string
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{
		nodes:   make([]node, 1, 1024),
		index:   make(map[key]Term, 1024),
		vars:    make(map[string]Term),
		cindex:  make(map[constKey]Term),
		fnIndex: make(map[string]*Func),
	}
}

// Len is the number of terms made so far; every Term t has 0 < t < Len().
func (b *Builder) Len() int { return len(b.nodes) }

func (b *Builder) node(t Term) *node {
	if t == NoTerm || int(t) >= len(b.nodes) {
		panic(fmt.Sprintf("ir: term %d does not belong to this builder (%d terms)", t, len(b.nodes)))
	}
	return &b.nodes[t]
}

// Op is t's operator.
func (b *Builder) Op(t Term) Op { return b.node(t).op }

// Sort is t's sort.
func (b *Builder) Sort(t Term) Sort { return b.node(t).sort }

// Width is the width of the bit-vector term t; it panics for other sorts.
func (b *Builder) Width(t Term) uint32 {
	s := b.node(t).sort
	if s.Kind != KindBV {
		panic(fmt.Sprintf("ir: width of %v term %s", s, b.Short(t)))
	}
	return s.Width
}

// Args are t's arguments; the slice must not be modified.
func (b *Builder) Args(t Term) []Term { return b.node(t).args }

// Arg is t's i-th argument.
func (b *Builder) Arg(t Term, i int) Term { return b.node(t).args[i] }

// Params are t's integer parameters (see the op table).
func (b *Builder) Params(t Term) (p0, p1 uint32) {
	n := b.node(t)
	return n.p0, n.p1
}

// ConstValue returns the value of the OpConst term t.
func (b *Builder) ConstValue(t Term) BV {
	n := b.node(t)
	if n.op != OpConst {
		panic(fmt.Sprintf("ir: ConstValue of %v", n.op))
	}
	return b.consts[n.p0]
}

// IsConst reports whether t is a bit-vector or boolean literal.
func (b *Builder) IsConst(t Term) bool {
	switch b.node(t).op {
	case OpConst, OpTrue, OpFalse:
		return true
	}
	return false
}

// VarName returns the name of the OpVar term t.
func (b *Builder) VarName(t Term) string {
	n := b.node(t)
	if n.op != OpVar {
		panic(fmt.Sprintf("ir: VarName of %v", n.op))
	}
	return b.names[n.p0]
}

// LookupVar returns the variable named name, if one was made.
func (b *Builder) LookupVar(name string) (Term, bool) {
	t, ok := b.vars[name]
	return t, ok
}

// LookupSelect returns Select(m, a, n) if the builder has made it,
// without making it.
func (b *Builder) LookupSelect(m, a Term, n uint32) (Term, bool) {
	t, ok := b.index[key{op: OpSelect, sort: BVSort(8 * n), p0: n, a0: m, a1: a}]
	return t, ok
}

// FuncOf returns the function applied by the OpApply term t.
func (b *Builder) FuncOf(t Term) *Func {
	n := b.node(t)
	if n.op != OpApply {
		panic(fmt.Sprintf("ir: FuncOf of %v", n.op))
	}
	return b.funcs[n.p0]
}

// LookupFunc returns the function declared under name, if any.
func (b *Builder) LookupFunc(name string) (*Func, bool) {
	f, ok := b.fnIndex[name]
	return f, ok
}

// intern returns the term for n, adding it if it is new.
func (b *Builder) intern(n node) Term {
	k := key{op: n.op, sort: n.sort, p0: n.p0, p1: n.p1}
	switch len(n.args) {
	default:
		var sb strings.Builder
		for _, a := range n.args[3:] {
			fmt.Fprintf(&sb, "%d,", a)
		}
		k.rest = sb.String()
		fallthrough
	case 3:
		k.a2 = n.args[2]
		fallthrough
	case 2:
		k.a1 = n.args[1]
		fallthrough
	case 1:
		k.a0 = n.args[0]
	case 0:
	}
	if t, ok := b.index[k]; ok {
		return t
	}
	if len(n.args) > 0 {
		n.args = append([]Term(nil), n.args...) // the caller's slice may change
	}
	t := Term(len(b.nodes))
	b.nodes = append(b.nodes, n)
	b.index[k] = t
	return t
}

// WithArgs is t's operation, with t's parameters, applied to args, whose
// sorts are those of t's arguments (a rewrite that maps each argument to
// an equal-sorted term). A sort mismatch is the caller's bug: it panics.
func (b *Builder) WithArgs(t Term, args []Term) Term {
	p0, p1 := b.Params(t)
	nt, err := b.Make(b.Op(t), args, p0, p1)
	if err != nil {
		panic(err)
	}
	return nt
}

// Make builds the term op(args) with parameters p0, p1, checking sorts
// through the op table. It returns an error for ill-sorted input; parsers of
// outside text use it. Leaves are made with Var, Const, True and False.
func (b *Builder) Make(op Op, args []Term, p0, p1 uint32) (Term, error) {
	if op == OpInvalid || op >= numOps {
		return NoTerm, fmt.Errorf("ir: invalid op %d", op)
	}
	info := &opTable[op]
	switch op {
	case OpVar, OpConst:
		return NoTerm, fmt.Errorf("ir: %v is a leaf; use Var or Const", op)
	case OpTrue:
		return b.True(), nil
	case OpFalse:
		return b.False(), nil
	}
	var buf [3]Sort // no allocation for the common arities
	sorts := buf[:0]
	if len(args) > len(buf) {
		sorts = make([]Sort, 0, len(args))
	}
	sorts = sorts[:len(args)]
	for i, a := range args {
		if a == NoTerm || int(a) >= len(b.nodes) {
			return NoTerm, fmt.Errorf("ir: %v argument %d is not a term of this builder", op, i)
		}
		sorts[i] = b.nodes[a].sort
	}
	var s Sort
	if op == OpApply {
		if int(p0) >= len(b.funcs) {
			return NoTerm, fmt.Errorf("ir: apply of undeclared function %d", p0)
		}
		f := b.funcs[p0]
		if len(sorts) != len(f.Args) {
			return NoTerm, fmt.Errorf("ir: %s takes %d arguments, got %d", f.Name, len(f.Args), len(sorts))
		}
		for i := range sorts {
			if sorts[i] != f.Args[i] {
				return NoTerm, fmt.Errorf("ir: %s argument %d is %v, want %v", f.Name, i, sorts[i], f.Args[i])
			}
		}
		s = f.Result
	} else {
		var err error
		if s, err = op.ResultSort(sorts, p0, p1); err != nil {
			return NoTerm, err
		}
	}
	if info.Params < 2 {
		p1 = 0
	}
	if info.Params < 1 {
		p0 = 0
	}
	return b.intern(node{op: op, sort: s, p0: p0, p1: p1, args: args}), nil
}

// mk is Make for eqc's own code: ill-sorted terms are bugs and panic.
func (b *Builder) mk(op Op, p0, p1 uint32, args ...Term) Term {
	t, err := b.Make(op, args, p0, p1)
	if err != nil {
		panic(err)
	}
	return t
}

// Var returns the free constant named name of sort s. The same name always
// gives the same term; asking for it at another sort panics.
func (b *Builder) Var(name string, s Sort) Term {
	if t, ok := b.vars[name]; ok {
		if b.nodes[t].sort != s {
			panic(fmt.Sprintf("ir: variable %q is %v, asked for %v", name, b.nodes[t].sort, s))
		}
		return t
	}
	if s.Kind == 0 || (s.Kind == KindBV && s.Width == 0) {
		panic(fmt.Sprintf("ir: variable %q of invalid sort %v", name, s))
	}
	id := uint32(len(b.names))
	b.names = append(b.names, name)
	t := b.intern(node{op: OpVar, sort: s, p0: id})
	b.vars[name] = t
	return t
}

// Const returns the w-bit constant v (truncated to w bits).
func (b *Builder) Const(w uint32, v uint64) Term { return b.ConstBV(NewBV(w, v)) }

// ConstBV returns the constant x.
func (b *Builder) ConstBV(x BV) Term {
	k := constKey{w: x.w, v: x.v}
	if x.w > 64 {
		k.big = x.big.Text(16)
	}
	if t, ok := b.cindex[k]; ok {
		return t
	}
	id := uint32(len(b.consts))
	b.consts = append(b.consts, x)
	t := b.intern(node{op: OpConst, sort: BVSort(x.w), p0: id})
	b.cindex[k] = t
	return t
}

// True is the boolean constant true.
func (b *Builder) True() Term { return b.intern(node{op: OpTrue, sort: BoolSort}) }

// False is the boolean constant false.
func (b *Builder) False() Term { return b.intern(node{op: OpFalse, sort: BoolSort}) }

// Bool returns the boolean constant v.
func (b *Builder) Bool(v bool) Term {
	if v {
		return b.True()
	}
	return b.False()
}

// DeclareFunc declares the uninterpreted function name. Declaring the same
// name again with the same signature returns the same function; with another
// signature it panics.
func (b *Builder) DeclareFunc(name string, args []Sort, result Sort) *Func {
	f, err := b.TryDeclareFunc(name, args, result)
	if err != nil {
		panic(err)
	}
	return f
}

// TryDeclareFunc is DeclareFunc returning an error instead of panicking, for
// parsers of outside text.
func (b *Builder) TryDeclareFunc(name string, args []Sort, result Sort) (*Func, error) {
	if f, ok := b.fnIndex[name]; ok {
		same := len(f.Args) == len(args) && f.Result == result
		for i := 0; same && i < len(args); i++ {
			same = f.Args[i] == args[i]
		}
		if !same {
			return nil, fmt.Errorf("ir: function %q redeclared with another signature", name)
		}
		return f, nil
	}
	f := &Func{id: uint32(len(b.funcs)), Name: name, Args: append([]Sort(nil), args...), Result: result}
	b.funcs = append(b.funcs, f)
	b.fnIndex[name] = f
	return f, nil
}

// Funcs returns every declared function, in declaration order.
func (b *Builder) Funcs() []*Func { return b.funcs }

// Apply applies f to args.
func (b *Builder) Apply(f *Func, args ...Term) Term { return b.mk(OpApply, f.id, 0, args...) }

// Booleans.

func (b *Builder) Not(x Term) Term        { return b.mk(OpNot, 0, 0, x) }
func (b *Builder) Implies(x, y Term) Term { return b.mk(OpImplies, 0, 0, x, y) }
func (b *Builder) Xor(x, y Term) Term     { return b.mk(OpXor, 0, 0, x, y) }
func (b *Builder) Eq(x, y Term) Term      { return b.mk(OpEq, 0, 0, x, y) }
func (b *Builder) Ite(c, x, y Term) Term  { return b.mk(OpIte, 0, 0, c, x, y) }

// And is the conjunction of xs; true when xs is empty.
func (b *Builder) And(xs ...Term) Term {
	if len(xs) == 0 {
		return b.True()
	}
	t := xs[0]
	for _, x := range xs[1:] {
		t = b.mk(OpAnd, 0, 0, t, x)
	}
	if len(xs) == 1 {
		b.mustSort(t, BoolSort)
	}
	return t
}

// Conjuncts are t's top-level conjunctions flattened: t's own
// conjuncts, in order (t itself when it is no conjunction).
func (b *Builder) Conjuncts(t Term) []Term {
	if b.Op(t) != OpAnd {
		return []Term{t}
	}
	return append(b.Conjuncts(b.Arg(t, 0)), b.Conjuncts(b.Arg(t, 1))...)
}

// Or is the disjunction of xs; false when xs is empty.
func (b *Builder) Or(xs ...Term) Term {
	if len(xs) == 0 {
		return b.False()
	}
	t := xs[0]
	for _, x := range xs[1:] {
		t = b.mk(OpOr, 0, 0, t, x)
	}
	if len(xs) == 1 {
		b.mustSort(t, BoolSort)
	}
	return t
}

func (b *Builder) mustSort(t Term, s Sort) {
	if got := b.Sort(t); got != s {
		panic(fmt.Sprintf("ir: %s is %v, want %v", b.Short(t), got, s))
	}
}

// Bit-vectors.

func (b *Builder) Add(x, y Term) Term  { return b.mk(OpAdd, 0, 0, x, y) }
func (b *Builder) Sub(x, y Term) Term  { return b.mk(OpSub, 0, 0, x, y) }
func (b *Builder) Mul(x, y Term) Term  { return b.mk(OpMul, 0, 0, x, y) }
func (b *Builder) UDiv(x, y Term) Term { return b.mk(OpUDiv, 0, 0, x, y) }
func (b *Builder) SDiv(x, y Term) Term { return b.mk(OpSDiv, 0, 0, x, y) }
func (b *Builder) URem(x, y Term) Term { return b.mk(OpURem, 0, 0, x, y) }
func (b *Builder) SRem(x, y Term) Term { return b.mk(OpSRem, 0, 0, x, y) }
func (b *Builder) Neg(x Term) Term     { return b.mk(OpNeg, 0, 0, x) }
func (b *Builder) BVAnd(x, y Term) Term {
	return b.mk(OpBVAnd, 0, 0, x, y)
}
func (b *Builder) BVOr(x, y Term) Term  { return b.mk(OpBVOr, 0, 0, x, y) }
func (b *Builder) BVXor(x, y Term) Term { return b.mk(OpBVXor, 0, 0, x, y) }
func (b *Builder) BVNot(x Term) Term    { return b.mk(OpBVNot, 0, 0, x) }
func (b *Builder) Shl(x, y Term) Term   { return b.mk(OpShl, 0, 0, x, y) }
func (b *Builder) LShr(x, y Term) Term  { return b.mk(OpLShr, 0, 0, x, y) }
func (b *Builder) AShr(x, y Term) Term  { return b.mk(OpAShr, 0, 0, x, y) }
func (b *Builder) Rotl(x, y Term) Term  { return b.mk(OpRotl, 0, 0, x, y) }
func (b *Builder) Rotr(x, y Term) Term  { return b.mk(OpRotr, 0, 0, x, y) }
func (b *Builder) Ult(x, y Term) Term   { return b.mk(OpUlt, 0, 0, x, y) }
func (b *Builder) Ule(x, y Term) Term   { return b.mk(OpUle, 0, 0, x, y) }
func (b *Builder) Slt(x, y Term) Term   { return b.mk(OpSlt, 0, 0, x, y) }
func (b *Builder) Sle(x, y Term) Term   { return b.mk(OpSle, 0, 0, x, y) }

// Addends lists the terms of the sum t, nested sums flattened; t alone
// when it is not a sum.
func (b *Builder) Addends(t Term) []Term {
	if b.Op(t) != OpAdd {
		return []Term{t}
	}
	var out []Term
	for _, x := range b.Args(t) {
		out = append(out, b.Addends(x)...)
	}
	return out
}

// Ugt, Uge, Sgt and Sge are the comparisons above with their arguments swapped.
func (b *Builder) Ugt(x, y Term) Term { return b.Ult(y, x) }
func (b *Builder) Uge(x, y Term) Term { return b.Ule(y, x) }
func (b *Builder) Sgt(x, y Term) Term { return b.Slt(y, x) }
func (b *Builder) Sge(x, y Term) Term { return b.Sle(y, x) }

// Concat puts hi above lo.
func (b *Builder) Concat(hi, lo Term) Term { return b.mk(OpConcat, 0, 0, hi, lo) }

// Extract returns bits hi down to lo of x, inclusive.
func (b *Builder) Extract(x Term, hi, lo uint32) Term { return b.mk(OpExtract, hi, lo, x) }

// ZeroExt widens x by n zero bits; n = 0 returns x.
func (b *Builder) ZeroExt(x Term, n uint32) Term {
	if n == 0 {
		b.Width(x)
		return x
	}
	return b.mk(OpZeroExt, n, 0, x)
}

// SignExt widens x by n copies of its sign bit; n = 0 returns x.
func (b *Builder) SignExt(x Term, n uint32) Term {
	if n == 0 {
		b.Width(x)
		return x
	}
	return b.mk(OpSignExt, n, 0, x)
}

// ZeroExtTo and SignExtTo widen x to w bits (w at least x's width).
func (b *Builder) ZeroExtTo(x Term, w uint32) Term { return b.ZeroExt(x, w-b.Width(x)) }
func (b *Builder) SignExtTo(x Term, w uint32) Term { return b.SignExt(x, w-b.Width(x)) }

// Memory.

// Select reads n bytes of m at a, little-endian.
func (b *Builder) Select(m, a Term, n uint32) Term { return b.mk(OpSelect, n, 0, m, a) }

// Store writes the n bytes of v into m at a, little-endian.
func (b *Builder) Store(m, a Term, n uint32, v Term) Term { return b.mk(OpStore, n, 0, m, a, v) }

// Short prints t compactly for messages, eliding deep subterms.
func (b *Builder) Short(t Term) string {
	var sb strings.Builder
	b.short(&sb, t, 3)
	return sb.String()
}

func (b *Builder) short(sb *strings.Builder, t Term, depth int) {
	if t == NoTerm || int(t) >= len(b.nodes) {
		fmt.Fprintf(sb, "<bad term %d>", t)
		return
	}
	n := &b.nodes[t]
	switch n.op {
	case OpVar:
		sb.WriteString(b.names[n.p0])
		return
	case OpConst:
		sb.WriteString(b.consts[n.p0].String())
		return
	case OpTrue, OpFalse:
		sb.WriteString(n.op.String())
		return
	}
	if depth == 0 {
		fmt.Fprintf(sb, "t%d", t)
		return
	}
	sb.WriteString("(")
	if n.op == OpApply {
		sb.WriteString(b.funcs[n.p0].Name)
	} else {
		sb.WriteString(n.op.String())
	}
	switch opTable[n.op].Params {
	case 1:
		if n.op != OpApply {
			fmt.Fprintf(sb, "[%d]", n.p0)
		}
	case 2:
		fmt.Fprintf(sb, "[%d:%d]", n.p0, n.p1)
	}
	for _, a := range n.args {
		sb.WriteString(" ")
		b.short(sb, a, depth-1)
	}
	sb.WriteString(")")
}

// PostOrder returns every term reachable from roots, each once, arguments
// before the terms that use them.
func (b *Builder) PostOrder(roots ...Term) []Term {
	seen := make(map[Term]bool)
	var out []Term
	type frame struct {
		t Term
		i int
	}
	var stack []frame
	for _, r := range roots {
		if seen[r] {
			continue
		}
		seen[r] = true
		stack = append(stack, frame{t: r})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			args := b.node(f.t).args
			if f.i < len(args) {
				a := args[f.i]
				f.i++
				if !seen[a] {
					seen[a] = true
					stack = append(stack, frame{t: a})
				}
				continue
			}
			out = append(out, f.t)
			stack = stack[:len(stack)-1]
		}
	}
	return out
}

// BaseOffset splits address a into a base term and a constant offset (a
// = base + off modulo 2^64): the one level of constant addition the
// simplifier leaves on an address (stack aliasing and the frame taint read
// addresses this way).
func (b *Builder) BaseOffset(a Term) (Term, uint64) {
	if b.Op(a) == OpAdd && len(b.Args(a)) == 2 {
		if x := b.Arg(a, 1); b.Op(x) == OpConst {
			return b.Arg(a, 0), b.ConstValue(x).Uint64()
		}
		if x := b.Arg(a, 0); b.Op(x) == OpConst {
			return b.Arg(a, 1), b.ConstValue(x).Uint64()
		}
	}
	return a, 0
}
