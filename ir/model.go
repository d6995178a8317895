package ir

import (
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"
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
// Values are computed by a small interpreter over the S-expressions (not the
// ir evaluator), because models use things terms cannot express: constant
// arrays, lambdas, as-array, functions defined by other model functions.
//
// Memories. A constant array with stores is a Mem exactly. A lambda (z3,
// cvc5), an as-array of a model function (z3) or a memory printed as a
// one-parameter function (boolector 3) is a function from addresses to
// bytes. When every occurrence of its address parameter is a direct operand
// of a comparison (=, distinct, bvule, bvslt, …) with a 64-bit literal — the
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
	vars    map[Term]Value
	funcs   map[*Func]*FuncInterp
	arrays  map[Term]*arrv // memories read from a function-like definition
	inexact map[Term]bool
}

// VarValue implements Env.
func (m *Model) VarValue(_ *Builder, t Term) (Value, bool) {
	v, ok := m.vars[t]
	return v, ok
}

// ApplyFunc implements Env: f's interpretation applied to args. It reports
// false when the model has no interpretation of f or it cannot be evaluated
// on args.
func (m *Model) ApplyFunc(f *Func, args []Value) (Value, bool) {
	fi, ok := m.funcs[f]
	if !ok {
		return Value{}, false
	}
	v, err := fi.Apply(args)
	return v, err == nil
}

// Vars returns the values of the query's constants the model defines. The
// map must not be modified.
func (m *Model) Vars() map[Term]Value { return m.vars }

// Func returns the model's interpretation of f.
func (m *Model) Func(f *Func) (*FuncInterp, bool) {
	fi, ok := m.funcs[f]
	return fi, ok
}

// Exact reports whether the value of t is exactly the solver's: false only
// for a memory whose function-like definition could not be materialized
// completely (see the package comment above).
func (m *Model) Exact(t Term) bool { return !m.inexact[t] }

// MemByte returns the byte the model's memory t holds at a, evaluating the
// solver's definition itself when it was function-like.
func (m *Model) MemByte(t Term, a uint64) (byte, bool) {
	if ar, ok := m.arrays[t]; ok {
		v, err := ar.load(a)
		return v, err == nil
	}
	v, ok := m.vars[t]
	if !ok || v.Sort() != MemSort {
		return 0, false
	}
	return v.Mem().Load(a), true
}

// FuncInterp is a model's interpretation of an uninterpreted function: a
// body over named parameters, evaluated by the model interpreter.
type FuncInterp struct {
	Name   string
	Params []string
	Sorts  []Sort
	Result Sort
	Body   SExpr
	mc     *modelCtx
}

// Apply evaluates the interpretation on args.
func (fi *FuncInterp) Apply(args []Value) (Value, error) {
	if len(args) != len(fi.Params) {
		return Value{}, fmt.Errorf("ir: model function %s takes %d arguments, got %d", fi.Name, len(fi.Params), len(args))
	}
	env := &venv{vars: make(map[string]sval, len(args))}
	for i, a := range args {
		if a.Sort() != fi.Sorts[i] {
			return Value{}, fmt.Errorf("ir: model function %s argument %d is %v, want %v", fi.Name, i, a.Sort(), fi.Sorts[i])
		}
		env.vars[fi.Params[i]] = fromValue(a)
	}
	in := &interp{mc: fi.mc}
	v, err := in.eval(&fi.Body, env, 0)
	if err != nil {
		return Value{}, err
	}
	return in.toValue(v, fi.Result, &fi.Body, nil)
}

