package x86

import (
	"math/rand"
	"testing"

	"eqc/ir"
)

// TestCallConventionMemory checks the calling convention's two memory
// rewrites against the evaluator, on random store chains (frame slots at
// constant offsets, some straddling the bounds, globals, pointers of
// unknown provenance, branches) in random concrete states:
//
//   - the view a callee reads (stripS) equals the memory at every address
//     outside the stack region S, and the entry memory inside S wherever
//     no store straddles S's bounds;
//   - the memory after the call (replay) is the caller's memory in
//     [rsp at the call, rsp0+8) wherever the chain stored or at the
//     return address, and the callee's memory result everywhere else.
func TestCallConventionMemory(t *testing.T) {
	const limit = 0x100
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 300; iter++ {
		b := ir.NewBuilder()
		rsp0 := b.Var("rsp", ir.BVSort(64))
		mem0 := b.Var("mem", ir.MemSort)
		out := b.Var("out", ir.MemSort)
		g := b.Var("&g", ir.BVSort(64))
		p := b.Var("p", ir.BVSort(64))
		c := b.Var("c", ir.BoolSort)
		cc := &CallConvention{B: b, Simp: ir.NewSimplifier(b), RSP0: rsp0, Limit: limit,
			Outside: func(a ir.Term, n uint32) bool {
				base, off := b.BaseOffset(a)
				return base == g && off+uint64(n) <= 64
			}}
		at := func(base ir.Term, off int64) ir.Term { return b.Add(base, b.Const(64, uint64(off))) }
		straddles := false
		type span struct{ off, n uint64 }
		var pStores []span
		m := mem0
		var stack []ir.Term
		for k := rng.Intn(8); k > 0; k-- {
			n := []uint32{1, 2, 4, 8}[rng.Intn(4)]
			v := b.Const(8*n, rng.Uint64())
			var a ir.Term
			switch rng.Intn(5) {
			case 0, 1:
				off := -int64(rng.Intn(0x40)) - 4
				a = at(rsp0, off)
			case 2:
				off := []int64{-limit - 2, 6, -limit + 3, 5}[rng.Intn(4)]
				a = at(rsp0, off)
				if off < -limit || off+int64(n) > 8 {
					straddles = straddles || off+int64(n) > -limit && off < 8
				}
			case 3:
				a = at(g, int64(rng.Intn(32)))
			case 4:
				off := rng.Intn(8)
				a = at(p, int64(off))
				pStores = append(pStores, span{uint64(off), uint64(n)})
			}
			switch rng.Intn(6) {
			case 0:
				stack = append(stack, m) // branch point
			case 1:
				if len(stack) > 0 {
					m = b.Ite(c, stack[len(stack)-1], m)
					stack = stack[:len(stack)-1]
				}
			}
			m = b.Store(m, a, n, v)
		}
		callOff := -int64(rng.Intn(0x40))
		rspCall := at(rsp0, callOff)
		view := cc.stripS(m)
		after := cc.replay(m, rspCall, out)

		for trial := 0; trial < 4; trial++ {
			r0 := uint64(0x7fff0000) + 16*uint64(rng.Intn(64)) + 8
			pv := r0 - uint64(rng.Intn(0x80)) // p may point into the frame
			if rng.Intn(2) == 0 {
				pv = 0x5000 + uint64(rng.Intn(64))
			}
			env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
				rsp0: ir.BVValue(ir.NewBV(64, r0)),
				g:    ir.BVValue(ir.NewBV(64, 0x1000)),
				p:    ir.BVValue(ir.NewBV(64, pv)),
				c:    ir.BoolValue(rng.Intn(2) == 0),
				mem0: ir.MemValue(ir.NewMem(0xa5)),
				out:  ir.MemValue(ir.NewMem(0x3c)),
			}}
			cross := straddles
			for _, sp := range pStores {
				lo, hi := pv+sp.off, pv+sp.off+sp.n
				cross = cross || (lo < r0+8 && hi > r0+8) || (lo < r0-limit && hi > r0-limit)
			}
			ev := ir.NewEvaluator(b, env)
			mv, err1 := ev.Eval(m)
			vv, err2 := ev.Eval(view)
			av, err3 := ev.Eval(after)
			if err1 != nil || err2 != nil || err3 != nil {
				t.Fatal(err1, err2, err3)
			}
			M, V, A := mv.Mem(), vv.Mem(), av.Mem()
			written := map[uint64]bool{}
			for _, a := range M.Written() {
				written[a] = true
			}
			check := func(a uint64) {
				inS := a >= r0-limit && a < r0+8
				switch {
				case !inS && V.Load(a) != M.Load(a):
					t.Fatalf("iter %d: view at %#x = %#x, memory %#x (outside S)\n%s", iter, a, V.Load(a), M.Load(a), b.Short(view))
				case inS && !cross && V.Load(a) != 0xa5:
					t.Fatalf("iter %d: view at %#x (inside S) = %#x, not the entry memory", iter, a, V.Load(a))
				}
				inFrame := a >= r0+uint64(callOff) && a < r0+8
				keep := inFrame && (written[a] || a >= r0)
				switch {
				case keep && A.Load(a) != M.Load(a):
					t.Fatalf("iter %d: after the call %#x = %#x, caller's %#x", iter, a, A.Load(a), M.Load(a))
				case !inFrame && A.Load(a) != 0x3c:
					t.Fatalf("iter %d: after the call %#x = %#x, not the callee's", iter, a, A.Load(a))
				}
			}
			for a := r0 - limit - 16; a < r0+24; a++ {
				check(a)
			}
			for a := uint64(0x1000); a < 0x1040; a++ {
				check(a)
			}
			for a := pv; a < pv+16; a++ {
				check(a)
			}
		}
	}
}

