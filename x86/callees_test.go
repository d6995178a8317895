package x86

import (
	"regexp"
	"strconv"
	"testing"
)

// TestSiteArgsArity checks the argument registers counted at the -O0 call
// sites of callees without a prototype (indirect calls, a K&R declaration)
// against the C source's arity, which each function's name states: the
// temporaries unoptimized code computes a call in (the target of `call
// *%rcx`, an address in rcx, a value copied from rdx into rsi) are no
// arguments.
func TestSiteArgsArity(t *testing.T) {
	name := regexp.MustCompile(`^(ind|kr)(\d)(?:d(\d))?`)
	funcs := []string{"ind0", "ind1", "ind2", "ind3", "ind4", "ind4self", "ind0d2", "ind1d1", "kr1", "kr3"}
	for _, cc := range []string{"gcc-12", "clang-16"} {
		f, err := Open(compileObject(t, cc, "-O0", "siteargs.c"))
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range funcs {
			g, err := f.Function(fn)
			if err != nil {
				t.Fatal(err)
			}
			m := name.FindStringSubmatch(fn)
			ints, _ := strconv.Atoi(m[2])
			vecs, _ := strconv.Atoi("0" + m[3])
			callee := "*indirect"
			if m[1] == "kr" {
				callee = "kr"
			}
			got := PairCallees(f, g, f, g).Sites[callee]
			if got.Int != ints || got.Vec != vecs || got.Stack {
				t.Errorf("%s %s: site arguments %+v, want %d integer and %d vector registers", cc, fn, got, ints, vecs)
			}
		}
		// Two calls through a local pointer with two arguments each.
		g, err := f.Function("indlocal")
		if err != nil {
			t.Fatal(err)
		}
		if got := PairCallees(f, g, f, g).Sites["*indirect"]; got.Int != 2 || got.Vec != 0 {
			t.Errorf("%s indlocal: site arguments %+v, want 2 integer registers", cc, got)
		}
	}
}
