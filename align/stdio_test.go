package align

import (
	"testing"
	"time"
)

// TestGoldenStdio is the golden test of printf and fprintf with literal
// formats (testdata/stdio): base.c -O0 against -O3 with both compilers,
// under the default UB model, and its mutants, never equivalent. clang -O0
// calls printf where -O3 calls puts, putchar, fputs, fputc or fwrite;
// both lifts take those printf calls as the calls they are equal to
// (x86/stdio.go), and the native runs that confirm a counterexample
// compare them by the bytes they write (tracer/outputs.go), so a correct
// compilation is never reported not-equivalent for the rewrite.
func TestGoldenStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves: seconds")
	}
	objs, mutated := compileAll(t, "testdata/stdio", []string{"O0", "O3"})
	got := runGoldenCases(t, objs, mutated, []string{"O0"}, []string{"all"}, time.Minute)
	compareGolden(t, "testdata/stdio.golden", got)
}
