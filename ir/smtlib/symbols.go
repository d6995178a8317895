package smtlib

import (
	"fmt"
	"math/big"

	"eqc/ir"
)

// The vocabulary: what each SMT-LIB function symbol means, declared once and
// used both by the term parser (which builds ir terms) and by the model
// interpreter (which computes values). A symbol of ir's op table means its
// op, applied as the table says (its arity, its parameters as indices, its
// chaining); the few symbols of SMT-LIB's core, bit-vector and array
// theories that the table lacks are defined here by ops. No other code maps
// a symbol to a meaning: the parser, the interpreter and the printer's
// reserved words all read these tables.

// sem is a meaning of the ops over values of type V: the term parser builds
// terms (V = ir.Term), the model interpreter computes values (V = sval), and
// sortSem computes sorts. Every symbol is defined against it.
type sem[V any] interface {
	// op applies an op of the table with parameters p0, p1; ill-sorted
	// arguments are an error at at.
	op(at *SExpr, op ir.Op, args []V, p0, p1 uint32) (V, error)
	// lit is the bit-vector literal x.
	lit(x ir.BV) V
	// sortOf is v's sort.
	sortOf(v V) ir.Sort
}

// fn is the meaning of one function symbol.
type fn[V any] struct {
	op    ir.Op       // the op the symbol applies as it is (the table's, select, store); 0 for expansions
	nargs int         // number of arguments; -1 for two or more
	nidx  int         // number of indices: ((_ name i …) args)
	chain ir.Chaining // how more than nargs arguments are read
	def   func(s sem[V], at *SExpr, idx []uint32, args []V) (V, error)
}

// units are the values of (and) and (or), which z3 and cvc5 accept, as
// they accept (and p) for p.
var units = map[ir.Op]ir.Op{ir.OpAnd: ir.OpTrue, ir.OpOr: ir.OpFalse}

// symbols returns the vocabulary over V: every symbol of the op table, then
// the symbols SMT-LIB has beyond it.
func symbols[V any]() map[string]fn[V] {
	m := make(map[string]fn[V])
	for _, op := range ir.Ops() {
		info := op.Info()
		if info.SMT == "" {
			continue
		}
		m[info.SMT] = fn[V]{op: op, nargs: info.Arity, nidx: info.Params, chain: info.Chain,
			def: func(s sem[V], at *SExpr, idx []uint32, args []V) (V, error) {
				var p [2]uint32
				copy(p[:], idx)
				return s.op(at, op, args, p[0], p[1])
			}}
	}
	// Comparisons with the arguments swapped.
	swapped := func(op ir.Op) fn[V] {
		return fn[V]{nargs: 2, def: func(s sem[V], at *SExpr, _ []uint32, a []V) (V, error) {
			return s.op(at, op, []V{a[1], a[0]}, 0, 0)
		}}
	}
	// Bitwise ops complemented.
	negated := func(op ir.Op) fn[V] {
		return fn[V]{nargs: 2, def: func(s sem[V], at *SExpr, _ []uint32, a []V) (V, error) {
			e := &expansion[V]{s: s, at: at}
			return e.done(e.op(ir.OpBVNot, e.op(op, a...)))
		}}
	}
	// Rotations by a constant, an index, where ir's take a term.
	rotate := func(op ir.Op) fn[V] {
		return fn[V]{nargs: 1, nidx: 1, def: func(s sem[V], at *SExpr, idx []uint32, a []V) (V, error) {
			e := &expansion[V]{s: s, at: at}
			w := e.width("rotation", a[0])
			return e.done(e.op(op, a[0], e.lit(w, uint64(idx[0]%max(w, 1)))))
		}}
	}
	// select and store on an (Array (_ BitVec 64) (_ BitVec 8)): one byte.
	oneByte := func(op ir.Op) fn[V] {
		return fn[V]{op: op, nargs: op.Info().Arity, def: func(s sem[V], at *SExpr, _ []uint32, a []V) (V, error) {
			return s.op(at, op, a, 1, 0)
		}}
	}
	for name, f := range map[string]fn[V]{
		"distinct":     {nargs: -1, def: distinct[V]},
		"bvugt":        swapped(ir.OpUlt),
		"bvuge":        swapped(ir.OpUle),
		"bvsgt":        swapped(ir.OpSlt),
		"bvsge":        swapped(ir.OpSle),
		"bvnand":       negated(ir.OpBVAnd),
		"bvnor":        negated(ir.OpBVOr),
		"bvxnor":       negated(ir.OpBVXor),
		"bvcomp":       {nargs: 2, def: bvcomp[V]},
		"bvredor":      {nargs: 1, def: bvredor[V]},
		"bvredand":     {nargs: 1, def: bvredand[V]},
		"bvsmod":       {nargs: 2, def: bvsmod[V]},
		"select":       oneByte(ir.OpSelect),
		"store":        oneByte(ir.OpStore),
		"rotate_left":  rotate(ir.OpRotl),
		"rotate_right": rotate(ir.OpRotr),
		"repeat":       {nargs: 1, nidx: 1, def: repeat[V]},
	} {
		if _, dup := m[name]; dup {
			panic("smtlib: " + name + " is both in the op table and defined here")
		}
		m[name] = f
	}
	return m
}

