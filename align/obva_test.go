package align

import (
	"context"
	"slices"
	"testing"

	"eqc/ir"
)

// TestFrameTaintTerms pins the may-depend-on rules on hand-built terms:
// what is computed from the entry rsp, or loaded from the frame without a
// store that gives the value exactly, may be derived; loads elsewhere are
// not, until a derived value may have been stored there.
func TestFrameTaintTerms(t *testing.T) {
	b := ir.NewBuilder()
	rsp := b.Var("src.rsp", ir.BVSort(64))
	x := b.Var("src.rdi", ir.BVSort(64))
	m := b.Var("mem", ir.MemSort)
	c := func(v int64) ir.Term { return b.Const(64, uint64(v)) }
	frame := func(off int64) ir.Term { return b.Add(rsp, c(off)) }
	cases := []struct {
		name string
		t    ir.Term
		heap bool
		want bool
	}{
		{"entry rsp", rsp, false, true},
		{"frame address", frame(-8), false, true},
		{"argument", x, false, false},
		{"argument arithmetic", b.Add(x, b.Mul(c(4), x)), false, false},
		{"frame slot holding a frame address", b.Select(b.Store(m, frame(-16), 8, frame(-8)), frame(-16), 8), false, true},
		{"frame slot holding an argument", b.Select(b.Store(m, frame(-16), 8, x), frame(-16), 8), false, false},
		{"frame slot past a pointer store", b.Select(b.Store(b.Store(m, frame(-16), 8, x), b.Add(x, c(4)), 4, b.Extract(x, 31, 0)), frame(-16), 8), false, false},
		{"frame slot past a store of a frame address", b.Select(b.Store(b.Store(m, frame(-16), 8, x), x, 8, frame(-32)), frame(-16), 8), false, true},
		{"frame bytes nothing stored", b.Select(m, frame(-24), 8), false, true},
		{"memory through an argument", b.Select(m, x, 8), false, false},
		{"memory through an argument, frame addresses escaped", b.Select(m, x, 8), true, true},
		{"either arm", b.Select(b.Ite(b.Eq(x, c(0)), b.Store(m, x, 8, frame(-8)), m), x, 8), false, true},
	}
	for _, tc := range cases {
		ft := &frameTaint{b: b, rsp0: rsp, derived: map[ir.Term]bool{}, heap: tc.heap, memo: map[ir.Term]bool{}}
		if got := ft.of(tc.t); got != tc.want {
			t.Errorf("%s: derived = %v, want %v (%s)", tc.name, got, tc.want, b.Short(tc.t))
		}
	}
}

// TestOBVAFlipWords builds the product of the seed's bit-flip loop over a
// pointer argument (gcc-12 -O0 against -O3): a vector loop of 4 ints and a
// scalar tail of 0 to 3, which the correlation pairs with up to 7 source
// iterations. Under OBVA the array pointer and the counter are not derived
// from rsp, the frame pointer is, and every edge on which the source stores
// through the array has hypotheses; without the model, none.
func TestOBVAFlipWords(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with gcc-12")
	}
	objs := compileC(t, "gcc-12", "flip", "void flip_words(int *array, int len)\n{\n\tfor (int i = 0; i < len; i++)\n\t\tarray[i] = ~array[i];\n}\n", "O0", "O3")
	for _, obva := range []bool{true, false} {
		p, err := LoadPair(objs["O0"], "flip_words", objs["O3"], "flip_words")
		if err != nil {
			t.Fatal(err)
		}
		p.OBVA = obva
		runs := p.coExecuteAll(context.Background())
		aligns := p.correlate(runs, 1)
		if len(aligns) == 0 {
			t.Fatal("no alignment of the co-executions")
		}
		pr, reason := p.buildProduct(aligns[0], runs, false)
		if pr == nil {
			t.Fatal(reason)
		}
		_, assumptions := p.loopPrecondition()
		if got := slices.Contains(assumptions, obvaAssumption); got != obva {
			t.Errorf("OBVA %v: the assumptions list the model: %v", obva, got)
		}
		if !obva {
			for _, e := range pr.Edges {
				if len(e.obvaHyps) > 0 {
					t.Errorf("without the model, edge n%d→n%d has hypotheses", e.From, e.To)
				}
			}
			continue
		}
		if pr.taint == nil {
			t.Fatal("no taint analysis under the model")
		}
		for _, n := range pr.Nodes {
			for _, c := range n.comps {
				if c.side != 0 {
					continue
				}
				name := p.B.Short(c.term)
				derived := pr.taint.of(c.term)
				switch {
				case c.state < 0 && c.slot.off == -0x8:
					// The saved caller's rbp: not derived.
					if derived {
						t.Errorf("n%d: saved rbp slot %s derived", n.ID, name)
					}
				case c.state < 0 && derived:
					t.Errorf("n%d: slot %s derived (array pointer, counter or bound)", n.ID, name)
				}
			}
		}
		with := 0
		for _, e := range pr.Edges {
			if e.Infeasible || e.Spec.mu == 0 {
				continue
			}
			if len(e.obvaHyps) == 0 {
				t.Errorf("edge n%d→n%d (≤%d source iterations) has no hypotheses", e.From, e.To, e.Spec.mu)
			}
			with++
		}
		if with == 0 {
			t.Error("no edge takes the source around its loop")
		}
	}
}
