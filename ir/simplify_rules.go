package ir

import "fmt"

// The rule set, by op. Each line is one rewrite, named as it appears in the
// fire counts ("op/name"). Within an op the rules are tried in order and
// the first that applies wins, so cheap and shrinking rules come first and
// reordering (commute) comes last. Notation: c, c1, c2 are constants, w the
// width, ~ bitwise not, M a memory.
var ruleSet = map[Op][]Rule{
	OpNot: {
		{"fold", fold},
		{"not-not", notNot}, // ¬¬x → x
	},
	OpAnd: {
		{"fold", fold},
		{"x&true", boolIdentity(OpTrue)}, // x ∧ true → x
		{"x&false", boolAbsorb(OpFalse)}, // x ∧ false → false
		{"x&x", sameArgs(returnArg0)},    // x ∧ x → x
		{"x&!x", complementary(OpFalse)}, // x ∧ ¬x → false
		{"commute", commute},             // constants right, then by id
	},
	OpOr: {
		{"fold", fold},
		{"x|false", boolIdentity(OpFalse)}, // x ∨ false → x
		{"x|true", boolAbsorb(OpTrue)},     // x ∨ true → true
		{"x|x", sameArgs(returnArg0)},      // x ∨ x → x
		{"x|!x", complementary(OpTrue)},    // x ∨ ¬x → true
		{"commute", commute},
	},
	OpXor: {
		{"fold", fold},
		{"x^false", boolIdentity(OpFalse)},   // x ⊕ false → x
		{"x^true", xorTrue},                  // x ⊕ true → ¬x
		{"x^x", sameArgs(returnBool(false))}, // x ⊕ x → false
		{"commute", commute},
	},
	OpImplies: {
		{"fold", fold},
		{"true=>y", impliesTrueLeft},    // true ⇒ y → y
		{"false=>y", impliesFalseLeft},  // false ⇒ y → true
		{"x=>true", impliesTrueRight},   // x ⇒ true → true
		{"x=>false", impliesFalseRight}, // x ⇒ false → ¬x
		{"x=>x", sameArgs(returnBool(true))},
	},
	OpEq: {
		{"fold", fold},
		{"x=x", sameArgs(returnBool(true))}, // at every sort, memories included
		{"x=true", boolIdentity(OpTrue)},    // (x = true) → x
		{"x=false", eqFalse},                // (x = false) → ¬x
		{"x+c1=c2", eqAddConst},             // x + c1 = c2 → x = c2 − c1 (+ is a bijection)
		{"commute", commute},
	},
	OpIte: {
		{"fold", fold},
		{"ite-true", iteConstCond(true)},   // ite(true, x, y) → x
		{"ite-false", iteConstCond(false)}, // ite(false, x, y) → y
		{"ite-same", iteSame},              // ite(c, x, x) → x
		{"ite-nested", iteNested},          // ite(c, ite(c, x, y), z) → ite(c, x, z); ite(c, x, ite(c, y, z)) → ite(c, x, z)
		{"ite-bool", iteBool},              // ite(c, true, false) → c; ite(c, false, true) → ¬c
		{"ite-not", iteNot},                // ite(¬c, x, y) → ite(c, y, x)
		{"ite-add", iteAdd},                // ite(c, x, x+y) → x + ite(c, 0, y); ite(c, x+y, x) → x + ite(c, y, 0)
	},

	OpApply: {
		{"minmax", applyMinMax}, // f(ite(q <u p, q, p), ite(q <u p, p, q)) → f(ite(p <u q, p, q), ite(p <u q, q, p)) for p older than q
	},

	OpAdd: {
		{"fold", fold},
		{"x+0", rightIs(BV.IsZero, returnArg0)},
		{"(x+c1)+c2", reassocConst}, // → x + (c1+c2)
		{"x+(y+c)", addConstOut},    // → (x+y) + c: an address's offset outermost, one form for a+(2i+c) and (a+2i)+c
		{"commute", commute},
	},
	OpSub: {
		{"fold", fold},
		{"x-0", rightIs(BV.IsZero, returnArg0)},
		{"x-x", sameArgs(returnZero)},
		{"x-c", subConst},  // → x + (−c), so addresses have one form
		{"0-x", zeroMinus}, // → −x
	},
	OpMul: {
		{"fold", fold},
		{"x*0", rightIs(BV.IsZero, returnArg1)},
		{"x*1", rightIs(BV.IsOne, returnArg0)},
		{"(x*c1)*c2", reassocConst},
		{"commute", commute},
	},
	OpUDiv: {
		{"fold", fold},
		{"x/1", rightIs(BV.IsOne, returnArg0)},
		{"x/0", rightIs(BV.IsZero, returnOnes)}, // SMT-LIB: all ones
		{"zext/zext", udivZeroExts},             // zext(x, k) / zext(y, k) → ite(y = 0, ~0, zext(x / y, k))
	},
	OpSDiv: {
		{"fold", fold},
		// For w = 1 the constant 1 is −1 and x / −1 = −x = x mod 2: still x.
		{"x/1", rightIs(BV.IsOne, returnArg0)},
	},
	OpURem: {
		{"fold", fold},
		{"x%1", rightIs(BV.IsOne, returnZero)},
		{"x%0", rightIs(BV.IsZero, returnArg0)}, // SMT-LIB: x
		{"zext%zext", uremZeroExts},             // zext(x, k) % zext(y, k) → zext(x % y, k)
	},
	OpSRem: {
		{"fold", fold},
		{"x%1", rightIs(BV.IsOne, returnZero)}, // also for w = 1, where 1 is −1
		{"x%0", rightIs(BV.IsZero, returnArg0)},
	},
	OpNeg: {
		{"fold", fold},
		{"neg-neg", unaryInvolution}, // −−x → x
	},
	OpBVAnd: {
		{"fold", fold},
		{"x&0", rightIs(BV.IsZero, returnArg1)},
		{"x&~0", rightIs(BV.IsOnes, returnArg0)},
		{"x&x", sameArgs(returnArg0)},
		{"x&~x", bvComplementary(returnZero)},
		{"x&mask", andMask},         // x & ite(c, ~0, 0) → ite(c, x, 0), and the reverse
		{"ite-lift", bitwiseOfItes}, // ite(c, a1, b1) & ite(c, a2, b2) → ite(c, a1 & a2, b1 & b2)
		{"(x&c1)&c2", reassocConst},
		{"commute", commute},
	},
	OpBVOr: {
		{"fold", fold},
		{"x|0", rightIs(BV.IsZero, returnArg0)},
		{"x|~0", rightIs(BV.IsOnes, returnArg1)},
		{"x|x", sameArgs(returnArg0)},
		{"x|~x", bvComplementary(returnOnes)},
		{"ite-lift", bitwiseOfItes}, // ite(c, a, 0) | ite(c, 0, b) → ite(c, a, b): a blend (pand, pandn, por)
		{"(x|c1)|c2", reassocConst},
		{"commute", commute},
	},
	OpBVXor: {
		{"fold", fold},
		{"x^0", rightIs(BV.IsZero, returnArg0)},
		{"x^x", sameArgs(returnZero)},
		{"x^~0", xorOnes}, // → ~x
		{"ite-lift", bitwiseOfItes},
		{"(x^c1)^c2", reassocConst},
		{"commute", commute},
	},
	OpBVNot: {
		{"fold", fold},
		{"not-not", unaryInvolution}, // ~~x → x
		{"of-concat", notOfConcat},   // ~(x ++ y) → ~x ++ ~y: a lane mask's complement (pandn) stays lane by lane
		{"of-ite", notOfConstIte},    // ~ite(c, c1, c2) → ite(c, ~c1, ~c2)
	},
	OpShl: {
		{"fold", fold},
		{"x<<0", rightIs(BV.IsZero, returnArg0)},
		{"0<<y", leftIs(BV.IsZero)},
		{"x<<big", shiftOut},        // a constant count ≥ w shifts everything out
		{"(x+c)<<k", shlOfAddConst}, // → (x<<k) + (c<<k): an index's offset scaled out of the address
	},
	OpLShr: {
		{"fold", fold},
		{"x>>0", rightIs(BV.IsZero, returnArg0)},
		{"0>>y", leftIs(BV.IsZero)},
		{"x>>big", shiftOut},
	},
	OpAShr: {
		{"fold", fold},
		{"x>>0", rightIs(BV.IsZero, returnArg0)},
		{"0>>y", leftIs(BV.IsZero)},
		{"~0>>y", leftIs(BV.IsOnes)},
	},
	OpRotl: {
		{"fold", fold},
		{"rot-0", rotateByMultipleOfWidth}, // by c ≡ 0 mod w → x
		{"rot-w1", rotateWidth1},           // every rotation of 1 bit is the identity
		{"rot-uniform", rotateUniform},     // 0 and ~0 are rotation invariant
	},
	OpRotr: {
		{"fold", fold},
		{"rot-0", rotateByMultipleOfWidth},
		{"rot-w1", rotateWidth1},
		{"rot-uniform", rotateUniform},
	},
	OpConcat: {
		{"fold", fold},
		{"adjacent-extracts", concatAdjacentExtracts}, // x[h:m+1] ++ x[m:l] → x[h:l]
		{"adjacent-selects", concatAdjacentSelects},   // sel(M,a+k,n) ++ sel(M,a,k) → sel(M,a,k+n)
		{"zero-high", concatZeroHigh},                 // 0 ++ x → zext(x)
		{"split-extract", concatSplitExtract},         // x[h:k] ++ y → x[h:0] when x[k−1:0] simplifies to y
	},
	OpExtract: {
		{"fold", fold},
		{"whole", extractWhole},          // x[w−1:0] → x
		{"of-extract", extractOfExtract}, // x[h:l][h2:l2] → x[h2+l:l2+l]
		{"of-concat", extractOfConcat},   // a range inside one side of a concat; across the seam, the concat of both sides' pieces
		{"of-zext", extractOfZeroExt},    // inside x → x[h:l]; inside the zeros → 0; x[h:0] past x → zext(x) to h+1 bits
		{"of-sext", extractOfSignExt},    // inside x → x[h:l]; x[h:0] past x's sign → sext(x) to h+1 bits
		{"of-arith", extractOfArith},     // (x op y)[h:0] → x[h:0] op y[h:0] for +, −, · of extracts, extensions, constants
		{"of-select", extractOfSelect},   // whole bytes of a read → a narrower read
		{"of-bitwise", extractOfBitwise}, // (x op y)[h:l] → x[h:l] op y[h:l] when a side is a concat or constant
	},
	OpZeroExt: {
		{"fold", fold},
		{"by-0", extByZero},       // zext(x, 0) → x (Make allows it; the Builder helpers never make it)
		{"of-zext", extOfSameExt}, // zext(zext(x, n1), n2) → zext(x, n1+n2)
	},
	OpSignExt: {
		{"fold", fold},
		{"by-0", extByZero},
		{"of-sext", extOfSameExt},     // sext(sext(x, n1), n2) → sext(x, n1+n2)
		{"of-zext", signExtOfZeroExt}, // sext(zext(x, n1≥1), n2) → zext(x, n1+n2): the sign is 0
		{"of-clear", signExtOfClear},  // sext(x) → zext(x) when x's top bit is 0 whatever its variables
	},
	OpUlt: {
		{"fold", fold},
		{"x<x", sameArgs(returnBool(false))},
		{"x<0", rightIs(BV.IsZero, returnBool(false))},
		{"~0<x", leftIsBool(BV.IsOnes, false)},
	},
	OpUle: {
		{"fold", fold},
		{"x<=x", sameArgs(returnBool(true))},
		{"0<=x", leftIsBool(BV.IsZero, true)},
		{"x<=~0", rightIs(BV.IsOnes, returnBool(true))},
	},
	OpSlt: {
		{"fold", fold},
		{"x<x", sameArgs(returnBool(false))},
	},
	OpSle: {
		{"fold", fold},
		{"x<=x", sameArgs(returnBool(true))},
	},

	// Thesis §2.4.3: a read through a write it provably does not overlap
	// skips the write; the other cases read the written value exactly.
	OpSelect: {
		{"store-same", selectStore(overlapSame)},         // sel(st(M,a,n,v),a,n) → v
		{"store-within", selectStore(overlapWithin)},     // read inside the write → bytes of v
		{"store-disjoint", selectStore(overlapDisjoint)}, // → sel(M,a',n')
		{"store-partial", selectStore(overlapPartial)},   // → concat of bytes of v and reads of M
		{"through-ite", selectIte},                       // sel(ite(c,M1,M2),a,n) → ite(c, sel(M1,a,n), sel(M2,a,n))
	},
	OpStore: {
		{"store-cover", storeCover},    // st(st(M,a,n,v1),a',n',v2) → st(M,a',n',v2) when the outer covers the inner
		{"write-back", storeWriteBack}, // st(M,a,n,sel(M,a,n)) → M
	},
}

