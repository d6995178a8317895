// Package irtest generates random well-typed terms and random environments
// for testing code built on package ir: the simplifier against the
// evaluator, the SMT printer against a solver, and so on.
//
// Everything is deterministic from the *rand.Rand (math/rand/v2) passed in.
// Terms are drawn over a fixed small vocabulary so that random terms share
// variables and collide often, which is what makes rules fire:
//
//   - bit-vector variables "x<w>", "y<w>", "z<w>" of each width w used;
//   - boolean variables "p", "q", "r";
//   - memories "m0", "m1";
//   - 64-bit address bases are the 64-bit variables "x64", "y64", "z64";
//   - uninterpreted functions "f<w>" : (_ BitVec w) → (_ BitVec w),
//     "g<w>" : (_ BitVec w) × Bool → Bool and "ld<n>" : Mem × (_ BitVec 64)
//     → (_ BitVec 8n) (a call that reads memory).
//
// Memory addresses are chosen to be near each other — small constants,
// constants near 2^64 (so ranges wrap), and base + small offsets with the
// same few bases — so that selects through stores hit the same-address,
// disjoint, overlapping and wraparound cases. RandomEnv picks variable values
// that alias on purpose: 64-bit values cluster near 0, near 2^64 and near
// 0x1000, so distinct bases often point at overlapping bytes.
package irtest

import (
	"fmt"
	"hash/fnv"
	"math/big"
	"math/rand/v2"

	"eqc/ir"
)

// Widths are the bit-vector widths the generator prefers, small first: the
// simplifier's corner cases (width 1, odd widths) live there, and wide ones
// exercise the big.Int paths.
var Widths = []uint32{1, 2, 3, 4, 8, 8, 16, 16, 32, 64, 64, 128}

// RandomTerm returns a random term of sort s with nesting at most depth
// (a leaf at depth 0). Any bit-vector width is accepted; memory and boolean
// sorts too.
func RandomTerm(rng *rand.Rand, b *ir.Builder, s ir.Sort, depth int) ir.Term {
	g := &gen{rng: rng, b: b}
	return g.term(s, depth)
}

// RandomSort returns a random sort: mostly bit-vectors of the preferred
// widths, sometimes booleans or memories.
func RandomSort(rng *rand.Rand) ir.Sort {
	switch k := rng.IntN(10); {
	case k < 2:
		return ir.BoolSort
	case k < 3:
		return ir.MemSort
	}
	return ir.BVSort(Widths[rng.IntN(len(Widths))])
}

type gen struct {
	rng *rand.Rand
	b   *ir.Builder
}

func (g *gen) width() uint32 { return Widths[g.rng.IntN(len(Widths))] }

func (g *gen) term(s ir.Sort, depth int) ir.Term {
	if depth <= 0 || g.rng.IntN(8) == 0 {
		return g.leaf(s)
	}
	switch s.Kind {
	case ir.KindBool:
		return g.boolTerm(depth)
	case ir.KindMem:
		return g.memTerm(depth)
	}
	return g.bvTerm(s.Width, depth)
}

func (g *gen) leaf(s ir.Sort) ir.Term {
	b := g.b
	switch s.Kind {
	case ir.KindBool:
		switch g.rng.IntN(5) {
		case 0:
			return b.True()
		case 1:
			return b.False()
		}
		return b.Var([]string{"p", "q", "r"}[g.rng.IntN(3)], ir.BoolSort)
	case ir.KindMem:
		return b.Var([]string{"m0", "m1"}[g.rng.IntN(2)], ir.MemSort)
	}
	if g.rng.IntN(3) == 0 {
		return b.ConstBV(RandomBV(g.rng, s.Width))
	}
	return g.bvVar(s.Width)
}

func (g *gen) bvVar(w uint32) ir.Term {
	return g.b.Var(fmt.Sprintf("%s%d", []string{"x", "y", "z"}[g.rng.IntN(3)], w), ir.BVSort(w))
}

var boolBinOps = []ir.Op{ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpImplies}
var cmpOps = []ir.Op{ir.OpUlt, ir.OpUle, ir.OpSlt, ir.OpSle}

