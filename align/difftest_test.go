package align

import (
	"context"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
	"eqc/inputs"
	"eqc/prove"
	"eqc/tracer"
)

// diffCases are loop kernels of the shapes the differential test must
// handle (global int, byte and float arrays, pointer parameters, a bound
// in an argument, a float argument, TSVC's extern arrays, which clang
// gives no DWARF, a read-only table), each with a source
// mutation it must expose and the unmutated source it must not.
var diffCases = []struct {
	name, fn, src string
	from, to      string // the mutation: text of src and its replacement
}{
	{"sum_positive", "sum_positive", "int A[1024];\nint sum_positive(void) { int s = 0; for (int i = 0; i < 1024; i++) if (A[i] > 0) s += A[i]; return s; }\n",
		"A[i] > 0", "A[i] > 1"},
	{"bytes", "flip", "unsigned char F[1024];\nvoid flip(void) { for (int i = 0; i < 1024; i++) F[i] = ~F[i]; }\n",
		"i < 1024", "i < 1024 - 1"},
	{"pointer", "flip", "void flip(unsigned *a, int len) { for (int i = 0; i < len; i++) a[i] = ~a[i]; }\n",
		"a[i] = ~a[i]", "a[i] = a[i] ^ 0x7fffffff"},
	{"argbound", "dsum", "int dsum(int n) { int sum = 0; for (int i = 1; i < n; i++) sum = sum + 2 * i; return sum; }\n",
		"i < n", "i <= n"},
	{"float", "fscale", "float X[512], Y[512];\nvoid fscale(void) { for (int i = 0; i < 512; i++) X[i] = Y[i] * 2.0f + 1.0f; }\n",
		"2.0f", "2.5f"},
	{"floatarg", "axpy", "double X[256], Y[256];\nvoid axpy(double a) { for (int i = 0; i < 256; i++) Y[i] += a * X[i]; }\n",
		"Y[i] += a * X[i]", "Y[i] += a * X[i] + (i == 255)"},
	{"extern", "vpv", "extern int a[32000] __attribute__((aligned(16))), b[32000] __attribute__((aligned(16)));\nint vpv(void) { for (int i = 0; i < 32000; i++) a[i] += b[i]; return 0; }\n",
		"i < 32000", "i < 32000 - 1"},
	// Two mutants that differ only at or next to a constant of the code,
	// which no pattern of the plan gives (a bound of 777; the letter a in
	// a string): the dictionary inputs (inputs/dict.go) find them.
	{"constant", "over", "int over(int x, int y) { int n = 0; for (int i = 0; i < 4; i++) n += x > 777 ? y : 1; return n; }\n",
		"x > 777", "x >= 777"},
	{"letter", "up", "void up(char *s) { for (; *s; s++) if (*s >= 'a' && *s <= 'z') *s -= 32; }\n",
		"*s >= 'a'", "*s > 'a'"},
	{"rodata", "tab", "static const int T[4] = {3, 1, 4, 1};\nint A[256];\nvoid tab(void) { for (int i = 0; i < 256; i++) A[i] = T[i & 3] * A[i]; }\n",
		"T[i & 3] * A[i]", "T[i & 3] + A[i]"},
}

// TestDiffTest runs the differential test on each case: -O0 against -O3 of
// the same source must show no difference on any input, and against -O3 of
// the mutant must show one (confirmed by real runs).
func TestDiffTest(t *testing.T) {
	t.Parallel() // one thread: beside the other one-thread tests
	for _, c := range diffCases {
		for _, cc := range compilers {
			t.Run(c.name+"/"+cc, func(t *testing.T) {
				if strings.Count(c.src, c.from) != 1 {
					t.Fatalf("mutation text %q occurs %d times", c.from, strings.Count(c.src, c.from))
				}
				base := aligntest.CompileC(t, cc, "base", c.src, "O0", "O3")
				mut := aligntest.CompileC(t, cc, "mutant", strings.Replace(c.src, c.from, c.to, 1), "O3")
				for _, dst := range []string{base["O3"], mut["O3"]} {
					mutant := dst == mut["O3"]
					req := Request{SrcPath: base["O0"], SrcFunc: c.fn, DstPath: dst, DstFunc: c.fn, UB: "none"}
					p, err := pair.Load(req.SrcPath, req.SrcFunc, req.DstPath, req.DstFunc)
					if err != nil {
						t.Fatal(err)
					}
					t0 := time.Now()
					d := diffTest(context.Background(), req, 0, p)
					t.Logf("mutant=%v: %s in %v", mutant, d, time.Since(t0))
					switch {
					case d.note != "":
						t.Errorf("mutant=%v: stopped: %s", mutant, d.note)
					case !mutant && d.c != nil:
						t.Errorf("same source differs on input %+v: %q", shownInput(d.in, d.c), d.c.Differences)
					case !mutant && d.runs < diffMaxInputs:
						t.Errorf("same source: %d inputs run, want the plan's %d and more", d.runs, diffMaxInputs)
					case mutant && (d.c == nil || !d.c.Differ || len(d.c.Differences) == 0):
						t.Errorf("mutant %q → %q: no difference in %d inputs", c.from, c.to, d.runs)
					}
					if mutant && d.c != nil {
						in := shownInput(d.in, d.c)
						shown := 0
						for _, h := range in.Globals {
							shown += len(h) / 2
						}
						t.Logf("input args %#x float args %#x, %d bytes of globals shown: %v", in.Args, in.FloatArgs, shown, in.Globals)
					}
				}
			})
		}
	}
}

