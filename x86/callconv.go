package x86

import (
	"fmt"
	"strings"

	"eqc/ir"
)

// The C calling convention as a model of callees (callconv.go).
//
// The lifter makes a callee a function of everything it can see: its
// arguments, its stack pointer and all of memory (tfg.go, call). Two
// builds of one function never agree on the last two — their frames
// differ — so under that model no call compares. A C callee sees less,
// and CallConvention rewrites terms over the entry state of a function
// into the narrower model, given the entry rsp and the size of the stack
// region S = [rsp−limit, rsp+8) below it:
//
//   - The callee reads its arguments and the memory outside S: the view
//     of memory M at the call is M with every store into S taken out
//     (strip), which is M outside S and, inside S, what the entry memory
//     or an earlier call left there, the same on both sides. Its results
//     are uninterpreted functions of the arguments and the view
//     ("callc:…"), so equal arguments and views give equal results.
//   - It writes what it likes outside S (its memory result there), and
//     leaves the caller's part of S, [rsp at the call, rsp+8), as it was:
//     the memory after the call is its memory result with the caller's
//     stores into that part replayed on top (replay), the return address
//     first. Below its stack pointer at the call it leaves garbage, which
//     the memory result stands for.
//
// Both hold for a callee that is C code and for the calling convention's
// other callees, as long as no address inside the caller's frame escapes
// to the callee, through an argument or through memory outside S; the
// caller must check that (the frame taint of package ub) before relying on
// a rewritten term. Calls whose argument list may be incomplete
// (CallFunc.Complete false) cannot be rewritten: Err says which.
//
// Stored bytes are the caller's; a byte of the caller's frame it never
// stored before the call reads, after the call, as the memory result
// does — the same on both sides — where the machine still holds what was
// there at entry: only a read of uninitialised stack tells them apart.

// ConstCallees are the C library functions the library or the compilers
// take as const (__attribute__((const)): glibc's errno and ctype
// locators, abs; gcc's built-in character classes and case mappings,
// whose second call with one argument gcc -O2 drops: gnugo's
// string_to_location calls tolower(*str) twice at -O0, once at -O2): a
// result depends on the arguments alone and memory is left as it was, so
// two calls with equal arguments give one value and a call the optimizer
// merged or dropped, as it may, changes nothing. In the convention's form
// they read a fixed view ("callc.const-view"), and the memory after one is
// the memory before it. (The character functions read the locale, which a
// program that calls setlocale between two calls changes: the compilers
// assume it does not, and so does a proof, which lists the assumption.)
var ConstCallees = map[string]bool{
	"__errno_location": true, "__ctype_b_loc": true, "__ctype_tolower_loc": true, "__ctype_toupper_loc": true,
	"abs": true, "labs": true, "llabs": true,
	"isalnum": true, "isalpha": true, "isascii": true, "isblank": true, "iscntrl": true, "isdigit": true, "isgraph": true,
	"islower": true, "isprint": true, "ispunct": true, "isspace": true, "isupper": true, "isxdigit": true,
	"tolower": true, "toupper": true, "toascii": true,
}

// ConstView is the fixed view of memory the convention's form of a const
// callee's call reads: the same at every call.
const ConstView = "callc.const-view"

// PureCallees are the C library functions the library declares pure
// (__attribute_pure__: the string and memory searches and comparisons): a
// result depends on the arguments and the memory the callee may read, and
// memory is left as it was, so a call the optimizer hoisted out of a loop,
// merged with another or dropped changes nothing. Natively they are
// glibc's own (tracer.DefaultLibc), unlogged, as they must be for their
// calls not to count as events.
var PureCallees = map[string]bool{
	"strlen": true, "strnlen": true, "strcmp": true, "strncmp": true, "memcmp": true, "bcmp": true,
	"strchr": true, "strrchr": true, "memchr": true, "strstr": true, "strspn": true, "strcspn": true, "strpbrk": true,
	"strcasecmp": true, "strncasecmp": true, "strchrnul": true, "rawmemchr": true, "memrchr": true, "index": true, "rindex": true,
	"atoi": true, "atol": true, "atoll": true,
}

