package align

import (
	"testing"
	"time"
)

// TestGoldenLibraryCalls are the golden tests of library calls the
// optimizer rewrites, base.c -O0 against -O3 with both compilers under the
// default UB model, and their mutants, never equivalent:
//
//   - testdata/strcmp: gcc compares the bytes inline where the source
//     calls strcmp with a literal; both lifts model such a call as the
//     comparison unrolled over the literal (x86/idioms.go), whose result
//     only has its sign known, so a function that returns strcmp's value
//     as it is (cmp_x) is not proved against gcc's byte difference.
//   - testdata/stdio: clang -O0 calls printf where -O3 calls puts,
//     putchar, fputs, fputc or fwrite; both lifts take those printf calls
//     as the calls they are equal to (x86/stdio.go), and the native runs
//     that confirm a counterexample compare them by the bytes they write
//     (tracer/outputs.go), so a correct compilation is never reported
//     not-equivalent for the rewrite.
func TestGoldenLibraryCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves: seconds")
	}
	for _, dir := range []string{"strcmp", "stdio"} {
		t.Run(dir, func(t *testing.T) {
			objs, mutated := compileAll(t, "testdata/"+dir, []string{"O0", "O3"})
			got := runGoldenCases(t, objs, mutated, []string{"O0"}, []string{"all"}, time.Minute)
			compareGolden(t, "testdata/"+dir+".golden", got)
		})
	}
}
