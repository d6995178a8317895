package tracer

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"eqc/x86"
)

// covSrc holds small functions with branches and loops.
const covSrc = `
int classify(int x) { if (x > 100) return 1; if (x < -5) return 2; return 3; }
int sumpos(const int *p, int n) {
	int s = 0;
	for (int i = 0; i < n; i++) { if (p[i] > 0) s += p[i]; else s -= 1; }
	if (n > 3) s *= 2;
	return s;
}
int find(const int *p, int n, int key) { for (int i = 0; i < n; i++) if (p[i] == key) return i; return -1; }
int magic(int x) { if (x == 12345) return 7; return 0; }
long collatz(long n) {
	long steps = 0;
	while (n > 1 && steps < 20) { if (n & 1) n = 3 * n + 1; else n /= 2; steps++; }
	return steps;
}
int g_counter;
int bump(int x) { if (g_counter > 10) g_counter = 0; else g_counter += x; return g_counter; }
unsigned slen(const char *s) { unsigned n = 0; while (s[n]) n++; return n; }
void scale(int *a, const int *b, int n, int k) { for (int i = 0; i < n; i++) a[i] = b[i] > k ? b[i] * k : b[i] - k; }
`

var covFuncs = []string{"classify", "sumpos", "find", "magic", "collatz", "bump", "slen", "scale"}

// linkTargets compiles src with cc and flags, links it and returns targets
// for the named functions sharing one process.
func linkTargets(t testing.TB, cc, name, src string, funcs []string, flags ...string) []*Target {
	t.Helper()
	obj := compile(t, cc, name, src, flags...)
	exe, err := Link(obj, LinkOptions{Dir: filepath.Dir(obj)})
	if err != nil {
		t.Fatal(err)
	}
	file, err := x86.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(exe, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	var out []*Target
	for _, f := range funcs {
		tg, err := NewTarget(file, exe, f)
		if err != nil {
			t.Fatal(err)
		}
		tg.Proc = p
		out = append(out, tg)
	}
	return out
}

func TestCoverageSmallFunctions(t *testing.T) {
	for _, cc := range []string{"gcc", "clang-16"} {
		for _, opt := range []string{"-O0", "-O3"} {
			targets := linkTargets(t, cc, "cov", covSrc, covFuncs, opt)
			for _, tg := range targets {
				vs, err := Generate(context.Background(), []*Target{tg}, GenerateOptions{Vectors: 16, Seed: 1})
				if err != nil {
					t.Fatalf("%s %s %s: %v", cc, opt, tg.Name, err)
				}
				c := vs.Coverage[0]
				t.Logf("%s %s %-9s blocks %2d covered %.2f vectors %2d runs %4d faults %d rounds %d",
					cc, opt, tg.Name, len(c.Blocks), c.Fraction(), len(vs.Vectors), vs.Runs, vs.Faults, vs.Rounds)
				if c.Fraction() < 0.95 {
					t.Errorf("%s %s %s: coverage %.2f < 0.95, missed blocks %v (layout %v)", cc, opt, tg.Name, c.Fraction(), c.Missed(), vs.Layout)
				}
				if len(vs.Vectors) != 16 {
					t.Errorf("%s %s %s: %d vectors, want 16", cc, opt, tg.Name, len(vs.Vectors))
				}
			}
		}
	}
}

func TestCoverageDeadDenominator(t *testing.T) {
	c := Coverage{Blocks: []int{0, 1, 2, 3}, Hits: []int{1, 0, 0, 2}}
	if c.Fraction() != 0.5 || c.FractionAll() != 0.5 || c.Live() != 4 {
		t.Fatalf("no dead blocks: %v %v %v", c.Fraction(), c.FractionAll(), c.Live())
	}
	c.Dead = []int{2}
	if c.Live() != 3 || c.Fraction() != 2.0/3 || c.FractionAll() != 0.5 || len(c.Missed()) != 2 {
		t.Errorf("block 2 dead: live %d, coverage %v (all %v), missed %v", c.Live(), c.Fraction(), c.FractionAll(), c.Missed())
	}
	// A block a vector reached never leaves the denominator, and one
	// outside the counted blocks changes nothing.
	c.Dead = []int{2, 3, 7}
	if c.Live() != 3 {
		t.Errorf("dead %v: live %d, want 3", c.Dead, c.Live())
	}
	c = Coverage{Blocks: []int{0}, Hits: []int{0}, Dead: []int{0}}
	if c.Fraction() != 1 || c.FractionAll() != 0 {
		t.Errorf("all dead: %v %v", c.Fraction(), c.FractionAll())
	}
}

// TestCoverageSetDead: the caller's dead blocks are recorded only where
// no vector reached a counted block, and ProveMissedDead asks the
// caller's prover about the missed blocks alone.
func TestCoverageSetDead(t *testing.T) {
	c := Coverage{Blocks: []int{0, 2, 4, 6}, Hits: []int{3, 0, 1, 0}}
	c.SetDead([]int{6, 4, 2, 7, 2})
	if !slices.Equal(c.Dead, []int{2, 6}) || c.Live() != 2 || c.Fraction() != 1 {
		t.Errorf("SetDead: dead %v, live %d, coverage %v", c.Dead, c.Live(), c.Fraction())
	}
	var asked []int
	note := c.ProveMissedDead(context.Background(), nil, func(_ context.Context, _ *Target, missed []int) ([]int, string, error) {
		asked = missed
		return []int{0, 6}, "1 of 2 solver queries undecided", nil
	})
	if !slices.Equal(asked, []int{2, 6}) || !slices.Equal(c.Dead, []int{6}) || note != "1 of 2 solver queries undecided" {
		t.Errorf("ProveMissedDead: asked %v, dead %v, note %q", asked, c.Dead, note)
	}
	// A failed proof keeps what it proved and says why it stopped.
	note = c.ProveMissedDead(context.Background(), nil, func(context.Context, *Target, []int) ([]int, string, error) {
		return []int{2}, "", context.DeadlineExceeded
	})
	if !slices.Equal(c.Dead, []int{2}) || note != context.DeadlineExceeded.Error() {
		t.Errorf("failed proof: dead %v, note %q", c.Dead, note)
	}
	// Nothing missed: the prover is not asked.
	c = Coverage{Blocks: []int{0}, Hits: []int{1}}
	if note := c.ProveMissedDead(context.Background(), nil, func(context.Context, *Target, []int) ([]int, string, error) {
		t.Error("prover asked with nothing missed")
		return nil, "", nil
	}); note != "" || c.Dead != nil {
		t.Errorf("nothing missed: note %q, dead %v", note, c.Dead)
	}
}
