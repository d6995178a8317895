package tracer

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eqc/x86"
)

// confirmFlags are the flags the pipeline compiles with.
var confirmFlags = []string{"-fno-inline", "-fno-stack-protector", "-fcf-protection=none"}

// pairObj compiles src with cc at opt and the confirm flags.
func pairObj(t *testing.T, cc, name, src, opt string) string {
	t.Helper()
	return compile(t, cc, name, src, append([]string{opt}, confirmFlags...)...)
}

// sourceSameMutant compiles base at -O0 (the source) and at -O2, and
// mutant at -O2, with cc: the three objects a same-source and a mutant
// comparison take.
func sourceSameMutant(t *testing.T, cc, name, base, mutant string) (src, same, mut string) {
	t.Helper()
	return pairObj(t, cc, name+"0", base, "-O0"), pairObj(t, cc, name+"2", base, "-O2"), pairObj(t, cc, name+"m", mutant, "-O2")
}

func confirm(t *testing.T, srcObj, srcFn, dstObj, dstFn string, in Input) *Confirmation {
	t.Helper()
	c, err := Confirm(context.Background(), srcObj, srcFn, dstObj, dstFn, in)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s:%s vs %s:%s %#x: differ=%v %q detail=%q", filepath.Base(srcObj), srcFn, filepath.Base(dstObj), dstFn, c.Args, c.Differ, c.Differences, c.Detail)
	return c
}

func hasDifference(c *Confirmation, prefix string) bool {
	for _, d := range c.Differences {
		if strings.HasPrefix(d, prefix) {
			return true
		}
	}
	return false
}

func TestConfirmReturn(t *testing.T) {
	src := pairObj(t, "gcc", "f0", "int f(int x, int y) { return (x + y) * 3 - y; }\n", "-O0")
	dst := pairObj(t, "gcc", "f3", "int f(int x, int y) { return (x + y) * 3 + y; }\n", "-O3")
	c := confirm(t, src, "f", dst, "f", Input{Args: []uint64{1, 2}})
	if !c.Differ || !hasDifference(c, "return: src 0x7 dst 0xb") {
		t.Errorf("{1, 2}: Differ=%v %q (%s), want the return values 7 and 11", c.Differ, c.Differences, c.Detail)
	}
	if c.Src.ReturnKind != "int32" || c.Src.Outcome != Returned || c.Dst.Outcome != Returned {
		t.Errorf("observations %+v / %+v", c.Src, c.Dst)
	}
	c = confirm(t, src, "f", dst, "f", Input{Args: []uint64{1, 0}})
	if c.Differ || c.Src.Return != 3 || c.Dst.Return != 3 {
		t.Errorf("{1, 0}: Differ=%v %q, returns %#x %#x", c.Differ, c.Differences, c.Src.Return, c.Dst.Return)
	}
	// Only the low 32 bits of an int argument count: garbage above them is
	// dropped (sign-extended from bit 31) before either run.
	c = confirm(t, src, "f", dst, "f", Input{Args: []uint64{0xdead_0000_0001, 0xffff_ffff}})
	if c.Args[0] != 1 || c.Args[1] != ^uint64(0) {
		t.Errorf("normalised args %#x", c.Args)
	}
	if !c.Differ || c.Src.Return != 1 || c.Dst.Return != 0xffffffff {
		t.Errorf("f(1, -1) = %#x / %#x, want 1 / -1", c.Src.Return, c.Dst.Return)
	}
}

func TestConfirmGlobalWrite(t *testing.T) {
	src := pairObj(t, "gcc", "w0", "int g; void w(int x) { g = x * 2; }\n", "-O0")
	dst := pairObj(t, "gcc", "w3", "int g; void w(int x) { g = x * 2 + (x == 7); }\n", "-O3")
	for x := uint64(0); x < 10; x++ {
		c := confirm(t, src, "w", dst, "w", Input{Args: []uint64{x}})
		if c.Differ != (x == 7) {
			t.Errorf("w(%d): Differ=%v %q (%s)", x, c.Differ, c.Differences, c.Detail)
		}
		if got := binary.LittleEndian.Uint32(c.Src.Globals["g"]); got != uint32(2*x) {
			t.Errorf("src w(%d): g = %d", x, got)
		}
		if x == 7 && !hasDifference(c, "global g[0..1]: src 0e dst 0f") {
			t.Errorf("w(7) differences %q", c.Differences)
		}
		if c.Src.ReturnKind != "void" || c.Src.Return != 0 {
			t.Errorf("void return observed as %+v", c.Src)
		}
	}
}