// resultSort is the sort of op applied to args, by the op table: an error
// at at when they are ill-sorted or the result is wider than maxWidth bits
// (each reader bounds the widths it computes with).
func resultSort[V any](s sem[V], at *SExpr, op ir.Op, args []V, p0, p1, maxWidth uint32) (ir.Sort, error) {
	var buf [3]ir.Sort
	sorts := buf[:0]
	for _, a := range args {
		sorts = append(sorts, s.sortOf(a))
	}
	so, err := op.ResultSort(sorts, p0, p1)
	if err != nil {
		return ir.Sort{}, errAt(at.Pos, "%v", err)
	}
	if so.Kind == ir.KindBV && so.Width > maxWidth {
		return ir.Sort{}, errAt(at.Pos, "%v gives more than %d bits", op, maxWidth)
	}
	return so, nil
}

// call applies symbol name, meaning f, to idx and args.
func call[V any](s sem[V], f fn[V], at *SExpr, name string, idx []uint32, args []V) (V, error) {
	var zero V
	if len(idx) != f.nidx {
		return zero, errAt(at.Pos, "%s takes %d indices, got %d", name, f.nidx, len(idx))
	}
	if f.chain == ir.NoChain && f.nargs >= 0 {
		if len(args) != f.nargs {
			return zero, errAt(at.Pos, "%s takes %d arguments, got %d", name, f.nargs, len(args))
		}
		return f.def(s, at, idx, args)
	}
	if len(args) < 2 {
		unit, ok := units[f.op]
		switch {
		case !ok:
			return zero, errAt(at.Pos, "%s takes at least 2 arguments, got %d", name, len(args))
		case len(args) == 0:
			return s.op(at, unit, nil, 0, 0)
		case s.sortOf(args[0]) != ir.BoolSort:
			return zero, errAt(at.Pos, "%s of a %v term", name, s.sortOf(args[0]))
		}
		return args[0], nil
	}
	pair := func(x, y V) (V, error) { return f.def(s, at, idx, []V{x, y}) }
	switch f.chain {
	case ir.LeftAssoc:
		t := args[0]
		for _, a := range args[1:] {
			var err error
			if t, err = pair(t, a); err != nil {
				return zero, err
			}
		}
		return t, nil
	case ir.RightAssoc:
		t := args[len(args)-1]
		for i := len(args) - 2; i >= 0; i-- {
			var err error
			if t, err = pair(args[i], t); err != nil {
				return zero, err
			}
		}
		return t, nil
	case ir.Chainable:
		return conjunction(s, at, len(args)-1, func(i int) (V, error) { return pair(args[i], args[i+1]) })
	}
	return f.def(s, at, idx, args) // two or more, taken whole
}

