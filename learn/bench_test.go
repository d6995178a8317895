package learn

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"eqc/ir"
)

// Benchmarks of the learner on data shaped like what it sees: the kernel
// of one 25-row sample (§4.4) and one Learn call at a product-program loop
// head. (kernel_test.go's BenchmarkKernel25x60 and learn_test.go's
// BenchmarkLearn60x200* time the same code on mostly random columns.)

// affineData returns 25 rows of 60 columns over Z/2^64 in which only 12
// columns are free, and the relations that hold on them. The free columns
// are 4 pointers aligned to 16 (so 2^60·p = 0 holds too), 4 small counters
// and 4 arbitrary values; the other 48 are, in turn, 4·a − b + 8, a copy,
// a constant, a + b + c − 7j, 2·a + 6·b (even coefficients only) and
// a − 3·b + 16·c + j of free columns a, b, c. Random rows would have a
// generic kernel; these have the 52 planted relations (48 with a unit
// coefficient, 4 with 2^60), as trace rows do, where most registers are
// copies, offsets or scaled indexes of a few live values.
func affineData() (rows, planted [][]uint64) {
	const nfree, n, nrows = 12, 60, 25
	// spec[j] is column nfree+j's coefficients on the free columns and
	// its constant.
	spec := make([][]int64, n-nfree)
	for j := range spec {
		s := make([]int64, nfree+1)
		a, b, c := j%nfree, (j+5)%nfree, (j+7)%nfree
		switch j % 6 {
		case 0:
			s[a], s[b], s[nfree] = 4, -1, 8
		case 1:
			s[a] = 1
		case 2:
			s[nfree] = 0x601040 + 8*int64(j)
		case 3:
			s[a], s[b], s[c], s[nfree] = 1, 1, 1, -7*int64(j)
		case 4:
			s[a], s[b] = 2, 6
		case 5:
			s[a], s[b], s[c], s[nfree] = 1, -3, 16, int64(j)
		}
		spec[j] = s
	}
	rng := rand.New(rand.NewPCG(25, 60))
	rows = make([][]uint64, nrows)
	for r := range rows {
		x := make([]uint64, n)
		for k := 0; k < nfree; k++ {
			switch k / 4 {
			case 0:
				x[k] = rng.Uint64() &^ 15
			case 1:
				x[k] = uint64(rng.IntN(1000))
			default:
				x[k] = rng.Uint64()
			}
		}
		for j, s := range spec {
			v := uint64(s[nfree])
			for k := 0; k < nfree; k++ {
				v += uint64(s[k]) * x[k]
			}
			x[nfree+j] = v
		}
		rows[r] = x
	}
	for j, s := range spec {
		v := make([]uint64, n+1)
		for k := 0; k < nfree; k++ {
			v[k] = uint64(s[k])
		}
		v[nfree+j] = ^uint64(0) // −1
		v[n] = uint64(s[nfree])
		planted = append(planted, v)
	}
	for k := 0; k < 4; k++ {
		v := make([]uint64, n+1)
		v[k] = 1 << 60
		planted = append(planted, v)
	}
	return rows, planted
}

// BenchmarkKernel25x60Affine measures Kernel over Z/2^64 on one 25-row
// sample of 60 columns with 48 columns explained by the other 12, so the
// kernel is large (52 relations) and has non-unit pivots, as at a loop
// head. Before timing it checks that the kernel is sound (every vector
// annihilates every row, the affine constant included) and exactly the
// planted relations' span.
func BenchmarkKernel25x60Affine(b *testing.B) {
	rows, planted := affineData()
	ker := Kernel(rows, 60, 64)
	for _, g := range ker {
		if !annihilates(g, rows, 64) {
			b.Fatalf("kernel vector %v does not annihilate the rows", g)
		}
	}
	if got, want := Howell(ker, 64), Howell(planted, 64); !equalRows(got, want) {
		b.Fatalf("kernel has %d vectors spanning %d Howell rows; the planted relations give %d", len(ker), len(got), len(want))
	}
	b.ReportAllocs()
	for b.Loop() {
		Kernel(rows, 60, 64)
	}
}

// BenchmarkHowell25x60Affine measures the Howell form of the same 25×60
// rows' span, checking first that it contains every row and is a fixpoint.
func BenchmarkHowell25x60Affine(b *testing.B) {
	rows, _ := affineData()
	h := Howell(rows, 64)
	for _, r := range rows {
		if !InSpan(h, r, 64) {
			b.Fatalf("row %v not in its Howell form's span", r)
		}
	}
	if !equalRows(Howell(h, 64), h) {
		b.Fatal("Howell form is not a fixpoint of Howell")
	}
	b.ReportAllocs()
	for b.Loop() {
		Howell(rows, 64)
	}
}

