package tracer

import (
	"eqc/x86"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strings"
	"text/template"
)

// Fixed addresses of the regions the driver maps before it seals itself, the
// same in every executable the tracer links, so that both programs of a pair
// see equal pointer arguments.
const (
	HeapAddr    = 0x10000000 // heap buffers for pointer arguments
	StackAddr   = 0x20000000 // the stack the traced function runs on (grows down from StackAddr+StackSize)
	CallLogAddr = 0x30000000 // the stubs' call log
	CallLogSize = 1 << 20
	// CanonAddr is the read-only table by which stubs name pointer
	// arguments by meaning (canon.go); the tracer writes it before the
	// snapshot.
	CanonAddr = 0x38000000
	CanonSize = 1 << 20
	// ArenaAddr is where the objects of pointer-returning stubs lie:
	// ArenaChunks chunks of ArenaChunk bytes, zero at the start of every
	// run, the n-th logged call's at ArenaAddr + (n-1)·ArenaChunk (a stub
	// returns NULL instead when its hash is 0 modulo 8). Results hold it
	// as the Region stubObjects.
	ArenaAddr   = 0x3c000000
	ArenaChunk  = 4 << 10
	ArenaChunks = 256
	ArenaSize   = ArenaChunk * ArenaChunks

	defaultHeapSize  = 256 << 10
	defaultStackSize = 1 << 20

	callLogHeaderWords = 4  // count, overflow, reserved, reserved
	callLogEntryWords  = 11 // name hash, argument count, call site, 8 arguments
	// CallLogMaxArgs is the number of arguments a call log entry records.
	CallLogMaxArgs = 8
)

// callLogCapacity is the number of entries the call log holds.
const callLogCapacity = (CallLogSize/8 - callLogHeaderWords) / callLogEntryWords

// DefaultLibc lists the undefined functions the driver takes from static
// glibc rather than stubbing; they make no system calls (errno is
// thread-local memory). Where a stub's made-up result, or its call
// counted as an event, would show a correct compilation differing:
//   - every function the proofs model as const or pure (x86.ConstCallees,
//     x86.PureCallees, x86.SqrtCallees), whose calls an optimizer may merge
//     or drop (gcc -O2 calls tolower(*s) once where -O0 calls it twice), and
//     whose results the code may dereference (isdigit reads
//     (*__ctype_b_loc())[c]: a made-up pointer faulted every run);
//   - libcComputing: the routines compilers introduce or expand inline.
var DefaultLibc = append(slices.Sorted(maps.Keys(modelledLibc())), libcComputing...)

// modelledLibc are the library functions the proofs give a meaning.
func modelledLibc() map[string]bool {
	out := map[string]bool{}
	maps.Copy(out, x86.ConstCallees)
	maps.Copy(out, x86.PureCallees)
	for name := range x86.SqrtCallees {
		out[name] = true
	}
	return out
}

// libcComputing are computing routines the compilers introduce for loops
// (memset, memcpy), expand inline (clang -O0 calls abs, -O2 computes it;
// gcc calls sqrt at -O0 and uses sqrtsd above) or rewrite into one
// another or into stores (sprintf(d, "hello") into two stores,
// sprintf(d, "%s", s) into strcpy, bzero into memset, pow(x, 2.0) into
// x * x, sin and cos into sincos): a stub that wrote nothing, or returned a
// made-up number, made the two builds differ.
var libcComputing = []string{
	"memcpy", "memmove", "memset", "strcpy", "strncpy", "imaxabs",
	"sprintf", "snprintf", "vsprintf", "vsnprintf", "strcat", "strncat", "stpcpy", "stpncpy",
	"strtol", "strtoul", "strtoll", "strtoull", "bzero", "bcopy",
	"fabs", "fabsf", "floor", "floorf", "ceil", "ceilf", "trunc", "truncf",
	"round", "roundf", "rint", "rintf", "nearbyint", "nearbyintf", "lrint", "lrintf", "llrint", "llrintf",
	"lround", "lroundf", "copysign", "copysignf", "fmin", "fminf", "fmax", "fmaxf",
	"pow", "powf", "exp", "expf", "exp2", "exp2f", "log", "logf", "log2", "log2f", "log10", "log10f",
	"sin", "sinf", "cos", "cosf", "tan", "tanf", "asin", "acos", "atan", "atanf", "atan2", "atan2f",
	"sinh", "cosh", "tanh", "fmod", "fmodf", "hypot", "hypotf", "cbrt", "ldexp", "ldexpf", "frexp", "modf",
	"expm1", "log1p", "sincos", "sincosf", "mempcpy",
	// What _FORTIFY_SOURCE (-O1 and up) calls in their place.
	"__memcpy_chk", "__memmove_chk", "__memset_chk", "__mempcpy_chk", "__strcpy_chk", "__stpcpy_chk",
	"__strncpy_chk", "__strcat_chk", "__strncat_chk", "__sprintf_chk", "__snprintf_chk",
	"__vsprintf_chk", "__vsnprintf_chk",
}

