package align

import (
	"testing"
	"time"
)

// TestGoldenStrcmp is the golden test of strcmp against string literals
// (testdata/strcmp): base.c -O0 against -O3 with both compilers, under the
// default UB model, and its mutants, never equivalent. gcc compares the
// bytes inline where the source calls strcmp; both lifts model such a call
// as the comparison unrolled over the literal (x86/idioms.go), whose
// result only has its sign known, so a function that returns strcmp's
// value as it is (cmp_x) is not proved against gcc's byte difference.
func TestGoldenStrcmp(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves: seconds")
	}
	objs, mutated := compileAll(t, "testdata/strcmp", []string{"O0", "O3"})
	got := runGoldenCases(t, objs, mutated, []string{"O0"}, []string{"all"}, time.Minute)
	compareGolden(t, "testdata/strcmp.golden", got)
}