func TestConfirmGlobalArrayRead(t *testing.T) {
	code := "extern int a[100]; int r(int i) { return a[i] + 1; }\n"
	src := pairObj(t, "gcc", "r0", code, "-O0")
	for _, cc := range []string{"gcc", "clang-16"} {
		dst := pairObj(t, cc, "r3", code, "-O3")
		a := make([]int32, 100)
		for i := range a {
			a[i] = int32(1000 + 7*i)
		}
		for _, i := range []int{0, 42, 99} {
			c := confirm(t, src, "r", dst, "r", Input{Args: []uint64{uint64(i)}, Globals: map[string][]byte{"a": int32s(a)}})
			if c.Differ || c.Detail != "" {
				t.Errorf("%s r(%d): Differ=%v %q (%s)", cc, i, c.Differ, c.Differences, c.Detail)
			}
			if want := uint64(a[i] + 1); c.Src.Return != want || c.Dst.Return != want {
				t.Errorf("%s r(%d) = %d / %d, want %d", cc, i, c.Src.Return, c.Dst.Return, want)
			}
			if len(c.Src.Globals["a"]) != 400 || len(c.Dst.Globals["a"]) != 400 {
				t.Errorf("%s: a has %d and %d bytes, want 400 in both", cc, len(c.Src.Globals["a"]), len(c.Dst.Globals["a"]))
			}
		}
	}
}

func TestConfirmCalls(t *testing.T) {
	src := pairObj(t, "gcc", "c0", "int h(int); int c(int x) { return h(x) + h(x + 1); }\n", "-O0")
	same := pairObj(t, "gcc", "c3", "int h(int); int c(int x) { return h(x) + h(x + 1); }\n", "-O3")
	dst := pairObj(t, "gcc", "c3b", "int h(int); int c(int x) { return h(x) + h(x + 2); }\n", "-O3")
	c := confirm(t, src, "c", same, "c", Input{Args: []uint64{5}})
	if c.Differ || len(c.Src.Calls) != 2 || c.Src.Calls[1].Name != "h" || c.Src.Calls[1].Args[0] != 6 {
		t.Errorf("same source: Differ=%v %q calls %+v", c.Differ, c.Differences, c.Src.Calls)
	}
	want := uint32(StubResult("h", []uint64{5})) + uint32(StubResult("h", []uint64{6}))
	if uint32(c.Src.Return) != want || c.Dst.Return != c.Src.Return {
		t.Errorf("c(5) = %#x / %#x, want %#x", c.Src.Return, c.Dst.Return, want)
	}
	c = confirm(t, src, "c", dst, "c", Input{Args: []uint64{5}})
	if !c.Differ || !hasDifference(c, "calls[1]: src h(0x6) dst h(0x7)") {
		t.Errorf("h(x+2): Differ=%v %q (%s)", c.Differ, c.Differences, c.Detail)
	}
}

// TestConfirmSameSource checks that a source compiled at -O0 and -O3 never
// differs on random inputs, including pointers to globals (different
// addresses in the two executables) returned or passed to stubs.
func TestConfirmSameSource(t *testing.T) {
	code := `int g; long arr[8]; int *gp;
int h(int);
int q(int *, int);
void sink(long *);
int f(int x, int y) { return (x + y) * 3 - y; }
int w(int x) { g = x * 2; return g > 10; }
unsigned char u(unsigned char c, short s) { return c * 3 + s; }
long *pick(int i) { return &arr[i & 7]; }
int calls(int x) { int r = 0; for (int i = 0; i < (x & 3); i++) r += h(x + i); return r; }
int viaptr(int x) { return q(&g, x); }
void store(int x) { gp = &g; arr[x & 7] = x; sink(&arr[1]); }
_Bool neg(_Bool b) { return !b; }
`
	src := pairObj(t, "gcc", "s0", code, "-O0")
	dst := pairObj(t, "gcc", "s3", code, "-O3")
	rng := rand.New(rand.NewSource(7))
	for _, fn := range []string{"f", "w", "u", "pick", "calls", "viaptr", "store", "neg"} {
		for k := 0; k < 3; k++ {
			in := Input{Args: []uint64{rng.Uint64(), rng.Uint64()}}
			switch k {
			case 1:
				in.Globals = map[string][]byte{"g": {byte(rng.Intn(256)), 0, 0, 0}}
			case 2:
				in.Args[0] &^= 0xff // bool parameters: false with garbage above
			}
			c := confirm(t, src, fn, dst, fn, in)
			if c.Differ {
				t.Errorf("%s(%#x): Differ %q (%s)", fn, in.Args, c.Differences, c.Detail)
			}
			if c.Src.Outcome != Returned || c.Dst.Outcome != Returned {
				t.Errorf("%s: %s / %s", fn, c.Src.Detail, c.Dst.Detail)
			}
			switch fn {
			case "viaptr":
				// q(&g, x): the addresses differ, but the stubs hash &g
				// by its symbol, so q's results agree and everything
				// after the call is compared.
				if c.Detail != "" || c.Src.Return != c.Dst.Return {
					t.Errorf("viaptr: detail %q, returns %#x / %#x", c.Detail, c.Src.Return, c.Dst.Return)
				}
			case "pick", "store":
				if c.Detail != "" {
					t.Errorf("%s: detail %q", fn, c.Detail)
				}
			}
		}
	}
}