func init() {
	for op, rs := range ruleSet {
		names := make(map[string]bool)
		for _, r := range rs {
			if names[r.Name] {
				panic(fmt.Sprintf("ir: rule %s/%s listed twice", op, r.Name))
			}
			names[r.Name] = true
			if r.Name == "fold" && !foldable(op) {
				panic(fmt.Sprintf("ir: rule %s/fold on an op that cannot fold", op))
			}
			rules[op] = append(rules[op], Rule{Name: op.String() + "/" + r.Name, Fn: r.Fn})
		}
	}
	for _, op := range Ops() {
		if foldable(op) && (len(rules[op]) == 0 || rules[op][0].Name != op.String()+"/fold") {
			panic(fmt.Sprintf("ir: op %v has no constant-folding rule", op))
		}
	}
}

// foldable reports whether op can have all-constant arguments: not leaves,
// memory ops (no memory is a constant) or uninterpreted functions.
func foldable(op Op) bool {
	switch op {
	case OpVar, OpConst, OpTrue, OpFalse, OpSelect, OpStore, OpApply:
		return false
	}
	return true
}

// Helpers over terms.

func (s *Simplifier) isConstBV(t Term) bool { return s.b.Op(t) == OpConst }

// constIs reports whether t is a bit-vector constant satisfying p.
func (s *Simplifier) constIs(t Term, p func(BV) bool) bool {
	return s.b.Op(t) == OpConst && p(s.b.ConstValue(t))
}