// TestDiffInputs checks what the inputs hold: small exact values in the
// small-values input, finite floats in the random ones, read-only data
// left alone, a pointer parameter at its heap buffer, arguments per the
// plan (an unsigned one never -1).
func TestDiffInputs(t *testing.T) {
	src := `static const int T[4] = {3, 1, 4, 1};
int A[64];
float F[32];
unsigned char U[16];
int k(int *p, unsigned n, float x, int m) {
	int s = 0;
	for (unsigned i = 0; i < n && i < 16; i++) s += A[i] * T[i & 3] + p[i] + (int)(F[i] * x) + U[i] + m;
	return s;
}
`
	objs := aligntest.CompileC(t, "gcc-12", "k", src, "O0")
	p, err := pair.Load(objs["O0"], "k", objs["O0"], "k")
	if err != nil {
		t.Fatal(err)
	}
	ins := diffInputs(p)
	if len(ins) < diffMaxInputs {
		t.Fatalf("%d inputs, want the plan's %d and more", len(ins), diffMaxInputs)
	}
	ins = ins[:diffMaxInputs] // the dictionary's: TestDictInputs
	int32s := func(b []byte) []int32 {
		out := make([]int32, len(b)/4)
		for i := range out {
			out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return out
	}
	floats := func(b []byte) []float32 {
		out := make([]float32, len(b)/4)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return out
	}
	for k, in := range ins {
		plan := inputs.Plan[k]
		if _, ok := in.Globals["T"]; ok {
			t.Errorf("input %d sets the read-only table T", k)
		}
		if len(in.Globals["A"]) != 256 || len(in.Globals["F"]) != 128 || len(in.Globals["U"]) != 16 {
			t.Errorf("input %d: sizes A %d F %d U %d, want 256 128 16", k, len(in.Globals["A"]), len(in.Globals["F"]), len(in.Globals["U"]))
		}
		if len(in.Mem) != 1 || in.Mem[0].Addr != tracer.HeapAddr || in.Args[0] != tracer.HeapAddr {
			t.Errorf("input %d: pointer parameter %#x, heap %+v", k, in.Args[0], in.Mem)
		}
		for _, f := range floats(in.Globals["F"]) {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				t.Errorf("input %d: F holds %v", k, f)
				break
			}
		}
		switch plan.Fill {
		case inputs.FillSmall:
			for _, v := range int32s(in.Globals["A"]) {
				if v < -3 || v > 3 {
					t.Errorf("input %d (small): A holds %d", k, v)
					break
				}
			}
			for _, f := range floats(in.Globals["F"]) {
				if f < -3 || f > 3 || f*2 != float32(int(f*2)) {
					t.Errorf("input %d (small): F holds %v", k, f)
					break
				}
			}
		case inputs.FillOne:
			if int32s(in.Globals["A"])[5] != 1 || floats(in.Globals["F"])[5] != 1 || in.Globals["U"][5] != 1 {
				t.Errorf("input %d (one): A %d F %v U %d", k, int32s(in.Globals["A"])[5], floats(in.Globals["F"])[5], in.Globals["U"][5])
			}
		}
		n, m := in.Args[1], in.Args[2]
		switch plan.Arg {
		case inputs.ArgNeg:
			if n != 2 || int64(m) != -1 {
				t.Errorf("input %d (negative): unsigned n=%d, int m=%d; want 2 and -1", k, n, int64(m))
			}
		case inputs.ArgCount:
			// The smallest array of at least two elements: T is read-only
			// and left out, U has 16.
			if n != 16 {
				t.Errorf("input %d (count): n=%d, want 16", k, n)
			}
		}
		if len(in.FloatArgs) != 1 {
			t.Errorf("input %d: float args %#x, want one", k, in.FloatArgs)
		}
	}
}

