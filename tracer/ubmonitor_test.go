package tracer

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"eqc/ub"
)

// ubSource holds the functions the UB monitor is tested on, and
// ubConstant the same functions each returning a constant, so that every
// run of the pair differs and the monitor always runs.
const ubSource = `
int add(int x, int y) { return x + y; }
long addl(long x, long y) { return x + y; }
int sub(int x, int y) { return x - y; }
int mul8(int x) { return x * 8; }
int mul(int x, int y) { return x * y; }
int neg(int x) { return -x; }
int shl(int x, int n) { return x << n; }
int shr(int x, int n) { return x >> n; }
int shm(int x) { x <<= 3; return x; }
unsigned ushl(unsigned x, unsigned n) { return x << n; }
int rd(const char *p) { return *(const int *)(p + 1); }
int rd0(const char *p) { return *(const int *)p; }
int loc(int i) { int a[4] = {1, 2, 3, 4}; int b = 7; return a[i] + b; }
int locp(int i) { int a[4] = {1, 2, 3, 4}; int *q = a; return q[i]; }
int G[4], H[4];
int gl(int i) { return G[i]; }
int gp(int i) { int *q = H; return q[i]; }
static const int days[4] = {31, 28, 31, 30};
int st(int i) { return days[i]; }
long pd(long *p, long *q) { return p - q; }
typedef char T[12];
long pd12(T *p, T *q) { return p - q; }
long top(long **top, long *func) { long d = (func + 1) - *top; return (long)(*top + d); }
struct __attribute__((packed)) pk {
	char c;
	int i;
	long l;
};
long pkd(int v) { struct pk s; s.c = 1; s.i = v; s.l = v; return s.i + s.c + s.l; }
struct quad {
	long a, b, c, d;
};
extern long sinkquad(int k, struct quad q);
long quadarg(long x) { struct quad q = {x, 0, 2, x}; return sinkquad(1, q); }
`

var ubConstant = regexp.MustCompile(`\{ .* \}`).ReplaceAllString(ubSource, "{ return 12345; }")

