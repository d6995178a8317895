package align

import (
	"testing"
	"time"
)

// TestGoldenIdioms is the golden test of loops that compilers turn into
// calls of memset, memcpy and memmove (testdata/idioms): base.c -O0 against
// -O3 with both compilers, under the default UB model, and its mutants,
// never equivalent. Both lifts model those calls as the library's loops
// (x86/idioms.go), so the source's loop pairs with one pass of the
// library's per element.
func TestGoldenIdioms(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves loops: minutes")
	}
	objs, mutated := compileAll(t, "testdata/idioms", []string{"O0", "O3"})
	got := runGoldenCases(t, objs, mutated, []string{"O0"}, []string{"all"}, time.Minute)
	compareGolden(t, "testdata/idioms.golden", got)
}
