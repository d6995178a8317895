package ir

import (
	"fmt"
	"math/big"
	"strconv"
)

// Parsing SMT-LIB2 terms and scripts into a Builder: the inverse of the
// printer in smt.go, used for proof files and hand-written queries.
//
// Every operator of the op table is read by its SMT-LIB symbol; the standard
// operators the table lacks (bvugt, bvnand, bvcomp, bvsmod, repeat, …) are
// expanded into table ops; n-ary and, or, xor, =>, bvadd, … chains and =,
// distinct with more than two arguments are accepted. A single-byte select
// or store on an (Array (_ BitVec 64) (_ BitVec 8)) becomes Select/Store with
// P0 = 1. let binds in parallel and shadows; define-fun macros with
// parameters are expanded at each use, and those without parameters are
// parsed once and shared. Arrays that are not memories, constant arrays,
// lambdas and as-array have no counterpart in the term language: they give
// an *UnsupportedError (a model's values are read by ParseModel instead).

// UnsupportedError reports well-formed SMT-LIB that has no counterpart in
// the term language.
type UnsupportedError struct {
	Pos  Pos
	What string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%v: not representable in ir: %s", e.Pos, e.What)
}

// Macro is a define-fun: a name for a term, possibly with parameters.
type Macro struct {
	Name   string
	Params []string
	Sorts  []Sort // the parameters' sorts
	Result Sort
	Body   SExpr
	term   Term // the parsed body when there are no parameters
}

// Scope says what the free symbols of a term mean.
type Scope struct {
	// Names holds the declared free constants and uninterpreted functions
	// by the names the text uses. It may be nil.
	Names *Names
	// Macros are define-fun'd names.
	Macros map[string]*Macro
	// UseBuilder resolves symbols found nowhere else as the Builder's own
	// variables and functions (by their names in the Builder).
	UseBuilder bool
}

// maxBVWidth bounds the widths the parser accepts, so hostile input cannot
// make it allocate without bound.
const maxBVWidth = 1 << 16

// ParseTermString parses one term from text; see ParseTerm.
func ParseTermString(b *Builder, text string, scope *Scope) (Term, error) {
	sx, err := ParseSExpr(text)
	if err != nil {
		return NoTerm, err
	}
	return ParseTerm(b, sx, scope)
}

// ParseTerm builds the term sx denotes in b. Free symbols are resolved
// through scope (which may be nil). Ill-sorted or unsupported input gives an
// error, never a panic.
func ParseTerm(b *Builder, sx SExpr, scope *Scope) (Term, error) {
	if scope == nil {
		scope = &Scope{}
	}
	p := &termParser{b: b, scope: scope}
	return p.term(&sx, nil, 0)
}

// locals is a chain of let or macro-parameter bindings.
type locals struct {
	vars   map[string]Term
	parent *locals
}

func (l *locals) lookup(name string) (Term, bool) {
	for ; l != nil; l = l.parent {
		if t, ok := l.vars[name]; ok {
			return t, true
		}
	}
	return NoTerm, false
}

type termParser struct {
	b     *Builder
	scope *Scope
	steps int
	memo  map[string]Term // macro applications already expanded, by macro and argument terms
}

// maxMacroSteps bounds the work spent inside expansions of macros with
// parameters in one ParseTerm or ParseScript: macros expanded at each use can
// describe terms exponentially larger than the text. (Outside macros the
// work is linear in the text.)
const maxMacroSteps = 1_000_000

// maxMacroDepth bounds nested macro expansion (a macro cannot refer to
// itself, but hostile input may still nest expansions deeply).
const maxMacroDepth = 1000

// smtOps maps the SMT-LIB symbols of the op table to their ops.
var smtOps = func() map[string]Op {
	m := make(map[string]Op)
	for _, op := range Ops() {
		if s := op.Info().SMT; s != "" {
			m[s] = op
		}
	}
	return m
}()

func (p *termParser) lookupFunc(name string) (*Func, bool) {
	if n := p.scope.Names; n != nil {
		if f, ok := n.Funcs[name]; ok {
			return f, true
		}
	}
	if p.scope.UseBuilder {
		return p.b.LookupFunc(name)
	}
	return nil, false
}

func (p *termParser) lookupVar(name string) (Term, bool) {
	if n := p.scope.Names; n != nil {
		if t, ok := n.Vars[name]; ok {
			return t, true
		}
	}
	if p.scope.UseBuilder {
		return p.b.LookupVar(name)
	}
	return NoTerm, false
}

