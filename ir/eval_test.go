package ir_test

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"eqc/ir"
	"eqc/ir/irtest"
)

func mustEval(t *testing.T, b *ir.Builder, term ir.Term, env ir.Env) ir.Value {
	t.Helper()
	v, err := ir.Eval(b, term, env)
	if err != nil {
		t.Fatalf("eval %s: %v", b.Short(term), err)
	}
	return v
}

func TestEvalMemoryLittleEndianWraps(t *testing.T) {
	b := ir.NewBuilder()
	m := b.Var("m", ir.MemSort)
	top := b.Const(64, ^uint64(1)) // 2^64 − 2
	st := b.Store(m, top, 4, b.Const(32, 0x11223344))
	env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{m: ir.MemValue(ir.NewMem(0xee))}}

	// Bytes 44 33 at 2^64−2, 2^64−1 and 22 11 at 0, 1.
	for _, c := range []struct {
		addr uint64
		n    uint32
		want uint64
	}{
		{0, 2, 0x1122},
		{^uint64(0), 2, 0x2233},
		{^uint64(1), 4, 0x11223344},
		{1, 2, 0xee11},
		{^uint64(2), 1, 0xee},
		{^uint64(2), 8, 0xeeee_ee11_2233_44ee},
	} {
		got := mustEval(t, b, b.Select(st, b.Const(64, c.addr), c.n), env).BV()
		if !got.Equal(ir.NewBV(8*c.n, c.want)) {
			t.Errorf("select(%#x, %d) = %v, want %#x", c.addr, c.n, got, c.want)
		}
	}

	// 16-byte (xmm) stores and loads go through big.Int.
	v := new(big.Int).SetBytes([]byte{0x0f, 0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0})
	wide := b.Store(m, b.Const(64, 0x100), 16, b.ConstBV(ir.NewBVBig(128, v)))
	for i := uint64(0); i < 16; i++ {
		got := mustEval(t, b, b.Select(wide, b.Const(64, 0x100+i), 1), env).BV()
		if got.Uint64() != i {
			t.Errorf("byte %d of a 16-byte store = %v", i, got)
		}
	}
	if got := mustEval(t, b, b.Select(wide, b.Const(64, 0x100), 16), env).BV(); got.Big().Cmp(v) != 0 {
		t.Errorf("16-byte load = %v", got)
	}
}

func TestEvalMemEq(t *testing.T) {
	b := ir.NewBuilder()
	m := b.Var("m", ir.MemSort)
	a := b.Const(64, 8)
	x := b.Var("x", ir.BVSort(16))
	same := b.Eq(b.Store(m, a, 2, b.Select(m, a, 2)), m)
	diff := b.Eq(b.Store(m, a, 2, x), m)
	env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
		m: ir.MemValue(ir.NewMem(0).With(8, []byte{1, 2})),
		x: ir.BVValue(ir.NewBV(16, 0x0201)),
	}}
	if !mustEval(t, b, same, env).Bool() || !mustEval(t, b, diff, env).Bool() {
		t.Errorf("writing back the bytes already there should give an equal memory")
	}
	env.Vars[x] = ir.BVValue(ir.NewBV(16, 0x0202))
	if mustEval(t, b, diff, env).Bool() {
		t.Errorf("different bytes should give a different memory")
	}
}

func TestEvalErrors(t *testing.T) {
	b := ir.NewBuilder()
	x := b.Var("x", ir.BVSort(8))
	f := b.DeclareFunc("f", []ir.Sort{ir.BVSort(8)}, ir.BVSort(8))
	env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{}}

	_, err := ir.Eval(b, b.Add(x, b.Const(8, 1)), env)
	var ue *ir.UnboundError
	if !errors.As(err, &ue) || ue.Name != "x" || ue.Func {
		t.Errorf("unbound variable: %v", err)
	}
	env.Vars[x] = ir.BVValue(ir.NewBV(8, 3))
	_, err = ir.Eval(b, b.Apply(f, x), env)
	if !errors.As(err, &ue) || ue.Name != "f" || !ue.Func {
		t.Errorf("unbound function: %v", err)
	}
	env.Funcs = map[string]func([]ir.Value) ir.Value{"f": func([]ir.Value) ir.Value { return ir.BoolValue(true) }}
	_, err = ir.Eval(b, b.Apply(f, x), env)
	var se *ir.EnvSortError
	if !errors.As(err, &se) || se.Name != "f" {
		t.Errorf("function of the wrong sort: %v", err)
	}
	env.Vars[x] = ir.BVValue(ir.NewBV(9, 3))
	_, err = ir.Eval(b, x, env)
	if !errors.As(err, &se) || se.Name != "x" {
		t.Errorf("variable of the wrong sort: %v", err)
	}

	// Ite is lazy: the branch not taken may be unbound.
	y := b.Var("y", ir.BVSort(8))
	env.Vars[x] = ir.BVValue(ir.NewBV(8, 3))
	got := mustEval(t, b, b.Ite(b.True(), x, y), env)
	if got.BV().Uint64() != 3 {
		t.Errorf("ite = %v", got)
	}
}

