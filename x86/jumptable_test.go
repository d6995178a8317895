package x86

import (
	"fmt"
	"testing"

	"eqc/ir"
)

// TestJumpTables lifts testdata/switch.c, whose switches both compilers
// turn into jump tables at every level, and runs each TFG concretely for
// every case index and a few past the table: the return value must be the
// C function's (the oracle below, written from the source), and an index
// never takes the fault edge past the table (the bound check is in front).
func TestJumpTables(t *testing.T) {
	oracle := map[string]func(x, y int32) int32{
		"sw": func(x, y int32) int32 {
			switch x {
			case 0:
				return y + 1
			case 1:
				return y * 3
			case 2:
				return y - 7
			case 3:
				return y ^ 5
			case 4:
				return 11
			case 6:
				return y << 2
			}
			return 0
		},
		"sw2": func(k, y int32) int32 {
			return [8]int32{y, y + 1, y + 2, y * y, -y, ^y, y >> 1, 100}[uint32(k)&7]
		},
	}
	for _, cc := range []string{"gcc", "clang-16"} {
		for _, opt := range []string{"-O0", "-O2", "-O3"} {
			f := mustOpen(t, compileObject(t, cc, opt, "switch.c"))
			for name, want := range oracle {
				fn := mustFunction(t, f, name)
				where := fmt.Sprintf("%s %s %s", cc, opt, name)
				if len(fn.Unsupported) > 0 {
					t.Errorf("%s: unsupported %v", where, fn.Unsupported)
					continue
				}
				tables := 0
				for _, blk := range fn.Blocks {
					if blk.Term == TermJumpTable {
						tables++
					}
				}
				if tables == 0 {
					t.Errorf("%s: no jump table (the test needs one)", where)
				}
				b := ir.NewBuilder()
				g := f.TFG(b, fn, StateNames{})
				if err := g.Check(); err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				for x := int32(-2); x < 12; x++ {
					y := int32(0x1234567) * (x + 3)
					got, err := runToExit(g, x, y)
					if err != nil {
						t.Errorf("%s(%d, %d): %v", where, x, y, err)
					} else if got != want(x, y) {
						t.Errorf("%s(%d, %d) = %d, want %d", where, x, y, got, want(x, y))
					}
				}
			}
		}
	}
}

// runToExit evaluates g from its entry on a state of zeros but for the
// first two argument registers, x and y, and a stack pointer, and returns
// eax at the exit.
func runToExit(g *ir.TFG, x, y int32) (int32, error) {
	st := make([]ir.Value, len(g.State))
	for i, v := range g.State {
		st[i] = ir.ValueFromHash(g.B.Sort(v.Var), 0)
	}
	st[StateGPR0+RSP] = ir.BVValue(ir.NewBV(64, 0x7fff0000))
	st[StateGPR0+RDI] = ir.BVValue(ir.NewBV(64, uint64(int64(x))))
	st[StateGPR0+RSI] = ir.BVValue(ir.NewBV(64, uint64(int64(y))))
	n := g.Entry
	for steps := 0; steps < 1000; steps++ {
		if n == g.Exit {
			return int32(st[StateGPR0+RAX].BV().Uint64()), nil
		}
		step, err := g.EvalStep(n, st, zeroEnv{})
		if err != nil {
			return 0, err
		}
		if step.Fault {
			return 0, fmt.Errorf("fault on the edge to node %d", step.Edge.To)
		}
		n, st = step.Edge.To, step.Next
	}
	return 0, fmt.Errorf("no exit after 1000 steps")
}

// zeroEnv evaluates what a TFG of a call-free function leaves free: fresh
// values as zero.
type zeroEnv struct{}

func (zeroEnv) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	return ir.ValueFromHash(b.Sort(t), 0), true
}

func (zeroEnv) ApplyFunc(f *ir.Func, args []ir.Value) (ir.Value, bool) {
	return ir.ValueFromHash(f.Result, 0), true
}
