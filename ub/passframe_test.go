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