func (p *termParser) make(pos Pos, op Op, args []Term, p0, p1 uint32) (Term, error) {
	t, err := p.b.Make(op, args, p0, p1)
	if err != nil {
		return NoTerm, errAt(pos, "%v", err)
	}
	return t, nil
}

func (p *termParser) term(sx *SExpr, env *locals, depth int) (Term, error) {
	if depth > 0 {
		p.steps++
		if p.steps > maxMacroSteps {
			return NoTerm, errAt(sx.Pos, "term too large: more than %d steps expanding macros", maxMacroSteps)
		}
	}
	switch sx.Kind {
	case SHex, SBinary:
		x, err := literalBV(sx)
		if err != nil {
			return NoTerm, err
		}
		return p.b.ConstBV(x), nil
	case SSymbol:
		return p.symbol(sx, env, depth)
	case SList:
		return p.list(sx, env, depth)
	}
	return NoTerm, errAt(sx.Pos, "unexpected %v %q in a term", sx.Kind, sx.Atom)
}

// literalBV reads a #x or #b literal.
func literalBV(sx *SExpr) (BV, error) {
	base, bits := 16, uint32(4)
	if sx.Kind == SBinary {
		base, bits = 2, 1
	}
	if uint64(len(sx.Atom))*uint64(bits) > maxBVWidth {
		return BV{}, errAt(sx.Pos, "literal wider than %d bits", maxBVWidth)
	}
	w := uint32(len(sx.Atom)) * bits
	if w <= 64 {
		v, err := strconv.ParseUint(sx.Atom, base, 64)
		if err != nil {
			return BV{}, errAt(sx.Pos, "bad literal: %v", err)
		}
		return NewBV(w, v), nil
	}
	z, ok := new(big.Int).SetString(sx.Atom, base)
	if !ok {
		return BV{}, errAt(sx.Pos, "bad literal")
	}
	return NewBVBig(w, z), nil
}

func (p *termParser) symbol(sx *SExpr, env *locals, depth int) (Term, error) {
	name := sx.Atom
	if t, ok := env.lookup(name); ok {
		return t, nil
	}
	if !sx.Quoted {
		switch name {
		case "true":
			return p.b.True(), nil
		case "false":
			return p.b.False(), nil
		}
	}
	if m, ok := p.scope.Macros[name]; ok {
		return p.expand(sx, m, nil, depth)
	}
	if t, ok := p.lookupVar(name); ok {
		return t, nil
	}
	if f, ok := p.lookupFunc(name); ok {
		return p.make(sx.Pos, OpApply, nil, f.ID(), 0)
	}
	return NoTerm, errAt(sx.Pos, "unknown symbol %q", name)
}

// expand instantiates macro m with args.
func (p *termParser) expand(at *SExpr, m *Macro, args []Term, depth int) (Term, error) {
	if len(args) != len(m.Params) {
		return NoTerm, errAt(at.Pos, "%s takes %d arguments, got %d", m.Name, len(m.Params), len(args))
	}
	if len(args) == 0 && m.term != NoTerm {
		return m.term, nil
	}
	if depth > maxMacroDepth {
		return NoTerm, errAt(at.Pos, "macros nested more than %d deep", maxMacroDepth)
	}
	kb := append(make([]byte, 0, 64), m.Name...)
	for _, a := range args {
		kb = strconv.AppendUint(append(kb, ','), uint64(a), 10)
	}
	key := string(kb)
	if t, ok := p.memo[key]; ok {
		return t, nil
	}
	bind := &locals{vars: make(map[string]Term, len(args))}
	for i, a := range args {
		if s := p.b.Sort(a); s != m.Sorts[i] {
			return NoTerm, errAt(at.Pos, "%s argument %d is %v, want %v", m.Name, i, s, m.Sorts[i])
		}
		bind.vars[m.Params[i]] = a
	}
	// The body sees only its parameters and the global scope.
	t, err := p.term(&m.Body, bind, depth+1)
	if err != nil {
		return NoTerm, err
	}
	if s := p.b.Sort(t); s != m.Result {
		return NoTerm, errAt(at.Pos, "%s is %v, declared %v", m.Name, s, m.Result)
	}
	if len(args) == 0 {
		m.term = t
	} else {
		if p.memo == nil {
			p.memo = make(map[string]Term)
		}
		p.memo[key] = t
	}
	return t, nil
}