// CallConvention rewrites terms into the C calling convention's model of
// callees. Build one per pair of functions (they must share the memo so
// that both sides' calls become the same functions).
type CallConvention struct {
	B     *ir.Builder
	Simp  *ir.Simplifier
	RSP0  ir.Term // the entry stack pointer
	Limit uint64  // S is [RSP0−Limit, RSP0+8)
	// Outside, when set, reports addresses whose n bytes the caller's
	// assumptions place outside S (a global's bytes).
	Outside func(a ir.Term, n uint32) bool
	// ReadOnly, when set, reports addresses whose n bytes lie in read-only
	// data, which no callee writes: a read there reads Mem0, the entry
	// memory, whatever calls came before.
	ReadOnly func(a ir.Term, n uint32) bool
	Mem0     ir.Term
	// Const are the callees taken as const functions: those of
	// ConstCallees that neither file defines (a program's own abs is no
	// library function).
	Const map[string]bool
	// Pure are the callees taken as pure functions: those of
	// PureCallees that neither file defines.
	Pure map[string]bool
	// Sqrt are the square roots of SqrtCallees that neither file
	// defines, whose results the model computes (sqrtResult).
	Sqrt map[string]bool
	// FirstArg are the callees of FirstArgCallees that neither file
	// defines: rax after a call is the call's first argument.
	FirstArg map[string]bool
	// SiteRead are the callees some of whose arguments the call sites'
	// registers give (Callees.Sites: a variadic callee's variadic part,
	// every argument of one without a prototype), by how many arguments
	// come before those. Such an argument whose value is still the
	// undefined one an earlier call left (the site did not set it: the
	// call passes fewer, fcntl(fd, F_GETFL) beside fcntl(fd, F_SETFL,
	// flags)) becomes one variable shared by both sides, UnsetArg: the
	// callee does not read it, and two sites that both leave it unset
	// apply the callee alike. Any value one side does set is another
	// argument than UnsetArg, which no equality gives.
	SiteRead map[string]int

	// Calls are the rewritten calls' result terms, in the order met.
	Calls []ConventionCall
	// Err is the first call that could not be rewritten.
	Err error

	memo  map[ir.Term]ir.Term
	strip map[ir.Term]ir.Term
}

// ConventionCall is one rewritten application: the callee and the
// argument values it is applied to (the view left out).
type ConventionCall struct {
	Func CallFunc
	Args []ir.Term
	View ir.Term // the memory it reads
}

// CallIncompleteError says a call's arguments are not all known.
type CallIncompleteError struct {
	Callee string
}

func (e *CallIncompleteError) Error() string {
	return fmt.Sprintf("call to %s: its arguments are not all known (no usable prototype and stack arguments or variadic ones the source does not set at the call)", e.Callee)
}

// Rewrite returns t with every call of the lifter's form in the C
// convention's form.
func (c *CallConvention) Rewrite(t ir.Term) ir.Term {
	if c.memo == nil {
		c.memo = map[ir.Term]ir.Term{}
	}
	return c.rw(t)
}

// RewriteAll rewrites each of ts.
func (c *CallConvention) RewriteAll(ts []ir.Term) []ir.Term {
	out := make([]ir.Term, len(ts))
	for i, t := range ts {
		out[i] = c.Rewrite(t)
	}
	return out
}

func (c *CallConvention) rw(t ir.Term) ir.Term {
	if r, ok := c.memo[t]; ok {
		return r
	}
	b := c.B
	args := b.Args(t)
	if len(args) == 0 {
		c.memo[t] = t
		return t
	}
	nargs := make([]ir.Term, len(args))
	changed := false
	for i, a := range args {
		nargs[i] = c.rw(a)
		changed = changed || nargs[i] != a
	}
	r := t
	if b.Op(t) == ir.OpApply {
		if fn, ok := ParseCallFunc(b.FuncOf(t).Name); ok && !fn.Convention && len(nargs) == fn.N+2 {
			r = c.call(fn, nargs)
			c.memo[t] = r
			return r
		}
	}
	if b.Op(t) == ir.OpSelect && c.ReadOnly != nil && nargs[0] != c.Mem0 {
		if n, _ := b.Params(t); c.ReadOnly(nargs[1], n) {
			nargs[0], changed = c.Mem0, true
		}
	}
	if b.Op(t) == ir.OpSelect && c.Outside != nil && nargs[0] != c.Mem0 {
		// A read outside S reads past every store into S (the frame's),
		// which the simplifier cannot tell apart from the read's address.
		if n, _ := b.Params(t); c.Outside(nargs[1], n) {
			if m := c.stripS(nargs[0]); m != nargs[0] {
				nargs[0], changed = m, true
			}
		}
	}
	if changed {
		r = c.Simp.Simplify(b.WithArgs(t, nargs))
	}
	c.memo[t] = r
	return r
}