func TestConfirmFaults(t *testing.T) {
	// The source faults: not a confirmed difference.
	src := pairObj(t, "gcc", "d0", "int d(int *p) { return *p; }\n", "-O0")
	dst := pairObj(t, "gcc", "d3", "int d(int *p) { return 0; }\n", "-O3")
	c := confirm(t, src, "d", dst, "d", Input{Args: []uint64{0}})
	if c.Differ || c.Src.Outcome != Fault || !strings.Contains(c.Detail, "src fault") {
		t.Errorf("src faults: Differ=%v %q (%s)", c.Differ, c.Differences, c.Detail)
	}
	// The source returns, the destination faults: a difference.
	c = confirm(t, dst, "d", src, "d", Input{Args: []uint64{0}})
	if !c.Differ || !hasDifference(c, "outcome: src returned, dst fault") {
		t.Errorf("dst faults: Differ=%v %q (%s)", c.Differ, c.Differences, c.Detail)
	}
	// A valid pointer into the heap: both return *p.
	c = confirm(t, src, "d", src, "d", Input{Args: []uint64{HeapAddr}, Mem: []MemInit{{Addr: HeapAddr, Data: int32s([]int32{41})}}})
	if c.Differ || c.Src.Return != 41 || c.Dst.Return != 41 {
		t.Errorf("d(heap): Differ=%v returns %d %d (%s)", c.Differ, c.Src.Return, c.Dst.Return, c.Detail)
	}
}

// TestConfirmOneObject compares two functions of one object (one link, one
// process).
func TestConfirmOneObject(t *testing.T) {
	obj := pairObj(t, "gcc", "one", "int g;\nint f1(int x) { g++; return x << 1; }\nint f2(int x) { g++; return x + x; }\nint f3(int x) { g += 2; return x * 2; }\n", "-O2")
	c := confirm(t, obj, "f1", obj, "f2", Input{Args: []uint64{21}, Globals: map[string][]byte{"g": {1, 0, 0, 0}}})
	if c.Differ || c.Src.Return != 42 || c.Src.Globals["g"][0] != 2 {
		t.Errorf("f1/f2: Differ=%v %q return %d g %v", c.Differ, c.Differences, c.Src.Return, c.Src.Globals["g"])
	}
	c = confirm(t, obj, "f1", obj, "f3", Input{Args: []uint64{21}})
	if !c.Differ || !hasDifference(c, "global g[0..1]: src 01 dst 02") {
		t.Errorf("f1/f3: Differ=%v %q", c.Differ, c.Differences)
	}
}