// numeral reads a numeral parameter that fits in a uint32.
func numeral(sx *SExpr) (uint32, error) {
	if sx.Kind != SNumeral {
		return 0, errAt(sx.Pos, "want a numeral, got %v", sx.Kind)
	}
	v, err := strconv.ParseUint(sx.Atom, 10, 32)
	if err != nil {
		return 0, errAt(sx.Pos, "numeral %s out of range", sx.Atom)
	}
	return uint32(v), nil
}

// ParseSort reads a sort: Bool, (_ BitVec w) or (Array (_ BitVec 64) (_ BitVec 8)).
func ParseSort(sx SExpr) (Sort, error) {
	switch {
	case sx.Kind == SSymbol && sx.Atom == "Bool":
		return BoolSort, nil
	case sx.Kind == SList && len(sx.List) == 3 && sx.List[0].IsSymbol("_") && sx.List[1].IsSymbol("BitVec"):
		w, err := numeral(&sx.List[2])
		if err != nil {
			return Sort{}, err
		}
		if w == 0 || w > maxBVWidth {
			return Sort{}, errAt(sx.Pos, "bit-vector width %d out of range", w)
		}
		return BVSort(w), nil
	case sx.Kind == SList && len(sx.List) == 3 && sx.List[0].IsSymbol("Array"):
		i, err1 := ParseSort(sx.List[1])
		e, err2 := ParseSort(sx.List[2])
		if err1 == nil && err2 == nil && i == BVSort(AddrWidth) && e == BVSort(8) {
			return MemSort, nil
		}
		return Sort{}, &UnsupportedError{Pos: sx.Pos, What: "array sort " + sx.String()}
	}
	return Sort{}, &UnsupportedError{Pos: sx.Pos, What: "sort " + sx.String()}
}

// indexed recognizes (_ name n…) and returns name and the numerals.
func indexed(sx *SExpr) (string, []uint32, error) {
	if sx.Kind != SList || len(sx.List) < 2 || !sx.List[0].IsSymbol("_") || sx.List[1].Kind != SSymbol {
		return "", nil, errAt(sx.Pos, "malformed indexed identifier %s", sx.String())
	}
	var ns []uint32
	for i := 2; i < len(sx.List); i++ {
		n, err := numeral(&sx.List[i])
		if err != nil {
			return "", nil, err
		}
		ns = append(ns, n)
	}
	return sx.List[1].Atom, ns, nil
}

func (p *termParser) list(sx *SExpr, env *locals, depth int) (Term, error) {
	if len(sx.List) == 0 {
		return NoTerm, errAt(sx.Pos, "empty application ()")
	}
	head := &sx.List[0]
	if head.Kind == SSymbol && !head.Quoted {
		switch head.Atom {
		case "_":
			return p.indexedConst(sx)
		case "let":
			return p.let(sx, env, depth)
		case "!":
			if len(sx.List) < 2 {
				return NoTerm, errAt(sx.Pos, "malformed annotation")
			}
			return p.term(&sx.List[1], env, depth)
		case "as":
			if len(sx.List) != 3 {
				return NoTerm, errAt(sx.Pos, "malformed (as t sort)")
			}
			s, err := ParseSort(sx.List[2])
			if err != nil {
				return NoTerm, err
			}
			t, err := p.term(&sx.List[1], env, depth)
			if err != nil {
				return NoTerm, err
			}
			if p.b.Sort(t) != s {
				return NoTerm, errAt(sx.Pos, "(as …) of a %v term as %v", p.b.Sort(t), s)
			}
			return t, nil
		case "lambda", "forall", "exists", "match":
			return NoTerm, &UnsupportedError{Pos: sx.Pos, What: head.Atom}
		}
	}
	if head.Kind == SList {
		if len(head.List) > 0 && head.List[0].IsSymbol("as") {
			return NoTerm, &UnsupportedError{Pos: sx.Pos, What: "constant array " + head.String()}
		}
		return p.indexedApp(sx, env, depth)
	}
	if head.Kind != SSymbol {
		return NoTerm, errAt(head.Pos, "cannot apply a %v", head.Kind)
	}
	args := make([]Term, len(sx.List)-1)
	for i := range args {
		t, err := p.term(&sx.List[i+1], env, depth)
		if err != nil {
			return NoTerm, err
		}
		args[i] = t
	}
	name := head.Atom
	if _, ok := env.lookup(name); ok {
		return NoTerm, errAt(head.Pos, "%s is bound by let and cannot be applied", name)
	}
	if m, ok := p.scope.Macros[name]; ok {
		return p.expand(head, m, args, depth)
	}
	if f, ok := p.lookupFunc(name); ok {
		return p.make(sx.Pos, OpApply, args, f.ID(), 0)
	}
	if head.Quoted {
		return NoTerm, errAt(head.Pos, "unknown function %q", name)
	}
	return p.builtin(sx, name, args)
}

