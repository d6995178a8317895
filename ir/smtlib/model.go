package smtlib

import (
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"eqc/ir"
)

// Models: reading the values a solver prints after (get-model) back in terms
// of the query's Builder.
//
// Formats accepted (after an optional leading sat/unknown line):
//   - z3 4.8:     ( (define-fun x () (_ BitVec 32) #x00000001) … )
//   - older z3:   (model (define-fun …) …)
//   - cvc5:       ( (define-fun x () (_ BitVec 32) #b…) … )  (binary literals)
//   - bare define-fun commands one after another;
//   - boolector 1.5 (-m): one "name bits" line per constant and
//     "name[index] bits" per array element read, bits possibly 'x' (don't
//     care, read as 0), in binary or (with -x) hexadecimal.
//
// Values are computed by a small interpreter over the S-expressions, not by
// building terms, because models use things terms cannot express: constant
// arrays, lambdas, as-array, functions defined by other model functions.
// The interpreter owns only that structure (binders, model functions,
// memories given as functions of the address); what a function symbol
// computes comes from the vocabulary (symbols.go), and each op's value from
// ir's evaluator (ir.Op.Eval), so the model reader, the term parser and the
// evaluator cannot disagree about a symbol.
//
// Memories. A constant array with stores is a Mem exactly. A lambda (z3,
// cvc5), an as-array of a model function (z3) or a memory printed as a
// one-parameter function (boolector 3) is a function from addresses to
// bytes. When every occurrence of its address parameter is a direct operand
// of a comparison (=, distinct, bvule, bvslt, …: the vocabulary's symbols
// that map two addresses to a boolean) with a 64-bit literal — the
// shape solvers print — the function is constant between consecutive
// "breakpoints" (each literal c and c+1, plus 0 and 2^63 for signed
// comparisons), so it is known exactly by evaluating it once per interval.
// The Mem's Default is then the value that covers the most addresses and
// every short interval with another value is materialized byte by byte:
// the Mem equals the function. An interval too long to materialize (or a
// body of another shape) makes the memory inexact: the Mem then holds the
// breakpoints, the first and last bytes of the long intervals and the bytes
// at and after every 64-bit value of the model (the addresses a query most
// likely reads), and Exact reports false; MemByte still gives the exact byte
// at any address by evaluating the body.

// Model is a solver's model read back into a Builder's terms. It implements
// Env. It is not safe for concurrent use.
type Model struct {
	vars    map[ir.Term]ir.Value
	funcs   map[*ir.Func]*FuncInterp
	arrays  map[ir.Term]*arrv // memories read from a function-like definition
	inexact map[ir.Term]bool
}

// VarValue implements Env.
func (m *Model) VarValue(_ *ir.Builder, t ir.Term) (ir.Value, bool) {
	v, ok := m.vars[t]
	return v, ok
}

// ApplyFunc implements Env: f's interpretation applied to args. It reports
// false when the model has no interpretation of f or it cannot be evaluated
// on args.
func (m *Model) ApplyFunc(f *ir.Func, args []ir.Value) (ir.Value, bool) {
	fi, ok := m.funcs[f]
	if !ok {
		return ir.Value{}, false
	}
	v, err := fi.Apply(args)
	return v, err == nil
}

// Completed is the model with what it leaves out read as zero: a constant
// as ZeroValue of its sort, a function as the constant zero function. A
// solver leaves out what any value satisfies, so the completed model
// satisfies the query whenever the model does.
func (m *Model) Completed() ir.Env { return completed{m} }

type completed struct{ m *Model }

func (c completed) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	if v, ok := c.m.VarValue(b, t); ok {
		return v, true
	}
	return ir.ZeroValue(b.Sort(t)), true
}

func (c completed) ApplyFunc(f *ir.Func, args []ir.Value) (ir.Value, bool) {
	if v, ok := c.m.ApplyFunc(f, args); ok {
		return v, true
	}
	return ir.ZeroValue(f.Result), true
}

// Vars returns the values of the query's constants the model defines. The
// map must not be modified.
func (m *Model) Vars() map[ir.Term]ir.Value { return m.vars }

// Func returns the model's interpretation of f.
func (m *Model) Func(f *ir.Func) (*FuncInterp, bool) {
	fi, ok := m.funcs[f]
	return fi, ok
}

// Exact reports whether the value of t is exactly the solver's: false only
// for a memory whose function-like definition could not be materialized
// completely (see the package comment above).
func (m *Model) Exact(t ir.Term) bool { return !m.inexact[t] }

// MemByte returns the byte the model's memory t holds at a, evaluating the
// solver's definition itself when it was function-like.
func (m *Model) MemByte(t ir.Term, a uint64) (byte, bool) {
	if ar, ok := m.arrays[t]; ok {
		v, err := ar.load(a)
		return v, err == nil
	}
	v, ok := m.vars[t]
	if !ok || v.Sort() != ir.MemSort {
		return 0, false
	}
	return v.Mem().Load(a), true
}

// FuncInterp is a model's interpretation of an uninterpreted function: a
// body over named parameters, evaluated by the model interpreter.
type FuncInterp struct {
	Name   string
	Params []string
	Sorts  []ir.Sort
	Result ir.Sort
	Body   SExpr
	mc     *modelCtx
}

// Apply evaluates the interpretation on args.
func (fi *FuncInterp) Apply(args []ir.Value) (ir.Value, error) {
	if len(args) != len(fi.Params) {
		return ir.Value{}, fmt.Errorf("smtlib: model function %s takes %d arguments, got %d", fi.Name, len(fi.Params), len(args))
	}
	env := &venv{vars: make(map[string]sval, len(args))}
	for i, a := range args {
		if a.Sort() != fi.Sorts[i] {
			return ir.Value{}, fmt.Errorf("smtlib: model function %s argument %d is %v, want %v", fi.Name, i, a.Sort(), fi.Sorts[i])
		}
		env.vars[fi.Params[i]] = fromValue(a)
	}
	in := &interp{mc: fi.mc}
	v, err := in.eval(&fi.Body, env, 0)
	if err != nil {
		return ir.Value{}, err
	}
	return in.toValue(v, fi.Result, &fi.Body, nil)
}

