package x86

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"eqc/ir"
)

// semBenchSource is C code of the kinds the sweeps lift: scalar loops,
// vectorizable loops, divisions, bit tricks, calls.
const semBenchSource = `
#include <stddef.h>
#include <stdint.h>
int ext(int);
long dot(const int *a, const int *b, size_t n) {
	long s = 0;
	for (size_t i = 0; i < n; i++) s += (long)a[i] * b[i];
	return s;
}
void saxpy(int *restrict y, const int *restrict x, int k, size_t n) {
	for (size_t i = 0; i < n; i++) y[i] = k * x[i] + y[i];
}
int maxv(const int *a, size_t n) {
	int m = a[0];
	for (size_t i = 1; i < n; i++) m = a[i] > m ? a[i] : m;
	return m;
}
unsigned char clampsum(const unsigned char *a, const unsigned char *b, unsigned char *c, size_t n) {
	for (size_t i = 0; i < n; i++) { unsigned s = a[i] + b[i]; c[i] = s > 255 ? 255 : s; }
	return c[0];
}
long divs(long a, long b, unsigned long c, unsigned long d) { return a / b + a % b + (long)(c / d) + (long)(c % d); }
int bits(uint64_t x, uint32_t y) {
	return __builtin_popcountll(x) + __builtin_ctzll(x | 1) + __builtin_clz(y | 1) + (int)((x << (y & 63)) >> 3);
}
uint32_t hash(const char *s) {
	uint32_t h = 2166136261u;
	while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; h = (h << 13) | (h >> 19); }
	return h;
}
int calls(int x) { return ext(x) + ext(x + 1) * 3; }
void fill(long *a, size_t n) { for (size_t i = 0; i < n; i++) a[i] = (long)i * i - 7; }
int sw(int x) {
	switch (x) { case 0: return 4; case 1: return 9; case 2: return x * 3; case 3: return -x; default: return x ^ 5; }
}
`

// semBenchCode compiles semBenchSource with gcc at opt and returns its
// .text.
func semBenchCode(b *testing.B, opt string) []byte {
	b.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		b.Skip("no gcc")
	}
	dir := b.TempDir()
	src, obj := filepath.Join(dir, "bench.c"), filepath.Join(dir, "bench.o")
	if err := os.WriteFile(src, []byte(semBenchSource), 0o644); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command(cc, opt, "-fcf-protection=none", "-c", "-o", obj, src).CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	f, err := elf.Open(obj)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	text, err := f.Section(".text").Data()
	if err != nil {
		b.Fatal(err)
	}
	return text
}

// BenchmarkLift measures lifting throughput: every instruction of a
// compiled object stepped in sequence into one state (as a straight-line
// path), a fresh Builder per pass.
func BenchmarkLift(b *testing.B) {
	for _, opt := range []string{"-O0", "-O3"} {
		b.Run(opt, func(b *testing.B) {
			code := semBenchCode(b, opt)
			b.ResetTimer()
			insts, unsupported := 0, 0
			for i := 0; i < b.N; i++ {
				bld := ir.NewBuilder()
				s := NewState(bld)
				for pc := 0; pc < len(code); {
					eff, n, err := StepBytes(bld, s, code[pc:], uint64(pc))
					if err != nil {
						unsupported++
					}
					_ = eff
					pc += n
					insts++
				}
			}
			b.ReportMetric(float64(insts)/b.Elapsed().Seconds(), "insts/s")
			b.ReportMetric(float64(unsupported)/float64(insts), "unsupported/inst")
		})
	}
}
