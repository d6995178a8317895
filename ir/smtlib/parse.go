package smtlib

import (
	"fmt"
	"math/big"
	"strconv"

	"eqc/ir"
)

// Parsing SMT-LIB2 terms and scripts into a Builder: the inverse of the
// printer in print.go, used for proof files and hand-written queries.
//
// Function symbols mean what the vocabulary (symbols.go) says: every
// operator of ir's op table is read by its SMT-LIB symbol, with its chaining
// (n-ary and, or, xor, =>, bvadd, …; = with more than two arguments); the
// standard operators the table lacks (distinct, bvugt, bvnand, bvcomp,
// bvsmod, repeat, …) are expanded into table ops. A single-byte select or
// store on an (Array (_ BitVec 64) (_ BitVec 8)) becomes Select/Store with
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
	Sorts  []ir.Sort // the parameters' sorts
	Result ir.Sort
	Body   SExpr
	term   ir.Term // the parsed body when there are no parameters
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
func ParseTermString(b *ir.Builder, text string, scope *Scope) (ir.Term, error) {
	sx, err := ParseSExpr(text)
	if err != nil {
		return ir.NoTerm, err
	}
	return ParseTerm(b, sx, scope)
}

// ParseTerm builds the term sx denotes in b. Free symbols are resolved
// through scope (which may be nil). Ill-sorted or unsupported input gives an
// error, never a panic.
func ParseTerm(b *ir.Builder, sx SExpr, scope *Scope) (ir.Term, error) {
	if scope == nil {
		scope = &Scope{}
	}
	p := &termParser{b: b, scope: scope}
	return p.term(&sx, nil, 0)
}

// bindings is a chain of named values (terms for the parser, values for
// the model interpreter): let, define-fun parameters, lambda.
type bindings[V any] struct {
	vars   map[string]V
	parent *bindings[V]
}

func (b *bindings[V]) lookup(name string) (V, bool) {
	for ; b != nil; b = b.parent {
		if v, ok := b.vars[name]; ok {
			return v, true
		}
	}
	var zero V
	return zero, false
}

// let reads the bindings of (let ((x t) …) body) on top of env, in
// parallel: read reads every bound t in env, not in the let's own scope. A
// name bound twice in one let is an error.
func let[V any](sx *SExpr, env *bindings[V], read func(t *SExpr) (V, error)) (*bindings[V], error) {
	if len(sx.List) != 3 || sx.List[1].Kind != SList {
		return nil, errAt(sx.Pos, "malformed let")
	}
	bind := &bindings[V]{vars: make(map[string]V, len(sx.List[1].List)), parent: env}
	for i := range sx.List[1].List {
		vb := &sx.List[1].List[i]
		if vb.Kind != SList || len(vb.List) != 2 || vb.List[0].Kind != SSymbol {
			return nil, errAt(vb.Pos, "malformed let binding")
		}
		v, err := read(&vb.List[1])
		if err != nil {
			return nil, err
		}
		if _, dup := bind.vars[vb.List[0].Atom]; dup {
			return nil, errAt(vb.Pos, "%s bound twice in one let", vb.List[0].Atom)
		}
		bind.vars[vb.List[0].Atom] = v
	}
	return bind, nil
}

// locals are the parser's let and macro-parameter bindings.
type locals = bindings[ir.Term]

type termParser struct {
	b     *ir.Builder
	scope *Scope
	steps int
	memo  map[string]ir.Term // macro applications already expanded, by macro and argument terms
}

// maxMacroSteps bounds the work spent inside expansions of macros with
// parameters in one ParseTerm or ParseScript: macros expanded at each use can
// describe terms exponentially larger than the text. (Outside macros the
// work is linear in the text.)
const maxMacroSteps = 1_000_000

// maxMacroDepth bounds nested macro expansion (a macro cannot refer to
// itself, but hostile input may still nest expansions deeply).
const maxMacroDepth = 1000

// termSymbols is the vocabulary (symbols.go) over terms.
var termSymbols = symbols[ir.Term]()

