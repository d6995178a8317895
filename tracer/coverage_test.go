package tracer

import (
	"context"
	"path/filepath"
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