// ParseModel reads a model printed by z3, cvc5 or boolector for a query
// whose names are names (as the printer returned them). Definitions of names
// the query does not use are ignored except as helpers of others; constants
// the model leaves out are simply absent (VarValue reports false).
func ParseModel(b *ir.Builder, text string, names *Names) (*Model, error) {
	if names == nil {
		names = &Names{}
	}
	rest := strings.TrimLeft(text, " \t\r\n")
	for _, st := range []Status{Sat, Unknown, Unsat} { // the answer to check-sat
		if w := st.String(); strings.HasPrefix(rest, w) && (len(rest) == len(w) || isDelim(rest[len(w)])) {
			if st == Unsat {
				return nil, fmt.Errorf("smtlib: the solver answered unsat: no model")
			}
			rest = strings.TrimLeft(rest[len(w):], " \t\r\n")
			break
		}
	}
	if rest != "" && rest[0] != '(' && rest[0] != ';' {
		return parseBtorModel(b, rest, names)
	}
	sxs, err := ReadSExprs(rest)
	if err != nil {
		return nil, err
	}
	n := len(names.Vars) + len(names.Funcs)
	mc := &modelCtx{defs: make(map[string]*SExpr, n), cache: make(map[string]sval, n), busy: make(map[string]bool)}
	var collect func(sx *SExpr, depth int) error
	collect = func(sx *SExpr, depth int) error {
		switch sx.Head() {
		case "define-fun":
			if len(sx.List) < 2 || sx.List[1].Kind != SSymbol {
				return errAt(sx.Pos, "malformed define-fun")
			}
			mc.defs[sx.List[1].Atom] = sx
			return nil
		case "model":
			if depth > 0 {
				return errAt(sx.Pos, "nested model")
			}
			for i := 1; i < len(sx.List); i++ {
				if err := collect(&sx.List[i], depth+1); err != nil {
					return err
				}
			}
			return nil
		case "error":
			return errAt(sx.Pos, "solver error: %s", sx.String())
		case "":
			if sx.Kind == SList && depth == 0 {
				for i := range sx.List {
					if err := collect(&sx.List[i], depth+1); err != nil {
						return err
					}
				}
				return nil
			}
			return errAt(sx.Pos, "unexpected %s in a model", sx.String())
		}
		return nil // declare-fun, declare-sort, forall, …: not values
	}
	for i := range sxs {
		if err := collect(&sxs[i], 0); err != nil {
			return nil, err
		}
	}
	m := &Model{
		vars:    make(map[ir.Term]ir.Value, len(names.Vars)),
		funcs:   make(map[*ir.Func]*FuncInterp),
		arrays:  make(map[ir.Term]*arrv),
		inexact: make(map[ir.Term]bool),
	}
	// Constants in name order (deterministic errors), memories last: their
	// materialization samples the 64-bit values of the others.
	varNames := make([]string, 0, len(names.Vars))
	for n := range names.Vars {
		varNames = append(varNames, n)
	}
	sort.Strings(varNames)
	var mems []string
	var samples []uint64
	for _, n := range varNames {
		t := names.Vars[n]
		if _, ok := mc.defs[n]; !ok {
			continue
		}
		if b.Sort(t) == ir.MemSort {
			mems = append(mems, n)
			continue
		}
		in := &interp{mc: mc}
		v, err := in.nullary(n, b.Sort(t))
		if err != nil {
			return nil, err
		}
		m.vars[t] = v
		if v.Sort() == ir.BVSort(ir.AddrWidth) {
			samples = append(samples, v.BV().Uint64())
		}
	}
	if err := m.joinLanes(mc, names); err != nil {
		return nil, err
	}
	for _, n := range mems {
		t := names.Vars[n]
		def := mc.defs[n]
		in := &interp{mc: mc}
		var a sval
		var err error
		if len(def.List) == 5 && def.List[2].Kind == SList && len(def.List[2].List) == 1 {
			// A memory printed as a function of the address (boolector 3).
			var fi *FuncInterp
			if fi, err = mc.funcInterp(n, []ir.Sort{ir.BVSort(ir.AddrWidth)}, ir.BVSort(8)); err == nil {
				a = sval{kind: ir.KindMem, arr: in.funcArray(fi)}
			}
		} else {
			a, err = in.nullaryVal(n)
			if err == nil && a.kind != ir.KindMem {
				err = errAt(def.Pos, "%s is a %v in the model, a memory in the query", n, a.kind)
			}
		}
		if err != nil {
			return nil, err
		}
		mem, exact, err := in.materialize(a.arr, samples)
		if err != nil {
			return nil, errAt(def.Pos, "%s: %v", n, err)
		}
		m.vars[t] = ir.MemValue(mem)
		if a.arr.mem == nil {
			m.arrays[t] = a.arr
		}
		if !exact {
			m.inexact[t] = true
		}
	}
	funcNames := make([]string, 0, len(names.Funcs))
	for n := range names.Funcs {
		funcNames = append(funcNames, n)
	}
	sort.Strings(funcNames)
	for _, n := range funcNames {
		f := names.Funcs[n]
		if _, ok := mc.defs[n]; !ok {
			continue
		}
		fi, err := mc.funcInterp(n, f.Args, f.Result)
		if err != nil {
			return nil, err
		}
		m.funcs[f] = fi
	}
	return m, nil
}