// loopHead is one state of the loop `for (i = 0; i < n; i++) { s += a[i];
// b[i] = a[i]; }` at its head, in a -O0 source (frame at rsp, locals in
// 14 stack slots) and a vectorised -O3 target (rsp2 = rsp − 40, two
// spills).
type loopHead struct {
	rsp, a, b, n, i, s, lane0, last uint64
	rbx, r12, r13, r14, r15         uint64 // callee-saved: equal in both
	rbp, junk, canary, fs           uint64 // other per-run constants
	rng                             *rand.Rand
}

// loopCol is a column of the loop-head schema: a register, or a 64-bit
// stack slot at rsp+slot of its program's memory.
type loopCol struct {
	name string
	prog int   // 1: source, 2: target
	slot int64 // -1: a register
	val  func(h *loopHead) uint64
}

const loopCols1 = 30 // source columns; the target's follow

// loopColumns lists 30 source then 30 target columns; each program's rsp
// comes first in its half.
var loopColumns = func() []loopCol {
	reg := func(p int, name string, f func(h *loopHead) uint64) loopCol {
		return loopCol{name, p, -1, f}
	}
	slot := func(p int, off int64, f func(h *loopHead) uint64) loopCol {
		return loopCol{fmt.Sprintf("[rsp%d+%d]", p, off), p, off, f}
	}
	junk := func(h *loopHead) uint64 { return h.rng.Uint64() }
	cs := []loopCol{
		reg(1, "rsp1", func(h *loopHead) uint64 { return h.rsp }),
		reg(1, "rbp1", func(h *loopHead) uint64 { return h.rsp + 112 }),
		reg(1, "rax1", func(h *loopHead) uint64 { return h.a + 4*h.i }),
		reg(1, "rbx1", func(h *loopHead) uint64 { return h.rbx }),
		reg(1, "rcx1", func(h *loopHead) uint64 { return h.i }),
		reg(1, "rdx1", func(h *loopHead) uint64 { return 4 * h.i }),
		reg(1, "rsi1", func(h *loopHead) uint64 { return h.b }),
		reg(1, "rdi1", func(h *loopHead) uint64 { return h.a }),
		reg(1, "r8_1", func(h *loopHead) uint64 { return 0x601040 }),
		reg(1, "r9_1", func(h *loopHead) uint64 { return 0 }),
		reg(1, "r10_1", junk),
		reg(1, "r11_1", junk),
		reg(1, "r12_1", func(h *loopHead) uint64 { return h.r12 }),
		reg(1, "r13_1", func(h *loopHead) uint64 { return h.r13 }),
		reg(1, "r14_1", func(h *loopHead) uint64 { return h.r14 }),
		reg(1, "r15_1", func(h *loopHead) uint64 { return h.r15 }),
		slot(1, 0, func(h *loopHead) uint64 { return h.i }),
		slot(1, 8, func(h *loopHead) uint64 { return h.n }),
		slot(1, 16, func(h *loopHead) uint64 { return h.a }),
		slot(1, 24, func(h *loopHead) uint64 { return h.b }),
		slot(1, 32, func(h *loopHead) uint64 { return h.s }),
		slot(1, 40, func(h *loopHead) uint64 { return h.last }),
		slot(1, 48, func(h *loopHead) uint64 { return h.b + 4*h.i }),
		slot(1, 56, func(h *loopHead) uint64 { return h.a + 4*h.n }),
		slot(1, 64, func(h *loopHead) uint64 { return h.i * h.i }),
		slot(1, 72, func(h *loopHead) uint64 { return h.i & 7 }),
		slot(1, 80, func(h *loopHead) uint64 { return h.junk }),
		slot(1, 88, func(h *loopHead) uint64 { return h.canary }),
		slot(1, 112, func(h *loopHead) uint64 { return h.rbp }),
		slot(1, 120, func(h *loopHead) uint64 { return 0x401234 }), // return address

		reg(2, "rsp2", func(h *loopHead) uint64 { return h.rsp - 40 }),
		reg(2, "rax2", func(h *loopHead) uint64 { return h.s }),
		reg(2, "rbx2", func(h *loopHead) uint64 { return h.rbx }),
		reg(2, "rcx2", func(h *loopHead) uint64 { return h.i }),
		reg(2, "rdx2", func(h *loopHead) uint64 { return h.a + 4*h.n }),
		reg(2, "rsi2", func(h *loopHead) uint64 { return h.b + 4*h.i }),
		reg(2, "rdi2", func(h *loopHead) uint64 { return h.a + 4*h.i }),
		reg(2, "rbp2", func(h *loopHead) uint64 { return h.rbp }),
		reg(2, "r8_2", func(h *loopHead) uint64 { return h.n - h.i }),
		reg(2, "r9_2", func(h *loopHead) uint64 { return 4 * h.i }),
		reg(2, "r10_2", junk),
		reg(2, "r11_2", junk),
		reg(2, "r12_2", func(h *loopHead) uint64 { return h.r12 }),
		reg(2, "r13_2", func(h *loopHead) uint64 { return h.r13 }),
		reg(2, "r14_2", func(h *loopHead) uint64 { return h.r14 }),
		reg(2, "r15_2", func(h *loopHead) uint64 { return h.r15 }),
		reg(2, "xmm0lo", func(h *loopHead) uint64 { return h.lane0 }),
		reg(2, "xmm0hi", func(h *loopHead) uint64 { return h.s - h.lane0 }),
		reg(2, "xmm1lo", func(h *loopHead) uint64 { return h.last }),
		reg(2, "xmm1hi", junk),
		reg(2, "xmm2lo", func(h *loopHead) uint64 { return 8*h.i + 3 }),
		reg(2, "xmm2hi", func(h *loopHead) uint64 { return h.n &^ 1 }),
		reg(2, "xmm3lo", func(h *loopHead) uint64 { return 4*h.i - 4*h.n }),
		reg(2, "xmm3hi", junk),
		reg(2, "rip2", func(h *loopHead) uint64 { return 0x401300 }),
		reg(2, "eflags2", func(h *loopHead) uint64 { return uint64(h.rng.IntN(0x1000)) }),
		reg(2, "fs2", func(h *loopHead) uint64 { return h.fs }),
		reg(2, "xmm4lo", junk),
		slot(2, 8, func(h *loopHead) uint64 { return h.n }),
		slot(2, 16, func(h *loopHead) uint64 { return h.a + 4*h.i + 16 }),
	}
	if len(cs) != 2*loopCols1 || cs[0].name != "rsp1" || cs[loopCols1].name != "rsp2" {
		panic("loopColumns: bad layout")
	}
	return cs
}()

