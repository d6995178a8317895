package pair

import (
	"fmt"
	"math/rand"
	"testing"

	"eqc/ir"
	"eqc/x86"
)

// ByteAt against the evaluator's select: random chains of stores of 1 to
// 16 bytes and joins over a base memory, read at every address around
// them, the chains' addresses variables so that nothing folds, with and
// without the simplifier.
func TestByteAt(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 40; round++ {
		b := ir.NewBuilder()
		simp := ir.NewSimplifier(b)
		p := b.Var("p", ir.BVSort(64))
		q := b.Var("q", ir.BVSort(64))
		c := b.Var("c", ir.BoolSort)
		a := b.Var("a", ir.BVSort(64))
		base := b.Var("m", ir.MemSort)
		m := base
		for k := 0; k < 6; k++ {
			n := []uint32{1, 2, 4, 8, 16}[rng.Intn(5)]
			ptr := []ir.Term{p, q}[rng.Intn(2)]
			addr := b.Add(ptr, b.Const(64, uint64(rng.Intn(24))-8))
			v := b.Const(8*n, rng.Uint64())
			if n == 16 {
				v = b.Concat(b.Const(64, rng.Uint64()), b.Const(64, rng.Uint64()))
			}
			st := b.Store(m, addr, n, v)
			if rng.Intn(3) == 0 {
				st = b.Ite(c, st, b.Store(m, ptr, 1, b.Const(8, uint64(k))))
			}
			m = st
		}
		for _, s := range []*ir.Simplifier{nil, simp} {
			got := ByteAt(b, s, m, a, map[ir.Term]ir.Term{})
			for _, pv := range []uint64{0x1000, ^uint64(11)} { // the second: stores that wrap around
				for _, qd := range []uint64{0, 4, 0xc, ^uint64(7)} {
					qv := pv + qd
					for _, cv := range []bool{false, true} {
						for av := pv - 16; av < pv+40; av++ {
							env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
								p: ir.BVValue(ir.NewBV(64, pv)), q: ir.BVValue(ir.NewBV(64, qv)), c: ir.BoolValue(cv),
								a: ir.BVValue(ir.NewBV(64, av)), base: ir.MemValue(ir.NewMem(0x5a)),
							}}
							want, err1 := ir.Eval(b, b.Select(m, a, 1), env)
							have, err2 := ir.Eval(b, got, env)
							if err1 != nil || err2 != nil {
								t.Fatal(err1, err2)
							}
							if want.BV().Uint64() != have.BV().Uint64() {
								t.Fatalf("round %d, p %#x, q %#x, c %v, a %#x: select %#x, ByteAt %#x", round, pv, qv, cv, av, want.BV().Uint64(), have.BV().Uint64())
							}
						}
					}
				}
			}
		}
	}
}

// returnAddressBytes against the evaluator's read of the 8 bytes at the
// entry rsp: memories of frame stores below it, stores through two
// pointers that may land on it, on or beside the return address slot, and
// joins, over a base memory; and the read itself kept when the final rsp
// is not the entry rsp + 8.
func TestReturnAddressBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for round := 0; round < 40; round++ {
		b := ir.NewBuilder()
		simp := ir.NewSimplifier(b)
		rsp0 := b.Var("rsp0", ir.BVSort(64))
		p := b.Var("p", ir.BVSort(64))
		q := b.Var("q", ir.BVSort(64))
		c := b.Var("c", ir.BoolSort)
		base := b.Var("m", ir.MemSort)
		m := base
		for k := 0; k < 8; k++ {
			n := []uint32{1, 2, 4, 8}[rng.Intn(4)]
			if rng.Intn(4) == 0 {
				// A call's replay: the slot put back as a read of the
				// memory before (x86.CallConvention), over a fresh one.
				m = b.Store(b.Var(fmt.Sprintf("callee%d", k), ir.MemSort), rsp0, 8, b.Select(m, rsp0, 8))
				continue
			}
			var addr ir.Term
			switch rng.Intn(3) {
			case 0: // the frame, below rsp0, or the slot itself
				addr = b.Add(rsp0, b.Const(64, uint64(-8*int64(1+rng.Intn(3))+int64(rng.Intn(12)))))
			case 1:
				addr = b.Add(p, b.Const(64, uint64(rng.Intn(8))))
			default:
				addr = q
			}
			st := b.Store(m, simp.Simplify(addr), n, b.Const(8*n, rng.Uint64()))
			if rng.Intn(3) == 0 {
				st = b.Ite(c, st, b.Store(m, q, 1, b.Const(8, uint64(k))))
			}
			m = st
		}
		state := make([]ir.Term, x86.StateLen)
		state[x86.StateMem] = m
		read := b.Select(m, rsp0, 8)
		state[x86.StateGPR0+x86.RSP] = b.Add(rsp0, b.Const(64, 16))
		if got := returnAddressBytes(b, simp, rsp0, state, read); got != read {
			t.Fatalf("round %d: final rsp = rsp0+16 rewrote the read", round)
		}
		state[x86.StateGPR0+x86.RSP] = b.Add(rsp0, b.Const(64, 8))
		got := returnAddressBytes(b, simp, rsp0, state, read)
		for _, rv := range []uint64{0x7ff0, ^uint64(3)} { // the second: the slot wraps around
			for _, pd := range []int64{-20, -9, -4, -1, 0, 3, 7, 8, 40} {
				for _, qd := range []int64{-8, -2, 0, 5, 9} {
					for _, cv := range []bool{false, true} {
						env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
							rsp0: ir.BVValue(ir.NewBV(64, rv)), p: ir.BVValue(ir.NewBV(64, rv+uint64(pd))),
							q: ir.BVValue(ir.NewBV(64, rv+uint64(qd))), c: ir.BoolValue(cv), base: ir.MemValue(ir.NewMem(0x5a)),
						}}
						for k := range 8 {
							env.Vars[b.Var(fmt.Sprintf("callee%d", k), ir.MemSort)] = ir.MemValue(ir.NewMem(byte(0x11 * k)))
						}
						want, err1 := ir.Eval(b, read, env)
						have, err2 := ir.Eval(b, got, env)
						if err1 != nil || err2 != nil {
							t.Fatal(err1, err2)
						}
						if want.BV().Uint64() != have.BV().Uint64() {
							t.Fatalf("round %d, rsp0 %#x, p %+d, q %+d, c %v: read %#x, bytes %#x", round, rv, pd, qd, cv, want.BV().Uint64(), have.BV().Uint64())
						}
					}
				}
			}
		}
	}
}