// joinLanes gives each vector variable the query declared lane by lane the
// concatenation of its lanes' values. A lane the model leaves out is
// unconstrained and reads as zero; a vector none of whose lanes the model
// gives stays absent.
func (m *Model) joinLanes(mc *modelCtx, names *Names) error {
	vecs := make([]ir.Term, 0, len(names.Lanes))
	for t := range names.Lanes {
		vecs = append(vecs, t)
	}
	sort.Slice(vecs, func(i, j int) bool { return names.Lanes[vecs[i]][0] < names.Lanes[vecs[j]][0] })
	for _, t := range vecs {
		lanes := names.Lanes[t]
		var v ir.BV
		any := false
		for i := len(lanes) - 1; i >= 0; i-- {
			x := ir.NewBV(laneWidth, 0)
			if _, ok := mc.defs[lanes[i]]; ok {
				in := &interp{mc: mc}
				lv, err := in.nullary(lanes[i], ir.BVSort(laneWidth))
				if err != nil {
					return err
				}
				x, any = lv.BV(), true
			}
			if i == len(lanes)-1 {
				v = x
			} else {
				v = v.Concat(x)
			}
		}
		if any {
			m.vars[t] = ir.BVValue(v)
		}
	}
	return nil
}

// modelCtx holds a model's definitions, shared by its interpreters.
type modelCtx struct {
	defs  map[string]*SExpr // define-fun commands by name
	cache map[string]sval   // values of parameterless definitions
	busy  map[string]bool   // definitions being evaluated (cycle check)
}

// funcInterp reads definition name as a function of the given signature.
func (mc *modelCtx) funcInterp(name string, args []ir.Sort, result ir.Sort) (*FuncInterp, error) {
	def, ok := mc.defs[name]
	if !ok {
		return nil, fmt.Errorf("smtlib: model: no definition of %s", name)
	}
	m, err := parseDefineFun(def)
	if err != nil {
		return nil, err
	}
	if len(m.Sorts) != len(args) || m.Result != result {
		return nil, errAt(def.Pos, "%s has another signature in the model than in the query", name)
	}
	for i := range args {
		if m.Sorts[i] != args[i] {
			return nil, errAt(def.Pos, "%s parameter %d is %v in the model, %v in the query", name, i, m.Sorts[i], args[i])
		}
	}
	return &FuncInterp{Name: name, Params: m.Params, Sorts: m.Sorts, Result: m.Result, Body: m.Body, mc: mc}, nil
}

// sval is a value of the model interpreter.
type sval struct {
	kind ir.Kind
	b    bool
	bv   ir.BV
	arr  *arrv
}

func fromValue(v ir.Value) sval {
	switch v.Sort().Kind {
	case ir.KindBool:
		return sval{kind: ir.KindBool, b: v.Bool()}
	case ir.KindBV:
		return sval{kind: ir.KindBV, bv: v.BV()}
	case ir.KindMem:
		return sval{kind: ir.KindMem, arr: &arrv{mem: v.Mem()}}
	}
	return sval{}
}

// value is v as an ir.Value; v must not be a memory given by a function.
func (v sval) value() ir.Value {
	switch v.kind {
	case ir.KindBool:
		return ir.BoolValue(v.b)
	case ir.KindBV:
		return ir.BVValue(v.bv)
	}
	return ir.MemValue(v.arr.mem)
}

func (v sval) sort() ir.Sort {
	switch v.kind {
	case ir.KindBV:
		return ir.BVSort(v.bv.Width())
	case ir.KindBool:
		return ir.BoolSort
	case ir.KindMem:
		return ir.MemSort
	}
	return ir.Sort{}
}

// arrv is a memory value: either a Mem or a function of the address.
type arrv struct {
	mem *ir.Mem
	// When mem is nil:
	fn        func(in *interp, a uint64) (byte, error)
	points    []uint64 // where fn may change value
	piecewise bool     // fn is constant between consecutive points
}

func (a *arrv) load(addr uint64) (byte, error) {
	if a.mem != nil {
		return a.mem.Load(addr), nil
	}
	return a.fn(nil, addr)
}

// venv are the interpreter's let, parameter and lambda bindings.
type venv = bindings[sval]

// interp evaluates model S-expressions. Its step budget keeps hostile models
// (exponentially shared function calls) from running for ever.
type interp struct {
	mc    *modelCtx
	steps int
}

const (
	maxInterpSteps = 10_000_000
	maxCallDepth   = 2000
	maxMaterialize = 1 << 20 // bytes materialized per memory
	maxRun         = 4096    // longest interval materialized byte by byte
	maxModelWidth  = 4096    // widest bit-vector the interpreter computes with
)

func (in *interp) nullary(name string, want ir.Sort) (ir.Value, error) {
	v, err := in.nullaryVal(name)
	if err != nil {
		return ir.Value{}, err
	}
	return in.toValue(v, want, in.mc.defs[name], nil)
}

// nullaryVal evaluates the parameterless definition name, once.
func (in *interp) nullaryVal(name string) (sval, error) {
	mc := in.mc
	if v, ok := mc.cache[name]; ok {
		return v, nil
	}
	def := mc.defs[name]
	m, err := parseDefineFun(def)
	if err != nil {
		return sval{}, err
	}
	if len(m.Params) != 0 {
		return sval{}, errAt(def.Pos, "%s is a function in the model", name)
	}
	if mc.busy[name] {
		return sval{}, errAt(def.Pos, "%s is defined in terms of itself", name)
	}
	mc.busy[name] = true
	defer delete(mc.busy, name)
	v, err := in.eval(&m.Body, nil, 0)
	if err != nil {
		return sval{}, err
	}
	if v.sort() != m.Result {
		return sval{}, errAt(def.Pos, "%s is declared %v, its value is %v", name, m.Result, v.sort())
	}
	mc.cache[name] = v
	return v, nil
}

// toValue converts an interpreter value of sort want to a Value.
func (in *interp) toValue(v sval, want ir.Sort, at *SExpr, samples []uint64) (ir.Value, error) {
	if v.sort() != want {
		return ir.Value{}, errAt(at.Pos, "value of sort %v, want %v", v.sort(), want)
	}
	switch v.kind {
	case ir.KindBool:
		return ir.BoolValue(v.b), nil
	case ir.KindBV:
		return ir.BVValue(v.bv), nil
	}
	mem, _, err := in.materialize(v.arr, samples)
	if err != nil {
		return ir.Value{}, err
	}
	return ir.MemValue(mem), nil
}

