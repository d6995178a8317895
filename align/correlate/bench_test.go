package correlate

import (
	"context"
	"testing"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
)

// correlatorKernels are the correlator benchmark's loop kernels: a
// vectorized reduction (no stores, so memories do not narrow the
// candidates), a vector loop with a scalar tail over a pointer argument,
// and a loop nest over a 2-D array.
var correlatorKernels = []struct{ name, cc, src string }{
	{"sum", "clang-16", "int sum(const int *a, int n)\n{\n\tint s = 0;\n\tfor (int i = 0; i < n; i++)\n\t\ts += a[i];\n\treturn s;\n}\n"},
	{"flip_words", "gcc-12", "void flip_words(int *array, int len)\n{\n\tfor (int i = 0; i < len; i++)\n\t\tarray[i] = ~array[i];\n}\n"},
	{"rowsum", "gcc-12", "void rowsum(int (*m)[16], int *out, int rows)\n{\n\tfor (int i = 0; i < rows; i++) {\n\t\tint s = 0;\n\t\tfor (int j = 0; j < 16; j++)\n\t\t\ts += m[i][j];\n\t\tout[i] = s;\n\t}\n}\n"},
}

// BenchmarkCorrelators times each correlator's search for alignments of a
// kernel's co-executions (-O0 against -O3), as the engine asks for them
// (up to 4), and reports the best-first search's expansions.
func BenchmarkCorrelators(b *testing.B) {
	for _, k := range correlatorKernels {
		objs := aligntest.CompileC(b, k.cc, k.name, k.src, "O0", "O3")
		p, err := pair.Load(objs["O0"], k.name, objs["O3"], k.name)
		if err != nil {
			b.Fatal(err)
		}
		runs := p.CoExecuteAll(context.Background())
		for _, c := range []string{Backtracking, BestFirst} {
			b.Run(k.name+"/"+k.cc+"/"+c, func(b *testing.B) {
				var found, expanded int
				for b.Loop() {
					s := Engine{Correlator: c}.Alignments(context.Background(), p, runs, 4)
					found, expanded = len(s.Alignments), s.Expanded
				}
				b.ReportMetric(float64(found), "alignments")
				if c == BestFirst {
					b.ReportMetric(float64(expanded), "expanded")
				}
			})
		}
	}
}