// chain folds args left to right with op: (op a b c) = (op (op a b) c).
func (p *termParser) chain(pos Pos, op Op, args []Term) (Term, error) {
	if len(args) < 2 {
		return NoTerm, errAt(pos, "%s takes at least 2 arguments, got %d", op.Info().SMT, len(args))
	}
	t := args[0]
	for _, a := range args[1:] {
		var err error
		if t, err = p.make(pos, op, []Term{t, a}, 0, 0); err != nil {
			return NoTerm, err
		}
	}
	return t, nil
}

// pairwise is the conjunction of f over adjacent (=) or all (distinct) pairs.
func (p *termParser) pairwise(pos Pos, args []Term, all bool, f func(x, y Term) (Term, error)) (Term, error) {
	if len(args) < 2 {
		return NoTerm, errAt(pos, "comparison of fewer than 2 terms")
	}
	var conj []Term
	for i := 0; i+1 < len(args); i++ {
		hi := i + 2
		if all {
			hi = len(args)
		}
		for j := i + 1; j < hi; j++ {
			t, err := f(args[i], args[j])
			if err != nil {
				return NoTerm, err
			}
			conj = append(conj, t)
		}
	}
	if len(conj) == 1 {
		return conj[0], nil
	}
	return p.chain(pos, OpAnd, conj)
}

func (p *termParser) want(pos Pos, name string, args []Term, n int) error {
	if len(args) != n {
		return errAt(pos, "%s takes %d arguments, got %d", name, n, len(args))
	}
	return nil
}

func (p *termParser) isBV(pos Pos, name string, args ...Term) error {
	for i, a := range args {
		if s := p.b.Sort(a); s.Kind != KindBV {
			return errAt(pos, "%s argument %d is %v, want a bit-vector", name, i, s)
		}
	}
	return nil
}

