package ir

import (
	"fmt"
	"math/big"
	"sync"
)

// The concrete evaluator: every op's meaning on concrete values, as a table
// indexed by Op beside the op table, so an op added without semantics fails
// at init rather than in some far-away switch default.

// UnboundError reports a free constant or uninterpreted function that the
// Env does not define.
type UnboundError struct {
	Name string
	Func bool // an uninterpreted function rather than a free constant
}

func (e *UnboundError) Error() string {
	if e.Func {
		return fmt.Sprintf("ir: eval: function %q has no interpretation", e.Name)
	}
	return fmt.Sprintf("ir: eval: variable %q is unbound", e.Name)
}

// EnvSortError reports an Env that gave a variable or function result a
// value of the wrong sort.
type EnvSortError struct {
	Name      string
	Got, Want Sort
}

func (e *EnvSortError) Error() string {
	return fmt.Sprintf("ir: eval: %q has a %v value, want %v", e.Name, e.Got, e.Want)
}

// evalFn computes term t of op from its argument values (already evaluated,
// in order) and its parameters. Only leaves and OpApply use ev and t; every
// other entry is pure, which lets the simplifier fold constants through this
// table with ev == nil.
type evalFn func(ev *Evaluator, t Term, p0, p1 uint32, args []Value) (Value, error)

var evalTable [NumOps]evalFn

func bvBinary(f func(x, y BV) BV) evalFn {
	return func(_ *Evaluator, _ Term, _, _ uint32, a []Value) (Value, error) {
		return BVValue(f(a[0].BV(), a[1].BV())), nil
	}
}

func bvUnary(f func(x BV) BV) evalFn {
	return func(_ *Evaluator, _ Term, _, _ uint32, a []Value) (Value, error) {
		return BVValue(f(a[0].BV())), nil
	}
}

func bvCompare(f func(x, y BV) bool) evalFn {
	return func(_ *Evaluator, _ Term, _, _ uint32, a []Value) (Value, error) {
		return BoolValue(f(a[0].BV(), a[1].BV())), nil
	}
}

func boolBinary(f func(x, y bool) bool) evalFn {
	return func(_ *Evaluator, _ Term, _, _ uint32, a []Value) (Value, error) {
		return BoolValue(f(a[0].Bool(), a[1].Bool())), nil
	}
}

func init() {
	evalTable = [NumOps]evalFn{
		OpVar: evalVar,
		OpConst: func(ev *Evaluator, t Term, _, _ uint32, _ []Value) (Value, error) {
			return BVValue(ev.b.ConstValue(t)), nil
		},
		OpTrue:  func(*Evaluator, Term, uint32, uint32, []Value) (Value, error) { return BoolValue(true), nil },
		OpFalse: func(*Evaluator, Term, uint32, uint32, []Value) (Value, error) { return BoolValue(false), nil },

		OpNot: func(_ *Evaluator, _ Term, _, _ uint32, a []Value) (Value, error) {
			return BoolValue(!a[0].Bool()), nil
		},
		OpAnd:     boolBinary(func(x, y bool) bool { return x && y }),
		OpOr:      boolBinary(func(x, y bool) bool { return x || y }),
		OpXor:     boolBinary(func(x, y bool) bool { return x != y }),
		OpImplies: boolBinary(func(x, y bool) bool { return !x || y }),
		OpEq: func(_ *Evaluator, _ Term, _, _ uint32, a []Value) (Value, error) {
			return BoolValue(a[0].Equal(a[1])), nil
		},
		// The Evaluator evaluates Ite lazily and never calls this entry;
		// it serves constant folding, where every argument is known.
		OpIte: func(_ *Evaluator, _ Term, _, _ uint32, a []Value) (Value, error) {
			if a[0].Bool() {
				return a[1], nil
			}
			return a[2], nil
		},

		OpAdd:   bvBinary(BV.Add),
		OpSub:   bvBinary(BV.Sub),
		OpMul:   bvBinary(BV.Mul),
		OpUDiv:  bvBinary(BV.UDiv),
		OpSDiv:  bvBinary(BV.SDiv),
		OpURem:  bvBinary(BV.URem),
		OpSRem:  bvBinary(BV.SRem),
		OpNeg:   bvUnary(BV.Neg),
		OpBVAnd: bvBinary(BV.And),
		OpBVOr:  bvBinary(BV.Or),
		OpBVXor: bvBinary(BV.Xor),
		OpBVNot: bvUnary(BV.Not),
		OpShl:   bvBinary(BV.Shl),
		OpLShr:  bvBinary(BV.LShr),
		OpAShr:  bvBinary(BV.AShr),
		OpRotl:  bvBinary(BV.Rotl),
		OpRotr:  bvBinary(BV.Rotr),
		OpConcat: func(_ *Evaluator, _ Term, _, _ uint32, a []Value) (Value, error) {
			return BVValue(a[0].BV().Concat(a[1].BV())), nil
		},
		OpExtract: func(_ *Evaluator, _ Term, hi, lo uint32, a []Value) (Value, error) {
			return BVValue(a[0].BV().Extract(hi, lo)), nil
		},
		OpZeroExt: func(_ *Evaluator, _ Term, n, _ uint32, a []Value) (Value, error) {
			return BVValue(a[0].BV().ZeroExt(n)), nil
		},
		OpSignExt: func(_ *Evaluator, _ Term, n, _ uint32, a []Value) (Value, error) {
			return BVValue(a[0].BV().SignExt(n)), nil
		},
		OpUlt: bvCompare(BV.Ult),
		OpUle: bvCompare(BV.Ule),
		OpSlt: bvCompare(BV.Slt),
		OpSle: bvCompare(BV.Sle),

		OpSelect: func(_ *Evaluator, _ Term, n, _ uint32, a []Value) (Value, error) {
			return BVValue(LoadBV(a[0].Mem(), a[1].BV().Uint64(), n)), nil
		},
		OpStore: func(_ *Evaluator, _ Term, n, _ uint32, a []Value) (Value, error) {
			return MemValue(StoreBV(a[0].Mem(), a[1].BV().Uint64(), n, a[2].BV())), nil
		},

		OpApply: evalApply,
	}
	for _, op := range Ops() {
		if evalTable[op] == nil {
			panic(fmt.Sprintf("ir: op %v has no evaluation in evalTable", op))
		}
	}
}