// TestConstCallees: a const callee's result is a function of its
// arguments alone (two calls with equal arguments over different memories
// are one term) and leaves memory as it was; the same callee not marked
// const reads its view and returns its memory result.
func TestConstCallees(t *testing.T) {
	b := ir.NewBuilder()
	rsp0 := b.Var("rsp", ir.BVSort(64))
	mem0 := b.Var("mem", ir.MemSort)
	g := b.Var("&g", ir.BVSort(64))
	fn := CallFunc{Callee: "__errno_location", N: 0, Complete: true}
	lift := func(result string) *ir.Func {
		f := fn
		f.Result = result
		so := ir.Sort(ir.MemSort)
		if result == "rax" {
			so = ir.BVSort(64)
		}
		return b.DeclareFunc(f.String(), []ir.Sort{ir.BVSort(64), ir.MemSort}, so)
	}
	rax, mem := lift("rax"), lift("mem")
	rspCall := b.Add(rsp0, b.Const(64, ^uint64(15)))
	m1 := b.Store(mem0, g, 4, b.Const(32, 7)) // a store outside the frame between the calls
	first := b.Apply(rax, rspCall, mem0)
	second := b.Apply(rax, rspCall, b.Apply(mem, rspCall, m1))
	after := b.Apply(mem, rspCall, m1)
	for _, konst := range []bool{true, false} {
		cc := &CallConvention{B: b, Simp: ir.NewSimplifier(b), RSP0: rsp0, Limit: 0x100, Mem0: mem0,
			Const: map[string]bool{"__errno_location": konst}}
		r1, r2, ra := cc.Rewrite(first), cc.Rewrite(second), cc.Rewrite(after)
		if konst && (r1 != r2 || ra != m1) {
			t.Errorf("const: results %s and %s, memory after %s: want one result and the memory before", b.Short(r1), b.Short(r2), b.Short(ra))
		}
		if !konst && (r1 == r2 || ra == m1) {
			t.Errorf("not const: results %s and %s, memory after %s: want two results and the callee's memory", b.Short(r1), b.Short(r2), b.Short(ra))
		}
	}
}

// TestFirstArgCallees: rax after a call of memcpy (a callee of
// FirstArgCallees the files do not define) is the destination it was
// given, on both sides alike; the call's memory result stays the
// callee's. Not marked, the result is the callee's own.
func TestFirstArgCallees(t *testing.T) {
	b := ir.NewBuilder()
	rsp0 := b.Var("rsp", ir.BVSort(64))
	mem0 := b.Var("mem", ir.MemSort)
	d, s, n := b.Var("d", ir.BVSort(64)), b.Var("s", ir.BVSort(64)), b.Var("n", ir.BVSort(64))
	fn := CallFunc{Callee: "memcpy", N: 3, Complete: true}
	lift := func(result string, so ir.Sort) ir.Term {
		f := fn
		f.Result = result
		uf := b.DeclareFunc(f.String(), []ir.Sort{ir.BVSort(64), ir.BVSort(64), ir.BVSort(64), ir.BVSort(64), ir.MemSort}, so)
		return b.Apply(uf, d, s, n, b.Add(rsp0, b.Const(64, ^uint64(15))), mem0)
	}
	rax, mem := lift("rax", ir.BVSort(64)), lift("mem", ir.MemSort)
	for _, marked := range []bool{true, false} {
		cc := &CallConvention{B: b, Simp: ir.NewSimplifier(b), RSP0: rsp0, Limit: 0x100, Mem0: mem0,
			FirstArg: map[string]bool{"memcpy": marked}}
		r, m := cc.Rewrite(rax), cc.Rewrite(mem)
		if (r == d) != marked {
			t.Errorf("marked %v: rax after memcpy is %s", marked, b.Short(r))
		}
		if m == mem0 || b.Op(m) == ir.OpVar {
			t.Errorf("marked %v: memory after memcpy is %s, want the callee's", marked, b.Short(m))
		}
	}
	if cc := (&CallConvention{B: b, Simp: ir.NewSimplifier(b), RSP0: rsp0, Limit: 0x100, Mem0: mem0}); cc.Rewrite(rax) == d {
		t.Errorf("memcpy's result is its argument without FirstArg")
	}
}