// materialize turns a memory value into a Mem; see the package comment.
func (in *interp) materialize(a *arrv, samples []uint64) (*ir.Mem, bool, error) {
	if a.mem != nil {
		return a.mem, true, nil
	}
	pts := append([]uint64{0, 1 << 63}, a.points...)
	sort.Slice(pts, func(i, j int) bool { return pts[i] < pts[j] })
	uniq := pts[:1]
	for _, p := range pts[1:] {
		if p != uniq[len(uniq)-1] {
			uniq = append(uniq, p)
		}
	}
	pts = uniq
	vals := make([]byte, len(pts))
	for i, p := range pts {
		v, err := a.fn(in, p)
		if err != nil {
			return nil, false, err
		}
		vals[i] = v
	}
	// Interval i is [pts[i], pts[i+1]) and the last one ends at 2^64; its
	// length minus one always fits in a uint64.
	lenMinus1 := func(i int) uint64 {
		if i+1 < len(pts) {
			return pts[i+1] - pts[i] - 1
		}
		return ^uint64(0) - pts[i]
	}
	var cover [256][2]uint64 // addresses covered by each byte value, 128-bit
	for i := range pts {
		lo, c := bits.Add64(cover[vals[i]][1], lenMinus1(i), 0)
		lo, c2 := bits.Add64(lo, 1, 0)
		cover[vals[i]][1] = lo
		cover[vals[i]][0] += c + c2
	}
	def := 0
	for v := 1; v < 256; v++ {
		if cover[v][0] > cover[def][0] || (cover[v][0] == cover[def][0] && cover[v][1] > cover[def][1]) {
			def = v
		}
	}
	exact := a.piecewise
	writes := make(map[uint64]byte)
	put := func(addr uint64, v byte) {
		if v != byte(def) && len(writes) < maxMaterialize {
			writes[addr] = v
		}
	}
	putEval := func(addr uint64) error {
		v, err := a.fn(in, addr)
		if err == nil {
			put(addr, v)
		}
		return err
	}
	for i, p := range pts {
		if vals[i] == byte(def) {
			continue
		}
		n := lenMinus1(i)
		if exact && n < maxRun && len(writes)+int(n)+1 <= maxMaterialize {
			for k := uint64(0); k <= n; k++ {
				put(p+k, vals[i])
			}
			continue
		}
		if exact {
			for k := uint64(0); k < 16 && k <= n; k++ {
				put(p+k, vals[i])
				put(p+n-k, vals[i])
			}
			exact = false
			continue
		}
		put(p, vals[i])
	}
	if !exact {
		for _, s := range samples {
			for k := uint64(0); k < 16; k++ {
				if err := putEval(s + k); err != nil {
					return nil, false, err
				}
			}
		}
	}
	if len(writes) >= maxMaterialize {
		exact = false
	}
	return ir.MemFromMap(byte(def), writes), exact, nil
}

func (in *interp) step(at *SExpr) error {
	in.steps++
	if in.steps > maxInterpSteps {
		return errAt(at.Pos, "model evaluation exceeds %d steps", maxInterpSteps)
	}
	return nil
}

// eval evaluates sx under env. depth counts nested calls of model functions.
func (in *interp) eval(sx *SExpr, env *venv, depth int) (sval, error) {
	if err := in.step(sx); err != nil {
		return sval{}, err
	}
	switch sx.Kind {
	case SHex, SBinary:
		x, err := literalBV(sx)
		if err != nil {
			return sval{}, err
		}
		return sval{kind: ir.KindBV, bv: x}, nil
	case SSymbol:
		if v, ok := env.lookup(sx.Atom); ok {
			return v, nil
		}
		if !sx.Quoted {
			switch sx.Atom {
			case "true":
				return sval{kind: ir.KindBool, b: true}, nil
			case "false":
				return sval{kind: ir.KindBool}, nil
			}
		}
		if _, ok := in.mc.defs[sx.Atom]; ok {
			return in.nullaryVal(sx.Atom)
		}
		return sval{}, errAt(sx.Pos, "unknown symbol %q in the model", sx.Atom)
	case SList:
		v, err := in.list(sx, env, depth)
		if err == nil && v.kind == ir.KindBV && v.bv.Width() > 64 {
			// Wide arithmetic costs up to quadratically in the width.
			if v.bv.Width() > maxModelWidth {
				return sval{}, &UnsupportedError{Pos: sx.Pos, What: fmt.Sprintf("model value wider than %d bits", maxModelWidth)}
			}
			words := int(v.bv.Width()+63) / 64
			in.steps += words * words / 16
			err = in.step(sx)
		}
		return v, err
	}
	return sval{}, errAt(sx.Pos, "unexpected %v in a model value", sx.Kind)
}

func (in *interp) evalBool(sx *SExpr, env *venv, depth int) (bool, error) {
	v, err := in.eval(sx, env, depth)
	if err != nil {
		return false, err
	}
	if v.kind != ir.KindBool {
		return false, errAt(sx.Pos, "want a boolean")
	}
	return v.b, nil
}

