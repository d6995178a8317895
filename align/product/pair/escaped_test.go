package pair

import (
	"math/rand"
	"testing"

	"eqc/ir"
)

// TestRelocationIsRenaming checks the relocation of an escaped local
// against the evaluator: on random store chains (frame slots at constant
// offsets inside, around and straddling the local's slot, addresses
// computed in the frame that may land in it, a global, a pointer of
// unknown provenance that may point into the slot, branches)
// and random reads, the relocated terms in a state whose block holds what
// the slot held compute what the original terms compute, with the slot's
// bytes found in the block. Settled (settler), with the pointer outside
// the stack region, they compute the same again.
func TestRelocationIsRenaming(t *testing.T) {
	const lo, size = -0x20, 12
	rng := rand.New(rand.NewSource(1))
	settled := 0 // iterations whose memory the settler changed
	defer func() {
		if settled == 0 {
			t.Errorf("the settler changed no memory")
		}
	}()
	for iter := 0; iter < 300; iter++ {
		b := ir.NewBuilder()
		rsp0 := b.Var("rsp", ir.BVSort(64))
		mem0 := b.Var("mem", ir.MemSort)
		g := b.Var("&g", ir.BVSort(64))
		p := b.Var("p", ir.BVSort(64))
		ix := b.Var("ix", ir.BVSort(64)) // an index into the frame
		c := b.Var("c", ir.BoolSort)
		e := &escapedLocal{name: "x", size: size, align: 4, lo: [2]int64{lo, 0}, addr: b.Var("local.0.x", ir.BVSort(64)),
			slot: [2]ir.Term{b.Var("slot", ir.BVSort(64))}}
		r := &relocator{b: b, simp: ir.NewSimplifier(b), rsp0: rsp0, es: []*escapedLocal{e}, memo: map[ir.Term]ir.Term{},
			outside: func(a ir.Term, n uint32) bool {
				base, off := b.BaseOffset(a)
				return (base == g && off+uint64(n) <= 64) || (base == e.addr && off+uint64(n) <= size)
			}}
		at := func(base ir.Term, off int64) ir.Term { return b.Add(base, b.Const(64, uint64(off))) }
		addr := func() (ir.Term, uint32) {
			n := []uint32{1, 2, 4, 8}[rng.Intn(4)]
			switch rng.Intn(5) {
			case 0, 1:
				return at(rsp0, lo-8+int64(rng.Intn(size+16))), n
			case 2:
				return at(g, int64(rng.Intn(32))), n
			case 3:
				// Computed in the frame (a local array's a[i]).
				return b.Add(at(rsp0, lo-8+int64(rng.Intn(4))), ix), n
			}
			return at(p, int64(rng.Intn(8))), n
		}
		m := mem0
		var stack []ir.Term
		for k := 1 + rng.Intn(8); k > 0; k-- {
			a, n := addr()
			switch rng.Intn(6) {
			case 0:
				stack = append(stack, m)
			case 1:
				if len(stack) > 0 {
					m = b.Ite(c, stack[len(stack)-1], m)
					stack = stack[:len(stack)-1]
				}
			}
			m = b.Store(m, a, n, b.Const(8*n, rng.Uint64()))
		}
		var reads []ir.Term
		for k := 0; k < 4; k++ {
			a, n := addr()
			reads = append(reads, b.Select(m, a, n))
		}
		rm := r.Rewrite(m)
		rreads := r.RewriteAll(reads)
		// The settler knows p outside the stack region, as the calling
		// convention's rewrite may show a pointer to be later: where p
		// is, its guards go and nothing else changes.
		st := &settler{b: b, simp: r.simp, slots: map[ir.Term]uint64{e.slot[0]: size}, memo: map[ir.Term]ir.Term{},
			outside: func(a ir.Term, n uint32) bool {
				base, off := b.BaseOffset(a)
				return r.outside(a, n) || base == p && off < 64
			}}
		sm := st.settle(rm)
		sreads := make([]ir.Term, len(rreads))
		for k, x := range rreads {
			sreads[k] = st.settle(x)
		}
		if sm != rm {
			settled++
		}

		for trial := 0; trial < 4; trial++ {
			r0 := uint64(0x7fff0000) + 16*uint64(rng.Intn(64)) + 8
			slot := r0 - uint64(-lo)
			pv := slot - 8 + uint64(rng.Intn(size+16)) // p may point into the slot
			xv := uint64(rng.Intn(size + 12))          // and so may rsp+c+ix
			pOutside := rng.Intn(3) == 0
			if pOutside {
				pv = 0x5000 + uint64(rng.Intn(64))
			}
			block := uint64(0x9000)
			junk := make([]byte, 64)
			rng.Read(junk)
			entry := ir.NewMem(0xa5).With(slot-16, junk)
			moved := entry.With(block, entry.Read(slot, size))
			cv := rng.Intn(2) == 0
			env := func(mem *ir.Mem) *ir.MapEnv {
				return &ir.MapEnv{Vars: map[ir.Term]ir.Value{
					rsp0:      ir.BVValue(ir.NewBV(64, r0)),
					g:         ir.BVValue(ir.NewBV(64, 0x1000)),
					p:         ir.BVValue(ir.NewBV(64, pv)),
					ix:        ir.BVValue(ir.NewBV(64, xv)),
					c:         ir.BoolValue(cv),
					mem0:      ir.MemValue(mem),
					e.addr:    ir.BVValue(ir.NewBV(64, block)),
					e.slot[0]: ir.BVValue(ir.NewBV(64, slot)),
				}}
			}
			real, abs := ir.NewEvaluator(b, env(entry)), ir.NewEvaluator(b, env(moved))
			mv, err1 := real.Eval(m)
			rv, err2 := abs.Eval(rm)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			M, R := mv.Mem(), rv.Mem()
			for a := slot - 16; a < slot+48; a++ {
				want, where := M.Load(a), a
				if a >= slot && a < slot+size {
					where = block + (a - slot)
				}
				if got := R.Load(where); got != want {
					t.Fatalf("iter %d: byte %#x (at %#x after the move) = %#x, want %#x\n%s\n%s", iter, a, where, got, want, b.Short(m), b.Short(rm))
				}
			}
			for a := uint64(0x1000); a < 0x1040; a++ {
				if M.Load(a) != R.Load(a) {
					t.Fatalf("iter %d: global byte %#x = %#x, want %#x", iter, a, R.Load(a), M.Load(a))
				}
			}
			for k := range reads {
				x, err1 := real.Eval(reads[k])
				y, err2 := abs.Eval(rreads[k])
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				if !x.BV().Equal(y.BV()) {
					t.Fatalf("iter %d: read %s = %v, relocated %s = %v", iter, b.Short(reads[k]), x.BV(), b.Short(rreads[k]), y.BV())
				}
				if !pOutside {
					continue
				}
				z, err := abs.Eval(sreads[k])
				if err != nil {
					t.Fatal(err)
				}
				if !x.BV().Equal(z.BV()) {
					t.Fatalf("iter %d: read %s = %v, settled %s = %v", iter, b.Short(reads[k]), x.BV(), b.Short(sreads[k]), z.BV())
				}
			}
			if pOutside {
				sv, err := abs.Eval(sm)
				if err != nil {
					t.Fatal(err)
				}
				for a := slot - 16; a < slot+48; a++ {
					if sv.Mem().Load(a) != R.Load(a) {
						t.Fatalf("iter %d: settled memory's byte %#x = %#x, relocated %#x", iter, a, sv.Mem().Load(a), R.Load(a))
					}
				}
			}
		}
	}
}
