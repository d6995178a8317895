package product

import (
	"math/rand"
	"testing"

	"eqc/align/product/pair"
	"eqc/ir"
)

// A memory without its slot stores reads the same as the memory itself at
// every address outside the slots (the concrete evaluator is the oracle,
// over a window around the frame and the pointer, the frame placed at the
// top and at the bottom of the address space too, so that slot addresses
// wrap); and exactly the stores that write a byte outside every slot
// remain.
func TestWithoutSlotStores(t *testing.T) {
	b := ir.NewBuilder()
	simp := ir.NewSimplifier(b)
	rsp, d, c := b.Var("rsp", ir.BVSort(64)), b.Var("d", ir.BVSort(64)), b.Var("c", ir.BoolSort)
	m := b.Var("m", ir.MemSort)
	pr := &Product{p: &pair.Pair{B: b}, simp: simp, rsp0: rsp}
	at := func(off int64) ir.Term { return simp.Simplify(b.Add(rsp, b.Const(64, uint64(off)))) }
	slots := []pair.Slot{{Off: -0x14, Size: 4}, {Off: -0x10, Size: 8}, {Off: -0x2c, Size: 4}}
	val := func(n uint32, x uint64) ir.Term { return b.Const(8*n, x) }
	type store struct {
		addr ir.Term
		n    uint32
		kept bool
	}
	chain := []store{
		{at(-0x14), 4, false}, // one slot
		{at(-0x10), 8, false},
		{d, 4, true},           // a pointer
		{at(-0x14), 8, false},  // two adjacent slots
		{at(-0x12), 4, false},  // across their border
		{at(-0x8), 4, true},    // the frame, no slot
		{at(-0x2d), 4, true},   // one byte before a slot
		{at(-0x2a), 4, true},   // two bytes past it
		{at(-0x2b), 4, true},   // one byte past it
		{at(-0x2c), 4, false},  // the slot again
		{at(-0x2), 2, true},    // below rsp
		{rsp, 8, true},         // the return address
		{at(-0x100), 16, true}, // far below
		{at(-0x14), 12, false}, // both slots in one store
		{at(-0x10), 12, true},  // past the last slot
		{d, 1, true},           //
		{at(-0x2c), 1, false},  // a byte
	}
	mem := m
	for i, s := range chain {
		mem = b.Store(mem, s.addr, s.n, val(s.n, uint64(0x1111*(i+1))))
	}
	// A conditional store in one arm, a slot store in both.
	mem = b.Ite(c, b.Store(mem, at(-0x10), 4, val(4, 7)), b.Store(mem, d, 4, val(4, 9)))
	memo := map[ir.Term]ir.Term{}
	out := pr.withoutSlotStores(mem, slots, memo)

	var kept []uint32
	var walk func(ir.Term)
	walk = func(x ir.Term) {
		switch b.Op(x) {
		case ir.OpStore:
			walk(b.Arg(x, 0))
			n, _ := b.Params(x)
			kept = append(kept, n)
		case ir.OpIte:
			walk(b.Arg(x, 1))
			walk(b.Arg(x, 2))
		}
	}
	walk(out)
	var want []uint32
	for _, s := range chain {
		if s.kept {
			want = append(want, s.n)
		}
	}
	want = append(append(want, want...), 4) // the chain in both arms, then d's
	if len(kept) != len(want) {
		t.Fatalf("kept stores of %v bytes, want %v", kept, want)
	}
	for i := range kept {
		if kept[i] != want[i] {
			t.Fatalf("kept stores of %v bytes, want %v", kept, want)
		}
	}

	inSlot := func(a, r uint64) bool {
		for _, sl := range slots {
			if a-(r+uint64(sl.Off)) < uint64(sl.Size) {
				return true
			}
		}
		return false
	}
	rng := rand.New(rand.NewSource(1))
	for _, r := range []uint64{0x7fff_0000, 0x10, ^uint64(0) - 0x10, 0x8000_0000_0000_0000} {
		for _, cond := range []bool{false, true} {
			dv := r - 0x40 + uint64(rng.Intn(0x80))
			env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
				rsp: ir.BVValue(ir.NewBV(64, r)), d: ir.BVValue(ir.NewBV(64, dv)), c: ir.BoolValue(cond),
				m: ir.MemValue(ir.NewMem(0xa5)),
			}}
			for a := r - 0x110; a != r+0x20; a++ {
				if inSlot(a, r) {
					continue
				}
				x, err1 := ir.Eval(b, b.Select(mem, b.Const(64, a), 1), env)
				y, err2 := ir.Eval(b, b.Select(out, b.Const(64, a), 1), env)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				if x.BV().Uint64() != y.BV().Uint64() {
					t.Fatalf("rsp %#x, c %v: byte at rsp%+d reads %#x, %#x without the slot stores", r, cond, int64(a-r), x.BV().Uint64(), y.BV().Uint64())
				}
			}
		}
	}
}