// TestDictInputs checks the dictionary inputs: the code's comparison
// constants with their neighbours in every integer argument, and in memory
// nothing but those values; pointers still at their buffers.
func TestDictInputs(t *testing.T) {
	src := `int g(int *p, int a, int b) { return (a > 777 ? p[0] : p[1]) + (b == 4242 ? 3 : 0); }
`
	objs := aligntest.CompileC(t, "gcc-12", "g", src, "O0", "O2")
	p, err := pair.Load(objs["O0"], "g", objs["O2"], "g")
	if err != nil {
		t.Fatal(err)
	}
	dict := p.CodeConstants()
	near := func(v int64) bool {
		for _, c := range dict {
			if v >= c-1 && v <= c+1 {
				return true
			}
		}
		return false
	}
	for _, want := range []int64{4242} {
		if !slices.Contains(dict, want) {
			t.Errorf("constants %v: want %d among them", dict, want)
		}
	}
	if !slices.Contains(dict, 777) && !slices.Contains(dict, 778) {
		t.Errorf("constants %v: want 777 or 778 (a > 777 as a >= 778) among them", dict)
	}
	ins := diffInputs(p)[diffMaxInputs:]
	if len(ins) != 3*len(dict) {
		t.Fatalf("%d dictionary inputs for %d constants, want three each", len(ins), len(dict))
	}
	hit := map[int64]bool{}
	for k, in := range ins {
		if in.Args[0] != tracer.HeapAddr || len(in.Mem) != 1 {
			t.Errorf("input %d: pointer %#x, memory %+v", k, in.Args[0], in.Mem)
			continue
		}
		for _, a := range in.Args[1:3] {
			v := int64(int32(a))
			hit[v] = true
			if !near(v) {
				t.Errorf("input %d: argument %d is no constant's neighbour (%v)", k, v, dict)
			}
		}
		for i := 0; i+4 <= len(in.Mem[0].Data); i += 4 {
			if v := int64(int32(binary.LittleEndian.Uint32(in.Mem[0].Data[i:]))); !near(v) {
				t.Fatalf("input %d: p[%d] = %d is no constant's neighbour (%v)", k, i/4, v, dict)
			}
		}
	}
	for _, v := range []int64{4241, 4242, 4243} {
		if !hit[v] {
			t.Errorf("no input passes %d (arguments given: %v)", v, hit)
		}
	}
}

// TestDiffCheck runs Check on a mutant with loops under each UB model: the
// differential test's difference is not-equivalent under "none" (before
// any proof search), and under another model it is shown but left unknown
// (its input is not checked for undefined behaviour) while the proof
// search still runs.
func TestDiffCheck(t *testing.T) {
	c := diffCases[0]
	base := aligntest.CompileC(t, "gcc-12", "base", c.src, "O0")
	mut := aligntest.CompileC(t, "gcc-12", "mutant", strings.Replace(c.src, c.from, c.to, 1), "O3")
	s, _, err := prove.New(prove.Options{CacheSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		ub, verdict, reason string
	}{
		{"none", NotEquivalent, ""},
		{"all", NotEquivalent, ""}, // on an input the UB monitor passed
	} {
		res, err := Check(context.Background(), Request{SrcPath: base["O0"], SrcFunc: c.fn, DstPath: mut["O3"], DstFunc: c.fn, UB: tc.ub, Timeout: 10 * time.Second}, s)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("--ub %s: %s (%s) %.1fs, %d test vectors, %d queries", tc.ub, res.Verdict, res.Reason, res.WallS, res.TestVectors, res.SMTQueries)
		if res.Verdict != tc.verdict || !strings.HasPrefix(res.Reason, tc.reason) || res.Input == nil || len(res.Observed) == 0 || res.TestVectors == 0 {
			t.Errorf("--ub %s: %s (%s), input %v, observed %q, %d test vectors; want %s (%s...) with an input", tc.ub, res.Verdict, res.Reason, res.Input, res.Observed, res.TestVectors, tc.verdict, tc.reason)
		}
		if tc.ub == "none" && res.SMTQueries > 1 {
			t.Errorf("--ub none: %d queries: the proof search ran before the differential test answered", res.SMTQueries)
		}
	}
}

// The differential test's strings: over its eight inputs every start
// alignment and every place of the NUL in its word, three of them
// shorter than a word (one empty), with no NUL before it and, in odd
// inputs, none in the 8 bytes after it either.
func TestTerminate(t *testing.T) {
	starts, ends := map[int]bool{}, map[int]bool{}
	for k := range diffMaxInputs {
		data := make([]byte, 64) // all NULs: terminate must make the string
		start := int(terminate(data, k))
		end := start
		for data[end] != 0 {
			end++
		}
		if short := k == 3 || k == 5 || k == 6; (end-start < 8) != short {
			t.Errorf("input %d: string of %d bytes, want shorter than 8: %v", k, end-start, short)
		}
		if k%2 == 1 {
			for j := end + 1; j <= end+8; j++ {
				if data[j] == 0 {
					t.Errorf("input %d: a NUL %d bytes after the end", k, j-end)
				}
			}
		}
		starts[start%8], ends[end%8] = true, true
	}
	if len(starts) != 8 || len(ends) != 8 {
		t.Errorf("starts mod 8 %v, NULs mod 8 %v: want all eight of each", starts, ends)
	}
}