func (s *Simplifier) constTerm(x BV) Term { return s.b.ConstBV(x) }

func (s *Simplifier) args2(t Term) (Term, Term) {
	a := s.b.Args(t)
	return a[0], a[1]
}

// isNotOf reports whether x is ¬y (booleans) or ~y (bit-vectors).
func (s *Simplifier) isNotOf(x, y Term) bool {
	switch s.b.Op(x) {
	case OpNot, OpBVNot:
		return s.b.Arg(x, 0) == y
	}
	return false
}

// valueTerm is the constant term of a boolean or bit-vector value.
func (s *Simplifier) valueTerm(v Value) Term {
	switch v.Sort().Kind {
	case KindBool:
		return s.b.Bool(v.Bool())
	case KindBV:
		return s.b.ConstBV(v.BV())
	}
	panic(fmt.Sprintf("ir: folding produced a %v value", v.Sort()))
}

// Generic rules.

// fold evaluates an op whose arguments are all constants through the
// evaluator's table, so folding and evaluation share one semantics.
func fold(s *Simplifier, t Term) Term {
	b := s.b
	args := b.Args(t)
	var buf [3]Value
	vals := buf[:0]
	for _, a := range args {
		switch b.Op(a) {
		case OpConst:
			vals = append(vals, BVValue(b.ConstValue(a)))
		case OpTrue:
			vals = append(vals, BoolValue(true))
		case OpFalse:
			vals = append(vals, BoolValue(false))
		default:
			return NoTerm
		}
	}
	op := b.Op(t)
	p0, p1 := b.Params(t)
	v, err := evalTable[op](nil, t, p0, p1, vals)
	if err != nil {
		panic(fmt.Sprintf("ir: folding %s: %v", b.Short(t), err))
	}
	return s.valueTerm(v)
}

// commute puts the arguments of a commutative op in canonical order:
// constants on the right, otherwise the older term (smaller id) first, so
// x+y and y+x become one hash-consed term.
func commute(s *Simplifier, t Term) Term {
	x, y := s.args2(t)
	xc, yc := s.b.IsConst(x), s.b.IsConst(y)
	if (xc && !yc) || (xc == yc && y < x) {
		return s.raw(s.b.Op(t), 0, 0, y, x)
	}
	return NoTerm
}

func returnArg0(s *Simplifier, t Term) Term { return s.b.Arg(t, 0) }
func returnArg1(s *Simplifier, t Term) Term { return s.b.Arg(t, 1) }
func returnZero(s *Simplifier, t Term) Term { return s.constTerm(ZeroBV(s.b.Width(t))) }
func returnOnes(s *Simplifier, t Term) Term { return s.constTerm(OnesBV(s.b.Width(t))) }

func returnBool(v bool) func(*Simplifier, Term) Term {
	return func(s *Simplifier, _ Term) Term { return s.b.Bool(v) }
}

// sameArgs applies then when both arguments are the same term.
func sameArgs(then func(*Simplifier, Term) Term) func(*Simplifier, Term) Term {
	return func(s *Simplifier, t Term) Term {
		if x, y := s.args2(t); x == y {
			return then(s, t)
		}
		return NoTerm
	}
}

// rightIs applies then when the second argument is a constant satisfying p.
func rightIs(p func(BV) bool, then func(*Simplifier, Term) Term) func(*Simplifier, Term) Term {
	return func(s *Simplifier, t Term) Term {
		if s.constIs(s.b.Arg(t, 1), p) {
			return then(s, t)
		}
		return NoTerm
	}
}

// leftIs returns the first argument when it is a constant satisfying p (a
// fixed point of the op whatever the second argument).
func leftIs(p func(BV) bool) func(*Simplifier, Term) Term {
	return func(s *Simplifier, t Term) Term {
		if x := s.b.Arg(t, 0); s.constIs(x, p) {
			return x
		}
		return NoTerm
	}
}

// leftIsBool returns v when the first argument is a constant satisfying p.
func leftIsBool(p func(BV) bool, v bool) func(*Simplifier, Term) Term {
	return func(s *Simplifier, t Term) Term {
		if s.constIs(s.b.Arg(t, 0), p) {
			return s.b.Bool(v)
		}
		return NoTerm
	}
}

// unaryInvolution is f(f(x)) → x for ¬, ~ and −.
func unaryInvolution(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	if s.b.Op(x) == s.b.Op(t) {
		return s.b.Arg(x, 0)
	}
	return NoTerm
}

// addConstOut is x + (y + c) → (x + y) + c, and (y + c) + x → (y + x) + c,
// for a constant c and non-constant x: the constant of an address's sum
// ends outermost, where reassocConst folds the next one into it (the
// lifter's a + 2·(i + 0x3688) + 0xc and a + 2·i + 0x6d1c meet).
func addConstOut(s *Simplifier, t Term) Term {
	x, y := s.args2(t)
	if s.isConstBV(x) || s.isConstBV(y) {
		return NoTerm
	}
	if s.b.Op(y) == OpAdd {
		if y1, c := s.args2(y); s.isConstBV(c) && !s.isConstBV(y1) {
			return s.raw(OpAdd, 0, 0, s.mk(OpAdd, 0, 0, x, y1), c)
		}
	}
	if s.b.Op(x) == OpAdd {
		if x1, c := s.args2(x); s.isConstBV(c) && !s.isConstBV(x1) {
			return s.raw(OpAdd, 0, 0, s.mk(OpAdd, 0, 0, x1, y), c)
		}
	}
	return NoTerm
}