func (in *interp) list(sx *SExpr, env *venv, depth int) (sval, error) {
	if len(sx.List) == 0 {
		return sval{}, errAt(sx.Pos, "empty application ()")
	}
	head := &sx.List[0]
	args := sx.List[1:]
	if head.Kind == SList {
		return in.indexedOrConst(sx, env, depth)
	}
	if head.Kind != SSymbol {
		return sval{}, errAt(head.Pos, "cannot apply a %v", head.Kind)
	}
	name := head.Atom
	if !head.Quoted {
		switch name {
		case "_":
			return in.underscore(sx)
		case "let":
			bind, err := let(sx, env, func(t *SExpr) (sval, error) { return in.eval(t, env, depth) })
			if err != nil {
				return sval{}, err
			}
			return in.eval(&args[1], bind, depth)
		case "lambda":
			return in.lambda(sx, env, depth)
		case "!":
			if len(args) < 1 {
				return sval{}, errAt(sx.Pos, "malformed annotation")
			}
			return in.eval(&args[0], env, depth)
		case "as":
			if len(args) != 2 {
				return sval{}, errAt(sx.Pos, "malformed as")
			}
			return in.eval(&args[0], env, depth)
		}
		// Ops evaluated lazily (an ite evaluates only the branch taken, and
		// and or stop at the first argument that decides), and chains of
		// stores, iteratively (cvc5 prints memories as long ones).
		switch valueSymbols[name].op {
		case ir.OpIte:
			if len(args) != 3 {
				return sval{}, errAt(sx.Pos, "%s takes 3 arguments", name)
			}
			c, err := in.evalBool(&args[0], env, depth)
			if err != nil {
				return sval{}, err
			}
			if c {
				return in.eval(&args[1], env, depth)
			}
			return in.eval(&args[2], env, depth)
		case ir.OpAnd, ir.OpOr:
			or := valueSymbols[name].op == ir.OpOr
			for i := range args {
				v, err := in.evalBool(&args[i], env, depth)
				if err != nil {
					return sval{}, err
				}
				if v == or {
					return sval{kind: ir.KindBool, b: v}, nil
				}
			}
			return sval{kind: ir.KindBool, b: !or}, nil
		case ir.OpStore:
			return in.store(sx, env, depth)
		}
	}
	if _, ok := env.lookup(name); !ok {
		if def, ok := in.mc.defs[name]; ok {
			return in.call(sx, def, env, depth)
		}
	}
	vals, err := in.evalArgs(args, env, depth)
	if err != nil {
		return sval{}, err
	}
	return in.builtin(sx, name, vals)
}

// call applies the model's definition def to the arguments of sx.
func (in *interp) call(sx *SExpr, def *SExpr, env *venv, depth int) (sval, error) {
	if depth > maxCallDepth {
		return sval{}, errAt(sx.Pos, "model functions nested more than %d deep", maxCallDepth)
	}
	m, err := parseDefineFun(def)
	if err != nil {
		return sval{}, err
	}
	args := sx.List[1:]
	if len(args) != len(m.Params) {
		return sval{}, errAt(sx.Pos, "%s takes %d arguments, got %d", m.Name, len(m.Params), len(args))
	}
	bind := &venv{vars: make(map[string]sval, len(args))}
	for i := range args {
		v, err := in.eval(&args[i], env, depth)
		if err != nil {
			return sval{}, err
		}
		if v.sort() != m.Sorts[i] {
			return sval{}, errAt(args[i].Pos, "%s argument %d is %v, want %v", m.Name, i, v.sort(), m.Sorts[i])
		}
		bind.vars[m.Params[i]] = v
	}
	v, err := in.eval(&m.Body, bind, depth+1)
	if err != nil {
		return sval{}, err
	}
	if v.sort() != m.Result {
		return sval{}, errAt(sx.Pos, "%s returned %v, declared %v", m.Name, v.sort(), m.Result)
	}
	return v, nil
}

// isStore reports whether sx applies SMT-LIB's store: one byte, in the
// vocabulary.
func isStore(sx *SExpr) bool {
	return sx.Kind == SList && len(sx.List) == 4 && !sx.List[0].Quoted && valueSymbols[sx.Head()].op == ir.OpStore
}

// store evaluates a chain of single-byte stores iteratively.
func (in *interp) store(sx *SExpr, env *venv, depth int) (sval, error) {
	var chain []*SExpr
	cur := sx
	for isStore(cur) {
		if _, shadowed := env.lookup(cur.Head()); shadowed {
			break
		}
		chain = append(chain, cur)
		cur = &cur.List[1]
	}
	if len(chain) == 0 {
		return sval{}, errAt(sx.Pos, "%s takes 3 arguments", sx.Head())
	}
	base, err := in.eval(cur, env, depth)
	if err != nil {
		return sval{}, err
	}
	if base.kind != ir.KindMem {
		return sval{}, errAt(cur.Pos, "store into a %v", base.sort())
	}
	addrs := make([]uint64, len(chain))
	vals := make([]byte, len(chain))
	for i := range chain { // innermost first
		c := chain[len(chain)-1-i]
		a, err := in.eval(&c.List[2], env, depth)
		if err != nil {
			return sval{}, err
		}
		v, err := in.eval(&c.List[3], env, depth)
		if err != nil {
			return sval{}, err
		}
		if a.sort() != ir.BVSort(ir.AddrWidth) || v.sort() != ir.BVSort(8) {
			return sval{}, errAt(c.Pos, "store of a %v at a %v", v.sort(), a.sort())
		}
		addrs[i], vals[i] = a.bv.Uint64(), byte(v.bv.Uint64())
	}
	return sval{kind: ir.KindMem, arr: written(base.arr, addrs, vals)}, nil
}

// written is memory a with vals written at addrs, in order.
func written(a *arrv, addrs []uint64, vals []byte) *arrv {
	if root := a.mem; root != nil {
		writes := make(map[uint64]byte)
		for _, addr := range root.Written() {
			writes[addr] = root.Load(addr)
		}
		for i, addr := range addrs {
			writes[addr] = vals[i]
		}
		return &arrv{mem: ir.MemFromMap(root.Default, writes)}
	}
	over := make(map[uint64]byte, len(addrs))
	points := append([]uint64(nil), a.points...)
	for i, addr := range addrs {
		over[addr] = vals[i]
		points = append(points, addr, addr+1)
	}
	inner := a.fn
	fn := func(in *interp, addr uint64) (byte, error) {
		if v, ok := over[addr]; ok {
			return v, nil
		}
		return inner(in, addr)
	}
	return &arrv{fn: fn, points: points, piecewise: a.piecewise}
}

