package pair_test

import (
	"context"
	"testing"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/x86"
)

// TestSmallModelBounds: a model whose int argument is 2^30 breaks the
// bounds of every tier; one whose argument is small does not, whatever
// the register's undefined upper half holds; one that repeats a run's
// argument (upper half aside) breaks them, as RunFromModel would not run
// it again. The bounds, evaluated, say the same.
func TestSmallModelBounds(t *testing.T) {
	const src = "void addn(int *d, const int *s, int n)\n{\n\tfor (int i = 0; i < n; i++)\n\t\td[i] += s[i];\n}\n"
	p := aligntest.LoadPair(t, "gcc-12", "addn", src, "O0", "O3")
	b := p.B
	runs := p.CoExecuteAll(context.Background())
	nVar := p.SrcVar(x86.StateGPR0 + x86.RDX)
	used := map[uint32]bool{}
	for _, cr := range runs {
		used[uint32(cr.Entry[x86.StateGPR0+x86.RDX].BV().Uint64())] = true
	}
	fresh := uint32(0)
	for used[fresh] {
		fresh++
	}
	if fresh > 4 {
		t.Fatalf("the runs take every n from 0 to 4: no small fresh argument to try")
	}
	const upper = uint64(0xdead) << 32
	model := func(n uint64) ir.Env {
		return &ir.MapEnv{Vars: map[ir.Term]ir.Value{nVar: ir.BVValue(ir.NewBV(64, n))}}
	}
	for _, tc := range []struct {
		name string
		n    uint64
		runs []*pair.CoRun
		want bool // outside the bounds
	}{
		{"2^30", 1 << 30, nil, true},
		{"-2^31", 0x80000000, nil, true},
		{"small, upper half set", upper | uint64(fresh), runs, false},
		{"-3", upper | 0xfffffffd, nil, false},
		{"a run's argument, upper half set", upper | uint64(uint32(runs[0].Entry[x86.StateGPR0+x86.RDX].BV().Uint64())), runs, true},
	} {
		for _, bound := range pair.SmallModelTiers {
			m := model(tc.n)
			term, outside := p.SmallModelBounds(m, bound, tc.runs)
			if outside != tc.want {
				t.Errorf("%s, bound %d: outside = %v, want %v", tc.name, bound, outside, tc.want)
			}
			v, err := ir.NewEvaluator(b, m).Eval(term)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if v.Bool() == outside {
				t.Errorf("%s, bound %d: the bounds evaluate to %v, outside = %v", tc.name, bound, v.Bool(), outside)
			}
		}
	}
}

// TestSharedArrays: a model whose two pointer arguments lie 8 bytes apart
// gives a run with both in one array, 8 bytes apart as in the model (the
// proof file records the offsets); one whose pointers are a megabyte
// apart gives separate arrays, as the seeded runs have.
func TestSharedArrays(t *testing.T) {
	const src = "void addn(int *d, const int *s, int n)\n{\n\tfor (int i = 0; i < n; i++)\n\t\td[i] += s[i];\n}\n"
	p := aligntest.LoadPair(t, "gcc-12", "addn", src, "O0", "O3")
	reg := func(r int) ir.Term { return p.SrcVar(x86.StateGPR0 + r) }
	model := func(d, s uint64) ir.Env {
		return &ir.MapEnv{Vars: map[ir.Term]ir.Value{
			reg(x86.RDI): ir.BVValue(ir.NewBV(64, d)), reg(x86.RSI): ir.BVValue(ir.NewBV(64, s)), reg(x86.RDX): ir.BVValue(ir.NewBV(64, 12)),
		}}
	}
	r, ok := p.RunFromModel(model(0x7000_0010, 0x7000_0008), ir.NoTerm, pair.ExtraRunSeed(0), nil)
	if !ok {
		t.Fatal("no run from a model with overlapping arrays")
	}
	if len(r.Shared) != 2 || r.Shared[0] != 8 || r.Shared[1] != 0 {
		t.Fatalf("shared offsets %v, want [8 0]", r.Shared)
	}
	cr := p.CoExecuteExtra(r)
	d, s := cr.Entry[x86.StateGPR0+x86.RDI].BV().Uint64(), cr.Entry[x86.StateGPR0+x86.RSI].BV().Uint64()
	if d-s != 8 {
		t.Errorf("the run's d − s = %#x, want 8", d-s)
	}
	if !cr.Src.Ended || !cr.Dst.Ended {
		t.Errorf("the run over overlapping arrays does not end")
	}
	r, ok = p.RunFromModel(model(0x7000_0000, 0x7010_0000), ir.NoTerm, pair.ExtraRunSeed(0), nil)
	if !ok || r.Shared != nil {
		t.Errorf("pointers a megabyte apart: run %v, shared %v; want a run with separate arrays", ok, r.Shared)
	}
}

// TestRunFromNodeMemory: a model of a loop head's state sets the node's
// memory and leaves the entry memory free (its default byte); the run
// from it takes its string's bytes from the node's memory when given one,
// where a blank-skipping loop's blanks are, and from the entry memory
// otherwise.
func TestRunFromNodeMemory(t *testing.T) {
	const src = "int is_blank(const char *s)\n{\n\twhile (*s == ' ' || *s == '\\t')\n\t\ts++;\n\treturn *s == 0 || *s == '\\n';\n}\n"
	p := aligntest.LoadPair(t, "gcc-12", "is_blank", src, "O0", "O3")
	b := p.B
	const s = 0x3000_0100
	nodeMem := b.Var("n1.mem", ir.MemSort)
	blanks := ir.NewMem(0).With(s, []byte("  \t\n"))
	m := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
		p.SrcVar(x86.StateGPR0 + x86.RDI): ir.BVValue(ir.NewBV(64, s)),
		p.SrcVar(x86.StateMem):            ir.MemValue(ir.NewMem(0)),
		nodeMem:                           ir.MemValue(blanks),
	}}
	for _, tc := range []struct {
		name string
		mem  ir.Term
		want []byte
	}{{"node memory", nodeMem, []byte("  \t\n")}, {"entry memory", ir.NoTerm, []byte{0, 0, 0, 0}}} {
		r, ok := p.RunFromModel(m, tc.mem, pair.ExtraRunSeed(0), nil)
		if !ok {
			t.Fatalf("%s: no run", tc.name)
		}
		if got := r.Pointee(0); len(got) < 4 || string(got[:4]) != string(tc.want) {
			t.Errorf("%s: pointee %q, want it to start with %q", tc.name, got, tc.want)
		}
	}
}