func (p *termParser) builtin(sx *SExpr, name string, args []Term) (Term, error) {
	pos := sx.Pos
	b := p.b
	mk := func(op Op, args ...Term) (Term, error) { return p.make(pos, op, args, 0, 0) }
	switch name {
	case "and", "or", "xor", "bvadd", "bvmul", "bvand", "bvor", "bvxor", "concat", "bvsub":
		if len(args) == 1 && (name == "and" || name == "or") {
			if b.Sort(args[0]) != BoolSort {
				return NoTerm, errAt(pos, "%s of a %v term", name, b.Sort(args[0]))
			}
			return args[0], nil
		}
		if len(args) == 0 && name == "and" {
			return b.True(), nil
		}
		if len(args) == 0 && name == "or" {
			return b.False(), nil
		}
		return p.chain(pos, smtOps[name], args)
	case "=>":
		if len(args) < 2 {
			return NoTerm, errAt(pos, "=> takes at least 2 arguments")
		}
		t := args[len(args)-1]
		for i := len(args) - 2; i >= 0; i-- {
			var err error
			if t, err = mk(OpImplies, args[i], t); err != nil {
				return NoTerm, err
			}
		}
		return t, nil
	case "=":
		return p.pairwise(pos, args, false, func(x, y Term) (Term, error) { return mk(OpEq, x, y) })
	case "distinct":
		return p.pairwise(pos, args, true, func(x, y Term) (Term, error) {
			e, err := mk(OpEq, x, y)
			if err != nil {
				return NoTerm, err
			}
			return mk(OpNot, e)
		})
	case "bvugt", "bvuge", "bvsgt", "bvsge":
		if err := p.want(pos, name, args, 2); err != nil {
			return NoTerm, err
		}
		op := map[string]Op{"bvugt": OpUlt, "bvuge": OpUle, "bvsgt": OpSlt, "bvsge": OpSle}[name]
		return mk(op, args[1], args[0])
	case "bvnand", "bvnor", "bvxnor":
		if err := p.want(pos, name, args, 2); err != nil {
			return NoTerm, err
		}
		op := map[string]Op{"bvnand": OpBVAnd, "bvnor": OpBVOr, "bvxnor": OpBVXor}[name]
		t, err := mk(op, args...)
		if err != nil {
			return NoTerm, err
		}
		return mk(OpBVNot, t)
	case "bvcomp":
		if err := p.want(pos, name, args, 2); err != nil {
			return NoTerm, err
		}
		if err := p.isBV(pos, name, args...); err != nil {
			return NoTerm, err
		}
		e, err := mk(OpEq, args...)
		if err != nil {
			return NoTerm, err
		}
		return mk(OpIte, e, b.Const(1, 1), b.Const(1, 0))
	case "bvredor", "bvredand":
		if err := p.want(pos, name, args, 1); err != nil {
			return NoTerm, err
		}
		if err := p.isBV(pos, name, args...); err != nil {
			return NoTerm, err
		}
		w := b.Width(args[0])
		one, zero := b.Const(1, 1), b.Const(1, 0)
		if name == "bvredor" {
			e, _ := mk(OpEq, args[0], b.Const(w, 0))
			return mk(OpIte, e, zero, one)
		}
		e, _ := mk(OpEq, args[0], b.ConstBV(NewBVBig(w, big.NewInt(-1))))
		return mk(OpIte, e, one, zero)
	case "bvsmod":
		if err := p.want(pos, name, args, 2); err != nil {
			return NoTerm, err
		}
		if err := p.isBV(pos, name, args...); err != nil {
			return NoTerm, err
		}
		return p.smod(pos, args[0], args[1])
	case "select":
		if err := p.want(pos, name, args, 2); err != nil {
			return NoTerm, err
		}
		return p.make(pos, OpSelect, args, 1, 0)
	case "store":
		if err := p.want(pos, name, args, 3); err != nil {
			return NoTerm, err
		}
		return p.make(pos, OpStore, args, 1, 0)
	}
	if op, ok := smtOps[name]; ok {
		return mk(op, args...)
	}
	return NoTerm, errAt(sx.List[0].Pos, "unknown function %q", name)
}

// smod expands bvsmod by its SMT-LIB definition: the remainder with the
// sign of the divisor.
func (p *termParser) smod(pos Pos, s, t Term) (Term, error) {
	b := p.b
	if b.Sort(s) != b.Sort(t) {
		return NoTerm, errAt(pos, "bvsmod of %v and %v", b.Sort(s), b.Sort(t))
	}
	w := b.Width(s)
	zero := b.Const(w, 0)
	negS, negT := b.Slt(s, zero), b.Slt(t, zero)
	absS := b.Ite(negS, b.Neg(s), s)
	absT := b.Ite(negT, b.Neg(t), t)
	u := b.URem(absS, absT)
	r := b.Ite(negT, b.Neg(u), u) // both negative
	r = b.Ite(b.And(negS, b.Not(negT)), b.Add(b.Neg(u), t), r)
	r = b.Ite(b.And(b.Not(negS), negT), b.Add(u, t), r)
	r = b.Ite(b.And(b.Not(negS), b.Not(negT)), u, r)
	return b.Ite(b.Eq(u, zero), u, r), nil
}

// indexedConst reads (_ bvN w).
func (p *termParser) indexedConst(sx *SExpr) (Term, error) {
	if len(sx.List) == 3 && sx.List[1].Kind == SSymbol && len(sx.List[1].Atom) > 2 && sx.List[1].Atom[:2] == "bv" {
		z, ok := new(big.Int).SetString(sx.List[1].Atom[2:], 10)
		if !ok || z.Sign() < 0 {
			return NoTerm, errAt(sx.Pos, "bad literal %s", sx.String())
		}
		w, err := numeral(&sx.List[2])
		if err != nil {
			return NoTerm, err
		}
		if w == 0 || w > maxBVWidth {
			return NoTerm, errAt(sx.Pos, "bit-vector width %d out of range", w)
		}
		return p.b.ConstBV(NewBVBig(w, z)), nil
	}
	if len(sx.List) >= 2 && sx.List[1].IsSymbol("as-array") {
		return NoTerm, &UnsupportedError{Pos: sx.Pos, What: "as-array"}
	}
	return NoTerm, errAt(sx.Pos, "unknown indexed term %s", sx.String())
}

