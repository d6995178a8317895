package ub

import (
	"math/rand"
	"testing"

	"eqc/ir"
)

// TestPassFrameStores: a later block's premise reads the byte at a
// through the frame's spills; the first block's unconditional hypothesis
// puts a outside the frame, so the read passes the spills, and the
// conjunction of the hypotheses means what it meant (checked by the
// evaluator on random states, a inside the frame among them). A read
// that no unconditional conjunct places outside the frame stays.
func TestPassFrameStores(t *testing.T) {
	b := ir.NewBuilder()
	simp := ir.NewSimplifier(b)
	rsp := b.Var("src.rsp", ir.BVSort(64))
	a := b.Var("a", ir.BVSort(64))
	p := b.Var("p", ir.BVSort(64))
	m := b.Var("mem", ir.MemSort)
	lo := simp.Simplify(b.Sub(rsp, b.Const(64, StackLimit)))
	spilled := b.Store(b.Store(m, b.Add(rsp, b.Const(64, 0xfffffffffffffff0)), 8, a), b.Add(rsp, b.Const(64, 0xffffffffffffffe8)), 8, p)
	nonzero := func(addr ir.Term) ir.Term { return b.Not(b.Eq(b.Select(spilled, addr, 1), b.Const(8, 0))) }
	first := simp.Simplify(MissesFrame(b, a, 1, lo))
	later := simp.Simplify(b.Implies(nonzero(a), MissesFrame(b, p, 1, lo)))
	unknown := simp.Simplify(b.Implies(nonzero(p), MissesFrame(b, a, 4, lo)))
	hyps := []ir.Term{first, later, unknown}
	out := PassFrameStores(b, simp, hyps, rsp)
	if out[0] != first {
		t.Errorf("the unconditional hypothesis changed: %s", b.Short(out[0]))
	}
	if want := simp.Simplify(b.Implies(b.Not(b.Eq(b.Select(m, a, 1), b.Const(8, 0))), MissesFrame(b, p, 1, lo))); out[1] != want {
		t.Errorf("the read at a stays behind the spills: %s", b.Short(out[1]))
	}
	if out[2] != unknown {
		t.Errorf("the read at p, which nothing places outside the frame, changed: %s", b.Short(out[2]))
	}
	rng := rand.New(rand.NewSource(1))
	for k := 0; k < 2000; k++ {
		r := uint64(0x7ff0_0000_0000) - uint64(rng.Intn(1<<16))*16 + 8
		env := &testEnv{vars: map[string]ir.Value{
			"src.rsp": bv(r),
			"a":       bv(pick(rng, r)),
			"p":       bv(pick(rng, r)),
		}}
		mem := ir.NewMem(byte(rng.Intn(2)))
		for i := 0; i < 8; i++ {
			mem = mem.With(env.vars["a"].BV().Uint64()+uint64(rng.Intn(3))-1, []byte{byte(rng.Intn(2))})
			mem = mem.With(env.vars["p"].BV().Uint64()+uint64(rng.Intn(3))-1, []byte{byte(rng.Intn(2))})
		}
		env.vars["mem"] = ir.MemValue(mem)
		before, after := evalBool(t, b, env, b.And(hyps...)), evalBool(t, b, env, b.And(out...))
		if before != after {
			t.Fatalf("state %d (rsp %#x a %#x p %#x): hypotheses %v before the rewrite, %v after", k, r, env.vars["a"].BV().Uint64(), env.vars["p"].BV().Uint64(), before, after)
		}
	}
}

// pick is an address in the frame's spills, near them, or far away.
func pick(rng *rand.Rand, rsp uint64) uint64 {
	switch rng.Intn(3) {
	case 0:
		return rsp - 0x18 + uint64(rng.Intn(16))
	case 1:
		return rsp - StackLimit - 8 + uint64(rng.Intn(24))
	}
	return 0x6000_0000_0000 + uint64(rng.Intn(4096))
}

func bv(v uint64) ir.Value { return ir.BVValue(ir.NewBV(64, v)) }

type testEnv struct{ vars map[string]ir.Value }

func (e *testEnv) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	v, ok := e.vars[b.VarName(t)]
	return v, ok
}

func (e *testEnv) ApplyFunc(*ir.Func, []ir.Value) (ir.Value, bool) { return ir.Value{}, false }

func evalBool(t *testing.T, b *ir.Builder, env ir.Env, x ir.Term) bool {
	t.Helper()
	v, err := ir.NewEvaluator(b, env).Eval(x)
	if err != nil {
		t.Fatal(err)
	}
	return v.Bool()
}