// TestEvalDeepChain evaluates a chain of 100k stores and selects through
// it: the evaluator must not recurse per level. The stores cycle over 64
// slots because Mem flattens its overlay chain by copying every address
// written so far, which is quadratic in the number of distinct addresses.
func TestEvalDeepChain(t *testing.T) {
	b := ir.NewBuilder()
	m := b.Var("m", ir.MemSort)
	base := b.Var("base", ir.BVSort(64))
	const n, slots = 100_000, 64
	cur := m
	for i := uint64(0); i < n; i++ {
		cur = b.Store(cur, b.Add(base, b.Const(64, 8*(i%slots))), 8, b.Const(64, i))
	}
	sum := b.Const(64, 0)
	for i := uint64(0); i < slots; i += 7 {
		sum = b.Add(sum, b.Select(cur, b.Add(base, b.Const(64, 8*i)), 8))
	}
	env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
		m:    ir.MemValue(ir.NewMem(0)),
		base: ir.BVValue(ir.NewBV(64, 1<<40)),
	}}
	ev := ir.NewEvaluator(b, env)
	v, err := ev.Eval(sum)
	if err != nil {
		t.Fatal(err)
	}
	want := uint64(0)
	for i := uint64(0); i < slots; i += 7 {
		want += n - slots + i // the last write to slot i
	}
	if v.BV().Uint64() != want {
		t.Errorf("sum of selects = %v, want %d", v, want)
	}
}

// TestOpEvalAgrees: Op.Eval, the evaluator's table for code without terms
// (the SMT-LIB model interpreter), gives every op's value on random terms
// exactly as the Evaluator does.
func TestOpEvalAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	seen := make(map[ir.Op]bool)
	for i := 0; i < 300; i++ {
		b := ir.NewBuilder()
		term := irtest.RandomTerm(rng, b, irtest.RandomSort(rng), 4)
		env := irtest.RandomEnv(rng, b, term)
		ev := ir.NewEvaluator(b, env)
		for _, u := range b.PostOrder(term) {
			switch b.Op(u) {
			case ir.OpVar, ir.OpConst, ir.OpApply:
				continue
			}
			want, err := ev.Eval(u)
			if err != nil {
				t.Fatalf("eval %s: %v", b.Short(u), err)
			}
			var args []ir.Value
			for _, a := range b.Args(u) {
				v, err := ev.Eval(a)
				if err != nil {
					t.Fatalf("eval %s: %v", b.Short(a), err)
				}
				args = append(args, v)
			}
			p0, p1 := b.Params(u)
			got, err := b.Op(u).Eval(args, p0, p1)
			if err != nil || !got.Equal(want) {
				t.Fatalf("%v.Eval on the arguments of %s: %v %v, want %v", b.Op(u), b.Short(u), got, err, want)
			}
			seen[b.Op(u)] = true
		}
	}
	if len(seen) < 30 {
		t.Errorf("only %d ops exercised", len(seen))
	}
}

// TestOpEvalRejects: ill-sorted input, leaves and applications are errors,
// never panics, whatever the parameters.
func TestOpEvalRejects(t *testing.T) {
	x8 := ir.BVValue(ir.NewBV(8, 1))
	x32 := ir.BVValue(ir.NewBV(32, 1))
	mem := ir.MemValue(ir.NewMem(0))
	for _, c := range []struct {
		op     ir.Op
		args   []ir.Value
		p0, p1 uint32
	}{
		{ir.OpAdd, []ir.Value{x8, x32}, 0, 0},
		{ir.OpAdd, []ir.Value{x8}, 0, 0},
		{ir.OpAnd, []ir.Value{x8, x8}, 0, 0},
		{ir.OpIte, []ir.Value{x8, x8, x8}, 0, 0},
		{ir.OpExtract, []ir.Value{x8}, 8, 0},
		{ir.OpZeroExt, []ir.Value{x32}, math.MaxUint32, 0},
		{ir.OpSignExt, []ir.Value{x32}, math.MaxUint32 - 31, 0},
		{ir.OpSelect, []ir.Value{mem, ir.BVValue(ir.NewBV(64, 0))}, 1 << 29, 0},
		{ir.OpStore, []ir.Value{mem, ir.BVValue(ir.NewBV(64, 0)), x8}, 1 << 29, 0},
		{ir.OpVar, nil, 0, 0},
		{ir.OpConst, nil, 0, 0},
		{ir.OpApply, []ir.Value{x8}, 0, 0},
	} {
		if v, err := c.op.Eval(c.args, c.p0, c.p1); err == nil {
			t.Errorf("%v%v [%d %d] = %v, want an error", c.op, c.args, c.p0, c.p1, v)
		}
	}
	if s, err := ir.OpConcat.ResultSort([]ir.Sort{ir.BVSort(math.MaxUint32), ir.BVSort(1)}, 0, 0); err == nil {
		t.Errorf("a concatenation of 2^32 bits has sort %v", s)
	}
}
