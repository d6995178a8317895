package x86

import (
	"fmt"
	"slices"
	"strings"
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
		"sw3": func(n, y int32) int32 {
			v := uint32(y)
			for i := int32(0); i < n; i++ {
				switch (v + uint32(i)) % 6 {
				case 0:
					v += 3
				case 1:
					v *= 5
				case 2:
					v -= 11
				case 3:
					v ^= 0x5a
				case 4:
					v >>= 1
				case 5:
					v = ^v
				}
			}
			return int32(v)
		},
	}
	// -fpie (Debian's default) makes tables of 4-byte offsets from the
	// table; eqc's flags (-fno-pie) make tables of 8-byte addresses.
	for _, cc := range []string{"gcc", "clang-16"} {
		for _, opt := range []string{"-O0", "-O2", "-O3", "-O0 -fpie", "-O2 -fpie", "-O3 -fpie"} {
			opt, pic, _ := strings.Cut(opt, " ")
			f := mustOpen(t, compileObject(t, cc, opt, "switch.c", strings.Fields(pic)...))
			for name, want := range oracle {
				fn := mustFunction(t, f, name)
				where := fmt.Sprintf("%s %s %s %s", cc, opt, pic, name)
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

// TestRelativeTableBase lifts testdata/reltable.s, jumps through tables of
// 4-byte offsets whose base register is loaded before a loop: the lifter
// branches on the table only where the register is the table's address on
// every path to the jmp (the lea runs first, nothing writes it after).
func TestRelativeTableBase(t *testing.T) {
	f := mustOpen(t, compileObject(t, "gcc", "-O0", "reltable.s"))
	for _, c := range []struct {
		name      string
		supported bool
	}{
		{"ok", true},        // loaded once before the loop
		{"moved", false},    // the loop adds 4 to it
		{"bypassed", false}, // one path skips the lea
	} {
		fn := mustFunction(t, f, c.name)
		if len(fn.Unsupported) > 0 {
			t.Errorf("%s: the decoder found no table: %v", c.name, fn.Unsupported)
			continue
		}
		g := f.TFG(ir.NewBuilder(), fn, StateNames{})
		if got := !slices.Contains(g.Unsupported, "indirect-jump"); got != c.supported {
			t.Errorf("%s: lifted as a table jump: %v, want %v (unsupported %v)", c.name, got, c.supported, g.Unsupported)
		}
		if c.supported {
			for n := int32(1); n < 6; n++ {
				got, err := runToExit(g, n, 0)
				if want := n + (n+1)/2; err != nil || got != want {
					t.Errorf("%s(%d) = %d, %v; want %d", c.name, n, got, err, want)
				}
			}
		}
	}
}