// ParseModel reads a model printed by z3, cvc5 or boolector for a query
// whose names are names (as the printer returned them). Definitions of names
// the query does not use are ignored except as helpers of others; constants
// the model leaves out are simply absent (VarValue reports false).
func ParseModel(b *Builder, text string, names *Names) (*Model, error) {
	if names == nil {
		names = &Names{}
	}
	rest := strings.TrimLeft(text, " \t\r\n")
	for _, w := range []string{"sat", "unknown", "unsat"} {
		if strings.HasPrefix(rest, w) && (len(rest) == len(w) || isDelim(rest[len(w)])) {
			if w == "unsat" {
				return nil, fmt.Errorf("ir: the solver answered unsat: no model")
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
		vars:    make(map[Term]Value, len(names.Vars)),
		funcs:   make(map[*Func]*FuncInterp),
		arrays:  make(map[Term]*arrv),
		inexact: make(map[Term]bool),
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
		if b.Sort(t) == MemSort {
			mems = append(mems, n)
			continue
		}
		in := &interp{mc: mc}
		v, err := in.nullary(n, b.Sort(t))
		if err != nil {
			return nil, err
		}
		m.vars[t] = v
		if v.Sort() == BVSort(AddrWidth) {
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
			if fi, err = mc.funcInterp(n, []Sort{BVSort(AddrWidth)}, BVSort(8)); err == nil {
				a = sval{kind: KindMem, arr: in.funcArray(fi)}
			}
		} else {
			a, err = in.nullaryVal(n)
			if err == nil && a.kind != KindMem {
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
		m.vars[t] = MemValue(mem)
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
	vecs := make([]Term, 0, len(names.Lanes))
	for t := range names.Lanes {
		vecs = append(vecs, t)
	}
	sort.Slice(vecs, func(i, j int) bool { return names.Lanes[vecs[i]][0] < names.Lanes[vecs[j]][0] })
	for _, t := range vecs {
		lanes := names.Lanes[t]
		var v BV
		any := false
		for i := len(lanes) - 1; i >= 0; i-- {
			x := NewBV(laneWidth, 0)
			if _, ok := mc.defs[lanes[i]]; ok {
				in := &interp{mc: mc}
				lv, err := in.nullary(lanes[i], BVSort(laneWidth))
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
			m.vars[t] = BVValue(v)
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
func (mc *modelCtx) funcInterp(name string, args []Sort, result Sort) (*FuncInterp, error) {
	def, ok := mc.defs[name]
	if !ok {
		return nil, fmt.Errorf("ir: model: no definition of %s", name)
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
	kind Kind
	b    bool
	bv   BV
	arr  *arrv
}

func fromValue(v Value) sval {
	switch v.Sort().Kind {
	case KindBool:
		return sval{kind: KindBool, b: v.Bool()}
	case KindBV:
		return sval{kind: KindBV, bv: v.BV()}
	case KindMem:
		return sval{kind: KindMem, arr: &arrv{mem: v.Mem()}}
	}
	return sval{}
}

func (v sval) sort() Sort {
	switch v.kind {
	case KindBV:
		return BVSort(v.bv.Width())
	case KindBool:
		return BoolSort
	case KindMem:
		return MemSort
	}
	return Sort{}
}

// arrv is a memory value: either a Mem or a function of the address.
type arrv struct {
	mem *Mem
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

// venv is a chain of bindings of the interpreter.
type venv struct {
	vars   map[string]sval
	parent *venv
}

func (e *venv) lookup(name string) (sval, bool) {
	for ; e != nil; e = e.parent {
		if v, ok := e.vars[name]; ok {
			return v, true
		}
	}
	return sval{}, false
}

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

func (in *interp) nullary(name string, want Sort) (Value, error) {
	v, err := in.nullaryVal(name)
	if err != nil {
		return Value{}, err
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
func (in *interp) toValue(v sval, want Sort, at *SExpr, samples []uint64) (Value, error) {
	if v.sort() != want {
		return Value{}, errAt(at.Pos, "value of sort %v, want %v", v.sort(), want)
	}
	switch v.kind {
	case KindBool:
		return BoolValue(v.b), nil
	case KindBV:
		return BVValue(v.bv), nil
	}
	mem, _, err := in.materialize(v.arr, samples)
	if err != nil {
		return Value{}, err
	}
	return MemValue(mem), nil
}

// materialize turns a memory value into a Mem; see the package comment.
func (in *interp) materialize(a *arrv, samples []uint64) (*Mem, bool, error) {
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
	return MemFromMap(byte(def), writes), exact, nil
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
		return sval{kind: KindBV, bv: x}, nil
	case SSymbol:
		if v, ok := env.lookup(sx.Atom); ok {
			return v, nil
		}
		if !sx.Quoted {
			switch sx.Atom {
			case "true":
				return sval{kind: KindBool, b: true}, nil
			case "false":
				return sval{kind: KindBool}, nil
			}
		}
		if _, ok := in.mc.defs[sx.Atom]; ok {
			return in.nullaryVal(sx.Atom)
		}
		return sval{}, errAt(sx.Pos, "unknown symbol %q in the model", sx.Atom)
	case SList:
		v, err := in.list(sx, env, depth)
		if err == nil && v.kind == KindBV && v.bv.Width() > 64 {
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
	if v.kind != KindBool {
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
			if len(args) != 2 || args[0].Kind != SList {
				return sval{}, errAt(sx.Pos, "malformed let")
			}
			bind := &venv{vars: make(map[string]sval, len(args[0].List)), parent: env}
			for i := range args[0].List {
				vb := &args[0].List[i]
				if vb.Kind != SList || len(vb.List) != 2 || vb.List[0].Kind != SSymbol {
					return sval{}, errAt(vb.Pos, "malformed let binding")
				}
				v, err := in.eval(&vb.List[1], env, depth)
				if err != nil {
					return sval{}, err
				}
				bind.vars[vb.List[0].Atom] = v
			}
			return in.eval(&args[1], bind, depth)
		case "ite":
			if len(args) != 3 {
				return sval{}, errAt(sx.Pos, "ite takes 3 arguments")
			}
			c, err := in.evalBool(&args[0], env, depth)
			if err != nil {
				return sval{}, err
			}
			if c {
				return in.eval(&args[1], env, depth)
			}
			return in.eval(&args[2], env, depth)
		case "and", "or":
			// Short-circuit, as the result does not depend on the order.
			for i := range args {
				v, err := in.evalBool(&args[i], env, depth)
				if err != nil {
					return sval{}, err
				}
				if v == (name == "or") {
					return sval{kind: KindBool, b: v}, nil
				}
			}
			return sval{kind: KindBool, b: name == "and"}, nil
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
		case "store":
			return in.store(sx, env, depth)
		}
	}
	if _, ok := env.lookup(name); !ok {
		if def, ok := in.mc.defs[name]; ok {
			return in.call(sx, def, env, depth)
		}
	}
	vals := make([]sval, len(args))
	for i := range args {
		v, err := in.eval(&args[i], env, depth)
		if err != nil {
			return sval{}, err
		}
		vals[i] = v
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

// store evaluates a chain of single-byte stores iteratively.
func (in *interp) store(sx *SExpr, env *venv, depth int) (sval, error) {
	type write struct{ a, v sval }
	var chain []*SExpr
	cur := sx
	for cur.Kind == SList && len(cur.List) == 4 && cur.List[0].IsSymbol("store") && !cur.List[0].Quoted {
		if _, shadowed := env.lookup("store"); shadowed {
			break
		}
		chain = append(chain, cur)
		cur = &cur.List[1]
	}
	if len(chain) == 0 {
		return sval{}, errAt(sx.Pos, "store takes 3 arguments")
	}
	base, err := in.eval(cur, env, depth)
	if err != nil {
		return sval{}, err
	}
	if base.kind != KindMem {
		return sval{}, errAt(cur.Pos, "store into a %v", base.sort())
	}
	ws := make([]write, len(chain))
	for i, c := range chain { // outermost first
		a, err := in.eval(&c.List[2], env, depth)
		if err != nil {
			return sval{}, err
		}
		v, err := in.eval(&c.List[3], env, depth)
		if err != nil {
			return sval{}, err
		}
		if a.sort() != BVSort(AddrWidth) || v.sort() != BVSort(8) {
			return sval{}, errAt(c.Pos, "store of a %v at a %v", v.sort(), a.sort())
		}
		ws[i] = write{a, v}
	}
	if base.arr.mem != nil {
		writes := make(map[uint64]byte)
		root := base.arr.mem
		for _, addr := range root.Written() {
			writes[addr] = root.Load(addr)
		}
		for i := len(ws) - 1; i >= 0; i-- { // innermost first
			writes[ws[i].a.bv.Uint64()] = byte(ws[i].v.bv.Uint64())
		}
		return sval{kind: KindMem, arr: &arrv{mem: MemFromMap(root.Default, writes)}}, nil
	}
	over := make(map[uint64]byte, len(ws))
	points := append([]uint64(nil), base.arr.points...)
	for i := len(ws) - 1; i >= 0; i-- {
		a := ws[i].a.bv.Uint64()
		over[a] = byte(ws[i].v.bv.Uint64())
		points = append(points, a, a+1)
	}
	inner := base.arr.fn
	fn := func(in *interp, a uint64) (byte, error) {
		if v, ok := over[a]; ok {
			return v, nil
		}
		return inner(in, a)
	}
	return sval{kind: KindMem, arr: &arrv{fn: fn, points: points, piecewise: base.arr.piecewise}}, nil
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
	if s, err := ParseSort(pd.List[1]); err != nil || s != BVSort(AddrWidth) {
		return sval{}, &UnsupportedError{Pos: sx.Pos, What: "lambda over other than 64-bit addresses"}
	}
	fi := &FuncInterp{Name: "lambda", Params: []string{pd.List[0].Atom}, Sorts: []Sort{BVSort(AddrWidth)},
		Result: BVSort(8), Body: sx.List[2], mc: in.mc}
	return sval{kind: KindMem, arr: in.closure(fi, env, depth)}, nil
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
		bind := &venv{vars: map[string]sval{param: {kind: KindBV, bv: NewBV(AddrWidth, a)}}, parent: env}
		v, err := ev.eval(&fi.Body, bind, depth+1)
		if err != nil {
			return 0, err
		}
		if v.sort() != BVSort(8) {
			return 0, errAt(fi.Body.Pos, "memory element of sort %v", v.sort())
		}
		return byte(v.bv.Uint64()), nil
	}
	return &arrv{fn: fn, points: points, piecewise: piecewise}
}

// iteChain reads the common shape of a memory given as a function, a chain
// (ite (= i c1) v1 (ite (= i c2) v2 … d)) with closed values, directly and
// in linear time (evaluating it per breakpoint would be quadratic).
func (in *interp) iteChain(body *SExpr, param string, env *venv, depth int) (*Mem, bool) {
	writes := make(map[uint64]byte)
	cur := body
	for n := 0; ; n++ {
		if err := in.step(cur); err != nil {
			return nil, false
		}
		if cur.Head() == "ite" && len(cur.List) == 4 && !cur.List[0].Quoted {
			c, ok := eqParamLiteral(&cur.List[1], param)
			if !ok || mentions(&cur.List[2], param, 0) {
				return nil, false
			}
			if _, seen := writes[c]; !seen {
				v, err := in.eval(&cur.List[2], env, depth)
				if err != nil || v.sort() != BVSort(8) {
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
		if err != nil || d.sort() != BVSort(8) {
			return nil, false
		}
		def := byte(d.bv.Uint64())
		for a, v := range writes {
			if v == def {
				delete(writes, a)
			}
		}
		return MemFromMap(def, writes), true
	}
}

// eqParamLiteral recognizes (= param c) and (= c param) for a 64-bit literal c.
func eqParamLiteral(sx *SExpr, param string) (uint64, bool) {
	if sx.Head() != "=" || len(sx.List) != 3 {
		return 0, false
	}
	for i := 1; i <= 2; i++ {
		o := &sx.List[3-i]
		if sx.List[i].IsSymbol(param) && (o.Kind == SHex || o.Kind == SBinary) {
			x, err := literalBV(o)
			if err == nil && x.Width() == AddrWidth {
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
	switch sx.Head() {
	case "=", "distinct", "bvule", "bvult", "bvuge", "bvugt", "bvsle", "bvslt", "bvsge", "bvsgt":
		if len(sx.List) == 3 {
			for i := 1; i <= 2; i++ {
				if sx.List[i].IsSymbol(param) {
					o := &sx.List[3-i]
					if (o.Kind == SHex || o.Kind == SBinary) && len(o.Atom)*map[SExprKind]int{SHex: 4, SBinary: 1}[o.Kind] == AddrWidth {
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
		fi, err := in.mc.funcInterp(sx.List[2].Atom, []Sort{BVSort(AddrWidth)}, BVSort(8))
		if err != nil {
			return sval{}, err
		}
		return sval{kind: KindMem, arr: in.funcArray(fi)}, nil
	}
	b := NewBuilder()
	t, err := (&termParser{b: b, scope: &Scope{}}).indexedConst(sx)
	if err != nil {
		return sval{}, err
	}
	return sval{kind: KindBV, bv: b.ConstValue(t)}, nil
}

// indexedOrConst evaluates ((_ extract i j) x) and friends, and
// ((as const (Array (_ BitVec 64) (_ BitVec 8))) v).
func (in *interp) indexedOrConst(sx *SExpr, env *venv, depth int) (sval, error) {
	head := &sx.List[0]
	if len(sx.List) != 2 {
		return sval{}, errAt(sx.Pos, "indexed operator of %d arguments", len(sx.List)-1)
	}
	x, err := in.eval(&sx.List[1], env, depth)
	if err != nil {
		return sval{}, err
	}
	if head.Head() == "as" {
		if len(head.List) != 3 || !head.List[1].IsSymbol("const") {
			return sval{}, errAt(head.Pos, "unknown %s", head.String())
		}
		if s, err := ParseSort(head.List[2]); err != nil || s != MemSort {
			return sval{}, &UnsupportedError{Pos: head.Pos, What: "constant array " + head.String()}
		}
		if x.sort() != BVSort(8) {
			return sval{}, errAt(sx.Pos, "constant memory of a %v", x.sort())
		}
		return sval{kind: KindMem, arr: &arrv{mem: NewMem(byte(x.bv.Uint64()))}}, nil
	}
	name, ns, err := indexed(head)
	if err != nil {
		return sval{}, err
	}
	if x.kind != KindBV {
		return sval{}, errAt(sx.Pos, "%s of a %v", name, x.sort())
	}
	w := x.bv.Width()
	need := map[string]int{"extract": 2, "zero_extend": 1, "sign_extend": 1, "rotate_left": 1, "rotate_right": 1, "repeat": 1}
	k, ok := need[name]
	if !ok || len(ns) != k {
		return sval{}, errAt(head.Pos, "unknown indexed operator %s", head.String())
	}
	bv := func(v BV) (sval, error) { return sval{kind: KindBV, bv: v}, nil }
	switch name {
	case "extract":
		if ns[0] < ns[1] || ns[0] >= w {
			return sval{}, errAt(sx.Pos, "extract [%d:%d] of a %d-bit vector", ns[0], ns[1], w)
		}
		return bv(x.bv.Extract(ns[0], ns[1]))
	case "zero_extend", "sign_extend":
		if uint64(w)+uint64(ns[0]) > maxModelWidth {
			return sval{}, errAt(sx.Pos, "extension beyond %d bits", maxModelWidth)
		}
		if name == "zero_extend" {
			return bv(x.bv.ZeroExt(ns[0]))
		}
		return bv(x.bv.SignExt(ns[0]))
	case "rotate_left":
		return bv(x.bv.Rotl(NewBV(w, uint64(ns[0]%w))))
	case "rotate_right":
		return bv(x.bv.Rotr(NewBV(w, uint64(ns[0]%w))))
	}
	if ns[0] == 0 || uint64(w)*uint64(ns[0]) > maxModelWidth {
		return sval{}, errAt(sx.Pos, "repeat %d of a %d-bit vector", ns[0], w)
	}
	return bv(repeatBV(x.bv, ns[0]))
}

// repeatBV concatenates n ≥ 1 copies of x, by doubling.
func repeatBV(x BV, n uint32) BV {
	r, have := x, uint32(1)
	for 2*have <= n {
		r = r.Concat(r)
		have *= 2
	}
	for ; have < n; have++ {
		r = r.Concat(x)
	}
	return r
}

// svalEqual compares two values of the same sort.
func (in *interp) svalEqual(at *SExpr, x, y sval) (bool, error) {
	switch x.kind {
	case KindBool:
		return x.b == y.b, nil
	case KindBV:
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

// builtin applies a standard operator to evaluated arguments.
func (in *interp) builtin(sx *SExpr, name string, args []sval) (sval, error) {
	pos := sx.Pos
	boolean := func(v bool) (sval, error) { return sval{kind: KindBool, b: v}, nil }
	bv := func(v BV) (sval, error) { return sval{kind: KindBV, bv: v}, nil }
	nargs := func(n int) error {
		if len(args) != n {
			return errAt(pos, "%s takes %d arguments, got %d", name, n, len(args))
		}
		return nil
	}
	allKind := func(k Kind) error {
		for i, a := range args {
			if a.kind != k {
				return errAt(pos, "%s argument %d is %v", name, i, a.sort())
			}
		}
		return nil
	}
	sameBV := func() error {
		if err := allKind(KindBV); err != nil {
			return err
		}
		for i, a := range args {
			if a.bv.Width() != args[0].bv.Width() {
				return errAt(pos, "%s argument %d is %v, argument 0 %v", name, i, a.sort(), args[0].sort())
			}
		}
		return nil
	}
	switch name {
	case "not":
		if err := nargs(1); err != nil {
			return sval{}, err
		}
		if err := allKind(KindBool); err != nil {
			return sval{}, err
		}
		return boolean(!args[0].b)
	case "xor", "=>":
		if len(args) < 2 {
			return sval{}, errAt(pos, "%s takes at least 2 arguments", name)
		}
		if err := allKind(KindBool); err != nil {
			return sval{}, err
		}
		if name == "xor" {
			r := false
			for _, a := range args {
				r = r != a.b
			}
			return boolean(r)
		}
		r := args[len(args)-1].b
		for i := len(args) - 2; i >= 0; i-- {
			r = !args[i].b || r
		}
		return boolean(r)
	case "=", "distinct":
		if len(args) < 2 {
			return sval{}, errAt(pos, "%s takes at least 2 arguments", name)
		}
		for i, a := range args {
			if a.sort() != args[0].sort() {
				return sval{}, errAt(pos, "%s argument %d is %v, argument 0 %v", name, i, a.sort(), args[0].sort())
			}
		}
		for i := 0; i+1 < len(args); i++ {
			hi := i + 2
			if name == "distinct" {
				hi = len(args)
			}
			for j := i + 1; j < hi; j++ {
				eq, err := in.svalEqual(sx, args[i], args[j])
				if err != nil {
					return sval{}, err
				}
				if eq == (name == "distinct") {
					return boolean(false)
				}
			}
		}
		return boolean(true)
	case "select":
		if err := nargs(2); err != nil {
			return sval{}, err
		}
		if args[0].kind != KindMem || args[1].sort() != BVSort(AddrWidth) {
			return sval{}, errAt(pos, "select from a %v at a %v", args[0].sort(), args[1].sort())
		}
		v, err := in.loadArr(args[0].arr, args[1].bv.Uint64())
		if err != nil {
			return sval{}, err
		}
		return bv(NewBV(8, uint64(v)))
	case "concat":
		if len(args) < 2 {
			return sval{}, errAt(pos, "concat takes at least 2 arguments")
		}
		if err := allKind(KindBV); err != nil {
			return sval{}, err
		}
		r := args[0].bv
		for _, a := range args[1:] {
			if uint64(r.Width())+uint64(a.bv.Width()) > maxModelWidth {
				return sval{}, errAt(pos, "concat beyond %d bits", maxModelWidth)
			}
			r = r.Concat(a.bv)
		}
		return bv(r)
	case "bvadd", "bvmul", "bvand", "bvor", "bvxor", "bvsub":
		if len(args) < 2 {
			return sval{}, errAt(pos, "%s takes at least 2 arguments", name)
		}
		if err := sameBV(); err != nil {
			return sval{}, err
		}
		f := map[string]func(x, y BV) BV{"bvadd": BV.Add, "bvmul": BV.Mul, "bvand": BV.And, "bvor": BV.Or, "bvxor": BV.Xor, "bvsub": BV.Sub}[name]
		r := args[0].bv
		for _, a := range args[1:] {
			r = f(r, a.bv)
		}
		return bv(r)
	case "bvneg", "bvnot", "bvredor", "bvredand":
		if err := nargs(1); err != nil {
			return sval{}, err
		}
		if err := sameBV(); err != nil {
			return sval{}, err
		}
		switch name {
		case "bvneg":
			return bv(args[0].bv.Neg())
		case "bvnot":
			return bv(args[0].bv.Not())
		case "bvredor":
			return bv(NewBV(1, b2u(!args[0].bv.IsZero())))
		}
		return bv(NewBV(1, b2u(args[0].bv.IsOnes())))
	}
	bin := map[string]func(x, y BV) BV{
		"bvudiv": BV.UDiv, "bvsdiv": BV.SDiv, "bvurem": BV.URem, "bvsrem": BV.SRem,
		"bvshl": BV.Shl, "bvlshr": BV.LShr, "bvashr": BV.AShr, "bvsmod": bvSMod,
		"bvnand": func(x, y BV) BV { return x.And(y).Not() },
		"bvnor":  func(x, y BV) BV { return x.Or(y).Not() },
		"bvxnor": func(x, y BV) BV { return x.Xor(y).Not() },
		"bvcomp": func(x, y BV) BV { return NewBV(1, b2u(x.Equal(y))) },
	}
	cmp := map[string]func(x, y BV) bool{
		"bvult": BV.Ult, "bvule": BV.Ule, "bvslt": BV.Slt, "bvsle": BV.Sle,
		"bvugt": func(x, y BV) bool { return y.Ult(x) }, "bvuge": func(x, y BV) bool { return y.Ule(x) },
		"bvsgt": func(x, y BV) bool { return y.Slt(x) }, "bvsge": func(x, y BV) bool { return y.Sle(x) },
	}
	if f, ok := bin[name]; ok {
		if err := nargs(2); err != nil {
			return sval{}, err
		}
		if err := sameBV(); err != nil {
			return sval{}, err
		}
		return bv(f(args[0].bv, args[1].bv))
	}
	if f, ok := cmp[name]; ok {
		if err := nargs(2); err != nil {
			return sval{}, err
		}
		if err := sameBV(); err != nil {
			return sval{}, err
		}
		return boolean(f(args[0].bv, args[1].bv))
	}
	return sval{}, errAt(sx.List[0].Pos, "unknown function %q in the model", name)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// bvSMod is SMT-LIB's bvsmod: the remainder with the sign of the divisor.
func bvSMod(s, t BV) BV {
	absS, absT := s, t
	if s.MSB() {
		absS = s.Neg()
	}
	if t.MSB() {
		absT = t.Neg()
	}
	u := absS.URem(absT)
	switch {
	case u.IsZero(), !s.MSB() && !t.MSB():
		return u
	case s.MSB() && !t.MSB():
		return u.Neg().Add(t)
	case !s.MSB() && t.MSB():
		return u.Add(t)
	}
	return u.Neg()
}

// parseBtorModel reads boolector 1.5's own model format.
func parseBtorModel(b *Builder, text string, names *Names) (*Model, error) {
	m := &Model{
		vars:    make(map[Term]Value),
		funcs:   make(map[*Func]*FuncInterp),
		arrays:  make(map[Term]*arrv),
		inexact: make(map[Term]bool),
	}
	mems := make(map[Term]map[uint64]byte)
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
		t, ok := names.Vars[lhs]
		if !ok {
			continue
		}
		s := b.Sort(t)
		if index != "" {
			if s != MemSort {
				return nil, errAt(pos, "%s is indexed in the model but is %v", lhs, s)
			}
			a, err := btorBits(index, AddrWidth)
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
		case KindBool:
			v, err := btorBits(val, 1)
			if err != nil {
				return nil, errAt(pos, "%v", err)
			}
			m.vars[t] = BoolValue(!v.IsZero())
		case KindBV:
			v, err := btorBits(val, s.Width)
			if err != nil {
				return nil, errAt(pos, "%v", err)
			}
			m.vars[t] = BVValue(v)
		default:
			return nil, errAt(pos, "%s is a memory but has a scalar value", lhs)
		}
	}
	// Boolector lists only the elements the query reads; the others are
	// unconstrained, so 0 is as good a value as any.
	for t, w := range mems {
		m.vars[t] = MemValue(MemFromMap(0, w))
	}
	return m, nil
}

// btorBits reads a boolector value of width w: w binary digits or ⌈w/4⌉ hex
// digits; don't-care bits 'x' read as 0.
func btorBits(s string, w uint32) (BV, error) {
	base := 2
	switch {
	case uint64(len(s)) == uint64(w):
	case uint64(len(s)) == (uint64(w)+3)/4:
		base = 16
	default:
		return BV{}, fmt.Errorf("%d-bit value %q", w, s)
	}
	s = strings.ReplaceAll(s, "x", "0")
	if w <= 64 {
		v, err := strconv.ParseUint(s, base, 64)
		if err != nil {
			return BV{}, fmt.Errorf("bad value %q", s)
		}
		return NewBV(w, v), nil
	}
	bs := SExpr{Kind: SBinary, Atom: s}
	if base == 16 {
		bs.Kind = SHex
	}
	x, err := literalBV(&bs)
	if err != nil {
		return BV{}, err
	}
	return NewBVBig(w, x.Big()), nil
}