// lambda evaluates (lambda ((i (_ BitVec 64))) body) as a memory.
func (in *interp) lambda(sx *SExpr, env *venv, depth int) (sval, error) {
	if len(sx.List) != 3 || sx.List[1].Kind != SList || len(sx.List[1].List) != 1 {
		return sval{}, &UnsupportedError{Pos: sx.Pos, What: "lambda of other than one parameter"}
	}
	pd := &sx.List[1].List[0]
	if pd.Kind != SList || len(pd.List) != 2 || pd.List[0].Kind != SSymbol {
		return sval{}, errAt(pd.Pos, "malformed lambda parameter")
	}
	if s, err := ParseSort(pd.List[1]); err != nil || s != ir.BVSort(ir.AddrWidth) {
		return sval{}, &UnsupportedError{Pos: sx.Pos, What: "lambda over other than 64-bit addresses"}
	}
	fi := &FuncInterp{Name: "lambda", Params: []string{pd.List[0].Atom}, Sorts: []ir.Sort{ir.BVSort(ir.AddrWidth)},
		Result: ir.BVSort(8), Body: sx.List[2], mc: in.mc}
	return sval{kind: ir.KindMem, arr: in.closure(fi, env, depth)}, nil
}

// funcArray is the memory whose byte at a is fi(a): as-array.
func (in *interp) funcArray(fi *FuncInterp) *arrv { return in.closure(fi, nil, 0) }

func (in *interp) closure(fi *FuncInterp, env *venv, depth int) *arrv {
	param := fi.Params[0]
	if mem, ok := in.iteChain(&fi.Body, param, env, depth); ok {
		return &arrv{mem: mem}
	}
	lits := make(map[uint64]bool)
	piecewise := addrBreakpoints(&fi.Body, param, lits, 0)
	points := make([]uint64, 0, 2*len(lits))
	for c := range lits {
		points = append(points, c, c+1)
	}
	fn := func(caller *interp, a uint64) (byte, error) {
		ev := caller
		if ev == nil {
			ev = &interp{mc: fi.mc}
		}
		bind := &venv{vars: map[string]sval{param: {kind: ir.KindBV, bv: ir.NewBV(ir.AddrWidth, a)}}, parent: env}
		v, err := ev.eval(&fi.Body, bind, depth+1)
		if err != nil {
			return 0, err
		}
		if v.sort() != ir.BVSort(8) {
			return 0, errAt(fi.Body.Pos, "memory element of sort %v", v.sort())
		}
		return byte(v.bv.Uint64()), nil
	}
	return &arrv{fn: fn, points: points, piecewise: piecewise}
}

// iteChain reads the common shape of a memory given as a function, a chain
// (ite (= i c1) v1 (ite (= i c2) v2 … d)) with closed values, directly and
// in linear time (evaluating it per breakpoint would be quadratic).
func (in *interp) iteChain(body *SExpr, param string, env *venv, depth int) (*ir.Mem, bool) {
	writes := make(map[uint64]byte)
	cur := body
	for n := 0; ; n++ {
		if err := in.step(cur); err != nil {
			return nil, false
		}
		if cur.Head() == symbolOf(ir.OpIte) && len(cur.List) == 4 && !cur.List[0].Quoted {
			c, ok := eqParamLiteral(&cur.List[1], param)
			if !ok || mentions(&cur.List[2], param, 0) {
				return nil, false
			}
			if _, seen := writes[c]; !seen {
				v, err := in.eval(&cur.List[2], env, depth)
				if err != nil || v.sort() != ir.BVSort(8) {
					return nil, false
				}
				writes[c] = byte(v.bv.Uint64())
			}
			cur = &cur.List[3]
			continue
		}
		if mentions(cur, param, 0) {
			return nil, false
		}
		d, err := in.eval(cur, env, depth)
		if err != nil || d.sort() != ir.BVSort(8) {
			return nil, false
		}
		def := byte(d.bv.Uint64())
		for a, v := range writes {
			if v == def {
				delete(writes, a)
			}
		}
		return ir.MemFromMap(def, writes), true
	}
}

// eqParamLiteral recognizes (= param c) and (= c param) for a 64-bit literal c.
func eqParamLiteral(sx *SExpr, param string) (uint64, bool) {
	if sx.Head() != symbolOf(ir.OpEq) || len(sx.List) != 3 {
		return 0, false
	}
	for i := 1; i <= 2; i++ {
		o := &sx.List[3-i]
		if sx.List[i].IsSymbol(param) && (o.Kind == SHex || o.Kind == SBinary) {
			x, err := literalBV(o)
			if err == nil && x.Width() == ir.AddrWidth {
				return x.Uint64(), true
			}
		}
	}
	return 0, false
}

// mentions reports whether the symbol name occurs in sx.
func mentions(sx *SExpr, name string, depth int) bool {
	if sx.Kind == SSymbol {
		return sx.Atom == name
	}
	if depth > MaxSExprDepth {
		return true
	}
	for i := range sx.List {
		if mentions(&sx.List[i], name, depth+1) {
			return true
		}
	}
	return false
}

// addrBreakpoints collects into lits the 64-bit literals that param is
// compared with in sx, and reports whether every occurrence of param is an
// operand of such a comparison (so the function is constant between
// breakpoints).
func addrBreakpoints(sx *SExpr, param string, lits map[uint64]bool, depth int) bool {
	switch sx.Kind {
	case SSymbol:
		return sx.Atom != param
	case SList:
	default:
		return true
	}
	if depth > MaxSExprDepth {
		return false
	}
	if comparisons[sx.Head()] && len(sx.List) == 3 {
		for i := 1; i <= 2; i++ {
			if sx.List[i].IsSymbol(param) {
				o := &sx.List[3-i]
				if (o.Kind == SHex || o.Kind == SBinary) && len(o.Atom)*map[SExprKind]int{SHex: 4, SBinary: 1}[o.Kind] == ir.AddrWidth {
					x, err := literalBV(o)
					if err == nil {
						lits[x.Uint64()] = true
						return true
					}
				}
				return false
			}
		}
	}
	ok := true
	for i := range sx.List {
		if !addrBreakpoints(&sx.List[i], param, lits, depth+1) {
			ok = false
		}
	}
	return ok
}