// call builds the convention's form of one application of the lifter's
// function fn to args (argument values, the stack pointer, the memory).
func (c *CallConvention) call(fn CallFunc, args []ir.Term) ir.Term {
	b := c.B
	vals, rsp, mem := args[:fn.N], args[fn.N], args[fn.N+1]
	if !fn.Complete && c.Err == nil {
		c.Err = &CallIncompleteError{Callee: fn.Callee}
	}
	view := c.stripS(mem)
	if c.Const[fn.Callee] {
		// Its results are functions of the arguments alone, and it
		// leaves memory as the caller had it.
		if fn.Result == "mem" {
			return mem
		}
		view = b.Var(ConstView, ir.MemSort)
	}
	if c.Pure[fn.Callee] && fn.Result == "mem" {
		// It reads the view and writes nothing.
		return mem
	}
	if fixed, ok := c.SiteRead[fn.Callee]; ok && fixed < len(vals) {
		vals = append([]ir.Term(nil), vals...)
		for i := fixed; i < len(vals); i++ {
			if undefinedValue(b, vals[i]) {
				vals[i] = b.Var(UnsetArg, b.Sort(vals[i]))
			}
		}
	}
	cf := fn
	cf.Convention = true
	sorts := make([]ir.Sort, 0, len(vals)+1)
	for _, v := range vals {
		sorts = append(sorts, b.Sort(v))
	}
	sorts = append(sorts, ir.MemSort)
	result := ir.MemSort
	switch fn.Result {
	case "rax", "rdx":
		result = ir.BVSort(64)
	case "xmm0", "xmm1":
		result = ir.BVSort(128)
	}
	name := cf.String()
	f, err := b.TryDeclareFunc(name, sorts, result)
	if err != nil {
		f = b.DeclareFunc(fmt.Sprintf("%s#%v", name, sorts), sorts, result)
	}
	f.View = true
	app := b.Apply(f, append(append([]ir.Term(nil), vals...), view)...)
	c.Calls = append(c.Calls, ConventionCall{Func: cf, Args: vals, View: view})
	if r, ok := c.absResult(fn, vals, app); ok {
		return r
	}
	if c.FirstArg[fn.Callee] && fn.Result == "rax" && len(vals) > 0 && b.Sort(vals[0]).Width == 64 {
		return vals[0]
	}
	r := app
	if fn.Result == "mem" {
		r = c.replay(mem, rsp, app)
	}
	if r, ok := c.sqrtResult(fn, vals, mem, app, r); ok {
		return r
	}
	return r
}

// UnsetArg names the variable that stands for an argument register a call
// site leaves as an earlier call left it (CallConvention.SiteRead).
const UnsetArg = "callc.unset-argument"

// undefinedValue reports whether t is (part of) a value the lifter made
// undefined (UndefPrefix): a register a call clobbered.
func undefinedValue(b *ir.Builder, t ir.Term) bool {
	for b.Op(t) == ir.OpExtract {
		t = b.Arg(t, 0)
	}
	if b.Op(t) != ir.OpVar {
		return false
	}
	name := b.VarName(t)
	return strings.HasPrefix(name, UndefPrefix) || strings.Contains(name, "."+UndefPrefix)
}

// absWidths are the C library's absolute values, by the width of their
// argument and result.
var absWidths = map[string]uint32{"abs": 32, "labs": 64, "llabs": 64}