func (g *gen) boolTerm(depth int) ir.Term {
	b, d := g.b, depth-1
	switch g.rng.IntN(7) {
	case 0:
		return b.Not(g.term(ir.BoolSort, d))
	case 1:
		x, y := g.term(ir.BoolSort, d), g.term(ir.BoolSort, d)
		if g.rng.IntN(4) == 0 {
			y = b.Not(x) // x op ¬x
		}
		return g.mk(boolBinOps[g.rng.IntN(len(boolBinOps))], 0, 0, x, y)
	case 2:
		s := RandomSort(g.rng)
		x := g.term(s, d)
		if g.rng.IntN(3) == 0 {
			return b.Eq(x, x) // equal operands on purpose
		}
		return b.Eq(x, g.term(s, d))
	case 3:
		return b.Ite(g.term(ir.BoolSort, d), g.term(ir.BoolSort, d), g.term(ir.BoolSort, d))
	case 4, 5:
		w := g.width()
		return g.mk(cmpOps[g.rng.IntN(len(cmpOps))], 0, 0, g.term(ir.BVSort(w), d), g.term(ir.BVSort(w), d))
	}
	w := g.width()
	f := b.DeclareFunc(fmt.Sprintf("g%d", w), []ir.Sort{ir.BVSort(w), ir.BoolSort}, ir.BoolSort)
	return b.Apply(f, g.term(ir.BVSort(w), d), g.term(ir.BoolSort, d))
}

var bvBinOps = []ir.Op{
	ir.OpAdd, ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpUDiv, ir.OpSDiv, ir.OpURem, ir.OpSRem,
	ir.OpBVAnd, ir.OpBVOr, ir.OpBVXor, ir.OpShl, ir.OpLShr, ir.OpAShr, ir.OpRotl, ir.OpRotr,
}

func (g *gen) bvTerm(w uint32, depth int) ir.Term {
	b, d := g.b, depth-1
	sw := ir.BVSort(w)
	switch g.rng.IntN(16) {
	case 0, 1, 2, 3:
		x := g.term(sw, d)
		var y ir.Term
		switch g.rng.IntN(6) {
		case 0:
			y = x // x op x, for the x-x, x^x, … rules
		case 1:
			y = b.BVNot(x) // x op ~x
		case 2:
			// (x op c1) op c2, for reassociation of constants.
			op := []ir.Op{ir.OpAdd, ir.OpMul, ir.OpBVAnd, ir.OpBVOr, ir.OpBVXor}[g.rng.IntN(5)]
			inner := g.mk(op, 0, 0, x, b.ConstBV(RandomBV(g.rng, w)))
			return g.mk(op, 0, 0, inner, b.ConstBV(RandomBV(g.rng, w)))
		case 3:
			y = b.ConstBV(RandomBV(g.rng, w))
		default:
			y = g.term(sw, d)
		}
		return g.mk(bvBinOps[g.rng.IntN(len(bvBinOps))], 0, 0, x, y)
	case 4:
		if g.rng.IntN(2) == 0 {
			return b.Neg(g.term(sw, d))
		}
		return b.BVNot(g.term(sw, d))
	case 5:
		return b.Ite(g.term(ir.BoolSort, d), g.term(sw, d), g.term(sw, d))
	case 6, 7:
		// An extract from a wider term, often a concat or extension so
		// that the extract-of-X rules meet their patterns.
		extra := []uint32{0, 1, 3, 8, 32, w}[g.rng.IntN(6)]
		lo := uint32(0)
		if extra > 0 {
			lo = g.rng.Uint32N(extra + 1)
		}
		return b.Extract(g.term(ir.BVSort(w+extra), d), lo+w-1, lo)
	case 8, 9:
		if w < 2 {
			return g.bvVar(w)
		}
		lw := 1 + g.rng.Uint32N(w-1)
		if w%8 == 0 && g.rng.IntN(2) == 0 {
			lw = 8 * (1 + g.rng.Uint32N(w/8)) % w
			if lw == 0 {
				lw = w / 2
			}
		}
		hi := g.term(ir.BVSort(w-lw), d)
		lo := g.term(ir.BVSort(lw), d)
		if g.rng.IntN(4) == 0 { // adjacent extracts of one term
			x := g.term(sw, d)
			hi, lo = b.Extract(x, w-1, lw), b.Extract(x, lw-1, 0)
		}
		return b.Concat(hi, lo)
	case 10:
		if w < 2 {
			return g.bvVar(w)
		}
		n := 1 + g.rng.Uint32N(min(w-1, 16))
		x := g.term(ir.BVSort(w-n), d)
		if g.rng.IntN(2) == 0 {
			return b.ZeroExt(x, n)
		}
		return b.SignExt(x, n)
	case 11, 12, 13:
		if w%8 != 0 || w > 128 {
			return g.bvTerm(w, depth)
		}
		return g.selectTerm(w/8, d)
	case 14:
		f := b.DeclareFunc(fmt.Sprintf("f%d", w), []ir.Sort{sw}, sw)
		return b.Apply(f, g.term(sw, d))
	}
	if w%8 == 0 && w <= 64 {
		f := b.DeclareFunc(fmt.Sprintf("ld%d", w/8), []ir.Sort{ir.MemSort, ir.BVSort(64)}, sw)
		return b.Apply(f, g.term(ir.MemSort, d), g.addr(d))
	}
	return g.leaf(sw)
}