// underscore evaluates (_ bvN w) and (_ as-array f).
func (in *interp) underscore(sx *SExpr) (sval, error) {
	if len(sx.List) == 3 && sx.List[1].IsSymbol("as-array") && sx.List[2].Kind == SSymbol {
		fi, err := in.mc.funcInterp(sx.List[2].Atom, []ir.Sort{ir.BVSort(ir.AddrWidth)}, ir.BVSort(8))
		if err != nil {
			return sval{}, err
		}
		return sval{kind: ir.KindMem, arr: in.funcArray(fi)}, nil
	}
	x, ok, err := indexedLiteral(sx)
	switch {
	case err != nil:
		return sval{}, err
	case !ok:
		return sval{}, errAt(sx.Pos, "unknown indexed term %s", sx.String())
	}
	return sval{kind: ir.KindBV, bv: x}, nil
}

// indexedOrConst evaluates ((_ extract i j) x) and friends, and
// ((as const (Array (_ BitVec 64) (_ BitVec 8))) v).
func (in *interp) indexedOrConst(sx *SExpr, env *venv, depth int) (sval, error) {
	head := &sx.List[0]
	if head.Head() == "as" {
		if len(head.List) != 3 || !head.List[1].IsSymbol("const") || len(sx.List) != 2 {
			return sval{}, errAt(head.Pos, "unknown %s", head.String())
		}
		if s, err := ParseSort(head.List[2]); err != nil || s != ir.MemSort {
			return sval{}, &UnsupportedError{Pos: head.Pos, What: "constant array " + head.String()}
		}
		x, err := in.eval(&sx.List[1], env, depth)
		if err != nil {
			return sval{}, err
		}
		if x.sort() != ir.BVSort(8) {
			return sval{}, errAt(sx.Pos, "constant memory of a %v", x.sort())
		}
		return sval{kind: ir.KindMem, arr: &arrv{mem: ir.NewMem(byte(x.bv.Uint64()))}}, nil
	}
	name, idx, err := indexed(head)
	if err != nil {
		return sval{}, err
	}
	f, ok := valueSymbols[name]
	if !ok || f.nidx == 0 {
		return sval{}, errAt(head.Pos, "unknown indexed operator %s", head.String())
	}
	args, err := in.evalArgs(sx.List[1:], env, depth)
	if err != nil {
		return sval{}, err
	}
	return call(sem[sval](in), f, sx, name, idx, args)
}

// svalEqual compares two values of the same sort.
func (in *interp) svalEqual(at *SExpr, x, y sval) (bool, error) {
	switch x.kind {
	case ir.KindBool:
		return x.b == y.b, nil
	case ir.KindBV:
		return x.bv.Equal(y.bv), nil
	}
	if x.arr.mem != nil && y.arr.mem != nil {
		return x.arr.mem.Equal(y.arr.mem), nil
	}
	// Both are constant between the union of their breakpoints (a Mem's are
	// its written addresses and the next ones), so comparing one address per
	// interval decides equality — when both are piecewise.
	var pts []uint64
	for _, a := range []*arrv{x.arr, y.arr} {
		if a.mem != nil {
			for _, w := range a.mem.Written() {
				pts = append(pts, w, w+1)
			}
			continue
		}
		if !a.piecewise {
			return false, &UnsupportedError{Pos: at.Pos, What: "equality of memories given by arbitrary functions"}
		}
		pts = append(pts, a.points...)
	}
	pts = append(pts, 0, 1<<63)
	if len(pts) > maxMaterialize {
		return false, errAt(at.Pos, "memory comparison over %d breakpoints", len(pts))
	}
	for _, p := range pts {
		u, err := in.loadArr(x.arr, p)
		if err != nil {
			return false, err
		}
		v, err := in.loadArr(y.arr, p)
		if err != nil {
			return false, err
		}
		if u != v {
			return false, nil
		}
	}
	return true, nil
}

func (in *interp) loadArr(a *arrv, addr uint64) (byte, error) {
	if a.mem != nil {
		return a.mem.Load(addr), nil
	}
	return a.fn(in, addr)
}

// valueSymbols is the vocabulary (symbols.go) over the interpreter's values.
var valueSymbols = symbols[sval]()

// builtin applies a symbol of the vocabulary to evaluated arguments.
func (in *interp) builtin(sx *SExpr, name string, args []sval) (sval, error) {
	f, ok := valueSymbols[name]
	if !ok {
		return sval{}, errAt(sx.List[0].Pos, "unknown function %q in the model", name)
	}
	return call(sem[sval](in), f, sx, name, nil, args)
}

// op implements sem: op's value on args, with sorts checked by the op
// table. Memories may be functions of the address, so equality, ite,
// select and store are computed here; every other op by ir's evaluator.
func (in *interp) op(at *SExpr, op ir.Op, args []sval, p0, p1 uint32) (sval, error) {
	if err := in.step(at); err != nil {
		return sval{}, err
	}
	if _, err := resultSort(sem[sval](in), at, op, args, p0, p1, maxModelWidth); err != nil {
		return sval{}, err
	}
	switch op {
	case ir.OpEq:
		eq, err := in.svalEqual(at, args[0], args[1])
		return sval{kind: ir.KindBool, b: eq}, err
	case ir.OpIte:
		if args[0].b {
			return args[1], nil
		}
		return args[2], nil
	case ir.OpSelect:
		bytes := make(map[uint64]byte, p0)
		a := args[1].bv.Uint64()
		for i := uint64(0); i < uint64(p0); i++ {
			v, err := in.loadArr(args[0].arr, a+i)
			if err != nil {
				return sval{}, err
			}
			bytes[a+i] = v
		}
		return sval{kind: ir.KindBV, bv: ir.LoadBV(ir.MemFromMap(0, bytes), a, p0)}, nil
	case ir.OpStore:
		addrs := make([]uint64, p0)
		vals := make([]byte, p0)
		for i := range addrs {
			addrs[i] = args[1].bv.Uint64() + uint64(i)
			vals[i] = byte(args[2].bv.Extract(8*uint32(i)+7, 8*uint32(i)).Uint64())
		}
		return sval{kind: ir.KindMem, arr: written(args[0].arr, addrs, vals)}, nil
	}
	// Booleans and bit-vectors only, as the sort check has made sure.
	var vbuf [3]ir.Value
	vals := vbuf[:0]
	for _, a := range args {
		vals = append(vals, a.value())
	}
	v, err := op.Eval(vals, p0, p1)
	if err != nil {
		return sval{}, errAt(at.Pos, "%v", err)
	}
	return fromValue(v), nil
}