// Eval applies op to concrete argument values with parameters p0, p1: the
// evaluator's own table, for code that computes on values without terms
// (package smtlib's model interpreter). The arguments are sort-checked by
// the op table first, so ill-sorted input is an error, never a panic.
// Leaves and OpApply, which need a Builder and an Env, are errors.
func (op Op) Eval(args []Value, p0, p1 uint32) (Value, error) {
	var buf [3]Sort
	sorts := buf[:0]
	for _, a := range args {
		sorts = append(sorts, a.Sort())
	}
	if _, err := op.ResultSort(sorts, p0, p1); err != nil {
		return Value{}, err
	}
	return evalTable[op](nil, NoTerm, p0, p1, args)
}

func evalVar(ev *Evaluator, t Term, _, _ uint32, _ []Value) (Value, error) {
	v, ok := ev.env.VarValue(ev.b, t)
	if !ok {
		return Value{}, &UnboundError{Name: ev.b.VarName(t)}
	}
	if want := ev.b.Sort(t); v.Sort() != want {
		return Value{}, &EnvSortError{Name: ev.b.VarName(t), Got: v.Sort(), Want: want}
	}
	return v, nil
}

func evalApply(ev *Evaluator, t Term, _, _ uint32, args []Value) (Value, error) {
	f := ev.b.FuncOf(t)
	// The Env may keep the slice (a recording stub, say); ours is scratch.
	v, ok := ev.env.ApplyFunc(f, append([]Value(nil), args...))
	if !ok {
		return Value{}, &UnboundError{Name: f.Name, Func: true}
	}
	if v.Sort() != f.Result {
		return Value{}, &EnvSortError{Name: f.Name, Got: v.Sort(), Want: f.Result}
	}
	return v, nil
}

// LoadBV reads the n bytes of m at a, a+1, … (wrapping mod 2^64) as a
// little-endian 8n-bit vector: the byte at a is the least significant.
func LoadBV(m *Mem, a uint64, n uint32) BV {
	if n <= 8 {
		var v uint64
		for i := uint32(0); i < n; i++ {
			v |= uint64(m.Load(a+uint64(i))) << (8 * i)
		}
		return NewBV(8*n, v)
	}
	buf := make([]byte, n) // big-endian for SetBytes
	for i := uint32(0); i < n; i++ {
		buf[n-1-i] = m.Load(a + uint64(i))
	}
	return bvFromBig(8*n, new(big.Int).SetBytes(buf))
}

// StoreBV returns m with the 8n-bit vector v written little-endian at a,
// a+1, … (wrapping mod 2^64).
func StoreBV(m *Mem, a uint64, n uint32, v BV) *Mem {
	if v.Width() != 8*n {
		panic(fmt.Sprintf("ir: storing a %d-bit vector as %d bytes", v.Width(), n))
	}
	buf := make([]byte, n)
	if n <= 8 {
		for i := range buf {
			buf[i] = byte(v.v >> (8 * i))
		}
	} else {
		v.big.FillBytes(buf) // big-endian
		for i, j := 0, len(buf)-1; i < j; i, j = i+1, j-1 {
			buf[i], buf[j] = buf[j], buf[i]
		}
	}
	return m.With(a, buf)
}