// loopSchema builds the loop-head schema in a fresh builder: registers are
// variables, stack slots 8-byte Selects of their program's memory at
// rsp+offset, and the two memories one pair with both rsps as bases.
func loopSchema() (*ir.Builder, *Schema) {
	b := ir.NewBuilder()
	s := &Schema{Mems: []MemPair{{Name: "mem", M1: b.Var("mem1", ir.MemSort), M2: b.Var("mem2", ir.MemSort)}}}
	mems := [3]ir.Term{1: s.Mems[0].M1, 2: s.Mems[0].M2}
	var rsp [3]ir.Term
	for _, c := range loopColumns {
		var t ir.Term
		if c.slot < 0 {
			t = b.Var(c.name, ir.BVSort(64))
			if rsp[c.prog] == ir.NoTerm {
				rsp[c.prog] = t
			}
		} else {
			t = b.Select(mems[c.prog], b.Add(rsp[c.prog], b.Const(64, uint64(c.slot))), 8)
		}
		s.Vars = append(s.Vars, Var{Name: c.name, Term: t})
	}
	s.Bases = []int{0, loopCols1}
	return b, s
}

// loopStates records 20 runs of the loop (random n ≥ 10, arrays, stack
// address, callee-saved values) for 10 iterations each: 200 states. Runs
// outnumber the 13 per-run values, else affine relations between those
// would hold by accident. The
// memories share the heap (a and the b[0..i) written so far) and differ in
// the two programs' stack slots, which hold the slot columns' values.
func loopStates() []State {
	rng := rand.New(rand.NewPCG(2019, 44))
	var out []State
	for range 20 {
		h := &loopHead{
			rsp:    0x7ffc0000 - uint64(rng.IntN(4096))*16,
			a:      0x555500000000 + uint64(rng.IntN(1<<20))*16,
			n:      uint64(10 + rng.IntN(100)),
			rbx:    rng.Uint64(),
			r12:    rng.Uint64(),
			r13:    rng.Uint64(),
			r14:    rng.Uint64(),
			r15:    rng.Uint64(),
			rbp:    0x7ffd0000 + uint64(rng.IntN(4096))*16,
			junk:   rng.Uint64(),
			canary: rng.Uint64() &^ 0xff,
			fs:     0x7f0000000000 + uint64(rng.IntN(1<<16))*4096,
			rng:    rng,
		}
		h.b = h.a + 4*h.n + uint64(rng.IntN(64))*16
		elems := make([]byte, 4*h.n)
		for k := range elems {
			elems[k] = byte(rng.Uint32())
		}
		heap := ir.NewMem(0).With(h.a, elems)
		for i := uint64(0); i < 10; i++ {
			h.i = i
			if i > 0 {
				e := elems[4*(i-1) : 4*i]
				h.last = uint64(binary.LittleEndian.Uint32(e))
				h.s += h.last
				if i%2 == 1 {
					h.lane0 += h.last
				}
				heap = heap.With(h.b+4*(i-1), e)
			}
			vals := make([]uint64, len(loopColumns))
			m := [3]*ir.Mem{1: heap, 2: heap}
			base := [3]uint64{1: h.rsp, 2: h.rsp - 40}
			for c, col := range loopColumns {
				vals[c] = col.val(h)
				if col.slot >= 0 {
					m[col.prog] = m[col.prog].With(base[col.prog]+uint64(col.slot), binary.LittleEndian.AppendUint64(nil, vals[c]))
				}
			}
			out = append(out, State{Vals: vals, Mems: [][2]*ir.Mem{{m[1], m[2]}}})
		}
	}
	return out
}