func (g *gen) selectTerm(n uint32, d int) ir.Term {
	return g.b.Select(g.term(ir.MemSort, d), g.addr(d), n)
}

func (g *gen) memTerm(depth int) ir.Term {
	b, d := g.b, depth-1
	switch g.rng.IntN(7) {
	case 0:
		return b.Ite(g.term(ir.BoolSort, d), g.term(ir.MemSort, d), g.term(ir.MemSort, d))
	case 1:
		// Two stores to one address: the store-cover rule's pattern.
		n := g.size()
		a := g.addr(d)
		inner := b.Store(g.term(ir.MemSort, d), a, n, g.term(ir.BVSort(8*n), d))
		return b.Store(inner, a, n, g.term(ir.BVSort(8*n), d))
	case 2:
		// Writing back what a memory holds: the write-back rule's pattern.
		n := g.size()
		m, a := g.term(ir.MemSort, d), g.addr(d)
		return b.Store(m, a, n, b.Select(m, a, n))
	}
	n := g.size()
	return b.Store(g.term(ir.MemSort, d), g.addr(d), n, g.term(ir.BVSort(8*n), d))
}

// size is a byte count of a memory access: the x86 sizes and some odd ones.
func (g *gen) size() uint32 {
	return []uint32{1, 1, 2, 3, 4, 4, 8, 8, 16}[g.rng.IntN(9)]
}

// addr returns a 64-bit address near the few places the generator reads
// and writes, so accesses overlap often.
func (g *gen) addr(depth int) ir.Term {
	b := g.b
	near := func() uint64 { return uint64(g.rng.IntN(24)) }
	switch g.rng.IntN(9) {
	case 0:
		return b.Const(64, near())
	case 1:
		return b.Const(64, -near()) // just below 2^64: ranges wrap to 0
	case 2, 3, 4:
		return b.Add(g.bvVar(64), b.Const(64, near()))
	case 5:
		return b.Sub(g.bvVar(64), b.Const(64, near()))
	case 6:
		return b.Add(g.bvVar(64), b.Const(64, -near()))
	case 7:
		return g.bvVar(64)
	}
	return g.term(ir.BVSort(64), depth)
}

func (g *gen) mk(op ir.Op, p0, p1 uint32, args ...ir.Term) ir.Term {
	t, err := g.b.Make(op, args, p0, p1)
	if err != nil {
		panic(err)
	}
	return t
}

