package product_test

import (
	"context"
	"slices"
	"testing"

	"eqc/align/correlate"
	"eqc/align/internal/aligntest"
	"eqc/align/product"
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/ub"
)

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
	objs := aligntest.CompileC(t, "gcc-12", "flip", "void flip_words(int *array, int len)\n{\n\tfor (int i = 0; i < len; i++)\n\t\tarray[i] = ~array[i];\n}\n", "O0", "O3")
	for _, obva := range []bool{true, false} {
		p, err := pair.Load(objs["O0"], "flip_words", objs["O3"], "flip_words")
		if err != nil {
			t.Fatal(err)
		}
		p.OBVA = obva
		runs := p.CoExecuteAll(context.Background())
		aligns := correlate.Engine{}.Alignments(context.Background(), p, runs, 1).Alignments
		if len(aligns) == 0 {
			t.Fatal("no alignment of the co-executions")
		}
		pr, reason := product.Build(p, aligns[0], runs, product.Learning{})
		if pr == nil {
			t.Fatal(reason)
		}
		_, assumptions := p.ModelPrecondition()
		if got := slices.Contains(assumptions, pair.OBVAAssumption); got != obva {
			t.Errorf("OBVA %v: the assumptions list the model: %v", obva, got)
		}
		if !obva {
			for _, e := range pr.Edges {
				if len(product.OBVAHyps(e)) > 0 {
					t.Errorf("without the model, edge n%d→n%d has hypotheses", e.From, e.To)
				}
			}
			continue
		}
		if product.Taint(pr) == nil {
			t.Fatal("no taint analysis under the model")
		}
		for _, n := range pr.Nodes {
			for _, sl := range product.SrcSlotVars(n) {
				name := p.B.Short(sl.Term)
				derived := product.Taint(pr).Derived(sl.Term)
				switch {
				case sl.Off == -0x8:
					// The saved caller's rbp: not derived.
					if derived {
						t.Errorf("n%d: saved rbp slot %s derived", n.ID, name)
					}
				case derived:
					t.Errorf("n%d: slot %s derived (array pointer, counter or bound)", n.ID, name)
				}
			}
		}
		with, laterPasses := 0, 0
		for _, e := range pr.Edges {
			if e.Infeasible || e.Spec.Mu == 0 {
				continue
			}
			if len(product.OBVAHyps(e)) == 0 {
				t.Errorf("edge n%d→n%d (≤%d source iterations) has no hypotheses", e.From, e.To, e.Spec.Mu)
			}
			with++
			// A later pass's hypothesis reads its counter and the array
			// pointer back from the frame through the earlier passes'
			// stores to the array, under a premise that the earlier
			// passes' own hypotheses extend: those place the stores
			// outside the frame (ub.PassFrameStores), so neither the
			// hypotheses nor the rewritten ones read the frame through a
			// store.
			for _, h := range product.OBVAHyps(e) {
				if p.B.Op(h) == ir.OpImplies && p.B.Op(p.B.Arg(h, 0)) == ir.OpAnd {
					laterPasses++
				}
			}
			if n := frameReads(p, pr, product.OBVAHyps(e)); n > 0 {
				t.Errorf("edge n%d→n%d: %d frame reads through a store left in the hypotheses", e.From, e.To, n)
			}
			if n := frameReads(p, pr, product.RewrittenHyps(e)); n > 0 {
				t.Errorf("edge n%d→n%d: %d frame reads left in the rewritten hypotheses", e.From, e.To, n)
			}
		}
		if with == 0 {
			t.Error("no edge takes the source around its loop")
		}
		if laterPasses == 0 {
			t.Error("no hypothesis of a later loop pass: the check above tests nothing")
		}
	}
}

// frameReads counts the reads of ts at constant offsets from the entry
// rsp through a store at another address.
func frameReads(p *pair.Pair, pr *product.Product, ts []ir.Term) int {
	b := p.B
	n := 0
	for _, t := range b.PostOrder(ts...) {
		if b.Op(t) != ir.OpSelect || b.Op(b.Arg(t, 0)) != ir.OpStore {
			continue
		}
		if _, ok := ub.FrameOffset(b, product.Rsp0(pr), b.Arg(t, 1)); ok {
			n++
		}
	}
	return n
}