// shlOfAddConst is (x + c) << k → (x << k) + (c << k) for constants c and
// k (< w; larger counts are shiftOut's): multiplication by 2^k
// distributes over addition mod 2^w.
func shlOfAddConst(s *Simplifier, t Term) Term {
	a, k := s.args2(t)
	if !s.isConstBV(k) || s.b.Op(a) != OpAdd {
		return NoTerm
	}
	x, c := s.args2(a)
	if !s.isConstBV(c) || s.isConstBV(x) {
		return NoTerm
	}
	if w := s.b.Width(t); !s.b.ConstValue(k).Ult(NewBV(w, uint64(w))) {
		return NoTerm
	}
	return s.raw(OpAdd, 0, 0, s.mk(OpShl, 0, 0, x, k), s.mk(OpShl, 0, 0, c, k))
}

// reassocConst is (x op c1) op c2 → x op (c1 op c2) for an associative op.
func reassocConst(s *Simplifier, t Term) Term {
	x, c2 := s.args2(t)
	op := s.b.Op(t)
	if !s.isConstBV(c2) || s.b.Op(x) != op {
		return NoTerm
	}
	y, c1 := s.args2(x)
	if !s.isConstBV(c1) {
		return NoTerm
	}
	v1, v2 := s.b.ConstValue(c1), s.b.ConstValue(c2)
	var c BV
	switch op {
	case OpAdd:
		c = v1.Add(v2)
	case OpMul:
		c = v1.Mul(v2)
	case OpBVAnd:
		c = v1.And(v2)
	case OpBVOr:
		c = v1.Or(v2)
	case OpBVXor:
		c = v1.Xor(v2)
	default:
		panic(fmt.Sprintf("ir: reassocConst on %v", op))
	}
	return s.raw(op, 0, 0, y, s.constTerm(c))
}

// Boolean rules.

func notNot(s *Simplifier, t Term) Term { return unaryInvolution(s, t) }

// boolIdentity is x op k → x when k (true or false) is op's identity.
func boolIdentity(k Op) func(*Simplifier, Term) Term {
	return func(s *Simplifier, t Term) Term {
		if x, y := s.args2(t); s.b.Op(y) == k {
			return x
		}
		return NoTerm
	}
}

// boolAbsorb is x op k → k when k (true or false) absorbs under op.
func boolAbsorb(k Op) func(*Simplifier, Term) Term {
	return func(s *Simplifier, t Term) Term {
		if _, y := s.args2(t); s.b.Op(y) == k {
			return y
		}
		return NoTerm
	}
}

// complementary is x op ¬x → k (either order).
func complementary(k Op) func(*Simplifier, Term) Term {
	return func(s *Simplifier, t Term) Term {
		if x, y := s.args2(t); s.isNotOf(x, y) || s.isNotOf(y, x) {
			return s.b.Bool(k == OpTrue)
		}
		return NoTerm
	}
}

// bvComplementary is x op ~x → then (either order).
func bvComplementary(then func(*Simplifier, Term) Term) func(*Simplifier, Term) Term {
	return func(s *Simplifier, t Term) Term {
		if x, y := s.args2(t); s.isNotOf(x, y) || s.isNotOf(y, x) {
			return then(s, t)
		}
		return NoTerm
	}
}

func xorTrue(s *Simplifier, t Term) Term {
	if x, y := s.args2(t); s.b.Op(y) == OpTrue {
		return s.raw(OpNot, 0, 0, x)
	}
	return NoTerm
}

func impliesTrueLeft(s *Simplifier, t Term) Term {
	if x, y := s.args2(t); s.b.Op(x) == OpTrue {
		return y
	}
	return NoTerm
}

func impliesFalseLeft(s *Simplifier, t Term) Term {
	if x, _ := s.args2(t); s.b.Op(x) == OpFalse {
		return s.b.True()
	}
	return NoTerm
}

func impliesTrueRight(s *Simplifier, t Term) Term {
	if _, y := s.args2(t); s.b.Op(y) == OpTrue {
		return y
	}
	return NoTerm
}

func impliesFalseRight(s *Simplifier, t Term) Term {
	if x, y := s.args2(t); s.b.Op(y) == OpFalse {
		return s.raw(OpNot, 0, 0, x)
	}
	return NoTerm
}

func eqFalse(s *Simplifier, t Term) Term {
	if x, y := s.args2(t); s.b.Op(y) == OpFalse {
		return s.raw(OpNot, 0, 0, x)
	}
	return NoTerm
}

func eqAddConst(s *Simplifier, t Term) Term {
	x, c2 := s.args2(t)
	if !s.isConstBV(c2) || s.b.Op(x) != OpAdd {
		return NoTerm
	}
	y, c1 := s.args2(x)
	if !s.isConstBV(c1) {
		return NoTerm
	}
	c := s.b.ConstValue(c2).Sub(s.b.ConstValue(c1))
	return s.raw(OpEq, 0, 0, y, s.constTerm(c))
}

func iteConstCond(v bool) func(*Simplifier, Term) Term {
	k := OpFalse
	if v {
		k = OpTrue
	}
	return func(s *Simplifier, t Term) Term {
		a := s.b.Args(t)
		if s.b.Op(a[0]) != k {
			return NoTerm
		}
		if v {
			return a[1]
		}
		return a[2]
	}
}

func iteSame(s *Simplifier, t Term) Term {
	if a := s.b.Args(t); a[1] == a[2] {
		return a[1]
	}
	return NoTerm
}

// iteNested drops an inner choice on the outer one's condition: in the
// then branch it holds, in the else branch it does not.
func iteNested(s *Simplifier, t Term) Term {
	a := s.b.Args(t)
	c, x, y := a[0], a[1], a[2]
	if s.b.Op(x) == OpIte && s.b.Arg(x, 0) == c {
		return s.mk(OpIte, 0, 0, c, s.b.Arg(x, 1), y)
	}
	if s.b.Op(y) == OpIte && s.b.Arg(y, 0) == c {
		return s.mk(OpIte, 0, 0, c, x, s.b.Arg(y, 2))
	}
	return NoTerm
}

func iteBool(s *Simplifier, t Term) Term {
	a := s.b.Args(t)
	switch {
	case s.b.Op(a[1]) == OpTrue && s.b.Op(a[2]) == OpFalse:
		return a[0]
	case s.b.Op(a[1]) == OpFalse && s.b.Op(a[2]) == OpTrue:
		return s.raw(OpNot, 0, 0, a[0])
	}
	return NoTerm
}

func iteNot(s *Simplifier, t Term) Term {
	a := s.b.Args(t)
	if s.b.Op(a[0]) == OpNot {
		return s.raw(OpIte, 0, 0, s.b.Arg(a[0], 0), a[2], a[1])
	}
	return NoTerm
}