// indexedApp reads ((_ extract i j) x) and the other indexed operators.
func (p *termParser) indexedApp(sx *SExpr, env *locals, depth int) (Term, error) {
	name, ns, err := indexed(&sx.List[0])
	if err != nil {
		return NoTerm, err
	}
	if len(sx.List) != 2 {
		return NoTerm, errAt(sx.Pos, "%s takes 1 argument, got %d", name, len(sx.List)-1)
	}
	x, err := p.term(&sx.List[1], env, depth)
	if err != nil {
		return NoTerm, err
	}
	b := p.b
	if err := p.isBV(sx.Pos, name, x); err != nil {
		return NoTerm, err
	}
	w := b.Width(x)
	nparams := map[string]int{"extract": 2, "zero_extend": 1, "sign_extend": 1, "rotate_left": 1, "rotate_right": 1, "repeat": 1}
	k, ok := nparams[name]
	if !ok {
		return NoTerm, errAt(sx.Pos, "unknown indexed operator %s", name)
	}
	if len(ns) != k {
		return NoTerm, errAt(sx.Pos, "%s takes %d indices, got %d", name, k, len(ns))
	}
	switch name {
	case "extract":
		return p.make(sx.Pos, OpExtract, []Term{x}, ns[0], ns[1])
	case "zero_extend", "sign_extend":
		if uint64(w)+uint64(ns[0]) > maxBVWidth {
			return NoTerm, errAt(sx.Pos, "%s to more than %d bits", name, maxBVWidth)
		}
		if ns[0] == 0 {
			return x, nil
		}
		op := OpZeroExt
		if name == "sign_extend" {
			op = OpSignExt
		}
		return p.make(sx.Pos, op, []Term{x}, ns[0], 0)
	case "rotate_left", "rotate_right":
		op := OpRotl
		if name == "rotate_right" {
			op = OpRotr
		}
		return p.make(sx.Pos, op, []Term{x, b.Const(w, uint64(ns[0]%w))}, 0, 0)
	default: // repeat
		if ns[0] == 0 || uint64(w)*uint64(ns[0]) > maxBVWidth {
			return NoTerm, errAt(sx.Pos, "repeat %d of a %d-bit vector", ns[0], w)
		}
		t := x
		for i := uint32(1); i < ns[0]; i++ {
			t = b.Concat(t, x)
		}
		return t, nil
	}
}

// let binds in parallel: every bound term is read in the outer scope.
func (p *termParser) let(sx *SExpr, env *locals, depth int) (Term, error) {
	if len(sx.List) != 3 || sx.List[1].Kind != SList {
		return NoTerm, errAt(sx.Pos, "malformed let")
	}
	bind := &locals{vars: make(map[string]Term, len(sx.List[1].List)), parent: env}
	for i := range sx.List[1].List {
		vb := &sx.List[1].List[i]
		if vb.Kind != SList || len(vb.List) != 2 || vb.List[0].Kind != SSymbol {
			return NoTerm, errAt(vb.Pos, "malformed let binding")
		}
		t, err := p.term(&vb.List[1], env, depth)
		if err != nil {
			return NoTerm, err
		}
		if _, dup := bind.vars[vb.List[0].Atom]; dup {
			return NoTerm, errAt(vb.Pos, "%s bound twice in one let", vb.List[0].Atom)
		}
		bind.vars[vb.List[0].Atom] = t
	}
	return p.term(&sx.List[2], bind, depth)
}

// Script is what ParseScript read.
type Script struct {
	Asserts []Term
	// Names holds the declared constants and functions by their names in
	// the text (which are also their names in the Builder).
	Names  *Names
	Macros map[string]*Macro
}

