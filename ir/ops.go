package ir

import (
	"fmt"
	"math"
)

// Op is an operator of the term language. Its facts live in the op table.
type Op uint8

// The operators. Their facts (arity, parameters, sort rule, SMT-LIB symbol and
// chaining, one-line semantics) are in opTable below; keep the two lists in
// the same order.
const (
	OpInvalid Op = iota

	// Leaves.
	OpVar   // free constant of any sort; P0 indexes the name table
	OpConst // bit-vector constant; P0 indexes the constant table
	OpTrue
	OpFalse

	// Booleans.
	OpNot
	OpAnd
	OpOr
	OpXor // boolean exclusive or
	OpImplies
	OpEq  // equality at any sort
	OpIte // if-then-else at any sort

	// Bit-vector arithmetic; SMT-LIB semantics, including division by zero.
	OpAdd
	OpSub
	OpMul
	OpUDiv
	OpSDiv
	OpURem
	OpSRem
	OpNeg
	OpBVAnd
	OpBVOr
	OpBVXor
	OpBVNot
	OpShl
	OpLShr
	OpAShr
	OpRotl
	OpRotr
	OpConcat
	OpExtract // P0 = hi, P1 = lo
	OpZeroExt // P0 = bits added
	OpSignExt // P0 = bits added
	OpUlt
	OpUle
	OpSlt
	OpSle

	// Memory.
	OpSelect // Select(M, a), P0 = bytes read, little-endian
	OpStore  // Store(M, a, v), P0 = bytes written, little-endian

	// Uninterpreted functions.
	OpApply // P0 indexes the function table

	numOps
)

// OpInfo is one row of the op table.
type OpInfo struct {
	Name string // name in Go-facing dumps
	// SMT is the op's SMT-LIB symbol: (SMT args…), or for an op with
	// parameters the indexed identifier ((_ SMT P0 P1) args…). It is empty
	// when SMT-LIB has no symbol of the same meaning and package smtlib
	// expands the op (sized memory access, rotation by a term, application).
	SMT    string
	Chain  Chaining // how SMT-LIB reads SMT applied to more than Arity arguments
	Arity  int      // number of arguments; -1 for any number
	Params int      // number of integer parameters (P0, P1)
	Doc    string   // one-line semantics
	// sort gives the result sort from the argument sorts and the parameters,
	// or an error if the arguments are ill-sorted.
	sort func(args []Sort, p0, p1 uint32) (Sort, error)
}

// Chaining is how SMT-LIB reads a binary symbol applied to more than two
// arguments: the symbol's :left-assoc, :right-assoc or :chainable attribute
// in the SMT-LIB theories (bvsub's and concat's are z3 and cvc5 extensions,
// which eqc reads but never prints).
type Chaining uint8

const (
	NoChain    Chaining = iota // exactly Arity arguments
	LeftAssoc                  // (f a b c) is (f (f a b) c)
	RightAssoc                 // (f a b c) is (f a (f b c))
	Chainable                  // (f a b c) is (and (f a b) (f b c))
)

// Info returns op's row of the op table.
func (op Op) Info() *OpInfo {
	if op == OpInvalid || op >= numOps {
		panic(fmt.Sprintf("ir: invalid op %d", op))
	}
	return &opTable[op]
}

func (op Op) String() string {
	if op == OpInvalid || op >= numOps {
		return fmt.Sprintf("op%d", uint8(op))
	}
	return opTable[op].Name
}

// ResultSort returns the sort of op applied to arguments of the given sorts
// with parameters p0, p1, or an error if they are ill-sorted or of the wrong
// number. Leaves and OpApply, whose sorts come from the Builder, are errors.
func (op Op) ResultSort(args []Sort, p0, p1 uint32) (Sort, error) {
	if op == OpInvalid || op >= numOps {
		return Sort{}, fmt.Errorf("ir: invalid op %d", op)
	}
	info := &opTable[op]
	switch op {
	case OpVar, OpConst, OpApply:
		return Sort{}, fmt.Errorf("ir: %v has no sort rule: its sort comes from the builder", op)
	}
	if len(args) != info.Arity {
		return Sort{}, fmt.Errorf("ir: %v takes %d arguments, got %d", op, info.Arity, len(args))
	}
	s, err := info.sort(args, p0, p1)
	if err != nil {
		return Sort{}, fmt.Errorf("ir: %v: %v", op, err)
	}
	return s, nil
}

// NumOps is the number of operators, for tables indexed by Op.
const NumOps = int(numOps)

// Ops returns every operator, in table order.
func Ops() []Op {
	ops := make([]Op, 0, numOps-1)
	for op := Op(1); op < numOps; op++ {
		ops = append(ops, op)
	}
	return ops
}