// stubObjects names the arena in Result.Memory: no C identifier, so no
// global's name.
const stubObjects = "stub-objects"

// StubID is the identifier a stub logs for function name: FNV-1a 64 of the name.
func StubID(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

func stubMix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// StubResult is the 64-bit value the stub of function name returns for the
// given arguments, each already widened to 64 bits as the stub does (signed
// integers sign-extended, unsigned zero-extended, floating-point arguments as
// their IEEE bit patterns). Integer results are this value truncated to the
// declared result type; floating-point results are StubFloat of it.
func StubResult(name string, args []uint64) uint64 {
	h := StubID(name)
	for _, a := range args {
		h = stubMix(h ^ a)
	}
	return stubMix(h + uint64(len(args)))
}

// StubFloat is the floating-point result a stub returns for hash h: a value
// in [0, 1).
func StubFloat(h uint64) float64 { return float64(h>>11) * math.Ldexp(1, -53) }

// StubOut is the value a stub whose result hash is h, called as the
// seq-th logged call of the run (from 1), writes through its parameter i
// when that is a pointer to a writable scalar (Param.Out), as 64 bits: a
// _Bool pointee takes the lowest bit, a floating-point pointee StubFloat
// of it, a wider integer pointee the low 12 bits (a small
// nonnegative number, as a count or a length an output parameter returns
// is, whose sums and products do not overflow: the UB monitor takes any
// wrapping add for a possible signed overflow and drops the input); a
// one-byte integer pointee is written 0 (a character buffer the callee
// fills gets the empty string, so the caller's string functions end
// inside it). The call's place in the run counts, as a callee with state
// of its own may: the canonical key of every stack address is one, and
// g(&x); g(&y) would write x and y alike, so that the two calls swapped
// showed nothing.
func StubOut(h uint64, i int, seq uint64) uint64 {
	return stubMix(h ^ uint64(i+1)*0x9e3779b97f4a7c15 ^ seq*0xc2b2ae3d27d4eb4f)
}

type stubParam struct {
	Widen   string // C expression converting the parameter to __eqc_u64
	Pointer bool   // hashed by its canonical key (canon.go), not its bits
	Out     string // C statement writing StubOut through the parameter, or ""
}

type stubFunc struct {
	Name, Label string
	ID          uint64
	Ret         string // C result type
	RetExpr     string // C statement returning the result from h
	// Params are the words the stub logs; Sig is its C parameter list
	// (an aggregate by value is one C parameter and a word per
	// eightbyte), LastArg the last C parameter's name (va_start's), Types
	// the C structs its aggregates are passed as.
	Params   []stubParam
	Sig      string
	LastArg  string
	Types    []string
	Variadic bool
	// Hashed is how many of Params the result hashes: all of a prototype's,
	// none of the six registers an unprototyped stub records (which of
	// them are arguments is known only at the call site).
	Hashed  int
	PtrMask uint64 // bit i: parameter i is a pointer
	// NoReturn: the stub ends the run after logging (EndedInCall).
	NoReturn bool
	// Early is what the stub does when called before the hand-over point
	// (libc's own start-up calling an allocator the object shadows): the
	// C library's allocator; "" to return 0 unlogged.
	Early string
	// Extra counts the integer argument registers a variadic stub records
	// after its named parameters (six less the named integer ones).
	Extra int
	Outs  bool // some parameter has an Out statement
}

type dataDef struct {
	Name, Label string
	TLS         bool
	Size        int64
}

type driverData struct {
	Heap, HeapSize, Stack, StackSize, Log, LogSize uint64
	Canon, CanonSize                               uint64
	Arena, ArenaSize, ArenaChunk, ArenaChunks      uint64
	LogCap                                         uint64
	CPU, AS                                        uint64
	StrMax                                         int
	Data                                           []dataDef
	Funcs                                          []stubFunc
}

var driverTmpl = template.Must(template.New("driver").Funcs(template.FuncMap{
	"hex": func(v uint64) string { return fmt.Sprintf("0x%xUL", v) },
}).Parse(`/* Generated by eqc/tracer: the driver of a traced object. Do not edit. */
typedef unsigned long __eqc_u64;

/* Undefined data symbols of the object. */
{{range .Data}}{{if .TLS}}__thread {{end}}char {{.Label}}[{{.Size}}] __asm__("{{.Name}}") __attribute__((aligned(64)));
{{end}}
static inline long __eqc_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
	return r;
}

static void __eqc_die(int code)
{
	for (;;)
		__eqc_sys6(231 /* exit_group */, code, 0, 0, 0, 0, 0);
}

static __eqc_u64 __eqc_mix(__eqc_u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9UL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebUL;
	x ^= x >> 31;
	return x;
}

/* The canonical key of a pointer argument (canon.go): a binary search of
   the tracer's table of sorted, disjoint ranges at {{hex .Canon}} (a count,
   then lo, hi, kind, id per range). A symbol's address is its name's id plus
   the offset, read-only data is the FNV-1a hash of its bytes up to a NUL,
   any stack address one constant; other values are themselves. */
static __eqc_u64 __eqc_key(__eqc_u64 a)
{
	const volatile __eqc_u64 *t = (const volatile __eqc_u64 *){{hex .Canon}};
	__eqc_u64 lo = 0, hi = t[0];
	while (lo < hi) {
		__eqc_u64 mid = lo + (hi - lo) / 2;
		const volatile __eqc_u64 *e = t + 1 + 4 * mid;
		if (a < e[0]) {
			hi = mid;
		} else if (a >= e[1]) {
			lo = mid + 1;
		} else if (e[2] == 1) {
			return __eqc_mix(e[3] ^ 0x73796d626f6cUL) + (a - e[0]);
		} else if (e[2] == 2) {
			__eqc_u64 h = 0xcbf29ce484222325UL;
			for (__eqc_u64 p = a; p < e[1] && p - a < {{.StrMax}}; p++) {
				unsigned char b = *(const volatile unsigned char *)p;
				if (b == 0)
					break;
				h = (h ^ b) * 0x100000001b3UL;
			}
			return __eqc_mix(h ^ 0x737472696e67UL);
		} else {
			return __eqc_mix(0x737461636bUL);
		}
	}
	return a;
}

/* Set once the log and the table are mapped: libc's own start-up may call a
   function the object shadows (static glibc's _dl_get_origin calls malloc),
   before there is a log; such a call goes to the C library's allocator
   (stubFunc.Early) or gets 0, and is not logged. */
static volatile int __eqc_live;
extern void *__libc_malloc(unsigned long);
extern void *__libc_calloc(unsigned long, unsigned long);
extern void *__libc_realloc(void *, unsigned long);
extern void __libc_free(void *);

/* A stub call: append (id, n, call site, args) to the log and hash the first
   nh arguments, pointers (ptrmask) by their canonical keys. */
__attribute__((noinline)) __eqc_u64 __eqc_stub(__eqc_u64 id, int n, const __eqc_u64 *a, __eqc_u64 site, int nh, __eqc_u64 ptrmask)
{
	if (!__eqc_live)
		return 0;
	volatile __eqc_u64 *log = (volatile __eqc_u64 *){{hex .Log}};
	__eqc_u64 h = id, c = log[0];
	for (int i = 0; i < nh; i++)
		h = __eqc_mix(h ^ ((ptrmask >> i & 1) ? __eqc_key(a[i]) : a[i]));
	h = __eqc_mix(h + (__eqc_u64)nh);
	if (c < {{.LogCap}}) {
		volatile __eqc_u64 *e = log + 4 + c * 11;
		e[0] = id;
		e[1] = (__eqc_u64)n;
		e[2] = site;
		for (int i = 0; i < n && i < 8; i++)
			e[3 + i] = a[i];
		log[0] = c + 1;
	} else {
		log[1] = 1;
	}
	return h;
}

static __eqc_u64 __eqc_fbits(float f) { union { float f; unsigned u; } x; x.f = f; return x.u; }
static __eqc_u64 __eqc_dbits(double d) { union { double d; __eqc_u64 u; } x; x.d = d; return x.u; }
static double __eqc_tofloat(__eqc_u64 h) { return (double)(h >> 11) * 0x1p-53; }

/* Byte copies for aggregates by value (aggregate.go), volatile so that the
   compiler makes no memset or memcpy call of them (the object may stub
   those). */
static __eqc_u64 __eqc_word(const unsigned char *p, int n)
{
	__eqc_u64 w = 0;
	for (int i = 0; i < n; i++)
		w |= (__eqc_u64)((const volatile unsigned char *)p)[i] << (8 * i);
	return w;
}
static void __eqc_zero(void *p, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		((volatile unsigned char *)p)[i] = 0;
}
static void __eqc_put(unsigned char *p, const void *v, int n)
{
	for (int i = 0; i < n; i++)
		((volatile unsigned char *)p)[i] = ((const unsigned char *)v)[i];
}

/* Whether a stub may write n bytes at p: inside the heap of pointer
   arguments or the stack, the memory a caller's pointer to a writable
   object it owns points into (a global's address is left unwritten). */
static int __eqc_writable(__eqc_u64 p, __eqc_u64 n)
{
	return (p >= {{hex .Heap}} && p + n <= {{hex .Heap}} + {{hex .HeapSize}}) ||
		(p >= {{hex .Stack}} && p + n <= {{hex .Stack}} + {{hex .StackSize}}) ||
		(p >= {{hex .Arena}} && p + n <= {{hex .Arena}} + {{hex .ArenaSize}});
}

/* The object a pointer-returning stub returns: NULL for one hash in
   eight (a lookup that finds nothing, so the caller's check of it runs
   both ways), else the chunk of the arena that belongs to the call's
   place in the log, or h, a made-up pointer, past the arena's last
   chunk. */
static __eqc_u64 __eqc_object(__eqc_u64 h)
{
	if ((h & 7) == 0)
		return 0;
	__eqc_u64 seq = ((volatile __eqc_u64 *){{hex .Log}})[0];
	if (seq == 0 || seq > {{.ArenaChunks}})
		return h;
	return {{hex .Arena}} + (seq - 1) * {{hex .ArenaChunk}};
}

/* Stubs of the undefined functions. */
{{range .Funcs}}{{range .Types}}{{.}}
{{end}}{{.Ret}} {{.Label}}({{.Sig}}) __asm__("{{.Name}}");
{{.Ret}} {{.Label}}({{.Sig}})
{
{{- if .Early}}
	if (!__eqc_live) {
		{{.Early}}
	}
{{- end}}
	__eqc_u64 a[{{len .Params}} + {{.Extra}} + 1] = { {{range .Params}}{{.Widen}}, {{end}}0 };
{{- if .Extra}}
	/* The argument registers after the named ones, whatever they hold:
	   which are arguments is decided at the call site (callsite.go). */
	__builtin_va_list ap;
	__builtin_va_start(ap, {{.LastArg}});
	for (int i = 0; i < {{.Extra}}; i++)
		a[{{len .Params}} + i] = __builtin_va_arg(ap, __eqc_u64);
	__builtin_va_end(ap);
{{- end}}
	__eqc_u64 h = __eqc_stub({{hex .ID}}, {{len .Params}} + {{.Extra}}, a, (__eqc_u64)__builtin_return_address(0), {{.Hashed}}, {{hex .PtrMask}});
{{- if .Outs}}
	/* Outputs (outStatement); none before the log is mapped. */
	if (__eqc_live) {
		__eqc_u64 seq = ((volatile __eqc_u64 *){{hex $.Log}})[0];
{{- range .Params}}{{if .Out}}
		{{.Out}}{{end}}{{end}}
	}
{{- end}}
{{- if .NoReturn}}
	/* A callee that never returns: the run ends here (EndedInCall). */
	(void)h;
	__asm__ volatile("jmp __eqc_noreturn");
	__builtin_unreachable();
{{- else}}
	{{.RetExpr}}
{{- end}}
}
{{end}}
/* Hand-over points: the tracer finds these symbols in the executable. */
__asm__(".text\n"
	".globl __eqc_ready\n__eqc_ready:\n\tint3\n\tjmp __eqc_ready\n"
	".globl __eqc_sentinel\n__eqc_sentinel:\n\tint3\n\tjmp __eqc_sentinel\n"
	".globl __eqc_noreturn\n__eqc_noreturn:\n\tint3\n\tjmp __eqc_noreturn\n");

struct __eqc_rlimit { __eqc_u64 cur, max; };
struct __eqc_insn { unsigned short code; unsigned char jt, jf; unsigned k; };
struct __eqc_prog { unsigned short len; struct __eqc_insn *filter; };

static void __eqc_limit(int res, __eqc_u64 v)
{
	struct __eqc_rlimit r = { v, v };
	if (__eqc_sys6(160 /* setrlimit */, res, (long)&r, 0, 0, 0, 0) != 0)
		__eqc_die(74);
}

static void __eqc_map(__eqc_u64 addr, __eqc_u64 size, int code, int prot)
{
	/* prot: PROT_READ (1) or PROT_READ|PROT_WRITE (3); MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED_NOREPLACE */
	long r = __eqc_sys6(9 /* mmap */, (long)addr, (long)size, prot, 0x02 | 0x20 | 0x100000, -1, 0);
	if (r != (long)addr)
		__eqc_die(code);
}

/* Runs after libc's start-up (TLS, IRELATIVE relocations) and never returns. */
__attribute__((constructor, used)) static void __eqc_init(void)
{
	__eqc_limit(4 /* RLIMIT_CORE */, 0);
	__eqc_limit(1 /* RLIMIT_FSIZE */, 0);
	__eqc_limit(6 /* RLIMIT_NPROC */, 0);
	__eqc_limit(0 /* RLIMIT_CPU */, {{.CPU}});
	__eqc_limit(9 /* RLIMIT_AS */, {{hex .AS}});
	__eqc_map({{hex .Heap}}, {{hex .HeapSize}}, 71, 3);
	__eqc_map({{hex .Stack}}, {{hex .StackSize}}, 72, 3);
	__eqc_map({{hex .Log}}, {{hex .LogSize}}, 73, 3);
	__eqc_map({{hex .Canon}}, {{hex .CanonSize}}, 73, 1);
	__eqc_map({{hex .Arena}}, {{hex .ArenaSize}}, 73, 3);
	__eqc_live = 1;
	if (__eqc_sys6(157 /* prctl */, 38 /* PR_SET_NO_NEW_PRIVS */, 1, 0, 0, 0, 0) != 0)
		__eqc_die(75);
	/* One instruction: every system call, of any number and any
	   architecture (int $0x80 included), returns SECCOMP_RET_TRAP. */
	static struct __eqc_insn filter[1] = { { 0x06 /* BPF_RET|BPF_K */, 0, 0, 0x00030000 /* SECCOMP_RET_TRAP */ } };
	struct __eqc_prog prog = { 1, filter };
	if (__eqc_sys6(317 /* seccomp */, 1 /* SECCOMP_SET_MODE_FILTER */, 0, (long)&prog, 0, 0, 0) != 0)
		__eqc_die(76);
	/* From here on no system call can succeed. */
	__asm__ volatile("jmp __eqc_ready");
	__builtin_unreachable();
}

__attribute__((weak)) int main(void)
{
	__asm__ volatile("jmp __eqc_ready");
	return 0;
}
`))

func widen(p Param, i int) string {
	switch p.Kind {
	case ScalarFloat32:
		return fmt.Sprintf("__eqc_fbits(a%d)", i)
	case ScalarFloat64:
		return fmt.Sprintf("__eqc_dbits(a%d)", i)
	}
	if p.Signed {
		return fmt.Sprintf("(__eqc_u64)(long)a%d", i)
	}
	return fmt.Sprintf("(__eqc_u64)a%d", i)
}

// earlyCall is the C library allocator a stub of name forwards to before
// the hand-over point (stubFunc.Early), given its C result type and the
// number of parameters it takes; "" for other names.
func earlyCall(name, ret string, n int) string {
	u := func(i int) string { return fmt.Sprintf("(unsigned long)(__eqc_u64)a%d", i) }
	ptr := func(i int) string { return fmt.Sprintf("(void *)(__eqc_u64)a%d", i) }
	result := func(call string) string {
		if ret == "void" {
			return call + "; return;"
		}
		return "return (" + ret + ")(__eqc_u64)" + call + ";"
	}
	switch {
	case name == "malloc" && n >= 1:
		return result("__libc_malloc(" + u(0) + ")")
	case name == "calloc" && n >= 2:
		return result("__libc_calloc(" + u(0) + ", " + u(1) + ")")
	case name == "realloc" && n >= 2:
		return result("__libc_realloc(" + ptr(0) + ", " + u(1) + ")")
	case name == "free" && n >= 1:
		if ret == "void" {
			return "__libc_free(" + ptr(0) + "); return;"
		}
		return "__libc_free(" + ptr(0) + "); return 0;"
	}
	return ""
}

func stubOf(e *Extern, idx int) stubFunc {
	s := stubFunc{Name: e.Name, Label: fmt.Sprintf("__eqc_f%d", idx), ID: StubID(e.Name)}
	ret := Param{Kind: ScalarInt, Size: 8}
	var params []Param
	if e.Prototyped {
		ret, params = e.Ret, e.Params
		s.Variadic = e.Variadic && len(params) > 0
		s.Hashed = len(params)
		if s.Variadic {
			s.Extra = 6
			for _, p := range params {
				if p.Kind == ScalarInt {
					s.Extra--
				}
			}
			s.Extra = max(s.Extra, 0)
		}
	} else {
		for i := 0; i < 6; i++ {
			params = append(params, Param{Kind: ScalarInt, Size: 8})
		}
	}
	// The C parameters: a scalar Param each, one for the words of an
	// aggregate (aggregate.go).
	var sig []string
	for i, p := range params {
		name := fmt.Sprintf("a%d", len(sig))
		widened := widen(p, len(sig))
		switch {
		case p.Agg != nil && p.Word == 0:
			ctype := fmt.Sprintf("struct __eqc_a%d_%d", idx, len(sig))
			s.Types = append(s.Types, aggregateCType(p.Agg, strings.TrimPrefix(ctype, "struct ")))
			sig = append(sig, ctype+" "+name)
			widened = aggregateWiden(p.Agg, name, 0)
		case p.Agg != nil:
			widened = aggregateWiden(p.Agg, fmt.Sprintf("a%d", len(sig)-1), p.Word)
		default:
			sig = append(sig, p.cType()+" "+name)
		}
		s.Params = append(s.Params, stubParam{Widen: widened, Pointer: p.Pointer, Out: outStatement(p, i, e.Prototyped)})
		s.Outs = s.Outs || s.Params[i].Out != ""
		if p.Pointer && i < 64 {
			s.PtrMask |= 1 << i
		}
	}
	switch {
	case len(sig) > 0:
		s.LastArg = fmt.Sprintf("a%d", len(sig)-1)
		s.Sig = strings.Join(sig, ", ")
		if s.Variadic {
			s.Sig += ", ..."
		}
	case s.Variadic:
		s.Sig = "..."
	default:
		s.Sig = "void"
	}
	s.Ret = ret.cType()
	if ret.Kind == ScalarAggregate {
		s.Ret = fmt.Sprintf("struct __eqc_r%d", idx)
		s.Types = append(s.Types, aggregateCType(ret.Agg, strings.TrimPrefix(s.Ret, "struct ")))
	}
	s.Early = earlyCall(e.Name, s.Ret, len(sig))
	switch ret.Kind {
	case ScalarAggregate:
		s.RetExpr = aggregateResult(ret.Agg, s.Ret)
	case ScalarVoid:
		s.RetExpr = "(void)h;"
	case ScalarFloat32, ScalarFloat64:
		s.RetExpr = "return (" + s.Ret + ")__eqc_tofloat(h);"
	default:
		s.RetExpr = "return (" + s.Ret + ")h;"
	}
	if ret.Pointer && e.Prototyped && !allocators[e.Name] {
		s.RetExpr = "return (" + s.Ret + ")__eqc_object(h);"
	}
	return s
}

// outStatement is the C statement by which a stub writes StubOut through
// its parameter i (a[i] widened, h its result hash, seq the call's place
// in the log), or "" when p is no pointer to a writable scalar or the
// stub has no prototype. The value is
// a function of the arguments by meaning alone, as a real callee's
// output would be, so two builds that pass equal arguments read equal
// outputs; an optimizer must assume any callee writes through a pointer
// to non-const it is given, so a correct build reads the value written.
func outStatement(p Param, i int, prototyped bool) string {
	if !prototyped || !p.Pointer || p.Out.Kind == ScalarVoid {
		return ""
	}
	o := p.Out
	val := fmt.Sprintf("__eqc_mix(h ^ (__eqc_u64)%d * 0x9e3779b97f4a7c15UL ^ seq * 0xc2b2ae3d27d4eb4fUL)", i+1)
	var ctype, expr string
	switch {
	case o.Kind == ScalarFloat32:
		ctype, expr = "float", "(float)__eqc_tofloat("+val+")"
	case o.Kind == ScalarFloat64:
		ctype, expr = "double", "__eqc_tofloat("+val+")"
	case o.Bool:
		ctype, expr = "_Bool", "(_Bool)("+val+" & 1)"
	case o.Size == 1:
		ctype, expr = "unsigned char", "0"
	default:
		ctype = map[int]string{2: "unsigned short", 4: "unsigned int", 8: "unsigned long"}[o.Size]
		expr = "(" + ctype + ")(" + val + " & 0xfff)"
	}
	if ctype == "" {
		return ""
	}
	return fmt.Sprintf("if (__eqc_writable(a[%d], %d)) *(%s *)a[%d] = %s;", i, o.Size, ctype, i, expr)
}

// DriverSource returns the C source of the driver for obj: definitions of its
// undefined data symbols (sized by obj, overridden by opts.Sizes), stubs for
// its undefined functions other than those taken from libc, the fixed
// mappings, the resource limits and the seccomp filter.
func DriverSource(obj *Object, opts LinkOptions) string {
	opts = opts.withDefaults()
	keep := map[string]bool{}
	for _, n := range opts.Libc {
		keep[n] = true
	}
	d := driverData{
		Heap: HeapAddr, HeapSize: opts.HeapSize, Stack: StackAddr, StackSize: opts.StackSize,
		Log: CallLogAddr, LogSize: CallLogSize, LogCap: callLogCapacity,
		Canon: CanonAddr, CanonSize: CanonSize, StrMax: canonStringMax,
		Arena: ArenaAddr, ArenaSize: ArenaSize, ArenaChunk: ArenaChunk, ArenaChunks: ArenaChunks,
		CPU: uint64(opts.CPULimit.Seconds()), AS: opts.AddressSpace,
	}
	for i := range obj.Externs {
		e := &obj.Externs[i]
		if p, ok := opts.Protos[e.Name]; ok && e.Kind == ExternFunc && !e.Prototyped {
			p.Name = e.Name
			e = &p
		}
		switch {
		case e.Kind == ExternData:
			size := e.Size
			if s, ok := opts.Sizes[e.Name]; ok && s > 0 {
				size = s
			}
			d.Data = append(d.Data, dataDef{Name: cString(e.Name), Label: fmt.Sprintf("__eqc_d%d", i), Size: size, TLS: e.TLS})
		case !keep[e.Name]:
			s := stubOf(e, i)
			s.NoReturn = e.NoReturn || x86.StdNoReturn[e.Name] || opts.NoReturn[e.Name]
			s.Name = cString(s.Name)
			d.Funcs = append(d.Funcs, s)
		}
	}
	var b strings.Builder
	if err := driverTmpl.Execute(&b, d); err != nil {
		panic(fmt.Sprintf("tracer: driver template: %v", err))
	}
	return b.String()
}

// cString escapes a symbol name for a C string literal.
func cString(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}