// RandomBV returns a w-bit vector biased toward the values where
// arithmetic has corners: 0, 1, all ones, the signed extremes, small
// numbers and single bits; otherwise uniform.
func RandomBV(rng *rand.Rand, w uint32) ir.BV {
	one := big.NewInt(1)
	pow := func(k uint32) *big.Int { return new(big.Int).Lsh(one, uint(k)) }
	switch rng.IntN(10) {
	case 0:
		return ir.ZeroBV(w)
	case 1:
		return ir.NewBV(w, 1)
	case 2:
		return ir.OnesBV(w)
	case 3: // signed minimum
		return ir.NewBVBig(w, pow(w-1))
	case 4: // signed maximum
		return ir.NewBVBig(w, new(big.Int).Sub(pow(w-1), one))
	case 5: // small, either sign
		return ir.NewBVBig(w, big.NewInt(int64(rng.IntN(17))-8))
	case 6: // one bit
		return ir.NewBVBig(w, pow(rng.Uint32N(w)))
	}
	z := new(big.Int)
	for i := uint32(0); i < w; i += 64 {
		z.Lsh(z, 64).Or(z, new(big.Int).SetUint64(rng.Uint64()))
	}
	return ir.NewBVBig(w, z)
}

// RandomValue returns a random value of sort s. Memories hold a random
// default byte and random bytes around the addresses the generator favours.
func RandomValue(rng *rand.Rand, s ir.Sort) ir.Value {
	switch s.Kind {
	case ir.KindBool:
		return ir.BoolValue(rng.IntN(2) == 0)
	case ir.KindMem:
		return ir.MemValue(randomMem(rng))
	}
	return ir.BVValue(RandomBV(rng, s.Width))
}

// hotAddrs are the centres of the address clusters.
var hotAddrs = []uint64{0, 0x1000}

func randomMem(rng *rand.Rand) *ir.Mem {
	m := ir.NewMem(byte(rng.Uint32()))
	for _, c := range hotAddrs {
		buf := make([]byte, 128)
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
		m = m.With(c-64, buf) // wraps below 0 for the cluster at 0
	}
	return m
}

// randomAddrValue returns a 64-bit value for a variable that may serve as
// an address base: usually inside a cluster, so different bases alias.
func randomAddrValue(rng *rand.Rand) ir.BV {
	if rng.IntN(4) == 0 {
		return RandomBV(rng, 64)
	}
	c := hotAddrs[rng.IntN(len(hotAddrs))]
	return ir.NewBV(64, c+uint64(rng.IntN(48))-24)
}

// RandomEnv returns an assignment of every free constant and uninterpreted
// function reachable from roots. Variables get values from RandomValue
// (64-bit ones clustered as addresses); each function is a fixed
// pseudo-random function of its arguments' values (hashed with a seed drawn
// from rng), so equal arguments always give equal results, as an
// uninterpreted function must.
func RandomEnv(rng *rand.Rand, b *ir.Builder, roots ...ir.Term) *ir.MapEnv {
	env := &ir.MapEnv{Vars: make(map[ir.Term]ir.Value), Funcs: make(map[string]func([]ir.Value) ir.Value)}
	seed := rng.Uint64()
	for _, t := range b.PostOrder(roots...) {
		switch b.Op(t) {
		case ir.OpVar:
			s := b.Sort(t)
			if s == ir.BVSort(64) {
				env.Vars[t] = ir.BVValue(randomAddrValue(rng))
			} else {
				env.Vars[t] = RandomValue(rng, s)
			}
		case ir.OpApply:
			f := b.FuncOf(t)
			if _, ok := env.Funcs[f.Name]; !ok {
				env.Funcs[f.Name] = hashFunc(seed, f)
			}
		}
	}
	return env
}

// hashFunc is a deterministic function of f's argument values.
func hashFunc(seed uint64, f *ir.Func) func([]ir.Value) ir.Value {
	return func(args []ir.Value) ir.Value {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d %s", seed, f.Name)
		for _, a := range args {
			// Value.String is canonical: equal values print equally
			// (memories list their non-default bytes in address order).
			fmt.Fprintf(h, " %s", a.String())
		}
		x := h.Sum64()
		return RandomValue(rand.New(rand.NewPCG(x, x^0x9e3779b97f4a7c15)), f.Result)
	}
}