// applyMinMax writes a function of an operand pair's minimum and maximum
// f(ite(p <u q, p, q), ite(p <u q, q, p)) with the older term (smaller id)
// compared first: ite(q <u p, q, p) is the same minimum (equal operands
// give the same value either way), and likewise the maximum. SSE addition
// and multiplication under the model nan are such functions
// (x86/sem_fp.go): in one form, the source's a[i]*k and the target's
// k*a[i] are one term, which the solver otherwise matched only by case
// splits (clang's vectorized fscale: one memory query over 100 s in Z3,
// 1 s this way). Only there: a minimum or maximum of the program's own,
// rewritten, would no longer share its comparison with the branches that
// test it (clang's vectorized sum of the positive elements stopped
// proving).
func applyMinMax(s *Simplifier, t Term) Term {
	b := s.b
	a := b.Args(t)
	if len(a) != 2 || b.Op(a[0]) != OpIte || b.Op(a[1]) != OpIte {
		return NoTerm
	}
	c := b.Arg(a[0], 0)
	if b.Op(c) != OpUlt || b.Arg(a[1], 0) != c {
		return NoTerm
	}
	p, q := b.Arg(c, 0), b.Arg(c, 1)
	if p <= q || b.Arg(a[0], 1) != p || b.Arg(a[0], 2) != q || b.Arg(a[1], 1) != q || b.Arg(a[1], 2) != p {
		return NoTerm
	}
	c = s.mk(OpUlt, 0, 0, q, p)
	p0, p1 := b.Params(t)
	return s.raw(OpApply, p0, p1, s.mk(OpIte, 0, 0, c, q, p), s.mk(OpIte, 0, 0, c, p, q))
}

// iteAdd pulls the common addend out of a conditional increment:
// ite(c, x, x+y) → x + ite(c, 0, y) and ite(c, x+y, x) → x + ite(c, y, 0).
// A reduction with a branch in its body (s += a[i] when a[i] > 0) becomes a
// sum of guarded terms, which the solver's sum normalization lines up with
// the masked lanes of its vectorized form; as a chain of ites over partial
// sums it is an adder-equivalence problem that bit-blasting does not solve
// in minutes.
func iteAdd(s *Simplifier, t Term) Term {
	a := s.b.Args(t)
	c, x, y := a[0], a[1], a[2]
	if s.b.Sort(x).Kind != KindBV {
		return NoTerm
	}
	zero := s.constTerm(ZeroBV(s.b.Width(x)))
	if r, ok := s.otherAddend(y, x); ok {
		return s.raw(OpAdd, 0, 0, x, s.mk(OpIte, 0, 0, c, zero, r))
	}
	if r, ok := s.otherAddend(x, y); ok {
		return s.raw(OpAdd, 0, 0, y, s.mk(OpIte, 0, 0, c, r, zero))
	}
	return NoTerm
}

// otherAddend returns r when sum is x + r or r + x.
func (s *Simplifier) otherAddend(sum, x Term) (Term, bool) {
	if s.b.Op(sum) != OpAdd {
		return NoTerm, false
	}
	p, q := s.args2(sum)
	switch x {
	case p:
		return q, true
	case q:
		return p, true
	}
	return NoTerm, false
}

// andMask turns a bitwise and with an all-or-nothing mask (what pcmpgt and
// its kin compute per lane) into a choice: x & ite(c, ~0, 0) → ite(c, x, 0)
// and x & ite(c, 0, ~0) → ite(c, 0, x), with the mask on either side.
func andMask(s *Simplifier, t Term) Term {
	x, y := s.args2(t)
	for _, p := range [2][2]Term{{x, y}, {y, x}} {
		v, m := p[0], p[1]
		if s.b.Op(m) != OpIte {
			continue
		}
		c, m1, m2 := s.b.Arg(m, 0), s.b.Arg(m, 1), s.b.Arg(m, 2)
		zero := s.constTerm(ZeroBV(s.b.Width(t)))
		switch {
		case s.constIs(m1, BV.IsOnes) && s.constIs(m2, BV.IsZero):
			return s.raw(OpIte, 0, 0, c, v, zero)
		case s.constIs(m1, BV.IsZero) && s.constIs(m2, BV.IsOnes):
			return s.raw(OpIte, 0, 0, c, zero, v)
		}
	}
	return NoTerm
}

// bitwiseOfItes applies a bitwise op arm by arm to two choices on one
// condition. SSE2 has no blend: gcc selects lanes with a compare's mask
// m as (m & a) | (~m & b), which the lane rules turn into
// ite(c, a, 0) | ite(c, 0, b), and this into ite(c, a, b), the max or
// min the source computes with a branch.
func bitwiseOfItes(s *Simplifier, t Term) Term {
	x, y := s.args2(t)
	b := s.b
	if b.Op(x) != OpIte || b.Op(y) != OpIte || b.Arg(x, 0) != b.Arg(y, 0) {
		return NoTerm
	}
	op := b.Op(t)
	return s.raw(OpIte, 0, 0, b.Arg(x, 0), s.mk(op, 0, 0, b.Arg(x, 1), b.Arg(y, 1)), s.mk(op, 0, 0, b.Arg(x, 2), b.Arg(y, 2)))
}

func notOfConcat(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	if s.b.Op(x) != OpConcat {
		return NoTerm
	}
	hi, lo := s.args2(x)
	return s.raw(OpConcat, 0, 0, s.mk(OpBVNot, 0, 0, hi), s.mk(OpBVNot, 0, 0, lo))
}

func notOfConstIte(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	if s.b.Op(x) != OpIte || !s.isConstBV(s.b.Arg(x, 1)) || !s.isConstBV(s.b.Arg(x, 2)) {
		return NoTerm
	}
	return s.raw(OpIte, 0, 0, s.b.Arg(x, 0), s.mk(OpBVNot, 0, 0, s.b.Arg(x, 1)), s.mk(OpBVNot, 0, 0, s.b.Arg(x, 2)))
}

// Arithmetic and bitwise rules.

func subConst(s *Simplifier, t Term) Term {
	x, c := s.args2(t)
	if !s.isConstBV(c) {
		return NoTerm
	}
	return s.raw(OpAdd, 0, 0, x, s.constTerm(s.b.ConstValue(c).Neg()))
}

func zeroMinus(s *Simplifier, t Term) Term {
	x, y := s.args2(t)
	if !s.constIs(x, BV.IsZero) {
		return NoTerm
	}
	return s.raw(OpNeg, 0, 0, y)
}

func xorOnes(s *Simplifier, t Term) Term {
	x, c := s.args2(t)
	if !s.constIs(c, BV.IsOnes) {
		return NoTerm
	}
	return s.raw(OpBVNot, 0, 0, x)
}

func shiftOut(s *Simplifier, t Term) Term {
	_, y := s.args2(t)
	if !s.isConstBV(y) {
		return NoTerm
	}
	w := s.b.Width(t)
	// w < 2^w, so the w-bit constant w is exact at every width.
	if s.b.ConstValue(y).Ult(NewBV(w, uint64(w))) {
		return NoTerm
	}
	return returnZero(s, t)
}