// TestPassFrameStoresConditional: an -O0 loop unrolled twice. The first
// pass stores through p+4i when i < n; the second pass's premise reads i
// back through that store, and its access is p, reloaded from its slot,
// plus 4(i+1). The first hypothesis's premise is a conjunct of the
// second's, so the second's reads pass the first pass's store: its
// premise and access read no memory afterwards. Wherever the hypotheses
// hold, the rewritten ones hold too (checked by the evaluator on random
// states, p + 4i inside the frame's slots among them), which is what
// makes them sound premises.
func TestPassFrameStoresConditional(t *testing.T) {
	b := ir.NewBuilder()
	simp := ir.NewSimplifier(b)
	rsp := b.Var("src.rsp", ir.BVSort(64))
	p := b.Var("p", ir.BVSort(64))
	i := b.Var("i", ir.BVSort(32))
	n := b.Var("n", ir.BVSort(32))
	v := b.Var("v", ir.BVSort(32))
	m := b.Var("mem", ir.MemSort)
	lo := simp.Simplify(b.Sub(rsp, b.Const(64, StackLimit)))
	pSlot, iSlot := b.Add(rsp, b.Const(64, 0xffffffffffffffe8)), b.Add(rsp, b.Const(64, 0xfffffffffffffff4))
	spilled := b.Store(b.Store(m, pSlot, 8, p), iSlot, 4, i)
	elem := func(mem, idx ir.Term) ir.Term {
		return b.Add(b.Select(mem, pSlot, 8), b.Shl(b.SignExt(idx, 32), b.Const(64, 2)))
	}
	first := simp.Simplify(elem(spilled, b.Select(spilled, iSlot, 4)))
	stored := b.Store(spilled, first, 4, v)
	i1 := b.Add(b.Select(stored, iSlot, 4), b.Const(32, 1))
	second := simp.Simplify(elem(b.Store(stored, iSlot, 4, i1), i1))
	p1 := simp.Simplify(b.Slt(b.Select(spilled, iSlot, 4), n))
	p2 := simp.Simplify(b.And(p1, b.Slt(i1, n)))
	hyps := []ir.Term{
		simp.Simplify(b.Implies(p1, MissesFrame(b, first, 4, lo))),
		simp.Simplify(b.Implies(p2, MissesFrame(b, second, 4, lo))),
	}
	out := PassFrameStores(b, simp, hyps, rsp)
	for _, u := range b.PostOrder(out[1]) {
		if b.Op(u) == ir.OpSelect {
			t.Fatalf("the second hypothesis still reads memory: %s", b.Short(out[1]))
		}
	}
	rng := rand.New(rand.NewSource(2))
	held := 0
	for k := 0; k < 4000; k++ {
		r := uint64(0x7ff0_0000_0000) - uint64(rng.Intn(1<<16))*16 + 8
		env := &testEnv{vars: map[string]ir.Value{
			"src.rsp": bv(r),
			"p":       bv(pick(rng, r) &^ 3),
			"i":       ir.BVValue(ir.NewBV(32, uint64(rng.Intn(8))-2)),
			"n":       ir.BVValue(ir.NewBV(32, uint64(rng.Intn(8))-2)),
			"v":       ir.BVValue(ir.NewBV(32, uint64(rng.Intn(8))-2)),
			"mem":     ir.MemValue(ir.NewMem(byte(rng.Intn(2)))),
		}}
		if rng.Intn(2) == 0 {
			// p+4i on the slot of i: the first pass's store hits it.
			env.vars["i"] = ir.BVValue(ir.NewBV(32, 0))
			env.vars["p"] = bv(r - 0xc)
		}
		before, after := evalBool(t, b, env, b.And(hyps...)), evalBool(t, b, env, b.And(out...))
		if before && !after {
			t.Fatalf("state %d: the hypotheses hold and the rewritten ones do not", k)
		}
		if before {
			held++
		}
	}
	if held < 100 {
		t.Fatalf("the hypotheses held in only %d states: the check says little", held)
	}
}

// TestPassFrameStoresNoCircularPremise: a hypothesis's own access, or
// that of a hypothesis whose premise is not among its premise's
// conjuncts, may not rewrite it. In the state below p is the address of
// the frame slot the premises read, and the store through p changes
// what they read: the original premises are false (the hypotheses hold
// vacuously), and a premise rewritten as if p missed the frame would be
// true, with a conclusion that is false.
func TestPassFrameStoresNoCircularPremise(t *testing.T) {
	b := ir.NewBuilder()
	simp := ir.NewSimplifier(b)
	rsp := b.Var("src.rsp", ir.BVSort(64))
	p := b.Var("p", ir.BVSort(64))
	q := b.Var("q", ir.BVSort(64))
	c := b.Var("c", ir.BVSort(8))
	m := b.Var("mem", ir.MemSort)
	lo := simp.Simplify(b.Sub(rsp, b.Const(64, StackLimit)))
	slot := b.Add(rsp, b.Const(64, 0xfffffffffffffff0))
	through := b.Store(b.Store(m, slot, 1, b.Const(8, 0)), p, 1, b.Const(8, 1))
	zero := simp.Simplify(b.Eq(b.Select(through, slot, 1), b.Const(8, 0)))
	misses := simp.Simplify(MissesFrame(b, p, 1, lo))
	cases := map[string][]ir.Term{
		// The premise reads through the store its own conclusion places
		// outside the frame.
		"own": {simp.Simplify(b.Implies(zero, misses))},
		// The second premise is not a conjunct of the first: its
		// guarantee about p says nothing where the first holds.
		"unrelated": {
			simp.Simplify(b.Implies(b.Eq(c, b.Const(8, 7)), b.Eq(b.Select(through, slot, 1), b.Const(8, 1)))),
			simp.Simplify(b.Implies(b.Eq(q, b.Const(64, 0)), misses)),
		},
	}
	r := uint64(0x7ff0_0000_0008)
	env := &testEnv{vars: map[string]ir.Value{
		"src.rsp": bv(r),
		"p":       bv(r - 0x10),
		"q":       bv(1),
		"c":       ir.BVValue(ir.NewBV(8, 7)),
		"mem":     ir.MemValue(ir.NewMem(0)),
	}}
	for name, hyps := range cases {
		out := PassFrameStores(b, simp, hyps, rsp)
		if !evalBool(t, b, env, b.And(hyps...)) {
			t.Fatalf("%s: the hypotheses do not hold in the test's state", name)
		}
		if !evalBool(t, b, env, b.And(out...)) {
			t.Errorf("%s: the hypotheses hold and the rewritten ones do not: %s", name, b.Short(b.And(out...)))
		}
	}
}