// checkLoopCandidates fails b unless the candidates hold on every state
// (by the evaluator, which also checks that the slot columns match the
// memories) and include the loop's main invariants.
func checkLoopCandidates(b *testing.B, bld *ir.Builder, s *Schema, states []State, cs []Candidate) {
	b.Helper()
	for r, st := range states {
		env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
			s.Mems[0].M1: ir.MemValue(st.Mems[0][0]),
			s.Mems[0].M2: ir.MemValue(st.Mems[0][1]),
		}}
		for i, c := range loopColumns {
			if c.slot < 0 {
				env.Vars[s.Vars[i].Term] = ir.BVValue(ir.NewBV(64, st.Vals[i]))
			}
		}
		ev := ir.NewEvaluator(bld, env)
		for i, v := range s.Vars {
			if got, err := ev.Eval(v.Term); err != nil || got.BV() != ir.NewBV(64, st.Vals[i]) {
				b.Fatalf("state %d: %s evaluates to %v (%v), recorded %#x", r, v.Name, got, err, st.Vals[i])
			}
		}
		for _, c := range cs {
			if v, err := ev.Eval(c.Term); err != nil || !v.Bool() {
				b.Fatalf("state %d: candidate %q is not true (%v)", r, c.Desc, err)
			}
		}
	}
	kinds := map[Kind]int{}
	for _, c := range cs {
		kinds[c.Kind]++
	}
	if kinds[Equality] < 30 {
		b.Errorf("%d equalities, want at least 30", kinds[Equality])
	}
	for _, k := range []Kind{Congruence, Bound, Order, Memory} {
		if kinds[k] == 0 {
			b.Errorf("no %v candidates", k)
		}
	}
	all := make([]string, len(cs))
	for k, c := range cs {
		all[k] = c.Desc
	}
	text := strings.Join(all, "; ")
	for _, want := range loopWanted {
		if !strings.Contains(text, want) {
			b.Errorf("missing %q", want)
		}
	}
	if b.Failed() {
		b.Fatalf("candidates: %s", text)
	}
}

// loopWanted are candidates the loop-head data must give.
var loopWanted = []string{
	"rcx2 = rcx1",
	"rax2 = [rsp1+32]",
	"rdi2 = rax1",
	"rsi2 = [rsp1+48]",
	"[rsp1+48] = 4·rcx1 + rsi1",
	"xmm0hi = [rsp1+32] - xmm0lo",
	"r8_2 = [rsp1+8] - rcx1",
	"rsp2 = rsp1 - 40",
	"[rsp2+8] = [rsp1+8]",
	"mem₁ = mem₂ outside [rsp1-32, ",
}

// BenchmarkLearnNode measures one whole learning step (Learn, every kind)
// for one product-program node: a loop head with 30 source and 30 target
// 64-bit columns (registers and stack slots) and one memory pair, over 200
// trace states from 20 runs. Most columns are copies, offsets and scaled
// forms of the counter, the pointers and the sum, or equal across the
// programs, and a few are junk, as at a real loop head. Each iteration
// builds the schema in a fresh builder, so the candidates' terms are
// interned anew, as on a node's first visit; "reused" keeps one builder,
// in which every term already exists after the first call.
func BenchmarkLearnNode(b *testing.B) {
	states := loopStates()
	bld, s := loopSchema()
	cs, err := Learn(bld, s, states, Options{})
	if err != nil {
		b.Fatal(err)
	}
	checkLoopCandidates(b, bld, s, states, cs)
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bld, s := loopSchema()
			if _, err := Learn(bld, s, states, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reused", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Learn(bld, s, states, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
