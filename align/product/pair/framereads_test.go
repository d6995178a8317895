package pair

import (
	"math/rand"
	"testing"

	"eqc/ir"
)

// frameReadGuard against the evaluator: random chains of frame stores
// (rsp plus a constant, the -O0 spills and the pushes) and stores through
// a pointer, read through the pointer and in the frame at every width,
// with the pointer far from the frame, inside it and across each of its
// ends. The rewrite must equal the read in every state, and take the
// frame stores out of the branch a pointer read guards.
func TestFrameReadGuard(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const rspv = 0x7000_0000
	frameGuarded := 0
	for round := 0; round < 60; round++ {
		b := ir.NewBuilder()
		simp := ir.NewSimplifier(b)
		rsp := b.Var("rsp", ir.BVSort(64))
		p := b.Var("p", ir.BVSort(64))
		g := b.Var("&g", ir.BVSort(64)) // a global of 24 bytes, outside the frame in every state below
		base := b.Var("m", ir.MemSort)
		m := base
		frameStores := 0
		for k := 0; k < 6; k++ {
			n := []uint32{1, 2, 4, 8}[rng.Intn(4)]
			var addr ir.Term
			switch rng.Intn(4) {
			case 0, 1:
				addr = b.Add(rsp, b.Const(64, uint64(-8*(1+rng.Intn(6)))))
				frameStores++
			case 2:
				addr = b.Add(p, b.Const(64, uint64(rng.Intn(16))))
			default:
				addr = b.Add(g, b.Const(64, uint64(rng.Intn(24-int(n)+1))))
			}
			m = b.Store(m, addr, n, b.Const(8*n, rng.Uint64()))
		}
		var reads []ir.Term
		for _, n := range []uint32{1, 2, 4, 8} {
			reads = append(reads, b.Select(m, b.Add(p, b.Const(64, uint64(rng.Intn(16)))), n))
			reads = append(reads, b.Select(m, b.Add(rsp, b.Const(64, uint64(-8*(1+rng.Intn(6))+rng.Intn(4)))), n))
			reads = append(reads, b.Select(m, b.Add(g, b.Const(64, uint64(rng.Intn(24-int(n)+1)))), n))
		}
		inG := func(a ir.Term, n uint32) bool {
			base, off := b.BaseOffset(a)
			return base == g && off < 24 && uint64(n) <= 24-off
		}
		guard := (&Pair{B: b}).frameReadGuard(rsp, simp, inG, nil)
		for _, r := range reads {
			rw := guard(r)
			if base, _ := b.BaseOffset(b.Arg(r, 1)); base == g {
				if frameStores > 0 && b.Op(rw) == ir.OpIte {
					t.Fatalf("round %d: a read inside a global was split: %s", round, b.Short(rw))
				}
			} else if base != p {
				if b.Op(rw) == ir.OpIte {
					frameGuarded++
				}
			} else if frameStores > 0 && b.Op(rw) != ir.OpIte {
				t.Fatalf("round %d: a read over %d frame stores was left as it is: %s", round, frameStores, b.Short(rw))
			}
			for _, pv := range []uint64{0x1000, rspv - 24, rspv - 3, rspv + 6, rspv - StackLimit - 5, rspv - StackLimit + 2} {
				env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
					rsp: ir.BVValue(ir.NewBV(64, rspv)), p: ir.BVValue(ir.NewBV(64, pv)), g: ir.BVValue(ir.NewBV(64, 0x2000)), base: ir.MemValue(ir.NewMem(0x5a)),
				}}
				want, err1 := ir.Eval(b, r, env)
				have, err2 := ir.Eval(b, rw, env)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				if want.BV().Uint64() != have.BV().Uint64() {
					t.Fatalf("round %d, p %#x: read %#x, guarded %#x", round, pv, want.BV().Uint64(), have.BV().Uint64())
				}
			}
		}
	}
	if frameGuarded == 0 {
		t.Error("no frame read was spelled out past a pointer store")
	}
}