func (p *termParser) lookupFunc(name string) (*ir.Func, bool) {
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

func (p *termParser) lookupVar(name string) (ir.Term, bool) {
	if n := p.scope.Names; n != nil {
		if t, ok := n.Vars[name]; ok {
			return t, true
		}
	}
	if p.scope.UseBuilder {
		return p.b.LookupVar(name)
	}
	return ir.NoTerm, false
}

// op implements sem: it builds op(args), after checking sorts and widths
// through the op table.
func (p *termParser) op(at *SExpr, op ir.Op, args []ir.Term, p0, p1 uint32) (ir.Term, error) {
	if _, err := resultSort(sem[ir.Term](p), at, op, args, p0, p1, maxBVWidth); err != nil {
		return ir.NoTerm, err
	}
	if (op == ir.OpZeroExt || op == ir.OpSignExt) && p0 == 0 {
		return args[0], nil // as the Builder's: no extension by nothing
	}
	t, err := p.b.Make(op, args, p0, p1)
	if err != nil {
		return ir.NoTerm, errAt(at.Pos, "%v", err)
	}
	return t, nil
}

// apply builds the application of uninterpreted function f.
func (p *termParser) apply(at *SExpr, f *ir.Func, args []ir.Term) (ir.Term, error) {
	t, err := p.b.Make(ir.OpApply, args, f.ID(), 0)
	if err != nil {
		return ir.NoTerm, errAt(at.Pos, "%v", err)
	}
	return t, nil
}

func (p *termParser) lit(x ir.BV) ir.Term      { return p.b.ConstBV(x) }
func (p *termParser) sortOf(t ir.Term) ir.Sort { return p.b.Sort(t) }

func (p *termParser) term(sx *SExpr, env *locals, depth int) (ir.Term, error) {
	if depth > 0 {
		p.steps++
		if p.steps > maxMacroSteps {
			return ir.NoTerm, errAt(sx.Pos, "term too large: more than %d steps expanding macros", maxMacroSteps)
		}
	}
	switch sx.Kind {
	case SHex, SBinary:
		x, err := literalBV(sx)
		if err != nil {
			return ir.NoTerm, err
		}
		return p.b.ConstBV(x), nil
	case SSymbol:
		return p.symbol(sx, env, depth)
	case SList:
		return p.list(sx, env, depth)
	}
	return ir.NoTerm, errAt(sx.Pos, "unexpected %v %q in a term", sx.Kind, sx.Atom)
}

// literalBV reads a #x or #b literal.
func literalBV(sx *SExpr) (ir.BV, error) {
	base, bits := 16, uint32(4)
	if sx.Kind == SBinary {
		base, bits = 2, 1
	}
	if uint64(len(sx.Atom))*uint64(bits) > maxBVWidth {
		return ir.BV{}, errAt(sx.Pos, "literal wider than %d bits", maxBVWidth)
	}
	w := uint32(len(sx.Atom)) * bits
	if w <= 64 {
		v, err := strconv.ParseUint(sx.Atom, base, 64)
		if err != nil {
			return ir.BV{}, errAt(sx.Pos, "bad literal: %v", err)
		}
		return ir.NewBV(w, v), nil
	}
	z, ok := new(big.Int).SetString(sx.Atom, base)
	if !ok {
		return ir.BV{}, errAt(sx.Pos, "bad literal")
	}
	return ir.NewBVBig(w, z), nil
}

func (p *termParser) symbol(sx *SExpr, env *locals, depth int) (ir.Term, error) {
	name := sx.Atom
	if t, ok := env.lookup(name); ok {
		return t, nil
	}
	if f, ok := termSymbols[name]; ok && !sx.Quoted && f.nargs == 0 && f.nidx == 0 {
		return call(sem[ir.Term](p), f, sx, name, nil, nil) // true, false
	}
	if m, ok := p.scope.Macros[name]; ok {
		return p.expand(sx, m, nil, depth)
	}
	if t, ok := p.lookupVar(name); ok {
		return t, nil
	}
	if f, ok := p.lookupFunc(name); ok {
		return p.apply(sx, f, nil)
	}
	return ir.NoTerm, errAt(sx.Pos, "unknown symbol %q", name)
}

// expand instantiates macro m with args.
func (p *termParser) expand(at *SExpr, m *Macro, args []ir.Term, depth int) (ir.Term, error) {
	if len(args) != len(m.Params) {
		return ir.NoTerm, errAt(at.Pos, "%s takes %d arguments, got %d", m.Name, len(m.Params), len(args))
	}
	if len(args) == 0 && m.term != ir.NoTerm {
		return m.term, nil
	}
	if depth > maxMacroDepth {
		return ir.NoTerm, errAt(at.Pos, "macros nested more than %d deep", maxMacroDepth)
	}
	kb := append(make([]byte, 0, 64), m.Name...)
	for _, a := range args {
		kb = strconv.AppendUint(append(kb, ','), uint64(a), 10)
	}
	key := string(kb)
	if t, ok := p.memo[key]; ok {
		return t, nil
	}
	bind := &locals{vars: make(map[string]ir.Term, len(args))}
	for i, a := range args {
		if s := p.b.Sort(a); s != m.Sorts[i] {
			return ir.NoTerm, errAt(at.Pos, "%s argument %d is %v, want %v", m.Name, i, s, m.Sorts[i])
		}
		bind.vars[m.Params[i]] = a
	}
	// The body sees only its parameters and the global scope.
	t, err := p.term(&m.Body, bind, depth+1)
	if err != nil {
		return ir.NoTerm, err
	}
	if s := p.b.Sort(t); s != m.Result {
		return ir.NoTerm, errAt(at.Pos, "%s is %v, declared %v", m.Name, s, m.Result)
	}
	if len(args) == 0 {
		m.term = t
	} else {
		if p.memo == nil {
			p.memo = make(map[string]ir.Term)
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
func ParseSort(sx SExpr) (ir.Sort, error) {
	switch {
	case sx.Kind == SSymbol && sx.Atom == "Bool":
		return ir.BoolSort, nil
	case sx.Kind == SList && len(sx.List) == 3 && sx.List[0].IsSymbol("_") && sx.List[1].IsSymbol("BitVec"):
		w, err := numeral(&sx.List[2])
		if err != nil {
			return ir.Sort{}, err
		}
		if w == 0 || w > maxBVWidth {
			return ir.Sort{}, errAt(sx.Pos, "bit-vector width %d out of range", w)
		}
		return ir.BVSort(w), nil
	case sx.Kind == SList && len(sx.List) == 3 && sx.List[0].IsSymbol("Array"):
		i, err1 := ParseSort(sx.List[1])
		e, err2 := ParseSort(sx.List[2])
		if err1 == nil && err2 == nil && i == ir.BVSort(ir.AddrWidth) && e == ir.BVSort(8) {
			return ir.MemSort, nil
		}
		return ir.Sort{}, &UnsupportedError{Pos: sx.Pos, What: "array sort " + sx.String()}
	}
	return ir.Sort{}, &UnsupportedError{Pos: sx.Pos, What: "sort " + sx.String()}
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

func (p *termParser) list(sx *SExpr, env *locals, depth int) (ir.Term, error) {
	if len(sx.List) == 0 {
		return ir.NoTerm, errAt(sx.Pos, "empty application ()")
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
				return ir.NoTerm, errAt(sx.Pos, "malformed annotation")
			}
			return p.term(&sx.List[1], env, depth)
		case "as":
			if len(sx.List) != 3 {
				return ir.NoTerm, errAt(sx.Pos, "malformed (as t sort)")
			}
			s, err := ParseSort(sx.List[2])
			if err != nil {
				return ir.NoTerm, err
			}
			t, err := p.term(&sx.List[1], env, depth)
			if err != nil {
				return ir.NoTerm, err
			}
			if p.b.Sort(t) != s {
				return ir.NoTerm, errAt(sx.Pos, "(as …) of a %v term as %v", p.b.Sort(t), s)
			}
			return t, nil
		case "lambda", "forall", "exists", "match":
			return ir.NoTerm, &UnsupportedError{Pos: sx.Pos, What: head.Atom}
		}
	}
	if head.Kind == SList {
		if len(head.List) > 0 && head.List[0].IsSymbol("as") {
			return ir.NoTerm, &UnsupportedError{Pos: sx.Pos, What: "constant array " + head.String()}
		}
		return p.indexedApp(sx, env, depth)
	}
	if head.Kind != SSymbol {
		return ir.NoTerm, errAt(head.Pos, "cannot apply a %v", head.Kind)
	}
	args := make([]ir.Term, len(sx.List)-1)
	for i := range args {
		t, err := p.term(&sx.List[i+1], env, depth)
		if err != nil {
			return ir.NoTerm, err
		}
		args[i] = t
	}
	name := head.Atom
	if _, ok := env.lookup(name); ok {
		return ir.NoTerm, errAt(head.Pos, "%s is bound by let and cannot be applied", name)
	}
	if m, ok := p.scope.Macros[name]; ok {
		return p.expand(head, m, args, depth)
	}
	if f, ok := p.lookupFunc(name); ok {
		return p.apply(sx, f, args)
	}
	if head.Quoted {
		return ir.NoTerm, errAt(head.Pos, "unknown function %q", name)
	}
	return p.builtin(sx, name, args)
}

// builtin applies a symbol of the vocabulary.
func (p *termParser) builtin(sx *SExpr, name string, args []ir.Term) (ir.Term, error) {
	f, ok := termSymbols[name]
	if !ok {
		return ir.NoTerm, errAt(sx.List[0].Pos, "unknown function %q", name)
	}
	return call(sem[ir.Term](p), f, sx, name, nil, args)
}

// indexedConst reads (_ bvN w).
func (p *termParser) indexedConst(sx *SExpr) (ir.Term, error) {
	x, ok, err := indexedLiteral(sx)
	switch {
	case err != nil:
		return ir.NoTerm, err
	case ok:
		return p.b.ConstBV(x), nil
	case len(sx.List) >= 2 && sx.List[1].IsSymbol("as-array"):
		return ir.NoTerm, &UnsupportedError{Pos: sx.Pos, What: "as-array"}
	}
	return ir.NoTerm, errAt(sx.Pos, "unknown indexed term %s", sx.String())
}

// indexedApp reads ((_ extract i j) x) and the other indexed operators.
func (p *termParser) indexedApp(sx *SExpr, env *locals, depth int) (ir.Term, error) {
	name, idx, err := indexed(&sx.List[0])
	if err != nil {
		return ir.NoTerm, err
	}
	f, ok := termSymbols[name]
	if !ok || f.nidx == 0 {
		return ir.NoTerm, errAt(sx.Pos, "unknown indexed operator %s", name)
	}
	args := make([]ir.Term, len(sx.List)-1)
	for i := range args {
		if args[i], err = p.term(&sx.List[i+1], env, depth); err != nil {
			return ir.NoTerm, err
		}
	}
	return call(sem[ir.Term](p), f, sx, name, idx, args)
}

// let reads (let ((x t) …) body).
func (p *termParser) let(sx *SExpr, env *locals, depth int) (ir.Term, error) {
	bind, err := let(sx, env, func(t *SExpr) (ir.Term, error) { return p.term(t, env, depth) })
	if err != nil {
		return ir.NoTerm, err
	}
	return p.term(&sx.List[2], bind, depth)
}

// Script is what ParseScript read.
type Script struct {
	Asserts []ir.Term
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
func ParseScript(b *ir.Builder, text string) (*Script, error) {
	cmds, err := ReadSExprs(text)
	if err != nil {
		return nil, err
	}
	sc := &Script{
		Names:  &Names{Vars: make(map[string]ir.Term), Funcs: make(map[string]*ir.Func)},
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
		var sorts []ir.Sort
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
		if b.Sort(t) != ir.BoolSort {
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