func rotateByMultipleOfWidth(s *Simplifier, t Term) Term {
	x, y := s.args2(t)
	if !s.isConstBV(y) {
		return NoTerm
	}
	if c := s.b.ConstValue(y); c.rotateAmount(c) == 0 { // c mod w, as c has width w
		return x
	}
	return NoTerm
}

func rotateWidth1(s *Simplifier, t Term) Term {
	if s.b.Width(t) == 1 {
		return s.b.Arg(t, 0)
	}
	return NoTerm
}

func rotateUniform(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	if s.constIs(x, BV.IsZero) || s.constIs(x, BV.IsOnes) {
		return x
	}
	return NoTerm
}

// Concat, extract and extensions.

func concatAdjacentExtracts(s *Simplifier, t Term) Term {
	hi, lo := s.args2(t)
	b := s.b
	if b.Op(hi) != OpExtract || b.Op(lo) != OpExtract || b.Arg(hi, 0) != b.Arg(lo, 0) {
		return NoTerm
	}
	h1, l1 := b.Params(hi)
	h2, l2 := b.Params(lo)
	if l1 != h2+1 {
		return NoTerm
	}
	return s.raw(OpExtract, h1, l2, b.Arg(hi, 0))
}

// concatSplitExtract joins a value's high bits to a term its low bits
// simplify to: x[h:k] ++ y → x[h:0] when x[k−1:0] is y in normal form.
// With extractOfArith the low half of a product is a narrow product, so
// the halves pmulhw and pmullw give, (sext(a)·sext(b))[31:16] ++ a·b,
// are the 32-bit product again.
func concatSplitExtract(s *Simplifier, t Term) Term {
	hi, lo := s.args2(t)
	b := s.b
	if b.Op(hi) != OpExtract || b.Op(lo) == OpExtract {
		return NoTerm
	}
	h, k := b.Params(hi)
	if k == 0 || k != b.Width(lo) {
		return NoTerm
	}
	x := b.Arg(hi, 0)
	if s.mk(OpExtract, k-1, 0, x) != lo {
		return NoTerm
	}
	return s.raw(OpExtract, h, 0, x)
}

func concatAdjacentSelects(s *Simplifier, t Term) Term {
	hi, lo := s.args2(t)
	b := s.b
	if b.Op(hi) != OpSelect || b.Op(lo) != OpSelect || b.Arg(hi, 0) != b.Arg(lo, 0) {
		return NoTerm
	}
	nh, _ := b.Params(hi)
	nl, _ := b.Params(lo)
	d, ok := s.addrDelta(b.Arg(lo, 1), b.Arg(hi, 1))
	if !ok || d != uint64(nl) {
		return NoTerm
	}
	return s.raw(OpSelect, nl+nh, 0, b.Arg(lo, 0), b.Arg(lo, 1))
}

// zeroExtPair returns x and y when t's arguments are zext(x, k) and
// zext(y, k) for one k.
func (s *Simplifier) zeroExtPair(t Term) (x, y Term, k uint32, ok bool) {
	a, c := s.args2(t)
	b := s.b
	if b.Op(a) != OpZeroExt || b.Op(c) != OpZeroExt {
		return NoTerm, NoTerm, 0, false
	}
	x, y = b.Arg(a, 0), b.Arg(c, 0)
	if b.Width(x) != b.Width(y) {
		return NoTerm, NoTerm, 0, false
	}
	k, _ = b.Params(a)
	return x, y, k, true
}

// uremZeroExts narrows a remainder of zero-extended operands, as x86's
// div of edx:eax with edx cleared computes a 32-bit one in 64 bits: the
// solver then meets the source's own 32-bit remainder instead of a 64-bit
// one it must bit-blast to compare. Exact for y = 0 too (both give x).
func uremZeroExts(s *Simplifier, t Term) Term {
	x, y, k, ok := s.zeroExtPair(t)
	if !ok {
		return NoTerm
	}
	return s.mk(OpZeroExt, k, 0, s.mk(OpURem, 0, 0, x, y))
}

// udivZeroExts is uremZeroExts for the quotient; division by zero gives
// all ones at either width, so that case stays apart.
func udivZeroExts(s *Simplifier, t Term) Term {
	x, y, k, ok := s.zeroExtPair(t)
	if !ok {
		return NoTerm
	}
	b := s.b
	zero := s.mk(OpEq, 0, 0, y, s.constTerm(NewBV(b.Width(y), 0)))
	return s.mk(OpIte, 0, 0, zero, s.constTerm(OnesBV(b.Width(t))), s.mk(OpZeroExt, k, 0, s.mk(OpUDiv, 0, 0, x, y)))
}

func concatZeroHigh(s *Simplifier, t Term) Term {
	hi, lo := s.args2(t)
	if !s.constIs(hi, BV.IsZero) {
		return NoTerm
	}
	return s.raw(OpZeroExt, s.b.Width(hi), 0, lo)
}

func extractWhole(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	if hi, lo := s.b.Params(t); lo == 0 && hi == s.b.Width(x)-1 {
		return x
	}
	return NoTerm
}

func extractOfExtract(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	if s.b.Op(x) != OpExtract {
		return NoTerm
	}
	hi, lo := s.b.Params(t)
	_, l := s.b.Params(x)
	return s.raw(OpExtract, hi+l, lo+l, s.b.Arg(x, 0))
}

func extractOfConcat(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	if s.b.Op(x) != OpConcat {
		return NoTerm
	}
	hiPart, loPart := s.args2(x)
	hi, lo := s.b.Params(t)
	wl := s.b.Width(loPart)
	switch {
	case hi < wl:
		return s.raw(OpExtract, hi, lo, loPart)
	case lo >= wl:
		return s.raw(OpExtract, hi-wl, lo-wl, hiPart)
	}
	// Across the seam: the concat of the two parts' pieces, so that what
	// reads it (an extract of a bitwise op, a narrower extract) sees the
	// parts. A sub-register write followed by a wider read makes these.
	return s.raw(OpConcat, 0, 0, s.mk(OpExtract, hi-wl, 0, hiPart), s.mk(OpExtract, wl-1, lo, loPart))
}

// extractOfBitwise distributes an extract over and, or and xor when one
// side is a concat or a constant (or such an op with one), so a lane of a vector operation becomes
// the operation on the lanes (the other rules then narrow each side).
func extractOfBitwise(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	op := s.b.Op(x)
	if op != OpBVAnd && op != OpBVOr && op != OpBVXor {
		return NoTerm
	}
	p, q := s.args2(x)
	// A side narrows when it is a concat or a constant, or a bitwise op
	// with such a side (nested masks of a sub-register write).
	var narrows func(u Term, depth int) bool
	narrows = func(u Term, depth int) bool {
		switch o := s.b.Op(u); {
		case o == OpConcat || o == OpConst:
			return true
		case (o == OpBVAnd || o == OpBVOr || o == OpBVXor) && depth < 4 && len(s.b.Args(u)) == 2:
			return narrows(s.b.Arg(u, 0), depth+1) || narrows(s.b.Arg(u, 1), depth+1)
		}
		return false
	}
	if !narrows(p, 0) && !narrows(q, 0) {
		return NoTerm
	}
	hi, lo := s.b.Params(t)
	return s.raw(op, 0, 0, s.mk(OpExtract, hi, lo, p), s.mk(OpExtract, hi, lo, q))
}