var opTable = [numOps]OpInfo{
	OpVar:   {Name: "var", Arity: 0, Params: 1, Doc: "a free constant, named in the name table", sort: leafSort},
	OpConst: {Name: "const", Arity: 0, Params: 1, Doc: "a bit-vector literal", sort: leafSort},
	OpTrue:  {Name: "true", SMT: "true", Arity: 0, Doc: "boolean truth", sort: fixedSort(BoolSort)},
	OpFalse: {Name: "false", SMT: "false", Arity: 0, Doc: "boolean falsity", sort: fixedSort(BoolSort)},

	OpNot:     {Name: "not", SMT: "not", Arity: 1, Doc: "¬x", sort: boolOp},
	OpAnd:     {Name: "and", SMT: "and", Chain: LeftAssoc, Arity: 2, Doc: "x ∧ y", sort: boolOp},
	OpOr:      {Name: "or", SMT: "or", Chain: LeftAssoc, Arity: 2, Doc: "x ∨ y", sort: boolOp},
	OpXor:     {Name: "xor", SMT: "xor", Chain: LeftAssoc, Arity: 2, Doc: "x ≠ y on booleans", sort: boolOp},
	OpImplies: {Name: "implies", SMT: "=>", Chain: RightAssoc, Arity: 2, Doc: "¬x ∨ y", sort: boolOp},
	OpEq:      {Name: "eq", SMT: "=", Chain: Chainable, Arity: 2, Doc: "x = y at any sort (memories: at every address)", sort: eqSort},
	OpIte:     {Name: "ite", SMT: "ite", Arity: 3, Doc: "y if c else z, at any sort", sort: iteSort},

	OpAdd:     {Name: "add", SMT: "bvadd", Chain: LeftAssoc, Arity: 2, Doc: "x + y mod 2^w", sort: bvOp},
	OpSub:     {Name: "sub", SMT: "bvsub", Chain: LeftAssoc, Arity: 2, Doc: "x − y mod 2^w", sort: bvOp},
	OpMul:     {Name: "mul", SMT: "bvmul", Chain: LeftAssoc, Arity: 2, Doc: "x · y mod 2^w", sort: bvOp},
	OpUDiv:    {Name: "udiv", SMT: "bvudiv", Arity: 2, Doc: "⌊x / y⌋ unsigned; all ones if y = 0", sort: bvOp},
	OpSDiv:    {Name: "sdiv", SMT: "bvsdiv", Arity: 2, Doc: "x / y signed, rounded toward zero; by 0: −1 if x ≥ 0 else 1", sort: bvOp},
	OpURem:    {Name: "urem", SMT: "bvurem", Arity: 2, Doc: "x mod y unsigned; x if y = 0", sort: bvOp},
	OpSRem:    {Name: "srem", SMT: "bvsrem", Arity: 2, Doc: "x − y·sdiv(x,y), sign of x; x if y = 0", sort: bvOp},
	OpNeg:     {Name: "neg", SMT: "bvneg", Arity: 1, Doc: "−x mod 2^w", sort: bvOp},
	OpBVAnd:   {Name: "bvand", SMT: "bvand", Chain: LeftAssoc, Arity: 2, Doc: "bitwise x & y", sort: bvOp},
	OpBVOr:    {Name: "bvor", SMT: "bvor", Chain: LeftAssoc, Arity: 2, Doc: "bitwise x | y", sort: bvOp},
	OpBVXor:   {Name: "bvxor", SMT: "bvxor", Chain: LeftAssoc, Arity: 2, Doc: "bitwise x ^ y", sort: bvOp},
	OpBVNot:   {Name: "bvnot", SMT: "bvnot", Arity: 1, Doc: "bitwise ^x", sort: bvOp},
	OpShl:     {Name: "shl", SMT: "bvshl", Arity: 2, Doc: "x << y; 0 if y ≥ w", sort: bvOp},
	OpLShr:    {Name: "lshr", SMT: "bvlshr", Arity: 2, Doc: "x >> y filling zeros; 0 if y ≥ w", sort: bvOp},
	OpAShr:    {Name: "ashr", SMT: "bvashr", Arity: 2, Doc: "x >> y filling the sign bit; all sign bits if y ≥ w", sort: bvOp},
	OpRotl:    {Name: "rotl", Arity: 2, Doc: "x rotated left by y mod w bits", sort: bvOp},
	OpRotr:    {Name: "rotr", Arity: 2, Doc: "x rotated right by y mod w bits", sort: bvOp},
	OpConcat:  {Name: "concat", SMT: "concat", Chain: LeftAssoc, Arity: 2, Doc: "x as the high bits above y", sort: concatSort},
	OpExtract: {Name: "extract", SMT: "extract", Arity: 1, Params: 2, Doc: "bits P0 down to P1 of x, inclusive", sort: extractSort},
	OpZeroExt: {Name: "zext", SMT: "zero_extend", Arity: 1, Params: 1, Doc: "x with P0 zero bits added on top", sort: extSort},
	OpSignExt: {Name: "sext", SMT: "sign_extend", Arity: 1, Params: 1, Doc: "x with P0 copies of its sign bit added on top", sort: extSort},
	OpUlt:     {Name: "ult", SMT: "bvult", Arity: 2, Doc: "x < y unsigned", sort: bvCmp},
	OpUle:     {Name: "ule", SMT: "bvule", Arity: 2, Doc: "x ≤ y unsigned", sort: bvCmp},
	OpSlt:     {Name: "slt", SMT: "bvslt", Arity: 2, Doc: "x < y signed", sort: bvCmp},
	OpSle:     {Name: "sle", SMT: "bvsle", Arity: 2, Doc: "x ≤ y signed", sort: bvCmp},

	OpSelect: {Name: "select", Arity: 2, Params: 1, Doc: "the P0 bytes of M at a, a+1, …, little-endian", sort: selectSort},
	OpStore:  {Name: "store", Arity: 3, Params: 1, Doc: "M with the P0 bytes of v written little-endian at a, a+1, …", sort: storeSort},

	OpApply: {Name: "apply", Arity: -1, Params: 1, Doc: "an uninterpreted function applied to its arguments", sort: nil},
}