// ParseScript reads a sequence of SMT-LIB2 commands into b: declare-fun,
// declare-const, define-fun and assert; set-logic, set-option, set-info,
// check-sat, get-model, get-value, get-info and exit are ignored, and any
// other command is an error. A declared constant becomes b's variable of the
// same name, a declared function b's function of the same name.
func ParseScript(b *Builder, text string) (*Script, error) {
	cmds, err := ReadSExprs(text)
	if err != nil {
		return nil, err
	}
	sc := &Script{
		Names:  &Names{Vars: make(map[string]Term), Funcs: make(map[string]*Func)},
		Macros: make(map[string]*Macro),
	}
	p := &termParser{b: b, scope: &Scope{Names: sc.Names, Macros: sc.Macros}}
	for i := range cmds {
		if err := sc.command(p, &cmds[i]); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

func (sc *Script) declared(name string) bool {
	_, v := sc.Names.Vars[name]
	_, f := sc.Names.Funcs[name]
	_, m := sc.Macros[name]
	return v || f || m
}

func (sc *Script) command(p *termParser, cmd *SExpr) error {
	b := p.b
	name := cmd.Head()
	if name == "" {
		return errAt(cmd.Pos, "not a command: %s", cmd.String())
	}
	args := cmd.List[1:]
	switch name {
	case "set-logic", "set-option", "set-info", "check-sat", "get-model", "get-value", "get-info", "exit",
		"get-assignment", "echo":
		return nil
	case "declare-const", "declare-fun":
		var sorts []Sort
		var result SExpr
		switch {
		case name == "declare-const" && len(args) == 2:
			result = args[1]
		case name == "declare-fun" && len(args) == 3 && args[1].Kind == SList:
			for _, s := range args[1].List {
				srt, err := ParseSort(s)
				if err != nil {
					return err
				}
				sorts = append(sorts, srt)
			}
			result = args[2]
		default:
			return errAt(cmd.Pos, "malformed %s", name)
		}
		if args[0].Kind != SSymbol {
			return errAt(args[0].Pos, "%s of a %v", name, args[0].Kind)
		}
		sym := args[0].Atom
		if sc.declared(sym) {
			return errAt(cmd.Pos, "%s declared twice", sym)
		}
		rs, err := ParseSort(result)
		if err != nil {
			return err
		}
		if len(sorts) == 0 {
			if t, ok := b.LookupVar(sym); ok && b.Sort(t) != rs {
				return errAt(cmd.Pos, "%s is a %v variable in the builder, declared %v", sym, b.Sort(t), rs)
			}
			sc.Names.Vars[sym] = b.Var(sym, rs)
			return nil
		}
		f, err := b.TryDeclareFunc(sym, sorts, rs)
		if err != nil {
			return errAt(cmd.Pos, "%v", err)
		}
		sc.Names.Funcs[sym] = f
		return nil
	case "define-fun":
		m, err := parseDefineFun(cmd)
		if err != nil {
			return err
		}
		if sc.declared(m.Name) {
			return errAt(cmd.Pos, "%s declared twice", m.Name)
		}
		if len(m.Params) == 0 {
			// Shared subterms: parse once now so that each use costs nothing.
			if _, err := p.expand(cmd, m, nil, 0); err != nil {
				return err
			}
		}
		sc.Macros[m.Name] = m
		return nil
	case "assert":
		if len(args) != 1 {
			return errAt(cmd.Pos, "assert takes 1 term")
		}
		t, err := p.term(&args[0], nil, 0)
		if err != nil {
			return err
		}
		if b.Sort(t) != BoolSort {
			return errAt(cmd.Pos, "asserting a %v term", b.Sort(t))
		}
		sc.Asserts = append(sc.Asserts, t)
		return nil
	}
	return &UnsupportedError{Pos: cmd.Pos, What: "command " + name}
}

// parseDefineFun reads (define-fun name ((p S) …) R body).
func parseDefineFun(cmd *SExpr) (*Macro, error) {
	if len(cmd.List) != 5 || cmd.List[1].Kind != SSymbol || cmd.List[2].Kind != SList {
		return nil, errAt(cmd.Pos, "malformed define-fun")
	}
	m := &Macro{Name: cmd.List[1].Atom, Body: cmd.List[4]}
	seen := make(map[string]bool)
	for _, pd := range cmd.List[2].List {
		if pd.Kind != SList || len(pd.List) != 2 || pd.List[0].Kind != SSymbol {
			return nil, errAt(pd.Pos, "malformed parameter")
		}
		if seen[pd.List[0].Atom] {
			return nil, errAt(pd.Pos, "parameter %s twice", pd.List[0].Atom)
		}
		seen[pd.List[0].Atom] = true
		s, err := ParseSort(pd.List[1])
		if err != nil {
			return nil, err
		}
		m.Params = append(m.Params, pd.List[0].Atom)
		m.Sorts = append(m.Sorts, s)
	}
	r, err := ParseSort(cmd.List[3])
	if err != nil {
		return nil, err
	}
	m.Result = r
	return m, nil
}