func extractOfZeroExt(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	if s.b.Op(x) != OpZeroExt {
		return NoTerm
	}
	inner := s.b.Arg(x, 0)
	hi, lo := s.b.Params(t)
	w := s.b.Width(inner)
	switch {
	case hi < w:
		return s.raw(OpExtract, hi, lo, inner)
	case lo >= w:
		return returnZero(s, t)
	case lo == 0:
		// x's bits and some of the zeros: a narrower extension, so the
		// low half of a widened product, (zext(a)·zext(b))[63:0], and
		// the product of a's 64-bit extension are one term.
		return s.raw(OpZeroExt, hi+1-w, 0, inner)
	}
	return NoTerm
}

func extractOfSignExt(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	if s.b.Op(x) != OpSignExt {
		return NoTerm
	}
	inner := s.b.Arg(x, 0)
	hi, lo := s.b.Params(t)
	if w := s.b.Width(inner); hi < w {
		return s.raw(OpExtract, hi, lo, inner)
	} else if lo == 0 {
		return s.raw(OpSignExt, hi+1-w, 0, inner)
	}
	return NoTerm
}

// extractOfArith narrows an addition, subtraction or multiplication to
// the low bits extracted from it: bits h..0 of x op y depend on bits h..0
// of x and y only. It applies when both operands narrow to terms no wider
// than they are (constants, extracts, extensions), so that the 32-bit
// product gcc -O0 computes as the low half of imul's 64-bit one,
// (sext(a)·sext(b))[31:0], and the one -O3 builds from pmullw and pmulhw
// become the same term, and the solver bit-blasts one narrow multiplier
// instead of proving two wide ones equal.
func extractOfArith(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	op := s.b.Op(x)
	if op != OpAdd && op != OpSub && op != OpMul {
		return NoTerm
	}
	hi, lo := s.b.Params(t)
	if lo != 0 {
		return NoTerm
	}
	p, q := s.args2(x)
	narrows := func(u Term) bool {
		switch s.b.Op(u) {
		case OpConst, OpExtract, OpZeroExt, OpSignExt:
			return true
		}
		return false
	}
	if !narrows(p) || !narrows(q) {
		return NoTerm
	}
	return s.raw(op, 0, 0, s.mk(OpExtract, hi, 0, p), s.mk(OpExtract, hi, 0, q))
}

// extractOfSelect narrows a read to the bytes extracted from it: little-
// endian, bits [8k, 8k+8j) of a read at a are the j bytes at a+k (mod 2^64,
// which is how both the read and the address arithmetic wrap).
func extractOfSelect(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	if s.b.Op(x) != OpSelect {
		return NoTerm
	}
	hi, lo := s.b.Params(t)
	if lo%8 != 0 || (hi+1)%8 != 0 {
		return NoTerm
	}
	m, a := s.args2(x)
	return s.raw(OpSelect, (hi+1-lo)/8, 0, m, s.addrPlus(a, uint64(lo/8)))
}

func extOfSameExt(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	if s.b.Op(x) != s.b.Op(t) {
		return NoTerm
	}
	n2, _ := s.b.Params(t)
	n1, _ := s.b.Params(x)
	return s.raw(s.b.Op(t), n1+n2, 0, s.b.Arg(x, 0))
}

func extByZero(s *Simplifier, t Term) Term {
	if n, _ := s.b.Params(t); n == 0 {
		return s.b.Arg(t, 0)
	}
	return NoTerm
}

// signExtOfClear is sext(x) → zext(x) when x is below 2^(w−1) for every
// value of its variables (valueBits), so that its sign bit is 0. A square
// of a 16-bit element, sext(a)·sext(a) over 32 bits, is at most 2^30:
// the source widens it to long with movslq, the target's vector code
// (pmaddwd, then interleaving with zeros) with zeros, and the two sums
// are one term only when both extensions are.
func signExtOfClear(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	w := s.b.Width(x)
	if valueBits(s.b, x, valueBitsDepth) >= w {
		return NoTerm
	}
	n, _ := s.b.Params(t)
	return s.raw(OpZeroExt, n, 0, x)
}

// valueBitsDepth bounds valueBits' recursion: the facts it finds are
// near the top of a term, and terms may be deep chains.
const valueBitsDepth = 6

// valueBits returns k ≤ w (x's width) such that x < 2^k, read unsigned,
// for every value of x's variables: w when nothing smaller is known.
func valueBits(b *Builder, x Term, depth int) uint32 {
	w := b.Width(x)
	if depth == 0 {
		return w
	}
	sub := func(y Term) uint32 { return valueBits(b, y, depth-1) }
	switch b.Op(x) {
	case OpConst:
		return uint32(b.ConstValue(x).Big().BitLen())
	case OpZeroExt:
		return sub(b.Arg(x, 0))
	case OpExtract:
		if hi, lo := b.Params(x); lo == 0 {
			return min(hi+1, sub(b.Arg(x, 0)))
		}
	case OpBVAnd:
		return min(sub(b.Arg(x, 0)), sub(b.Arg(x, 1)))
	case OpLShr:
		if c := b.Arg(x, 1); b.Op(c) == OpConst {
			k := b.ConstValue(c).Big()
			if !k.IsUint64() || k.Uint64() >= uint64(w) {
				return 0
			}
			v := sub(b.Arg(x, 0))
			return v - min(uint32(k.Uint64()), v)
		}
	case OpIte:
		return max(sub(b.Arg(x, 1)), sub(b.Arg(x, 2)))
	case OpMul:
		y, z := b.Arg(x, 0), b.Arg(x, 1)
		if y == z && b.Op(y) == OpSignExt {
			// A square of an n-bit signed value is at most 2^(2n−2).
			if n := b.Width(b.Arg(y, 0)); 2*n-1 <= w {
				return 2*n - 1
			}
		}
		if k := sub(y) + sub(z); k <= w {
			return k
		}
	}
	return w
}

func signExtOfZeroExt(s *Simplifier, t Term) Term {
	x := s.b.Arg(t, 0)
	if s.b.Op(x) != OpZeroExt {
		return NoTerm
	}
	n2, _ := s.b.Params(t)
	n1, _ := s.b.Params(x)
	if n1 == 0 { // no zero on top: the sign is x's own
		return NoTerm
	}
	return s.raw(OpZeroExt, n1+n2, 0, s.b.Arg(x, 0))
}