func (in *interp) lit(x ir.BV) sval      { return sval{kind: ir.KindBV, bv: x} }
func (in *interp) sortOf(v sval) ir.Sort { return v.sort() }

// evalArgs evaluates the arguments of an application.
func (in *interp) evalArgs(args []SExpr, env *venv, depth int) ([]sval, error) {
	vals := make([]sval, len(args))
	for i := range args {
		v, err := in.eval(&args[i], env, depth)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// parseBtorModel reads boolector 1.5's own model format.
func parseBtorModel(b *ir.Builder, text string, names *Names) (*Model, error) {
	m := &Model{
		vars:    make(map[ir.Term]ir.Value),
		funcs:   make(map[*ir.Func]*FuncInterp),
		arrays:  make(map[ir.Term]*arrv),
		inexact: make(map[ir.Term]bool),
	}
	mems := make(map[ir.Term]map[uint64]byte)
	// The lanes of vectors declared lane by lane: vector and lane index.
	type laneOf struct {
		vec ir.Term
		i   int
	}
	lanesByName := map[string]laneOf{}
	for t, ls := range names.Lanes {
		for i, l := range ls {
			lanesByName[l] = laneOf{t, i}
		}
	}
	laneVals := map[ir.Term][]ir.BV{}
	for ln, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		pos := Pos{Line: ln + 1, Col: 1}
		if line == "" || strings.HasPrefix(line, "[") || line == "sat" {
			continue // blank, or a [btorsmt2] warning
		}
		sp := strings.LastIndexAny(line, " \t")
		if sp < 0 {
			return nil, errAt(pos, "malformed boolector model line %q", line)
		}
		lhs, val := strings.TrimSpace(line[:sp]), line[sp+1:]
		var index string
		if strings.HasSuffix(lhs, "]") {
			open := strings.LastIndexByte(lhs, '[')
			if open < 0 {
				return nil, errAt(pos, "malformed array element %q", lhs)
			}
			index = lhs[open+1 : len(lhs)-1]
			lhs = lhs[:open]
		}
		if len(lhs) >= 2 && lhs[0] == '|' && lhs[len(lhs)-1] == '|' {
			lhs = lhs[1 : len(lhs)-1]
		}
		if l, ok := lanesByName[lhs]; ok && index == "" {
			v, err := btorBits(val, laneWidth)
			if err != nil {
				return nil, errAt(pos, "%v", err)
			}
			if laneVals[l.vec] == nil {
				laneVals[l.vec] = make([]ir.BV, len(names.Lanes[l.vec]))
			}
			laneVals[l.vec][l.i] = v
			continue
		}
		t, ok := names.Vars[lhs]
		if !ok {
			continue
		}
		s := b.Sort(t)
		if index != "" {
			if s != ir.MemSort {
				return nil, errAt(pos, "%s is indexed in the model but is %v", lhs, s)
			}
			a, err := btorBits(index, ir.AddrWidth)
			if err != nil {
				return nil, errAt(pos, "%v", err)
			}
			v, err := btorBits(val, 8)
			if err != nil {
				return nil, errAt(pos, "%v", err)
			}
			if mems[t] == nil {
				mems[t] = make(map[uint64]byte)
			}
			mems[t][a.Uint64()] = byte(v.Uint64())
			continue
		}
		switch s.Kind {
		case ir.KindBool:
			v, err := btorBits(val, 1)
			if err != nil {
				return nil, errAt(pos, "%v", err)
			}
			m.vars[t] = ir.BoolValue(!v.IsZero())
		case ir.KindBV:
			v, err := btorBits(val, s.Width)
			if err != nil {
				return nil, errAt(pos, "%v", err)
			}
			m.vars[t] = ir.BVValue(v)
		default:
			return nil, errAt(pos, "%s is a memory but has a scalar value", lhs)
		}
	}
	// Boolector lists only the elements the query reads; the others are
	// unconstrained, so 0 is as good a value as any.
	for t, w := range mems {
		m.vars[t] = ir.MemValue(ir.MemFromMap(0, w))
	}
	// A vector is its lanes, the most significant last; a lane the model
	// leaves out is 0 like the elements above.
	for t, ls := range laneVals {
		v := ir.NewBV(laneWidth, 0)
		for i := len(ls) - 1; i >= 0; i-- {
			x := ls[i]
			if x.Width() == 0 {
				x = ir.NewBV(laneWidth, 0)
			}
			if i == len(ls)-1 {
				v = x
			} else {
				v = v.Concat(x)
			}
		}
		m.vars[t] = ir.BVValue(v)
	}
	return m, nil
}

// btorBits reads a boolector value of width w: w binary digits or ⌈w/4⌉ hex
// digits; don't-care bits 'x' read as 0.
func btorBits(s string, w uint32) (ir.BV, error) {
	base := 2
	switch {
	case uint64(len(s)) == uint64(w):
	case uint64(len(s)) == (uint64(w)+3)/4:
		base = 16
	default:
		return ir.BV{}, fmt.Errorf("%d-bit value %q", w, s)
	}
	s = strings.ReplaceAll(s, "x", "0")
	if w <= 64 {
		v, err := strconv.ParseUint(s, base, 64)
		if err != nil {
			return ir.BV{}, fmt.Errorf("bad value %q", s)
		}
		return ir.NewBV(w, v), nil
	}
	bs := SExpr{Kind: SBinary, Atom: s}
	if base == 16 {
		bs.Kind = SHex
	}
	x, err := literalBV(&bs)
	if err != nil {
		return ir.BV{}, err
	}
	return ir.NewBVBig(w, x.Big()), nil
}