// Evaluator evaluates terms of one Builder under one Env, memoizing every
// subterm's value so that evaluating many terms that share structure (a
// TFG's edges, a product program's obligations) costs each subterm once. It
// is iterative, so chains of 100k stores do not exhaust the goroutine stack.
// An Evaluator is not safe for concurrent use.
//
// The memo is dense: 4 bytes per term of the Builder (allocated on first
// use, up to the largest term evaluated) plus one Value per subterm actually
// evaluated. A map memo took about 1.6× the CPU time on 10k-node DAGs.
type Evaluator struct {
	b     *Builder
	env   Env
	slot  []int32 // slot[t]: 1 + index of t's value in vals; 0 while unknown
	vals  []Value
	terms []Term // terms[i]: the term whose value is vals[i]
	stack []evalFrame
	args  []Value
}

type evalFrame struct {
	t Term
	i int // arguments before i are known
}

// NewEvaluator returns an Evaluator of b's terms under env.
func NewEvaluator(b *Builder, env Env) *Evaluator {
	ev, _ := evaluators.Get().(*Evaluator)
	if ev == nil {
		ev = &Evaluator{}
	}
	ev.b, ev.env = b, env
	return ev
}

// evaluators holds released Evaluators, their slots all zero again: a
// co-execution evaluates each step with an evaluator of its own, and
// growing a fresh memo for each (slots up to the largest term, values
// one append at a time) took a third of a loop check's time.
var evaluators sync.Pool

// Release gives ev's memory back for reuse by a later NewEvaluator; ev
// and nothing it returned may be used after, except the Values (they do
// not point into ev). Clearing costs one store per term evaluated, not
// one per term of the Builder.
func (ev *Evaluator) Release() {
	for _, t := range ev.terms {
		ev.slot[t] = 0
	}
	clear(ev.vals)
	clear(ev.args)
	ev.vals, ev.terms, ev.args = ev.vals[:0], ev.terms[:0], ev.args[:0]
	ev.b, ev.env = nil, nil
	evaluators.Put(ev)
}

// Eval evaluates t under env. It returns an *UnboundError for a free
// constant or function that env does not define and an *EnvSortError for a
// value of the wrong sort.
func Eval(b *Builder, t Term, env Env) (Value, error) {
	return NewEvaluator(b, env).Eval(t)
}

func (ev *Evaluator) known(t Term) bool { return ev.slot[t] != 0 }

func (ev *Evaluator) value(t Term) Value { return ev.vals[ev.slot[t]-1] }

func (ev *Evaluator) setValue(t Term, v Value) {
	ev.vals = append(ev.vals, v)
	ev.terms = append(ev.terms, t)
	ev.slot[t] = int32(len(ev.vals))
}

// Eval returns t's value. Ite evaluates its condition first and then only
// the branch taken, so an unbound variable in the branch not taken is no
// error (a solver's model need not define it).
func (ev *Evaluator) Eval(t Term) (Value, error) {
	b := ev.b
	if int(t) >= len(ev.slot) {
		// Arguments are interned before the terms that use them, so every
		// subterm of t has a smaller id: t+1 slots cover them all.
		if t == NoTerm || int(t) >= b.Len() {
			panic(fmt.Sprintf("ir: eval of term %d, not of this builder (%d terms)", t, b.Len()))
		}
		// Only that far: an evaluator per step of a long co-execution
		// sized to the whole builder (every term the products made
		// since the lift) spent more time clearing memory than
		// evaluating (the kernel split_sign: 16 s of 51).
		ev.slot = append(ev.slot, make([]int32, int(t)+1-len(ev.slot))...)
	}
	if ev.known(t) {
		return ev.value(t), nil
	}
	stack := append(ev.stack[:0], evalFrame{t: t})
	defer func() { ev.stack = stack[:0] }()
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		u := f.t
		if ev.known(u) { // reached again through a shared subterm
			stack = stack[:len(stack)-1]
			continue
		}
		op := b.Op(u)
		args := b.Args(u)
		if op == OpIte {
			if !ev.known(args[0]) {
				stack = append(stack, evalFrame{t: args[0]})
				continue
			}
			branch := args[2]
			if ev.value(args[0]).Bool() {
				branch = args[1]
			}
			if !ev.known(branch) {
				stack = append(stack, evalFrame{t: branch})
				continue
			}
			ev.setValue(u, ev.value(branch))
			stack = stack[:len(stack)-1]
			continue
		}
		for f.i < len(args) && ev.known(args[f.i]) {
			f.i++
		}
		if f.i < len(args) {
			stack = append(stack, evalFrame{t: args[f.i]})
			continue
		}
		vals := ev.args[:0]
		for _, a := range args {
			vals = append(vals, ev.value(a))
		}
		ev.args = vals
		p0, p1 := b.Params(u)
		v, err := evalTable[op](ev, u, p0, p1, vals)
		if err != nil {
			return Value{}, err
		}
		ev.setValue(u, v)
		stack = stack[:len(stack)-1]
	}
	return ev.value(t), nil
}