// conjunction is the left-nested and of n ≥ 1 terms.
func conjunction[V any](s sem[V], at *SExpr, n int, term func(i int) (V, error)) (V, error) {
	t, err := term(0)
	for i := 1; i < n && err == nil; i++ {
		var u V
		if u, err = term(i); err == nil {
			t, err = s.op(at, ir.OpAnd, []V{t, u}, 0, 0)
		}
	}
	return t, err
}

// expansion builds a symbol's definition from ops, keeping the first error.
type expansion[V any] struct {
	s   sem[V]
	at  *SExpr
	err error
}

func (e *expansion[V]) op(op ir.Op, args ...V) V {
	var v V
	if e.err == nil {
		v, e.err = e.s.op(e.at, op, args, 0, 0)
	}
	return v
}

func (e *expansion[V]) lit(w uint32, v uint64) V {
	if e.err != nil || w == 0 {
		var zero V
		return zero
	}
	return e.s.lit(ir.NewBV(w, v))
}

// width is x's width; x must be a bit-vector.
func (e *expansion[V]) width(what string, x V) uint32 {
	so := e.s.sortOf(x)
	if so.Kind != ir.KindBV && e.err == nil {
		e.err = errAt(e.at.Pos, "%s of a %v, want a bit-vector", what, so)
	}
	return so.Width
}

func (e *expansion[V]) done(v V) (V, error) { return v, e.err }

// (distinct a b c) is (and (and (not (= a b)) (not (= a c))) (not (= b c))).
func distinct[V any](s sem[V], at *SExpr, _ []uint32, args []V) (V, error) {
	e := &expansion[V]{s: s, at: at}
	var t V
	for i := range args {
		for j := i + 1; j < len(args) && e.err == nil; j++ {
			c := e.op(ir.OpNot, e.op(ir.OpEq, args[i], args[j]))
			if i == 0 && j == 1 {
				t = c
			} else {
				t = e.op(ir.OpAnd, t, c)
			}
		}
	}
	return e.done(t)
}

// bvcomp is #b1 when its arguments are equal, #b0 otherwise.
func bvcomp[V any](s sem[V], at *SExpr, _ []uint32, a []V) (V, error) {
	e := &expansion[V]{s: s, at: at}
	e.width("bvcomp", a[0])
	return e.done(e.op(ir.OpIte, e.op(ir.OpEq, a[0], a[1]), e.lit(1, 1), e.lit(1, 0)))
}

// bvredor is #b1 when some bit of its argument is set.
func bvredor[V any](s sem[V], at *SExpr, _ []uint32, a []V) (V, error) {
	e := &expansion[V]{s: s, at: at}
	w := e.width("bvredor", a[0])
	return e.done(e.op(ir.OpIte, e.op(ir.OpEq, a[0], e.lit(w, 0)), e.lit(1, 0), e.lit(1, 1)))
}

// bvredand is #b1 when every bit of its argument is set.
func bvredand[V any](s sem[V], at *SExpr, _ []uint32, a []V) (V, error) {
	e := &expansion[V]{s: s, at: at}
	w := e.width("bvredand", a[0])
	var ones V
	if e.err == nil {
		ones = s.lit(ir.NewBVBig(w, big.NewInt(-1)))
	}
	return e.done(e.op(ir.OpIte, e.op(ir.OpEq, a[0], ones), e.lit(1, 1), e.lit(1, 0)))
}