// TestUBMonitor runs each function of ubSource at -O0 (gcc-12, clang-16)
// on inputs with and without undefined behaviour and checks which models
// the monitor names: every input with UB must be caught by its model (a
// not-equivalent verdict rests on that), every input without must pass,
// except where the monitor over-approximates by design (noted).
func TestUBMonitor(t *testing.T) {
	heap := func(args ...uint64) Input {
		return Input{Args: args, Mem: []MemInit{{Addr: HeapAddr, Data: []byte("abcdefghijklmnop")}}}
	}
	cases := []struct {
		fn   string
		in   Input
		want ub.Set // models the event must include; 0: no event
	}{
		{"add", Input{Args: []uint64{1, 2}}, 0},
		{"add", Input{Args: []uint64{0x7fffffff, 1}}, 1 << ub.SIO},
		{"add", Input{Args: []uint64{0xffffffff80000000, 0xffffffffffffffff}}, 1 << ub.SIO},
		{"addl", Input{Args: []uint64{1 << 62, 1 << 62}}, 1 << ub.SIO},
		{"addl", Input{Args: []uint64{1 << 62, 1}}, 0},
		{"sub", Input{Args: []uint64{0xffffffff80000000, 1}}, 1 << ub.SIO},
		{"sub", Input{Args: []uint64{5, 7}}, 0},
		{"mul8", Input{Args: []uint64{0x10000000}}, 1 << ub.SIO},
		{"mul8", Input{Args: []uint64{0xfffffffffffffff0}}, 0},
		{"mul", Input{Args: []uint64{0x10000, 0x10000}}, 1 << ub.SIO},
		{"mul", Input{Args: []uint64{0xffffffffffffffff, 7}}, 0},
		{"neg", Input{Args: []uint64{0xffffffff80000000}}, 1 << ub.SIO},
		{"neg", Input{Args: []uint64{3}}, 0},
		{"shl", Input{Args: []uint64{1, 3}}, 0},
		{"shl", Input{Args: []uint64{1, 32}}, 1 << ub.Shift},
		{"shl", Input{Args: []uint64{1, 0xffffffffffffffff}}, 1 << ub.Shift},
		{"shl", Input{Args: []uint64{1, 0x100000003}}, 0}, // an int count: the upper half is not the argument's
		{"shl", Input{Args: []uint64{0x40000000, 2}}, 1 << ub.SIO},
		{"shm", Input{Args: []uint64{0x20000000}}, 1 << ub.SIO},
		{"shm", Input{Args: []uint64{0xffffffffffffffff}}, 0},
		{"shr", Input{Args: []uint64{0xffffffff80000000, 31}}, 0},
		{"shr", Input{Args: []uint64{8, 33}}, 1 << ub.Shift},
		{"ushl", Input{Args: []uint64{1, 30}}, 0},
		{"ushl", Input{Args: []uint64{1, 31}}, 1 << ub.SIO}, // over-approximated: -O0 code does not say the shift is unsigned
		{"ushl", Input{Args: []uint64{1, 40}}, 1 << ub.Shift},
		{"rd0", heap(HeapAddr), 0},
		{"rd", heap(HeapAddr), 1 << ub.Align},
		// A packed local's members are misaligned frame slots: the
		// compiler's own layout, no C pointer (only computed addresses
		// are checked for alignment).
		{"pkd", Input{Args: []uint64{7}}, 0},
		// gcc -O0 copies a struct passed by value into the outgoing
		// argument area through a copy of rsp (mov rcx, rsp; mov [rcx],
		// rax): the compiler's own stack slots, no local's.
		{"quadarg", Input{Args: []uint64{7}}, 0},
		{"loc", Input{Args: []uint64{3}}, 0},
		{"loc", Input{Args: []uint64{4}}, 1 << ub.OBVA},
		{"loc", Input{Args: []uint64{0xffffffffffffffff}}, 1 << ub.OBVA},
		{"locp", Input{Args: []uint64{2}}, 0},
		{"locp", Input{Args: []uint64{5}}, 1 << ub.OBVA},
		{"gl", Input{Args: []uint64{3}}, 0},
		{"gl", Input{Args: []uint64{4}}, 1 << ub.OBVA},
		{"gl", Input{Args: []uint64{0xffffffffffffffff}}, 1 << ub.OBVA},
		// A static const table: a local symbol in .rodata, which no
		// input sets, bounds the access all the same (a false
		// not-equivalent before: a day-of-year loop past the table).
		{"st", Input{Args: []uint64{3}}, 0},
		{"st", Input{Args: []uint64{4}}, 1 << ub.OBVA},
		{"gp", Input{Args: []uint64{2}}, 0},
		{"gp", Input{Args: []uint64{4}}, 1 << ub.OBVA},
		{"pd", heap(HeapAddr+16, HeapAddr), 0},
		{"pd", heap(HeapAddr+12, HeapAddr), 1 << ub.OBVA},
		{"pd", Input{Args: []uint64{5, 3}}, 0}, // no addresses: not a pointer subtraction
		{"pd12", heap(HeapAddr+24, HeapAddr), 0},
		{"pd12", heap(HeapAddr+16, HeapAddr), 1 << ub.OBVA},   // 4 bytes off the 4-byte part: sar
		{"pd12", heap(HeapAddr+12, HeapAddr+4), 1 << ub.OBVA}, // 8 bytes: a multiple of 4, not of 3
		{"top", Input{Args: []uint64{HeapAddr, HeapAddr + 0xc0}, Mem: []MemInit{{Addr: HeapAddr, Data: []byte{0x40, 0, 0, 0x10, 0, 0, 0, 0}}}}, 0},
		{"top", Input{Args: []uint64{HeapAddr, HeapAddr + 0xc4}, Mem: []MemInit{{Addr: HeapAddr, Data: []byte{0x40, 0, 0, 0x10, 0, 0, 0, 0}}}}, 1 << ub.OBVA},
	}
	for _, cc := range []string{"gcc-12", "clang-16"} {
		t.Run(cc, func(t *testing.T) {
			src := pairObj(t, cc, "ub", ubSource, "-O0")
			dst := pairObj(t, cc, "const", ubConstant, "-O0")
			for _, c := range cases {
				t.Run(fmt.Sprintf("%s%#x", c.fn, c.in.Args), func(t *testing.T) {
					got, err := ConfirmUnder(context.Background(), src, c.fn, dst, c.fn, c.in, ub.All)
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case c.want == 0 && got.UB != nil:
						t.Errorf("UB reported on an input without: %s", got.UB)
					case c.want == 0 && !got.Differ:
						t.Errorf("no difference: %s", got.Detail)
					case c.want != 0 && got.UB == nil:
						t.Errorf("no UB reported, want %s (differ=%v, %s)", c.want, got.Differ, got.Detail)
					case c.want != 0 && got.UB.Models&c.want != c.want:
						t.Errorf("UB %s, want %s among its models", got.UB, c.want)
					case c.want != 0 && got.Differ:
						t.Errorf("a difference on an input with UB: %q", got.Differences)
					}
					// The models not asked for are not watched. Without
					// them the difference stands, unless it is in bytes the
					// source read from its stack without writing them (a
					// read past a local array): an indeterminate value.
					if c.want != 0 {
						other, err := ConfirmUnder(context.Background(), src, c.fn, dst, c.fn, c.in, ub.All&^c.want&^(1<<ub.SIO|1<<ub.Shift))
						if err != nil {
							t.Fatal(err)
						}
						if other.UB != nil || !other.Differ && !strings.Contains(other.Detail, "never wrote") {
							t.Errorf("without %s: UB %v, differ %v (%s)", c.want, other.UB, other.Differ, other.Detail)
						}
					}
				})
			}
		})
	}
}
