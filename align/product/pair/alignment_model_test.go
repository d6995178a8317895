package pair_test

import (
	"slices"
	"strings"
	"testing"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/ub"
	"eqc/x86"
)

// The alignment model's premises: one per pointer parameter to a scalar
// of 2, 4 or 8 bytes, in the register it arrives in; none for char, void,
// struct or stack-passed pointers, and none without the model. Each
// premise is checked against the evaluator: true for the aligned value,
// false one byte past it.
func TestAlignedParams(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with gcc-12")
	}
	src := `struct s { char c[4]; };
enum e { A, B };
long f(int *i, char *c, long *l, struct s *st, double *d, void *v, short *sh, enum e *en)
{
	return *i + *c + *l + st->c[0] + (long)*d + (v != 0) + *sh + *en;
}
`
	objs := aligntest.CompileC(t, "gcc-12", "aligned", src, "O0")
	want := map[string]uint64{"i": 4, "l": 8, "d": 8} // rdi, rdx, r8; sh and en arrive on the stack
	for _, models := range []ub.Set{ub.All, ub.All &^ (1 << ub.Align)} {
		p, err := pair.Load(objs["O0"], "f", objs["O0"], "f")
		if err != nil {
			t.Fatal(err)
		}
		p.Models = models
		pre, lines := p.ModelPrecondition()
		var got []string
		for _, l := range lines {
			if name, ok := strings.CutPrefix(l, "align: parameter "); ok {
				got = append(got, strings.Fields(name)[0])
			}
		}
		if !models.Has(ub.Align) {
			if len(got) > 0 {
				t.Errorf("without the model: premises for %v", got)
			}
			continue
		}
		slices.Sort(got)
		if !slices.Equal(got, []string{"d", "i", "l"}) {
			t.Errorf("premises for %v, want d, i, l", got)
		}
		regs := map[string]int{"i": x86.StateGPR0 + x86.RDI, "l": x86.StateGPR0 + x86.RDX, "d": x86.StateGPR0 + 8}
		for name, size := range want {
			for _, off := range []uint64{0, 1} {
				env := zeroEnv{vals: map[ir.Term]ir.Value{}}
				rsp := p.SrcVar(x86.StateGPR0 + x86.RSP)
				env.vals[rsp] = ir.BVValue(ir.NewBV(64, 0x7fff_0000_0008))
				for other, sz := range want {
					env.vals[p.SrcVar(regs[other])] = ir.BVValue(ir.NewBV(64, 0x1000*sz))
				}
				env.vals[p.SrcVar(regs[name])] = ir.BVValue(ir.NewBV(64, 0x2000*size+off))
				v, err := ir.NewEvaluator(p.B, env).Eval(pre)
				if err != nil {
					t.Fatal(err)
				}
				if v.Bool() != (off == 0) {
					t.Errorf("%s = %#x: precondition %v", name, 0x2000*size+off, v.Bool())
				}
			}
		}
	}
}

// zeroEnv gives its variables their values and every other one zero.
type zeroEnv struct{ vals map[ir.Term]ir.Value }

func (e zeroEnv) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	if v, ok := e.vals[t]; ok {
		return v, true
	}
	return ir.ZeroValue(b.Sort(t)), true
}

func (e zeroEnv) ApplyFunc(*ir.Func, []ir.Value) (ir.Value, bool) { return ir.Value{}, false }