func leafSort(args []Sort, p0, p1 uint32) (Sort, error) {
	panic("ir: leaf sorts come from the leaf, not the op table")
}

func fixedSort(s Sort) func([]Sort, uint32, uint32) (Sort, error) {
	return func([]Sort, uint32, uint32) (Sort, error) { return s, nil }
}

func boolOp(args []Sort, _, _ uint32) (Sort, error) {
	for i, a := range args {
		if a.Kind != KindBool {
			return Sort{}, fmt.Errorf("argument %d is %v, want Bool", i, a)
		}
	}
	return BoolSort, nil
}

func eqSort(args []Sort, _, _ uint32) (Sort, error) {
	if args[0] != args[1] {
		return Sort{}, fmt.Errorf("comparing %v with %v", args[0], args[1])
	}
	return BoolSort, nil
}

func iteSort(args []Sort, _, _ uint32) (Sort, error) {
	if args[0].Kind != KindBool {
		return Sort{}, fmt.Errorf("condition is %v, want Bool", args[0])
	}
	if args[1] != args[2] {
		return Sort{}, fmt.Errorf("branches are %v and %v", args[1], args[2])
	}
	return args[1], nil
}

func bvOp(args []Sort, _, _ uint32) (Sort, error) {
	for i, a := range args {
		if a.Kind != KindBV {
			return Sort{}, fmt.Errorf("argument %d is %v, want a bit-vector", i, a)
		}
		if a != args[0] {
			return Sort{}, fmt.Errorf("argument %d is %v, argument 0 is %v", i, a, args[0])
		}
	}
	return args[0], nil
}

func bvCmp(args []Sort, p0, p1 uint32) (Sort, error) {
	if _, err := bvOp(args, p0, p1); err != nil {
		return Sort{}, err
	}
	return BoolSort, nil
}

func concatSort(args []Sort, _, _ uint32) (Sort, error) {
	if args[0].Kind != KindBV || args[1].Kind != KindBV {
		return Sort{}, fmt.Errorf("concat of %v and %v", args[0], args[1])
	}
	return bvSum(uint64(args[0].Width) + uint64(args[1].Width))
}

// bvSum is the sort of w bits, an error when w does not fit a width.
func bvSum(w uint64) (Sort, error) {
	if w > math.MaxUint32 {
		return Sort{}, fmt.Errorf("%d bits", w)
	}
	return BVSort(uint32(w)), nil
}

func extractSort(args []Sort, hi, lo uint32) (Sort, error) {
	if args[0].Kind != KindBV || hi < lo || hi >= args[0].Width {
		return Sort{}, fmt.Errorf("extract [%d:%d] of %v", hi, lo, args[0])
	}
	return BVSort(hi - lo + 1), nil
}

func extSort(args []Sort, n, _ uint32) (Sort, error) {
	if args[0].Kind != KindBV {
		return Sort{}, fmt.Errorf("extension of %v", args[0])
	}
	return bvSum(uint64(args[0].Width) + uint64(n))
}

func selectSort(args []Sort, n, _ uint32) (Sort, error) {
	if args[0] != MemSort || args[1] != BVSort(AddrWidth) || n == 0 || n > math.MaxUint32/8 {
		return Sort{}, fmt.Errorf("select %d bytes of %v at %v", n, args[0], args[1])
	}
	return BVSort(8 * n), nil
}

func storeSort(args []Sort, n, _ uint32) (Sort, error) {
	if args[0] != MemSort || args[1] != BVSort(AddrWidth) || n == 0 || n > math.MaxUint32/8 || args[2] != BVSort(8*n) {
		return Sort{}, fmt.Errorf("store %d bytes of %v into %v at %v", n, args[2], args[0], args[1])
	}
	return MemSort, nil
}
