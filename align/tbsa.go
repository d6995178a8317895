package align

import (
	"fmt"

	"eqc/align/product/pair"
	"eqc/inputs"
	"eqc/x86"
)

// Strict aliasing on counterexamples (the tbsa model). The UB monitor
// watches the source's run for signed overflow, shifts, alignment and
// accesses outside their object, not for an int read through memory a
// long* wrote; a solver's counterexample may point an int* and a long*
// argument at the same bytes, and a compiler that relied on strict
// aliasing (gcc -O2 returns 1 from *a = 1; *b = 2; return *a) then
// differs on it for real. Under tbsa such an input is no counterexample.
// Without a monitor of every access's type, the rule is on the
// arguments: two pointer parameters whose pointees are scalars the rule
// keeps apart (different sizes, or integer against floating point or
// pointer; a character type may alias anything, and a struct may contain
// the other) pointing closer than tbsaReach bytes apart. The differential
// test's inputs never are: each pointer has a buffer of its own, 16 KiB
// apart (difftest.go).

// tbsaReach is how near two such pointers must point to be taken for
// overlapping.
const tbsaReach = 4096

// punnedPointers names two pointer arguments of args (by argument
// register) that the tbsa model keeps apart and that point closer than
// tbsaReach bytes; "" when there are none.
func punnedPointers(p *pair.Pair, args []uint64) string {
	a, b, ok := nearPointers(p, args, func(a, b inputs.Param) bool {
		return pair.ScalarPointee(a.Type) && pair.ScalarPointee(b.Type) && tbsaApart(a.Type, b.Type)
	})
	if !ok {
		return ""
	}
	return fmt.Sprintf("tbsa: %s (%s) and %s (%s) point %d bytes apart, and strict aliasing keeps them apart", a.Name, a.Type.Name, b.Name, b.Type.Name, int64(args[a.Reg]-args[b.Reg]))
}

// nearPointers finds two pointer parameters, a before b, that model
// keeps apart and whose arguments in args point closer than tbsaReach
// bytes.
func nearPointers(p *pair.Pair, args []uint64, model func(a, b inputs.Param) bool) (inputs.Param, inputs.Param, bool) {
	var ptrs []inputs.Param
	for _, pm := range signature(p).Params {
		if pm.Kind == inputs.Pointer && pm.Reg < len(args) {
			ptrs = append(ptrs, pm)
		}
	}
	for i, a := range ptrs {
		for _, b := range ptrs[i+1:] {
			if !model(a, b) {
				continue
			}
			if d := args[a.Reg] - args[b.Reg]; d < tbsaReach || -d < tbsaReach {
				return a, b, true
			}
		}
	}
	return inputs.Param{}, inputs.Param{}, false
}

// tbsaApart reports whether the scalar pointees of t and u are types that
// strict aliasing keeps apart: different sizes, or one floating point
// and the other not, or one a pointer and the other not (signed and
// unsigned variants of one integer type may alias).
func tbsaApart(t, u x86.Type) bool {
	float := func(k x86.TypeKind) bool { return k == x86.KindFloat }
	ptr := func(k x86.TypeKind) bool { return k == x86.KindPointer }
	return t.PointeeSize != u.PointeeSize || float(t.PointeeKind) != float(u.PointeeKind) || ptr(t.PointeeKind) != ptr(u.PointeeKind)
}

// overlappingRestrict names a restrict-qualified pointer argument of args
// (by argument register) and another pointer argument that point closer
// than tbsaReach bytes; "" when there are none. Under the restrict model
// such an input is no counterexample: where the function writes through
// one of them, the source's run may have the undefined behaviour the
// model excludes, and gcc and clang vectorize such loops with no overlap
// check.
func overlappingRestrict(p *pair.Pair, args []uint64) string {
	a, b, ok := nearPointers(p, args, func(a, b inputs.Param) bool { return a.Type.Restrict || b.Type.Restrict })
	if !ok {
		return ""
	}
	return fmt.Sprintf("restrict: %s (%s) and %s (%s) point %d bytes apart, and a restrict pointer's object is reached through no other", a.Name, a.Type.Name, b.Name, b.Type.Name, int64(args[a.Reg]-args[b.Reg]))
}
