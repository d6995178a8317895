package tracer

import (
	"context"
	"sort"
	"strings"
	"testing"
)

// ccSrc exercises common integer code: arithmetic, shifts, compares,
// multiplications and divisions, sign and zero extension, memory operands,
// calls and the stack.
const ccSrc = `
long mix(long a, long b, int c) {
	long r = a * 3 + (b >> 2) - (c << 1);
	if (c != 0) r ^= a / c;
	r += (unsigned char)b + (short)a;
	return r % 7 ? r : -r;
}
int dot(const int *x, const int *y, int n) { int s = 0; for (int i = 0; i < n; i++) s += x[i] * y[i]; return s; }
static int helper(int v) { return v * v - 1; }
int callsum(const int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += helper(p[i]); return s; }
unsigned bits(unsigned x) { unsigned n = 0; while (x) { x &= x - 1; n++; } return n + (x >> 3); }
void vadd(int *a, const int *b, const int *c, int n) { for (int i = 0; i < n; i++) a[i] += b[i] * c[i]; }
`

var ccFuncs = []string{"mix", "dot", "callsum", "bits", "vadd"}

func TestCrossCheck(t *testing.T) {
	total, mism := 0, 0
	forms := map[string]int{}
	for _, cc := range []string{"gcc", "clang-16"} {
		for _, opt := range []string{"-O0", "-O3"} {
			targets := linkTargets(t, cc, "cc", ccSrc, ccFuncs, opt, "-fno-inline")
			for _, tg := range targets {
				vs, err := Generate(context.Background(), []*Target{tg}, GenerateOptions{Vectors: 6, Seed: 2, Stall: 5})
				if err != nil {
					t.Fatal(err)
				}
				rep, err := CrossCheck(context.Background(), tg, vs.Vectors, CrossCheckOptions{})
				if err != nil {
					t.Fatalf("%s %s %s: %v", cc, opt, tg.Name, err)
				}
				if rep.Checked == 0 {
					t.Errorf("%s %s %s: nothing checked (%+v)", cc, opt, tg.Name, rep)
				}
				total += rep.Checked
				mism += rep.Mismatches
				for _, m := range rep.First {
					forms[m.Intel+" | "+strings.Join(m.Diffs, "; ")] += m.Count
					t.Logf("%s %s %s: mismatch %v\n\tpre %v", cc, opt, tg.Name, m.String(), m.Pre.String())
				}
				for u, n := range rep.Unsupported {
					t.Logf("%s %s %s: unsupported %s ×%d", cc, opt, tg.Name, u, n)
				}
			}
		}
	}
	t.Logf("cross-checked %d instructions, %d mismatches", total, mism)
	var keys []string
	for k := range forms {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("mismatching form ×%d: %s", forms[k], k)
	}
	if total < 1000 {
		t.Errorf("only %d instructions checked", total)
	}
}

// TestCrossCheckDetects corrupts the CPU's post-states and expects every
// corrupted instruction to be reported.
func TestCrossCheckDetects(t *testing.T) {
	targets := linkTargets(t, "gcc", "cc", ccSrc, []string{"vadd"}, "-O1")
	tg := targets[0]
	v := Vector{Args: []uint64{HeapAddr, HeapAddr + 0x1000, HeapAddr + 0x2000, 5},
		Mem: []MemInit{{Addr: HeapAddr + 0x1000, Data: int32s([]int32{1, 2, 3, 4, 5})}, {Addr: HeapAddr + 0x2000, Data: int32s([]int32{3, 4, 5, 6, 7})}}}
	for _, corrupt := range []string{"r11", "zf", "xmm5", "mem"} {
		rep := &CrossCheckReport{Unsupported: map[string]int{}, Skipped: map[string]int{}}
		c := newChecker(tg.Exe, tg.Proc, rep, CrossCheckOptions{MaxMismatches: 100})
		stores := 0
		step := func(pre, real *State) bool {
			// Corrupt a copy: the tracer's post-state becomes the next pre-state.
			cp := cloneState(real)
			post := &cp
			switch corrupt {
			case "r11":
				post.Regs[R11] ^= 4
			case "zf":
				post.Rflags ^= 1 << 6
			case "xmm5":
				post.Xmm[5][1] ^= 1
			case "mem":
				// Corrupt the blocks the instruction changed (the same
				// bytes may be recorded twice).
				hit := false
				for i := range post.Mem {
					if c.cur != nil && i < len(pre.Mem) && string(pre.Mem[i].Bytes) != string(post.Mem[i].Bytes) {
						post.Mem[i].Bytes[0] ^= 0x80
						hit = true
					}
				}
				if hit {
					stores++
				}
			}
			return c.step(pre, post)
		}
		if _, err := tg.Proc.Run(tg.Addr(), v, &RunOptions{Step: step, BeforeStep: c.before}); err != nil {
			t.Fatal(err)
		}
		want := rep.Checked
		switch corrupt {
		case "zf":
			// Only instructions whose zf is defined are compared.
			want = rep.Checked * 3 / 4
		case "mem":
			want = stores
		}
		if rep.Mismatches < want || want == 0 || len(rep.First) == 0 {
			t.Fatalf("%s: %d mismatches of %d checked, want %d", corrupt, rep.Mismatches, rep.Checked, want)
		}
		t.Logf("%s: checked %d, mismatches %d; first %v", corrupt, rep.Checked, rep.Mismatches, rep.First[0].String())
	}
}