// absResult is rax after a call of abs, labs or llabs (taken as const
// callees): the C result as the function defines it, |x| wrapping at the
// most negative value (undefined in C, glibc's too); above an int's 32
// bits, app's bits, the const function's as for any callee. Compilers
// expand these inline (clang -O0 calls abs, -O2 negates and selects), and
// only the value the C program sees can be the same.
func (c *CallConvention) absResult(fn CallFunc, vals []ir.Term, app ir.Term) (ir.Term, bool) {
	w := absWidths[fn.Callee]
	if w == 0 || !c.Const[fn.Callee] || fn.Result != "rax" || len(vals) == 0 || c.B.Sort(vals[0]).Width != 64 {
		return ir.NoTerm, false
	}
	b := c.B
	x := extract(b, vals[0], w-1, 0)
	r := b.Ite(b.Slt(x, b.Const(w, 0)), b.Neg(x), x)
	if w < 64 {
		r = concat(b, extract(b, app, 63, w), r)
	}
	return c.Simp.Simplify(r), true
}

// FirstArgCallees are the C library's functions that return their first
// argument (C11 7.24.2–7.24.3, 7.24.6.1: "returns the value of s1"), and
// glibc's checked forms of them, which _FORTIFY_SOURCE calls instead.
// gcc uses the returned register where the C code uses the pointer it
// passed (return memcpy(p, s, n) or p after the call), so only the value
// the function defines can make the two compare.
var FirstArgCallees = map[string]bool{
	"memcpy": true, "memmove": true, "memset": true, "strcpy": true, "strncpy": true, "strcat": true, "strncat": true,
	"__memcpy_chk": true, "__memmove_chk": true, "__memset_chk": true, "__strcpy_chk": true, "__strncpy_chk": true,
	"__strcat_chk": true, "__strncat_chk": true,
}

// SqrtCallees are the C library's square roots, by the width of their
// operand: compilers compute them with sqrtsd/sqrtss and call the library
// only for a negative operand, for errno (gcc: ucomisd, then the call).
var SqrtCallees = map[string]uint32{"sqrt": 64, "sqrtf": 32}

// sqrtResult is a result of a call of sqrt or sqrtf (one the files do not
// define, c.Sqrt): in xmm0, the square root sqrtsd or sqrtss computes, the
// function the lifter gives those instructions (above the result's bits,
// app's, as for any callee); in memory, general (the call's effect, for
// errno) when the operand is below zero and nothing otherwise. That is
// C's sqrt (7.12.7.5: a domain error only below zero; -0 and NaN are none)
// as glibc computes it, with sqrtsd.
func (c *CallConvention) sqrtResult(fn CallFunc, vals []ir.Term, mem, app, general ir.Term) (ir.Term, bool) {
	w := SqrtCallees[fn.Callee]
	if w == 0 || !c.Sqrt[fn.Callee] || len(vals) != 1 || c.B.Sort(vals[0]).Width != 64 {
		return ir.NoTerm, false
	}
	b := c.B
	x := extract(b, vals[0], w-1, 0)
	switch fn.Result {
	case "xmm0":
		name := map[uint32]string{64: "fp.sqrtsd/64>64", 32: "fp.sqrtss/32>32"}[w]
		f := b.DeclareFunc(name, []ir.Sort{ir.BVSort(w)}, ir.BVSort(w))
		return c.Simp.Simplify(concat(b, extract(b, app, 127, w), b.Apply(f, x))), true
	case "mem":
		magnitude := extract(b, x, w-2, 0)
		negative := b.And(isOne(b, extract(b, x, w-1, w-1)), b.Not(b.Eq(magnitude, b.Const(w-1, 0))), b.Not(fpIsNaN(b, x, w)))
		return c.Simp.Simplify(b.Ite(negative, general, mem)), true
	}
	return ir.NoTerm, false
}

// offset is a's constant distance from the entry rsp, if it has one.
func (c *CallConvention) offset(a ir.Term) (int64, bool) {
	if a == c.RSP0 {
		return 0, true
	}
	base, off := c.B.BaseOffset(c.Simp.Simplify(a))
	return int64(off), base == c.RSP0
}

// in is the Bool that the n bytes at a lie inside [lo, hi), both offsets
// from the entry rsp, decided when a has a constant offset: known says
// whether it is decided, and when it is, all and none say whether every
// byte or no byte lies inside.
func (c *CallConvention) in(a ir.Term, n uint32, lo, hi int64) (cond ir.Term, all, none, known bool) {
	b := c.B
	if off, ok := c.offset(a); ok {
		all = off >= lo && off+int64(n) <= hi
		none = off+int64(n) <= lo || off >= hi
		return ir.NoTerm, all, none, true
	}
	if c.Outside != nil && c.Outside(a, n) {
		return ir.NoTerm, false, true, true
	}
	// a − (rsp0+lo) <u (hi−lo) − n + 1: every byte inside, no wrap.
	rel := b.Sub(a, b.Add(c.RSP0, b.Const(64, uint64(lo))))
	return b.Ult(rel, b.Const(64, uint64(hi-lo-int64(n)+1))), false, false, false
}