// Memory rules.

// addrParts splits an address into a base term and a constant offset:
// c → (NoTerm, c); x + c → (x, c); anything else x → (x, 0). Addresses in
// normal form have at most one constant summand, on the right, because
// x − c becomes x + (−c) and (x + c1) + c2 becomes x + (c1 + c2).
func (s *Simplifier) addrParts(a Term) (Term, uint64) {
	switch s.b.Op(a) {
	case OpConst:
		return NoTerm, s.b.ConstValue(a).Uint64()
	case OpAdd:
		if x, c := s.args2(a); s.isConstBV(c) {
			return x, s.b.ConstValue(c).Uint64()
		}
	}
	return a, 0
}

// addrDelta returns to − from mod 2^64 when both addresses are the same
// base plus constants (or both constants), so the difference is known.
func (s *Simplifier) addrDelta(from, to Term) (uint64, bool) {
	fb, fo := s.addrParts(from)
	tb, to2 := s.addrParts(to)
	if fb != tb {
		return 0, false
	}
	return to2 - fo, true
}

// addrPlus returns the normal form of a + k.
func (s *Simplifier) addrPlus(a Term, k uint64) Term {
	if k == 0 {
		return a
	}
	return s.mk(OpAdd, 0, 0, a, s.b.Const(AddrWidth, k))
}

// overlap classifies a read of n2 bytes at a2 against a write of n bytes
// at a.
type overlap uint8

const (
	overlapUnknown  overlap = iota // addresses not comparable
	overlapSame                    // the same range
	overlapWithin                  // read inside the write (not the same)
	overlapDisjoint                // no byte in common
	overlapPartial                 // some bytes in common, some not
)

// classify computes the overlap and d = a2 − a mod 2^64. Ranges are taken
// modulo 2^64: a write at 2^64−1 of 2 bytes covers 2^64−1 and 0. Byte i of
// the read lies at offset (d + i) mod 2^64 from a, inside the write iff that
// offset is below n. Sizes are below 2^32, so offsets from d up to d+n2
// cross 2^64 at most once.
func classify(d uint64, n, n2 uint32) overlap {
	w, r := uint64(n), uint64(n2)
	if d < w { // the read starts inside the write
		switch {
		case d == 0 && r == w:
			return overlapSame
		case d+r <= w:
			return overlapWithin
		}
		return overlapPartial
	}
	// The read starts after the write; it reaches the write again only by
	// wrapping past 2^64, after −d bytes (d ≥ w ≥ 1, so −d ≥ 1).
	if r <= -d {
		return overlapDisjoint
	}
	return overlapPartial
}

// selectIte reads through a choice of memories, the shape a branch that
// stores on each side leaves behind, so that each read can then meet the
// store it reads. Memoization keeps the result linear in the DAG: a memory
// shared by several branches is read once.
func selectIte(s *Simplifier, t Term) Term {
	b := s.b
	m, a := s.args2(t)
	if b.Op(m) != OpIte {
		return NoTerm
	}
	n, _ := b.Params(t)
	c, m1, m2 := b.Arg(m, 0), b.Arg(m, 1), b.Arg(m, 2)
	return s.mk(OpIte, 0, 0, c, s.mk(OpSelect, n, 0, m1, a), s.mk(OpSelect, n, 0, m2, a))
}

func selectStore(want overlap) func(*Simplifier, Term) Term {
	return func(s *Simplifier, t Term) Term {
		b := s.b
		st, a2 := s.args2(t)
		if b.Op(st) != OpStore {
			return NoTerm
		}
		n2, _ := b.Params(t)
		n, _ := b.Params(st)
		sa := b.Args(st)
		m, a, v := sa[0], sa[1], sa[2]
		d, ok := s.addrDelta(a, a2)
		if !ok || classify(d, n, n2) != want {
			return NoTerm
		}
		switch want {
		case overlapSame:
			return v
		case overlapWithin:
			return s.raw(OpExtract, uint32(8*(d+uint64(n2))-1), uint32(8*d), v)
		case overlapDisjoint:
			return s.raw(OpSelect, n2, 0, m, a2)
		}
		return s.splitRead(m, a2, n2, v, n, d)
	}
}

// splitRead is a read of n2 bytes at a2 that partially overlaps a write of
// the n bytes of v at a2 − d over memory m: the concatenation of the bytes
// taken from v and the reads of m around them, in at most three runs.
func (s *Simplifier) splitRead(m, a2 Term, n2 uint32, v Term, n uint32, d uint64) Term {
	var pieces []Term                      // from the least significant (lowest address) up
	vBytes := func(from, to uint64) Term { // bytes [from, to) of v
		return s.mk(OpExtract, uint32(8*to-1), uint32(8*from), v)
	}
	memBytes := func(off, count uint64) Term { // count bytes of m at a2+off
		return s.mk(OpSelect, uint32(count), 0, m, s.addrPlus(a2, off))
	}
	r, w := uint64(n2), uint64(n)
	if d < w {
		l := w - d // the read's first l bytes are v's bytes d..n-1
		pieces = append(pieces, vBytes(d, w), memBytes(l, r-l))
	} else {
		k := -d // the read's first k bytes precede the write
		pieces = append(pieces, memBytes(0, k))
		inV := min(w, r-k)
		pieces = append(pieces, vBytes(0, inV))
		if rest := r - k - inV; rest > 0 {
			pieces = append(pieces, memBytes(k+inV, rest))
		}
	}
	out := pieces[len(pieces)-1]
	for i := len(pieces) - 2; i >= 0; i-- {
		out = s.mk(OpConcat, 0, 0, out, pieces[i])
	}
	return out
}

func storeCover(s *Simplifier, t Term) Term {
	b := s.b
	args := b.Args(t)
	inner, a2, v2 := args[0], args[1], args[2]
	if b.Op(inner) != OpStore {
		return NoTerm
	}
	n2, _ := b.Params(t)
	n, _ := b.Params(inner)
	d, ok := s.addrDelta(a2, b.Arg(inner, 1)) // inner address − outer address
	if !ok || d >= uint64(n2) || uint64(n) > uint64(n2)-d {
		return NoTerm
	}
	return s.raw(OpStore, n2, 0, b.Arg(inner, 0), a2, v2)
}

func storeWriteBack(s *Simplifier, t Term) Term {
	b := s.b
	args := b.Args(t)
	m, a, v := args[0], args[1], args[2]
	n, _ := b.Params(t)
	if b.Op(v) != OpSelect || b.Arg(v, 0) != m || b.Arg(v, 1) != a {
		return NoTerm
	}
	if nv, _ := b.Params(v); nv != n {
		return NoTerm
	}
	return m
}
