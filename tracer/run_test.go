package tracer

import (
	"encoding/binary"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"eqc/x86"

	"golang.org/x/arch/x86/x86asm"
)

func call(t *testing.T, p *Process, fn string, v Vector, o *RunOptions) *Result {
	t.Helper()
	r, err := p.Call(fn, v, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != Returned {
		t.Fatalf("%s: %v", fn, r)
	}
	return r
}

func int32s(v []int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func TestAdd(t *testing.T) {
	for _, cc := range []string{"gcc", "clang-16"} {
		for _, opt := range []string{"-O0", "-O2"} {
			obj := compile(t, cc, "add", "int add(int a, int b) { return a + b; }\n", opt)
			exe, err := Link(obj, LinkOptions{Dir: filepath.Dir(obj)})
			if err != nil {
				t.Fatal(err)
			}
			p, err := Start(exe, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range [][2]int32{{2, 40}, {-5, 3}, {1 << 30, 1 << 30}, {-1, -1}, {0, 0}} {
				r := call(t, p, "add", Vector{Args: []uint64{uint64(int64(v[0])), uint64(int64(v[1]))}}, nil)
				if got, want := int32(r.Rax), v[0]+v[1]; got != want {
					t.Errorf("%s %s add(%d, %d) = %d, want %d", cc, opt, v[0], v[1], got, want)
				}
			}
			p.Close()
		}
	}
}

func TestSumHeapBuffer(t *testing.T) {
	src := "long sum(int *p, int n) { long s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }\n"
	_, p := build(t, "sum", src, LinkOptions{}, "-O3")
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 7, 100, 1000} {
		xs := make([]int32, n)
		var want int64
		for i := range xs {
			xs[i] = rng.Int31() - 1<<30
			want += int64(xs[i])
		}
		r := call(t, p, "sum", Vector{Args: []uint64{HeapAddr, uint64(n)}, Mem: []MemInit{{Addr: HeapAddr, Data: int32s(xs)}}}, nil)
		if int64(r.Rax) != want {
			t.Errorf("sum(n=%d) = %d, want %d", n, int64(r.Rax), want)
		}
		if got := r.MemoryOf("heap")[:4*n]; string(got) != string(int32s(xs)) {
			t.Errorf("sum(n=%d) changed the buffer", n)
		}
	}
	// Restoration: a run after a buffer was set sees the snapshot, not the old buffer.
	r := call(t, p, "sum", Vector{Args: []uint64{HeapAddr, 4}}, nil)
	if r.Rax != 0 {
		t.Errorf("heap not restored between runs: sum = %d", r.Rax)
	}
}

func TestStubCalls(t *testing.T) {
	src := `long g(long x);
int h(int a, unsigned char b);
double d(double x);
long callg(long x) { return g(x) + 2 * g(x + 1) + h((int)x, 200) + (d(1.5) > 0.0); }
`
	exe, p := build(t, "stub", src, LinkOptions{}, "-O2")
	for _, name := range []string{"g", "h", "d"} {
		if e, ok := exe.Object.Extern(name); !ok || e.Kind != ExternFunc || !e.Prototyped {
			t.Fatalf("extern %s: %+v", name, e)
		}
	}
	for _, x := range []int64{0, 5, -3} {
		r := call(t, p, "callg", Vector{Args: []uint64{uint64(x)}}, nil)
		u := uint64(x)
		hs := StubResult("h", []uint64{uint64(int64(int32(x))), 200})
		fd := StubFloat(StubResult("d", []uint64{0x3ff8000000000000}))
		want := StubResult("g", []uint64{u}) + 2*StubResult("g", []uint64{u + 1}) + uint64(int64(int32(hs)))
		if fd > 0 {
			want++
		}
		if r.Rax != want {
			t.Errorf("callg(%d) = %#x, want %#x", x, r.Rax, want)
		}
		if len(r.Calls) != 4 {
			t.Fatalf("callg(%d): calls %+v", x, r.Calls)
		}
		names := map[string]int{}
		for _, c := range r.Calls {
			names[c.Name]++
		}
		if names["g"] != 2 || names["h"] != 1 || names["d"] != 1 {
			t.Errorf("callg(%d): calls %+v", x, r.Calls)
		}
		for _, c := range r.Calls {
			if c.Name == "h" && (c.N != 2 || c.Args[0] != uint64(int64(int32(x))) || c.Args[1] != 200) {
				t.Errorf("h call %+v", c)
			}
		}
	}
}

// TestBoolStub: a stub of a function that returns _Bool returns 0 or 1 in
// al, as the ABI has it and a real callee would (callers test the byte as
// they like: -O0 code `xor $1, %al`, -O2 `test %al, %al`, and those
// disagree on any other byte). callok reads the byte as returned (-O0
// stores al and copies it).
func TestBoolStub(t *testing.T) {
	src := `_Bool ok(long x);
void *memcpy(void *, const void *, unsigned long);
long callok(long x) { _Bool b = ok(x); unsigned char c; memcpy(&c, &b, 1); return c; }
`
	exe, p := build(t, "boolstub", src, LinkOptions{}, "-O0")
	if e, ok := exe.Object.Extern("ok"); !ok || !e.Prototyped || !e.Ret.Bool {
		t.Fatalf("extern ok: %+v", e)
	}
	for x := uint64(0); x < 16; x++ {
		r := call(t, p, "callok", Vector{Args: []uint64{x}}, nil)
		want := uint64(0)
		if StubResult("ok", []uint64{x}) != 0 {
			want = 1
		}
		if r.Rax != want {
			t.Errorf("callok(%d) = %#x, want %d", x, r.Rax, want)
		}
	}
}

// TestShadowedAllocator: an object that calls malloc, calloc, realloc and
// free shadows the C library's allocator with stubs, which static glibc's
// own start-up calls before the driver's hand-over point; the driver
// starts (the stubs forward to the library there) and the calls the
// function makes are stubbed and logged like any other.
func TestShadowedAllocator(t *testing.T) {
	src := `#include <stdlib.h>
long alloc(long n) {
	char *p = malloc(n), *q = calloc(n, 2);
	p = realloc(p, 2 * n);
	free(q);
	return (long)p ^ (long)q;
}
`
	_, p := build(t, "alloc", src, LinkOptions{}, "-O0")
	r := call(t, p, "alloc", Vector{Args: []uint64{16}}, nil)
	names := []string{}
	for _, c := range r.Calls {
		names = append(names, c.Name)
	}
	if strings.Join(names, " ") != "malloc calloc realloc free" {
		t.Fatalf("calls %v, want malloc calloc realloc free, logged", names)
	}
	m, c := StubResult("malloc", []uint64{16}), StubResult("calloc", []uint64{16, 2})
	if want := StubResult("realloc", []uint64{m, 32}) ^ c; r.Rax != want {
		t.Errorf("alloc(16) = %#x, want the stubs' %#x", r.Rax, want)
	}
}

func TestGlobalArray(t *testing.T) {
	src := `extern int arr[100];
int total;
static int calls;
int scale(int k) { int s = 0; for (int i = 0; i < 100; i++) { arr[i] *= k; s += arr[i]; } total = s; return ++calls; }
`
	exe, p := build(t, "glob", src, LinkOptions{}, "-O2")
	if e, _ := exe.Object.Extern("arr"); e == nil || e.Size != 400 || !e.SizeKnown {
		t.Fatalf("arr extern: %+v", e)
	}
	for _, k := range []int32{1, 3, -2} {
		xs := make([]int32, 100)
		var tot int32
		want := make([]int32, 100)
		for i := range xs {
			xs[i] = int32(i*7 - 50)
			want[i] = xs[i] * k
			tot += want[i]
		}
		r := call(t, p, "scale", Vector{Args: []uint64{uint64(int64(k))}, Mem: []MemInit{{Symbol: "arr", Data: int32s(xs)}}}, nil)
		if r.Rax != 1 {
			t.Errorf("static counter not restored: %d", r.Rax)
		}
		if got := r.MemoryOf("arr"); string(got) != string(int32s(want)) {
			t.Errorf("k=%d: arr wrong", k)
		}
		if got := int32(binary.LittleEndian.Uint32(r.MemoryOf("total"))); got != tot {
			t.Errorf("k=%d: total %d, want %d", k, got, tot)
		}
		if c := r.MemoryOf("calls"); len(c) != 4 || c[0] != 1 {
			t.Errorf("calls region %v", c)
		}
	}
}

func TestManyArgsAndFloat(t *testing.T) {
	src := `long many(long a, long b, long c, long d, long e, long f, long g, long h) { return a + 2*b + 3*c + 4*d + 5*e + 6*f + 7*g + 8*h; }
double fma2(double x, double y, int n) { return x * y + n; }
`
	_, p := build(t, "many", src, LinkOptions{}, "-O2")
	r := call(t, p, "many", Vector{Args: []uint64{1, 1, 1, 1, 1, 1, 1, 100}}, nil)
	if r.Rax != 1+2+3+4+5+6+7+800 {
		t.Errorf("many = %d", r.Rax)
	}
	r = call(t, p, "fma2", Vector{Args: []uint64{3}, FloatArgs: []uint64{0x4000000000000000, 0x4008000000000000}}, nil)
	if r.Xmm0[0] != 0x4022000000000000 { // 2*3+3 = 9.0
		t.Errorf("fma2 xmm0 = %#x", r.Xmm0[0])
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "x.o")
	os.WriteFile(txt, []byte("not an object"), 0o644)
	if _, err := Link(txt, LinkOptions{}); !errors.Is(err, ErrNotObject) {
		t.Errorf("text file: %v", err)
	}
	if _, err := ReadObject("/bin/true"); !errors.Is(err, ErrNotObject) {
		t.Errorf("executable: %v", err)
	}
	// A 3 GiB extern pushes data beyond the reach of 32-bit relocations.
	obj := compile(t, "gcc", "big", "extern char big[]; extern int after[]; int get(int i) { return big[i] + after[i]; }\n", "-O2")
	_, err := Link(obj, LinkOptions{Dir: filepath.Dir(obj), Sizes: map[string]int64{"big": 3 << 30}})
	var le *LinkError
	if !errors.As(err, &le) || !strings.Contains(le.FirstLine, "relocation truncated") {
		t.Errorf("oversized extern: %v", err)
	} else {
		t.Logf("link error: %v", le)
	}
	_, p := build(t, "one", "int one(void) { return 1; }\n", LinkOptions{})
	var nf *FuncNotFoundError
	if _, err := p.Call("nope", Vector{}, nil); !errors.As(err, &nf) {
		t.Errorf("missing function: %v", err)
	}
	var bv *BadVectorError
	if _, err := p.Call("one", Vector{Mem: []MemInit{{Addr: 0x1000, Data: []byte{1}}}}, nil); !errors.As(err, &bv) {
		t.Errorf("bad address: %v", err)
	}
}

func TestTLSExtern(t *testing.T) {
	_, p := build(t, "tls", "extern __thread int tv; int get(void) { return ++tv; }\n", LinkOptions{}, "-O2")
	for i := 0; i < 2; i++ {
		if r := call(t, p, "get", Vector{}, nil); r.Rax != 1 {
			t.Fatalf("get() = %d, want 1 (TLS restored between runs)", r.Rax)
		}
	}
}

func TestDefaultExternSize(t *testing.T) {
	obj := compile(t, "gcc", "unk", "extern int u[]; int get(int i) { return u[i]; }\n", "-O2")
	o, err := ReadObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := o.Extern("u")
	if !ok || e.Size != DefaultExternSize || e.SizeKnown {
		t.Fatalf("u: %+v", e)
	}
	exe, err := Link(obj, LinkOptions{Dir: filepath.Dir(obj), Sizes: map[string]int64{"u": 128000}})
	if err != nil {
		t.Fatal(err)
	}
	if _, size, err := exe.DataAddr("u"); err != nil || size != 128000 {
		t.Fatalf("u size %d %v", size, err)
	}
}

// blockHeads finds the basic-block heads of a function by decoding it: the
// entry, branch targets inside it and the instructions after branches.
func blockHeads(t testing.TB, exe *Executable, name string) []uint64 {
	addr, size, err := exe.FuncRange(name)
	if err != nil {
		t.Fatal(err)
	}
	heads := map[uint64]bool{addr: true}
	for pc := addr; pc < addr+size; {
		inst, err := x86asm.Decode(exe.code(pc, 15), 64)
		if err != nil {
			t.Fatal(err)
		}
		next := pc + uint64(inst.Len)
		if isCondJump(inst.Op) || inst.Op == x86asm.JMP {
			if rel, ok := inst.Args[0].(x86asm.Rel); ok {
				if tg := next + uint64(int64(rel)); tg >= addr && tg < addr+size {
					heads[tg] = true
				}
			}
			if next < addr+size {
				heads[next] = true
			}
		}
		pc = next
	}
	var out []uint64
	for h := range heads {
		out = append(out, h)
	}
	return out
}

const loopSrc = `long loop(long n, long *p) { long s = 0; for (long i = 0; i < n; i++) { s += i * i; if (i & 1) s ^= p[i & 7]; } return s; }
`

func loopWant(n int64, p []int64) int64 {
	var s int64
	for i := int64(0); i < n; i++ {
		s += i * i
		if i&1 != 0 {
			s ^= p[i&7]
		}
	}
	return s
}

func loopVector(n int64) (Vector, []int64) {
	p := []int64{3, 1, 4, 1, 5, 9, 2, 6}
	b := make([]byte, 64)
	for i, x := range p {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return Vector{Args: []uint64{uint64(n), HeapAddr}, Mem: []MemInit{{Addr: HeapAddr, Data: b}}}, p
}

// TestBreakpointsAgainstSingleStep checks breakpoint mode against single-step
// mode: the states recorded at breakpoints are exactly the single-step
// pre-states at those addresses, in order.
func TestBreakpointsAgainstSingleStep(t *testing.T) {
	for _, opt := range []string{"-O0", "-O2"} {
		exe, p := build(t, "loop", loopSrc, LinkOptions{}, opt)
		heads := blockHeads(t, exe, "loop")
		isHead := map[uint64]bool{}
		for _, h := range heads {
			isHead[h] = true
		}
		v, data := loopVector(10)
		bp := call(t, p, "loop", v, &RunOptions{Breakpoints: heads})
		if int64(bp.Rax) != loopWant(10, data) {
			t.Fatalf("%s: breakpoint run = %d, want %d", opt, int64(bp.Rax), loopWant(10, data))
		}
		var stepped []State
		steps := 0
		fn, _ := exe.FuncAddr("loop")
		st := call(t, p, "loop", v, &RunOptions{Step: func(pre, post *State) bool {
			if steps == 0 && pre.Rip != fn {
				t.Errorf("first pre-state at %#x, want %#x", pre.Rip, fn)
			}
			steps++
			if isHead[pre.Rip] {
				s := *pre
				s.Mem = nil
				stepped = append(stepped, s)
			}
			return true
		}})
		if st.Rax != bp.Rax || st.Steps != steps || steps == 0 {
			t.Fatalf("%s: step run rax=%d steps=%d/%d", opt, st.Rax, st.Steps, steps)
		}
		if len(stepped) != len(bp.States) {
			t.Fatalf("%s: %d breakpoint states, %d single-step states at heads", opt, len(bp.States), len(stepped))
		}
		for i := range stepped {
			if stepped[i].Regs != bp.States[i].Regs || stepped[i].Rip != bp.States[i].Rip ||
				stepped[i].Xmm != bp.States[i].Xmm || stepped[i].Rflags != bp.States[i].Rflags {
				t.Fatalf("%s: state %d differs:\nbp   %v\nstep %v", opt, i, &bp.States[i], &stepped[i])
			}
		}
		// The bound: a few states, then the run finishes untraced.
		r := call(t, p, "loop", v, &RunOptions{Breakpoints: heads, MaxStates: 3})
		if len(r.States) != 3 || !r.StatesTruncated || r.Rax != bp.Rax {
			t.Fatalf("%s: bounded run: %d states truncated=%v", opt, len(r.States), r.StatesTruncated)
		}
		// And a plain run after breakpoint runs is unaffected.
		if r := call(t, p, "loop", v, nil); r.Rax != bp.Rax || len(r.States) != 0 {
			t.Fatalf("%s: plain run %v", opt, r)
		}
		t.Logf("%s: %d heads, %d states, %d steps", opt, len(heads), len(bp.States), steps)
	}
}

func TestStepMemory(t *testing.T) {
	src := "void st(int *p, int v) { *p = v; }\n"
	_, p := build(t, "st", src, LinkOptions{}, "-O2")
	found := false
	r := call(t, p, "st", Vector{Args: []uint64{HeapAddr + 8, 0x11223344}, Mem: []MemInit{{Addr: HeapAddr + 8, Data: []byte{9, 9, 9, 9}}}},
		&RunOptions{Step: func(pre, post *State) bool {
			for i, m := range pre.Mem {
				if m.Addr == HeapAddr+8 && len(m.Bytes) == 4 {
					found = true
					if binary.LittleEndian.Uint32(m.Bytes) != 0x09090909 || binary.LittleEndian.Uint32(post.Mem[i].Bytes) != 0x11223344 {
						t.Errorf("store: pre %x post %x", m.Bytes, post.Mem[i].Bytes)
					}
					if b, err := p.ReadMem(HeapAddr+8, 4); err != nil || binary.LittleEndian.Uint32(b) != 0x11223344 {
						t.Errorf("ReadMem in callback: %x %v", b, err)
					}
				}
			}
			return true
		}})
	if !found || r.Steps != 2 {
		t.Fatalf("store not seen (steps %d)", r.Steps)
	}
}

// TestThreadLocalLibc runs code that reads errno and the ctype tables
// under the default link: errno and isdigit are calls of glibc's
// __errno_location and __ctype_b_loc, whose results are pointers the code
// dereferences. The proofs take them as const functions
// (x86.ConstCallees); a stub's made-up pointer made every such run fault
// at the first isdigit (gzip's read_buffer: a solver's counterexample
// could not be run, nor could a lexer's co-executions get past a char).
func TestThreadLocalLibc(t *testing.T) {
	src := `#include <ctype.h>
#include <errno.h>
int digits(const char *s) { int n = 0; for (; *s; s++) n += isdigit((unsigned char)*s) != 0; return n; }
int again(void) { errno = EAGAIN; return errno == EAGAIN; }
int lower(int c) { return tolower(c); }
`
	_, p := build(t, "tls", src, LinkOptions{}, "-O2")
	in := Vector{Args: []uint64{HeapAddr}, Mem: []MemInit{{Addr: HeapAddr, Data: cstr("a1b22c333")}}}
	if r := call(t, p, "digits", in, nil); int32(r.Rax) != 6 {
		t.Errorf("digits(\"a1b22c333\") = %d, want 6", int32(r.Rax))
	}
	if r := call(t, p, "again", Vector{}, nil); int32(r.Rax) != 1 {
		t.Errorf("again() = %d, want 1", int32(r.Rax))
	}
	if r := call(t, p, "lower", Vector{Args: []uint64{'Q'}}, nil); int32(r.Rax) != 'q' {
		t.Errorf("lower('Q') = %d, want %d", int32(r.Rax), 'q')
	}
}

// TestLibcCoversModelledCallees: every library function the proofs model
// as const or pure runs as glibc's own, unlogged (DefaultLibc): a call the
// optimizer merged or dropped, as the model allows, must not show natively
// as a missing event (gcc -O2 calls tolower(*s) once where -O0 calls it
// twice: a false not-equivalent while it was a logged stub).
func TestLibcCoversModelledCallees(t *testing.T) {
	for _, set := range []map[string]bool{x86.ConstCallees, x86.PureCallees} {
		for name := range set {
			if !slices.Contains(DefaultLibc, name) {
				t.Errorf("%s is modelled as a library function but stubbed natively", name)
			}
		}
	}
}

// TestFormattingLibc: sprintf and its kin run as glibc's own under the
// default link, writing what they format: gcc and clang -O2 turn
// sprintf(d, "hello") into stores and sprintf(d, "%s", s) into strcpy,
// and a stub that wrote nothing made the two builds differ.
func TestFormattingLibc(t *testing.T) {
	src := `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int fmt(char *d, int x) { sprintf(d, "<%d>", x); strcat(d, "!"); return (int)strtol(d + 1, 0, 10); }
`
	_, p := build(t, "fmt", src, LinkOptions{}, "-O0")
	r := call(t, p, "fmt", Vector{Args: []uint64{HeapAddr, 42}, Mem: []MemInit{{Addr: HeapAddr, Data: make([]byte, 16)}}}, nil)
	if int32(r.Rax) != 42 {
		t.Errorf("fmt(d, 42) = %d, want 42", int32(r.Rax))
	}
	if len(r.Calls) != 0 {
		t.Errorf("calls logged: %v", r.Calls)
	}
	out, err := p.ReadMem(HeapAddr, 6)
	if err != nil || string(out) != "<42>!\x00" {
		t.Errorf("d = %q (%v), want \"<42>!\"", out, err)
	}
}

// TestStubOutputs: a stub writes StubOut through each pointer parameter to
// a writable scalar that points into the stack or the heap, and nothing
// through a pointer to const, to a pointer, or into a global.
func TestStubOutputs(t *testing.T) {
	src := `void get(long i, long *out);
void getmany(long i, int *n, const long *in, char *buf, _Bool *b, double *d, long **pp);
long glob;
void use(long i, long *o)
{
	long v = -1;
	get(i, &v);
	o[0] = v;
	int n = -1; long c = 7; /* not const itself: the compiler reloads it */ char buf[2] = {'x', 'y'}; _Bool b = 0; double d = -1; long *p = &glob;
	getmany(i, &n, &c, buf, &b, &d, &p);
	o[1] = n; o[2] = c; o[3] = buf[0]; o[4] = buf[1]; o[5] = b; o[6] = d < 0 ? -1 : (long)(d * 1e6); o[7] = p == &glob;
	get(i, o + 8);
	get(i, &glob);
	o[9] = glob;
}
`
	_, p := build(t, "stubout", src, LinkOptions{}, "-O2")
	stack := stubMix(tagStack)
	for _, i := range []int64{0, 3, -5} {
		r := call(t, p, "use", Vector{Args: []uint64{uint64(i), HeapAddr}}, nil)
		got := r.MemoryOf("heap")[:80]
		word := func(k int) int64 { return int64(binary.LittleEndian.Uint64(got[8*k:])) }
		hGet := StubResult("get", []uint64{uint64(i), stack})
		hMany := StubResult("getmany", []uint64{uint64(i), stack, stack, stack, stack, stack, stack})
		hHeap := StubResult("get", []uint64{uint64(i), HeapAddr + 64})
		want := []int64{
			int64(StubOut(hGet, 1, 1) & 0xfff),
			int64(StubOut(hMany, 1, 2) & 0xfff),
			7, // const: unwritten
			0, // a character buffer: the empty string
			'y',
			int64(StubOut(hMany, 4, 2) & 1),
			int64(StubFloat(StubOut(hMany, 5, 2)) * 1e6),
			1, // a pointer to a pointer: unwritten
			int64(StubOut(hHeap, 1, 3) & 0xfff),
			0, // a global: unwritten
		}
		for k, w := range want {
			if word(k) != w {
				t.Errorf("use(%d): o[%d] = %d, want %d", i, k, word(k), w)
			}
		}
	}
}

// TestStubObjects: a stub returning a pointer returns NULL when its hash
// is 0 modulo 8, else the arena chunk of its call's place in the log,
// zero at the start of every run, so a caller may write and read through
// it; the writes are compared as memory. Allocators keep their made-up
// pointers.
func TestStubObjects(t *testing.T) {
	src := `struct node { long key; long count; };
struct node *lookup(long key);
void *malloc(unsigned long);
long bump(long key)
{
	struct node *a = lookup(key), *b = lookup(key + 1);
	if (!a || !b)
		return -7;
	long before = a->count;
	a->count += 1;
	b->key = key;
	return before * 1000 + (long)((char *)b - (char *)a) + (malloc(8) == (void *)0);
}
`
	_, p := build(t, "stubobj", src, LinkOptions{}, "-O2")
	null := func(k int64) bool { return StubResult("lookup", []uint64{uint64(k)})&7 == 0 }
	seen := map[bool]int{}
	for key := int64(0); key < 40; key++ {
		r := call(t, p, "bump", Vector{Args: []uint64{uint64(key)}}, nil)
		if r.Outcome != Returned {
			t.Fatalf("bump(%d): %v", key, r)
		}
		isNull := null(key) || null(key+1)
		seen[isNull]++
		if isNull {
			if int64(r.Rax) != -7 {
				t.Errorf("bump(%d) = %d, want -7 (a NULL object)", key, int64(r.Rax))
			}
			continue
		}
		// Zero at the start (no run sees an earlier run's count), one
		// chunk apart, malloc's pointer not null.
		if r.Rax != ArenaChunk {
			t.Errorf("bump(%d) = %d, want %d", key, r.Rax, ArenaChunk)
		}
		objs := r.MemoryOf(stubObjects)
		if len(objs) != ArenaSize {
			t.Fatalf("stub objects: %d bytes", len(objs))
		}
		if c := binary.LittleEndian.Uint64(objs[8:]); c != 1 {
			t.Errorf("bump(%d): a->count = %d, want 1", key, c)
		}
		if k := binary.LittleEndian.Uint64(objs[ArenaChunk:]); k != uint64(key) {
			t.Errorf("bump(%d): b->key = %d", key, k)
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Errorf("keys 0..39: %d with a NULL object, %d without; want both", seen[true], seen[false])
	}
}