// bvsmod is SMT-LIB's definition: the remainder of the absolute values,
// with the sign of the divisor.
func bvsmod[V any](s sem[V], at *SExpr, _ []uint32, a []V) (V, error) {
	e := &expansion[V]{s: s, at: at}
	x, y := a[0], a[1]
	zero := e.lit(e.width("bvsmod", x), 0)
	negX, negY := e.op(ir.OpSlt, x, zero), e.op(ir.OpSlt, y, zero)
	posX, posY := e.op(ir.OpNot, negX), e.op(ir.OpNot, negY)
	u := e.op(ir.OpURem, e.op(ir.OpIte, negX, e.op(ir.OpNeg, x), x), e.op(ir.OpIte, negY, e.op(ir.OpNeg, y), y))
	r := e.op(ir.OpIte, negY, e.op(ir.OpNeg, u), u) // both negative
	r = e.op(ir.OpIte, e.op(ir.OpAnd, negX, posY), e.op(ir.OpAdd, e.op(ir.OpNeg, u), y), r)
	r = e.op(ir.OpIte, e.op(ir.OpAnd, posX, negY), e.op(ir.OpAdd, u, y), r)
	r = e.op(ir.OpIte, e.op(ir.OpAnd, posX, posY), u, r)
	return e.done(e.op(ir.OpIte, e.op(ir.OpEq, u, zero), u, r))
}

// ((_ repeat n) x) is n copies of x, concatenated: by the binary digits of
// n, so that the work is logarithmic in n.
func repeat[V any](s sem[V], at *SExpr, idx []uint32, a []V) (V, error) {
	e := &expansion[V]{s: s, at: at}
	e.width("repeat", a[0])
	n := idx[0]
	if n == 0 && e.err == nil {
		e.err = errAt(at.Pos, "repeat 0 of a bit-vector")
	}
	r := a[0]
	top := 31
	for top > 0 && n>>top&1 == 0 {
		top--
	}
	for bit := top - 1; bit >= 0; bit-- {
		r = e.op(ir.OpConcat, r, r)
		if n>>bit&1 == 1 {
			r = e.op(ir.OpConcat, r, a[0])
		}
	}
	return e.done(r)
}

// sortSem computes sorts: what a symbol gives for arguments of some sorts.
type sortSem struct{}

func (sortSem) op(_ *SExpr, op ir.Op, args []ir.Sort, p0, p1 uint32) (ir.Sort, error) {
	return op.ResultSort(args, p0, p1)
}
func (sortSem) lit(x ir.BV) ir.Sort      { return ir.BVSort(x.Width()) }
func (sortSem) sortOf(s ir.Sort) ir.Sort { return s }

// comparisons are the symbols that map two addresses to a boolean (=,
// distinct, bvult, bvsge, …): a function of an address whose address
// occurs only compared with literals is constant between them.
var comparisons = func() map[string]bool {
	m := make(map[string]bool)
	addr := ir.BVSort(ir.AddrWidth)
	var at SExpr
	for name, f := range symbols[ir.Sort]() {
		if f.nidx != 0 {
			continue
		}
		if s, err := call(sem[ir.Sort](sortSem{}), f, &at, name, nil, []ir.Sort{addr, addr}); err == nil && s == ir.BoolSort {
			m[name] = true
		}
	}
	return m
}()

// indexedLiteral reads (_ bvN w), SMT-LIB's decimal bit-vector literal.
func indexedLiteral(sx *SExpr) (ir.BV, bool, error) {
	if len(sx.List) != 3 || sx.List[1].Kind != SSymbol || len(sx.List[1].Atom) <= 2 || sx.List[1].Atom[:2] != "bv" {
		return ir.BV{}, false, nil
	}
	z, ok := new(big.Int).SetString(sx.List[1].Atom[2:], 10)
	if !ok || z.Sign() < 0 {
		return ir.BV{}, true, errAt(sx.Pos, "bad literal %s", sx.String())
	}
	w, err := numeral(&sx.List[2])
	if err != nil {
		return ir.BV{}, true, err
	}
	if w == 0 || w > maxBVWidth {
		return ir.BV{}, true, errAt(sx.Pos, "bit-vector width %d out of range", w)
	}
	return ir.NewBVBig(w, z), true, nil
}

// symbolOf is the SMT-LIB symbol of a table op, for code that must spot an
// op's applications in text (the model reader's shapes).
func symbolOf(op ir.Op) string {
	s := op.Info().SMT
	if s == "" {
		panic(fmt.Sprintf("smtlib: %v has no SMT-LIB symbol", op))
	}
	return s
}