// stripS is m with every store wholly inside S taken out: equal to m
// outside S.
func (c *CallConvention) stripS(m ir.Term) ir.Term {
	if c.strip == nil {
		c.strip = map[ir.Term]ir.Term{}
	}
	if r, ok := c.strip[m]; ok {
		return r
	}
	b := c.B
	r := m
	switch b.Op(m) {
	case ir.OpStore:
		n, _ := b.Params(m)
		base, a, v := c.stripS(b.Arg(m, 0)), b.Arg(m, 1), b.Arg(m, 2)
		cond, all, _, known := c.in(a, n, -int64(c.Limit), 8)
		switch {
		case known && all:
			r = base
		case known:
			r = b.Store(base, a, n, v)
		default:
			// Wholly inside, the store is taken out: the bytes keep
			// base's value. (A store of a chosen value, not a choice
			// between memories, which readers would walk arm by arm;
			// the frame taint reads it as a conditional store.)
			r = b.Store(base, a, n, b.Ite(cond, b.Select(base, a, n), v))
		}
	case ir.OpIte:
		r = b.Ite(b.Arg(m, 0), c.stripS(b.Arg(m, 1)), c.stripS(b.Arg(m, 2)))
	}
	r = c.Simp.Simplify(r)
	c.strip[m] = r
	return r
}

// replay puts on out (the callee's memory result) the stores of m, the
// memory at the call, that land in the caller's part of S, [rsp, rsp0+8),
// on top of the return address m holds.
func (c *CallConvention) replay(m, rsp, out ir.Term) ir.Term {
	b := c.B
	lo, ok := c.offset(rsp)
	if !ok {
		// The frame's lower end is not a constant offset: keep nothing
		// of it, as if the callee had clobbered it all. Sound (every
		// byte is the callee's result, shared by both sides only if
		// the calls are), and no read of a stored local survives.
		if c.Err == nil {
			c.Err = fmt.Errorf("a call's stack pointer is not at a constant offset from the entry rsp")
		}
		return out
	}
	base := b.Store(out, c.RSP0, 8, b.Select(m, c.RSP0, 8))
	memo := map[ir.Term]ir.Term{}
	var walk func(ir.Term) ir.Term
	walk = func(x ir.Term) ir.Term {
		if r, ok := memo[x]; ok {
			return r
		}
		r := base
		switch b.Op(x) {
		case ir.OpStore:
			n, _ := b.Params(x)
			under, a, v := walk(b.Arg(x, 0)), b.Arg(x, 1), b.Arg(x, 2)
			_, all, none, known := c.in(a, n, lo, 8)
			switch {
			case known && all:
				r = b.Store(under, a, n, v)
			case known && none:
				r = under
			default:
				// Byte by byte: each byte inside is the store's, each
				// outside the callee's. (A store of a chosen value, not
				// a choice between memories: readers walking the chain
				// would walk both arms of each choice.)
				r = under
				for i := uint32(0); i < n; i++ {
					ai := b.Add(a, b.Const(64, uint64(i)))
					vi := extract(b, v, 8*i+7, 8*i)
					ci, alli, nonei, knowni := c.in(ai, 1, lo, 8)
					switch {
					case knowni && alli:
						r = b.Store(r, ai, 1, vi)
					case knowni && nonei:
					case knowni:
						panic("x86: a byte both inside and outside")
					default:
						r = b.Store(r, ai, 1, b.Ite(ci, vi, b.Select(r, ai, 1)))
					}
				}
			}
		case ir.OpIte:
			r = b.Ite(b.Arg(x, 0), walk(b.Arg(x, 1)), walk(b.Arg(x, 2)))
		}
		r = c.Simp.Simplify(r)
		memo[x] = r
		return r
	}
	return walk(m)
}
