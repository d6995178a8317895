package tracer

import (
	"context"
	"encoding/binary"
	"reflect"
	"testing"
)

// TestGeneratorReachesGuardedBlocks checks that the generated vectors
// include inputs past guards: x > 100, n > 3 with a loop, and x == 12345
// (found through the code's immediates).
func TestGeneratorReachesGuardedBlocks(t *testing.T) {
	targets := linkTargets(t, "gcc", "cov", covSrc, []string{"classify", "sumpos", "magic"}, "-O0")
	want := map[string]func(v Vector) bool{
		"classify": func(v Vector) bool { return int32(v.Args[0]) > 100 },
		"sumpos":   func(v Vector) bool { return int32(v.Args[1]) > 3 },
		"magic":    func(v Vector) bool { return int32(v.Args[0]) == 12345 },
	}
	for _, tg := range targets {
		vs, err := Generate(context.Background(), []*Target{tg}, GenerateOptions{Vectors: 8, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, v := range vs.Vectors {
			found = found || want[tg.Name](v)
		}
		if !found {
			t.Errorf("%s: no vector past the guard among %d (layout %v)", tg.Name, len(vs.Vectors), vs.Layout)
		}
		if f := vs.Coverage[0].Fraction(); f != 1 {
			t.Errorf("%s: coverage %.2f, missed %v", tg.Name, f, vs.Coverage[0].Missed())
		}
	}
}

const faultSrc = `
int deref(const int *p, long off) { return p[off]; }
int divide(int a, int b) { return a / b; }
`

// TestGenerateCountsFaults checks that faulting candidates are discarded and
// counted, and that every kept vector returns.
func TestGenerateCountsFaults(t *testing.T) {
	targets := linkTargets(t, "gcc", "fault", faultSrc, []string{"deref", "divide"}, "-O1")
	for _, tg := range targets {
		vs, err := Generate(context.Background(), []*Target{tg}, GenerateOptions{Vectors: 12, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if vs.Faults == 0 {
			t.Errorf("%s: no faulting candidate counted in %d runs", tg.Name, vs.Runs)
		}
		if len(vs.Vectors) != 12 {
			t.Errorf("%s: %d vectors, want 12", tg.Name, len(vs.Vectors))
		}
		_, results, err := MeasureCoverage(context.Background(), tg, vs.Vectors)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range results {
			if r.Outcome != Returned {
				t.Errorf("%s: kept vector %d: %v", tg.Name, i, r)
			}
		}
		t.Logf("%s: %d runs, %d faults, %d kept", tg.Name, vs.Runs, vs.Faults, len(vs.Vectors))
	}
}

// TestGenerateDeterministic checks that a seed fixes the vectors.
func TestGenerateDeterministic(t *testing.T) {
	targets := linkTargets(t, "gcc", "cov", covSrc, []string{"find"}, "-O2")
	gen := func(seed int64) *VectorSet {
		vs, err := Generate(context.Background(), targets, GenerateOptions{Vectors: 10, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return vs
	}
	a, b, c := gen(5), gen(5), gen(6)
	if !reflect.DeepEqual(a.Vectors, b.Vectors) || a.Runs != b.Runs {
		t.Errorf("same seed, different vectors")
	}
	if reflect.DeepEqual(a.Vectors, c.Vectors) {
		t.Errorf("different seeds, same vectors")
	}
}

// TestGeneratePair generates shared vectors for a function compiled twice
// (gcc -O0 and clang -O3): both see the same inputs, both are covered, and
// both compute the same results on every vector.
func TestGeneratePair(t *testing.T) {
	src := linkTargets(t, "gcc", "pair", covSrc, []string{"scale"}, "-O0")[0]
	dst := linkTargets(t, "clang-16", "pair", covSrc, []string{"scale"}, "-O3")[0]
	vs, err := Generate(context.Background(), []*Target{src, dst}, GenerateOptions{Vectors: 16, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range vs.Coverage {
		if c.Fraction() < 0.95 {
			t.Errorf("target %d: coverage %.2f, missed %v", k, c.Fraction(), c.Missed())
		}
	}
	if len(vs.Hits) != len(vs.Vectors) || len(vs.Hits[0]) != 2 {
		t.Fatalf("hits shape %d×%d", len(vs.Hits), len(vs.Hits[0]))
	}
	for i, v := range vs.Vectors {
		r1, err := src.Proc.Run(src.Addr(), v, nil)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := dst.Proc.Run(dst.Addr(), v, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r1.Outcome != Returned || r2.Outcome != Returned {
			t.Fatalf("vector %d: %v / %v", i, r1, r2)
		}
		if string(r1.MemoryOf("heap")) != string(r2.MemoryOf("heap")) {
			t.Errorf("vector %d: the heaps differ", i)
		}
	}
	t.Logf("pair: %d vectors, coverage %.2f / %.2f, %d runs", len(vs.Vectors), vs.Coverage[0].Fraction(), vs.Coverage[1].Fraction(), vs.Runs)
}

const layoutSrc = `
struct pt { int x, y; };
struct big { long a[4]; };
double lay(const int *p, unsigned long n, double d, struct pt q, float f, char **names, long off, struct big b, const void *v) {
	return p[0] + n + d + q.x + f + names[0][0] + off + b.a[0] + *(const char *)v;
}
long gl[8];
long *gp;
int loopy(int k, int m) { int s = 0; for (int i = 0; i < k; i++) s += m; return s; }
`

func TestLayout(t *testing.T) {
	targets := linkTargets(t, "gcc", "layout", layoutSrc, []string{"lay", "loopy"}, "-O1")
	l, err := NewLayout(targets[:1])
	if err != nil {
		t.Fatal(err)
	}
	t.Log(l)
	want := []struct {
		name       string
		kind       ArgKind
		reg, elem  int
		lengthLike bool
		elemPtr    bool
	}{
		{"p", ArgPointer, 0, 4, false, false},
		{"n", ArgInt, 1, 0, true, false},
		{"d", ArgFloat, 0, 0, false, false},
		{"q", ArgAggregate, 2, 0, false, false},
		{"f", ArgFloat, 1, 0, false, false},
		{"names", ArgPointer, 3, 8, false, true},
		{"off", ArgInt, 4, 0, false, false},
		{"v", ArgPointer, 5, 1, false, false},
	}
	if len(l.Args) != len(want) {
		t.Fatalf("args %v", l)
	}
	for i, w := range want {
		a := l.Args[i]
		if a.Name != w.name || a.Kind != w.kind || a.Reg != w.reg || (w.elem != 0 && a.Elem != w.elem) ||
			a.LengthLike != w.lengthLike || a.ElemPointer != w.elemPtr {
			t.Errorf("arg %d = %+v, want %+v", i, a, w)
		}
	}
	if !l.Approximate {
		t.Errorf("struct big by value should make the layout approximate")
	}
	globals := map[string]MemSlot{}
	for _, m := range l.Mem {
		globals[m.Name] = m
	}
	if g := globals["gl"]; g.Symbol != "gl" || g.Size != 64 || g.Elem != 8 {
		t.Errorf("gl = %+v", g)
	}
	if g := globals["gp"]; !g.ElemPointer {
		t.Errorf("gp = %+v, want pointer elements", g)
	}
	// Pointers in memory point into the pool.
	vs, err := Generate(context.Background(), targets[:1], GenerateOptions{Vectors: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs.Vectors {
		for _, m := range v.Mem {
			if m.Symbol == "gp" {
				if a := binary.LittleEndian.Uint64(m.Data); a < l.PoolAddr || a >= l.PoolAddr+uint64(l.PoolSize) {
					t.Errorf("gp = %#x, outside the pool", a)
				}
			}
		}
	}
	// Any integer parameter of a function with loops is length-like.
	l2, err := NewLayout(targets[1:])
	if err != nil {
		t.Fatal(err)
	}
	if !l2.Args[0].LengthLike || !l2.Args[1].LengthLike || l2.Args[0].Named {
		t.Errorf("loopy: %+v", l2.Args)
	}
}