func TestConfirmErrors(t *testing.T) {
	obj := pairObj(t, "gcc", "e", "int e(int x) { return x; }\n", "-O1")
	notObj := filepath.Join(t.TempDir(), "junk.o")
	if err := os.WriteFile(notObj, []byte("not an object"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err := Confirm(ctx, notObj, "e", obj, "e", Input{})
	if !errors.Is(err, ErrNotObject) || !strings.Contains(err.Error(), notObj) {
		t.Errorf("not an object: %v", err)
	}
	_, err = Confirm(ctx, obj, "e", obj, "nope", Input{})
	var fnf *x86.FunctionNotFoundError
	if !errors.As(err, &fnf) || fnf.File != obj || fnf.Function != "nope" {
		t.Errorf("missing function: %v", err)
	}
	_, err = Confirm(ctx, obj, "e", obj, "e", Input{Globals: map[string][]byte{"zz": {1}}})
	var ug *UnknownGlobalError
	if !errors.As(err, &ug) || ug.Name != "zz" {
		t.Errorf("unknown global: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Confirm(cancelled, obj, "e", obj, "e", Input{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestConfirmTimeout(t *testing.T) {
	src := pairObj(t, "gcc", "l0", "int l(int x) { return x; }\n", "-O0")
	dst := pairObj(t, "gcc", "l3", "int l(int x) { for (;;) x++; return x; }\n", "-O0")
	// Linking the two executables is outside the deadline: on a loaded
	// machine it alone took more than the 1.5 s the runs get, and Confirm
	// rightly returned the context's error before running anything.
	cf, err := NewConfirmer(context.Background(), src, "l", dst, "l")
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	c, err := cf.Confirm(ctx, Input{Args: []uint64{1}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Differ || c.Dst.Outcome != Timeout || !strings.Contains(c.Detail, "dst timeout") {
		t.Errorf("dst loops: Differ=%v %q outcome %v (%s)", c.Differ, c.Differences, c.Dst.Outcome, c.Detail)
	}
}

// TestConfirmMany checks the batch form against Confirm: the same
// confirmation for every input, each run starting from the executables'
// initial memory (g counts up from its initial value in every run, not
// across runs), runs after a faulting one unaffected, and an input error
// returning the confirmations before it.
func TestConfirmMany(t *testing.T) {
	src := pairObj(t, "gcc", "m0", "int g; int m(int *p, int x) { g++; if (x == 3) return *p; return g + x; }\n", "-O0")
	dst := pairObj(t, "gcc", "m3", "int g; int m(int *p, int x) { g++; if (x == 3) return *p; return g + x + (x == 5); }\n", "-O3")
	var ins []Input
	for x := uint64(0); x < 7; x++ {
		ins = append(ins, Input{Args: []uint64{0, x}, Globals: map[string][]byte{"g": {byte(10 * x), 0, 0, 0}}})
	}
	ctx := context.Background()
	cs, err := ConfirmMany(ctx, src, "m", dst, "m", ins)
	if err != nil || len(cs) != len(ins) {
		t.Fatalf("ConfirmMany: %d confirmations, %v", len(cs), err)
	}
	for i, in := range ins {
		one := confirm(t, src, "m", dst, "m", in)
		c := cs[i]
		if c.Differ != one.Differ || strings.Join(c.Differences, "|") != strings.Join(one.Differences, "|") || c.Detail != one.Detail ||
			c.Src.Outcome != one.Src.Outcome || c.Src.Return != one.Src.Return || c.Dst.Return != one.Dst.Return {
			t.Errorf("m(%d): batch Differ=%v %q (%s) return %d/%d; alone Differ=%v %q (%s) return %d/%d", i,
				c.Differ, c.Differences, c.Detail, c.Src.Return, c.Dst.Return, one.Differ, one.Differences, one.Detail, one.Src.Return, one.Dst.Return)
		}
		if want := i == 5; c.Differ != want {
			t.Errorf("m(%d): Differ=%v, want %v", i, c.Differ, want)
		}
		if i != 3 && c.Src.Return != uint64(11*i+1) {
			t.Errorf("m(%d): src returned %d, want %d (memory left over from an earlier run?)", i, c.Src.Return, 11*i+1)
		}
	}
	if cs[3].Src.Outcome != Fault {
		t.Errorf("m(NULL, 3): src %s, want a fault", cs[3].Src.Detail)
	}
	bad := append(append([]Input{}, ins[:2]...), Input{Globals: map[string][]byte{"zz": {1}}}, ins[2])
	cs, err = ConfirmMany(ctx, src, "m", dst, "m", bad)
	var ug *UnknownGlobalError
	if !errors.As(err, &ug) || len(cs) != 2 {
		t.Errorf("unknown global in the third input: %d confirmations, %v", len(cs), err)
	}
}

// TestConfirmNoReturn runs functions that end in calls that never return:
// exit (by the C standard) and a function declared noreturn in only one
// of the objects (clang declares callees in DWARF only when optimizing).
// The stubs end both runs at the call (EndedInCall), whatever code the
// compiler left after it, so a correct pair never differs, and different
// exit codes, or a return instead of the call, do.
func TestConfirmNoReturn(t *testing.T) {
	const die = "#include <stdlib.h>\nint die(int x) { if (x > 3) exit(1); exit(x); }\n"
	const fatal = "extern void fatal(int) __attribute__((noreturn));\nint chk(int x) { if (x < 0) fatal(x); return 2 * x; }\n"
	for _, cc := range []string{"gcc", "clang-16"} {
		src := pairObj(t, cc, "die0", die, "-O0")
		dst := pairObj(t, cc, "die2", die, "-O2")
		bad := pairObj(t, cc, "die2b", strings.Replace(die, "exit(1)", "exit(2)", 1), "-O2")
		for _, x := range []uint64{2, 9} {
			c := confirm(t, src, "die", dst, "die", Input{Args: []uint64{x}})
			if c.Differ || c.Src.Outcome != EndedInCall || c.Dst.Outcome != EndedInCall {
				t.Errorf("%s die(%d): Differ=%v %q outcomes %v %v (%s)", cc, x, c.Differ, c.Differences, c.Src.Outcome, c.Dst.Outcome, c.Detail)
			}
		}
		if c := confirm(t, src, "die", bad, "die", Input{Args: []uint64{9}}); !c.Differ || !hasDifference(c, "calls[0]") {
			t.Errorf("%s die(9) against exit(2): Differ=%v %q (%s)", cc, c.Differ, c.Differences, c.Detail)
		}
		src = pairObj(t, cc, "chk0", fatal, "-O0")
		dst = pairObj(t, cc, "chk2", fatal, "-O2")
		ret := pairObj(t, cc, "chk2r", "int chk(int x) { return 2 * x; }\n", "-O2")
		if c := confirm(t, src, "chk", dst, "chk", Input{Args: []uint64{0xfffffffb}}); c.Differ || c.Src.Outcome != EndedInCall {
			t.Errorf("%s chk(-5): Differ=%v %q outcome %v (%s)", cc, c.Differ, c.Differences, c.Src.Outcome, c.Detail)
		}
		// (Neither clang object declares fatal: the source's run goes on
		// past it, and its call alone is the difference.)
		if c := confirm(t, src, "chk", ret, "chk", Input{Args: []uint64{0xfffffffb}}); !c.Differ ||
			!hasDifference(c, "outcome: src ended in a call of fatal, dst returned") && !hasDifference(c, "calls: src made 1 calls, dst 0") {
			t.Errorf("%s chk(-5) against no call: Differ=%v %q (%s)", cc, c.Differ, c.Differences, c.Detail)
		}
	}
}

// TestAllocatorCallsNoDifference: gcc and clang -O2 turn malloc followed
// by a memset to zero into calloc, which C allows; the runs' call logs
// (malloc against calloc) and the stubs' pointers differ, and that is no
// confirmed difference. A difference elsewhere in a function that
// allocates is not confirmed either (the allocator's calls are the
// compilers' to rewrite); without one, a difference counts.
func TestAllocatorCallsNoDifference(t *testing.T) {
	const src = "#include <stdlib.h>\n#include <string.h>\n" +
		"int *zeros(unsigned long n) { int *p = malloc(n * sizeof *p); if (!p) return 0; memset(p, 0, n * sizeof *p); return p; }\n" +
		"long plain(long x) { return x + 1; }\n"
	for _, cc := range []string{"gcc-12", "clang-16"} {
		o0 := pairObj(t, cc, "zeros", src, "-O0")
		o2 := pairObj(t, cc, "zeros", src, "-O2")
		c := confirm(t, o0, "zeros", o2, "zeros", Input{Args: []uint64{0}})
		if c.Differ || !strings.Contains(c.Detail, "malloc") {
			t.Errorf("%s: malloc+memset against calloc: differ %v %q, detail %q", cc, c.Differ, c.Differences, c.Detail)
		}
		// Without an allocator a difference still counts.
		mut := pairObj(t, cc, "zeros-mutant", strings.Replace(src, "x + 1", "x + 2", 1), "-O2")
		if c := confirm(t, o0, "plain", mut, "plain", Input{Args: []uint64{3}}); !c.Differ {
			t.Errorf("%s: x + 1 against x + 2: no difference (%s)", cc, c.Detail)
		}
	}
}

// TestRewrittenLibraryCalls: library calls the compilers rewrite at -O2
// (sprintf of a literal into stores, pow(x, 2.0) into x * x, bzero into
// memset) run as glibc's own, so the two builds agree where C says they
// do; both were reported not-equivalent while they were stubs.
func TestRewrittenLibraryCalls(t *testing.T) {
	const src = "#include <math.h>\n#include <stdio.h>\n#include <strings.h>\n" +
		"int lit(char *d) { sprintf(d, \"hello\"); return d[0]; }\n" +
		"double sq(double x) { return pow(x, 2.0); }\n" +
		"int zero(char *p) { bzero(p, 8); return p[3]; }\n"
	heap := Input{Args: []uint64{HeapAddr}, Mem: []MemInit{{Addr: HeapAddr, Data: []byte("abcdefghijklmnop")}}}
	for _, cc := range []string{"gcc-12", "clang-16"} {
		o0 := pairObj(t, cc, "rewritten", src, "-O0")
		o2 := pairObj(t, cc, "rewritten", src, "-O2")
		for _, c := range []struct {
			fn string
			in Input
		}{{"lit", heap}, {"sq", Input{FloatArgs: []uint64{math.Float64bits(3.5)}}}, {"zero", heap}} {
			if got := confirm(t, o0, c.fn, o2, c.fn, c.in); got.Differ {
				t.Errorf("%s %s: -O0 and -O2 differ: %q", cc, c.fn, got.Differences)
			}
		}
		// A fortified build calls __sprintf_chk and __strcpy_chk.
		const fsrc = "#include <stdio.h>\n#include <string.h>\n" +
			"int fill(char *d, int x) { char b[16]; sprintf(b, \"%d\", x); strcpy(d, b); return d[0]; }\n"
		f0 := pairObj(t, cc, "fortified", fsrc, "-O0")
		f2 := compile(t, cc, "fortified", fsrc, append([]string{"-O2", "-D_FORTIFY_SOURCE=2"}, confirmFlags...)...)
		if got := confirm(t, f0, "fill", f2, "fill", heap); got.Differ {
			t.Errorf("%s fill: -O0 and fortified -O2 differ: %q", cc, got.Differences)
		}
	}
}

// Struct results of at most 16 bytes come back in registers by the class
// of each eightbyte (rax, rdx for integers; xmm0, xmm1 for floats): each
// is compared on its members' bytes only (padding is unspecified), against
// the same source at -O2 (no difference) and a mutant (a difference).
func TestConfirmStructReturns(t *testing.T) {
	const base = `struct pair { long a, b; };
struct pair mkpair(long x, long y) { struct pair p = { x + 1, y * 2 }; return p; }
struct small { int a; char c; };
struct small mks(long x) { struct small s = { (int)x * 3, (char)(x + 1) }; return s; }
struct dd { double x, y; };
struct dd mkd(double a, double b) { struct dd r = { a + b, a * b }; return r; }
struct mix { double d; int i; };
struct mix mkm(double a, long b) { struct mix r = { a * 2, (int)b - 1 }; return r; }
struct ff { float x, y, z; };
struct ff mkf(float a) { struct ff r = { a, a + 1, a * 2 }; return r; }
float _Complex mkcf(float a, float b) { float _Complex z; __real__ z = a; __imag__ z = b + 1; return z; }
double _Complex mkcd(double a, double b) { double _Complex z; __real__ z = a * 2; __imag__ z = b + 1; return z; }
`
	mutant := strings.NewReplacer("y * 2 }", "y * 3 }", "(char)(x + 1)", "(char)(x + 2)", "a * b }", "a * b + 1 }",
		"(int)b - 1 }", "(int)b - 2 }", "a * 2 };", "a * 3 };", "b + 1; return", "b + 2; return").Replace(base)
	for _, cc := range []string{"gcc-12", "clang-16"} {
		src, same, mut := sourceSameMutant(t, cc, "sr", base, mutant)
		for _, c := range []struct {
			fn, kind string
			in       Input
		}{
			{"mkpair", "struct128", Input{Args: []uint64{5, 7}}},
			{"mks", "struct64", Input{Args: []uint64{5}}},
			{"mkd", "struct128", Input{FloatArgs: []uint64{math.Float64bits(1.5), math.Float64bits(2)}}},
			{"mkm", "struct128", Input{Args: []uint64{9}, FloatArgs: []uint64{math.Float64bits(1.5)}}},
			{"mkf", "struct96", Input{FloatArgs: []uint64{uint64(math.Float32bits(2.5))}}},
			{"mkcf", "complex64", Input{FloatArgs: []uint64{uint64(math.Float32bits(2.5)), uint64(math.Float32bits(4))}}},
			{"mkcd", "complex128", Input{FloatArgs: []uint64{math.Float64bits(2.5), math.Float64bits(4)}}},
		} {
			if got := confirm(t, src, c.fn, same, c.fn, c.in); got.Differ || got.Src.ReturnKind != c.kind {
				t.Errorf("%s %s against its own -O2: differ %v %q, return kind %s, want %s", cc, c.fn, got.Differ, got.Differences, got.Src.ReturnKind, c.kind)
			}
			if got := confirm(t, src, c.fn, mut, c.fn, c.in); !got.Differ || !hasDifference(got, "return bytes") {
				t.Errorf("%s %s against its mutant: differ %v %q (%s)", cc, c.fn, got.Differ, got.Differences, got.Detail)
			}
		}
	}
}

// A struct copied with members left unset stores whatever the source's
// frame held there (C: an indeterminate value); clang -O2 stores only the
// members set. Those bytes change when the stack below the entry is
// filled otherwise, and are not compared: the same source at -O2 shows no
// difference (it was reported not-equivalent before), a mutant of a
// member that is set still does, on that member alone.
func TestConfirmUninitializedMembers(t *testing.T) {
	const base = "struct q { int a, b, c, d; };\nvoid store(struct q *out, int x) { struct q l; l.a = x; l.c = x * 2; *out = l; }\n"
	src := pairObj(t, "clang-16", "un0", base, "-O0")
	same := pairObj(t, "clang-16", "un2", base, "-O2")
	mut := pairObj(t, "clang-16", "unm", strings.Replace(base, "x * 2", "x * 3", 1), "-O2")
	in := Input{Args: []uint64{HeapAddr, 1}, Mem: []MemInit{{Addr: HeapAddr, Data: []byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}}}}
	if c := confirm(t, src, "store", same, "store", in); c.Differ || !strings.Contains(c.Detail, "never wrote") {
		t.Errorf("against its own -O2: differ %v %q (%s), want no difference and the unset members named", c.Differ, c.Differences, c.Detail)
	}
	c := confirm(t, src, "store", mut, "store", in)
	if !c.Differ || !hasDifference(c, "heap[8..") || hasDifference(c, "heap[4..") || hasDifference(c, "heap[12..") {
		t.Errorf("against the mutant: differ %v %q, want member c (heap[8..12]) alone", c.Differ, c.Differences)
	}
}

// A variable read before it is set (C: undefined behaviour when its
// address is never taken) returns whatever the source's frame held there;
// gcc -O2 returns the one value it is ever set to. The return value
// changes when the stack below the entry is filled otherwise, so it is not
// compared: the -O2 build shows no difference (it was reported
// not-equivalent before: the check compared only memory), a mutant that
// returns something else where the variable is set still does.
func TestConfirmUninitializedReturn(t *testing.T) {
	const base = "int uninit(int c) { int x; if (c > 5) x = 1; return x; }\n"
	src := pairObj(t, "gcc-12", "ur0", base, "-O0")
	same := pairObj(t, "gcc-12", "ur2", base, "-O2")
	mut := pairObj(t, "gcc-12", "urm", strings.Replace(base, "x = 1", "x = 2", 1), "-O2")
	if c := confirm(t, src, "uninit", same, "uninit", Input{Args: []uint64{0}}); c.Differ || !strings.Contains(c.Detail, "never wrote") {
		t.Errorf("c = 0 against its own -O2: differ %v %q (%s), want no difference and the return value named", c.Differ, c.Differences, c.Detail)
	}
	if c := confirm(t, src, "uninit", mut, "uninit", Input{Args: []uint64{7}}); !c.Differ || !hasDifference(c, "return") {
		t.Errorf("c = 7 against the mutant: differ %v %q (%s), want the return value", c.Differ, c.Differences, c.Detail)
	}
}

// Two builds that each read a variable before setting it, from different
// slots of their frames: on a stack of distinct bytes they return
// different values, on a uniformly filled one the same. Neither value is
// defined, so there is no difference; the bytes changed with the fill in
// both runs, and are compared only where the two runs on the one fill
// still differ (a value both read, that a callee's stub left unwritten).
func TestConfirmUninitializedBoth(t *testing.T) {
	const base = "int f(int c) { int x[2]; if (c) x[0] = 1; return x[0]; }\n"
	src := pairObj(t, "gcc-12", "ub0", base, "-O0")
	dst := pairObj(t, "gcc-12", "ub1", strings.Replace(base, "int x[2];", "volatile int pad[6]; int x[2];", 1), "-O0")
	rsp := entryRSP(defaultStackSize, 0)
	stack := make([]byte, 256)
	for i := range stack {
		stack[i] = byte(i + 1)
	}
	in := Input{Args: []uint64{0}, Mem: []MemInit{{Addr: rsp - uint64(len(stack)), Data: stack}}}
	if c := confirm(t, src, "f", dst, "f", in); c.Differ || !strings.Contains(c.Detail, "never wrote") {
		t.Errorf("differ %v %q (%s), want no difference and the return value named", c.Differ, c.Differences, c.Detail)
	}
}

// TestConfirmStubObjects: a store through the object a stub returned is
// an observable: the same code at -O0 and -O3 agrees, a store of another
// value differs as "stub-objects", and an output parameter's value
// written by a stub decides the result in both builds alike.
func TestConfirmStubObjects(t *testing.T) {
	code := "struct s { int a, b; }; struct s *get(int); void len(int, unsigned long *);\n" +
		"int f(int x) { struct s *p = get(x); unsigned long n; len(x, &n); p->b = x + %s; return (int)n; }\n"
	src := pairObj(t, "gcc", "o0", fmt.Sprintf(code, "1"), "-O0")
	same := pairObj(t, "clang-16", "o3", fmt.Sprintf(code, "1"), "-O3")
	dst := pairObj(t, "gcc", "o3b", fmt.Sprintf(code, "2"), "-O3")
	c := confirm(t, src, "f", same, "f", Input{Args: []uint64{5}})
	if c.Differ || c.Src.Return != c.Dst.Return || c.Src.Return >= 1<<12 {
		t.Errorf("same source: Differ=%v %q (%s) return %#x / %#x", c.Differ, c.Differences, c.Detail, c.Src.Return, c.Dst.Return)
	}
	c = confirm(t, src, "f", dst, "f", Input{Args: []uint64{5}})
	if !c.Differ || !hasDifference(c, "stub-objects[4..5]: src 06 dst 07") {
		t.Errorf("x + 2: Differ=%v %q (%s)", c.Differ, c.Differences, c.Detail)
	}
}

// TestConfirmStructArgs: a callee that takes a struct by value, or
// returns one, gets a stub that logs the struct's members (one word per
// eightbyte, padding masked) and returns a struct made from its hash, so
// that a mutant that changes only a member passed, or reads another
// member of the result, differs in a real run, and the same source at -O2
// (which builds the struct in other registers, with other padding) does
// not. Before, such a callee was unprototyped: its six argument registers
// were logged and compared only where the source's call set them.
func TestConfirmStructArgs(t *testing.T) {
	const base = `struct pt { int x, y; };
struct mix { double d; long i; };
struct big { long a, b, c, d; };
struct pad { char c; long v; };
struct odd { int w[5]; };
extern long takept(struct pt p);
extern long takemix(struct mix m);
extern long takebig(struct big b);
extern long takepad(struct pad p);
extern long takeodd(long k, struct odd o);
extern struct big mkbig(long x);
extern struct pt mkpt(long x);
extern struct mix mkmix(long x);
long cpt(int a, int b) { struct pt p = { a, b }; return takept(p) + 1; }
long cmix(double d, long i) { struct mix m = { d, i }; return takemix(m); }
long cbig(long x) { struct big b = { x, x + 1, x + 2, x + 3 }; return takebig(b); }
long cpad(long v) { struct pad p = { 'a', v }; return takepad(p); }
long codd(long x) { struct odd o = { { 1, 2, 3, 4, (int)x } }; return takeodd(x, o); }
long gbig(long x) { struct big b = mkbig(x); return b.a + b.d; }
long gpt(long x) { struct pt p = mkpt(x); return p.x - p.y; }
long gmix(long x) { struct mix m = mkmix(x); return m.i + (long)(m.d * 1000); }
`
	mutant := strings.NewReplacer("{ a, b }", "{ b, a }", "{ d, i }", "{ d, i + 1 }", "x + 3 }", "x + 4 }",
		"'a', v", "'b', v", "(int)x } }", "(int)x + 1 } }", "b.a + b.d", "b.a + b.c", "p.x - p.y", "p.y - p.x",
		"m.d * 1000", "m.d * 999").Replace(base)
	for _, cc := range []string{"gcc-12", "clang-16"} {
		src, same, mut := sourceSameMutant(t, cc, "sa", base, mutant)
		// clang declares callees in DWARF only when optimizing.
		obj, err := ReadObject(same)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"takept", "takemix", "takebig", "takepad", "takeodd", "mkbig", "mkpt", "mkmix"} {
			if e, ok := obj.Extern(name); !ok || !e.Prototyped {
				t.Errorf("%s: extern %s is not prototyped: %+v", cc, name, e)
			}
		}
		for _, c := range []struct {
			fn   string
			in   Input
			want string
		}{
			{"cpt", Input{Args: []uint64{5, 7}}, "calls[0]"},
			{"cmix", Input{Args: []uint64{9}, FloatArgs: []uint64{math.Float64bits(1.5)}}, "calls[0]"},
			{"cbig", Input{Args: []uint64{5}}, "calls[0]"},
			{"cpad", Input{Args: []uint64{5}}, "calls[0]"},
			{"codd", Input{Args: []uint64{5}}, "calls[0]"},
			{"gbig", Input{Args: []uint64{5}}, "return"},
			{"gpt", Input{Args: []uint64{5}}, "return"},
			{"gmix", Input{Args: []uint64{3}}, "return"},
		} {
			if got := confirm(t, src, c.fn, same, c.fn, c.in); got.Differ {
				t.Errorf("%s %s against its own -O2: differ %q (%s)", cc, c.fn, got.Differences, got.Detail)
			}
			if got := confirm(t, src, c.fn, mut, c.fn, c.in); !got.Differ || !hasDifference(got, c.want) {
				t.Errorf("%s %s against its mutant: differ %v %q, want %s… (%s)", cc, c.fn, got.Differ, got.Differences, c.want, got.Detail)
			}
		}
	}
}

// TestConfirmMemoryResults: a function returning a struct over 16 bytes
// writes it where rdi points; runs pass a zeroed block there and compare
// it member by member (padding aside), so a mutant that changes one
// member differs and the same source at -O2 does not. Before, rdi was
// whatever the input left (0), and every run faulted.
func TestConfirmMemoryResults(t *testing.T) {
	const base = `struct vec3 { double x, y, z; };
struct rec { char tag; long a; int b; long *p; };
struct vec3 add3(const struct vec3 *u, const struct vec3 *v) { struct vec3 r = { u->x + v->x, u->y + v->y, u->z + v->z }; return r; }
struct rec mkrec(long a, int b) { struct rec r = { 'r', a, b * 2, 0 }; return r; }
long g;
struct rec ptrrec(long a) { struct rec r = { 'p', a, 1, &g }; return r; }
`
	mutant := strings.NewReplacer("u->z + v->z", "u->z - v->z", "b * 2,", "b * 3,", "'p', a, 1,", "'p', a, 2,").Replace(base)
	u := make([]byte, 24)
	binary.LittleEndian.PutUint64(u[16:], math.Float64bits(2.5))
	in := Input{Args: []uint64{0, HeapAddr, HeapAddr}, Mem: []MemInit{{Addr: HeapAddr, Data: u}}}
	for _, cc := range []string{"gcc-12", "clang-16"} {
		src, same, mut := sourceSameMutant(t, cc, "mr", base, mutant)
		for _, c := range []struct {
			fn, want string
			in       Input
		}{
			{"add3", "return bytes 16..24", in},
			{"mkrec", "return bytes 16..20", Input{Args: []uint64{0, 5, 7}}},
			{"ptrrec", "return bytes 16..20", Input{Args: []uint64{0, 5}}},
		} {
			got := confirm(t, src, c.fn, same, c.fn, c.in)
			if got.Differ || !strings.HasSuffix(got.Src.ReturnKind, "in memory") || got.Src.Outcome != Returned {
				t.Errorf("%s %s against its own -O2: differ %v %q, %s, return kind %s (%s)", cc, c.fn, got.Differ, got.Differences, got.Src.Detail, got.Src.ReturnKind, got.Detail)
			}
			if got := confirm(t, src, c.fn, mut, c.fn, c.in); !got.Differ || !hasDifference(got, c.want) {
				t.Errorf("%s %s against its mutant: differ %v %q, want %s (%s)", cc, c.fn, got.Differ, got.Differences, c.want, got.Detail)
			}
		}
	}
}
