package tracer

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"eqc/x86"
)

// tsvcTarget compiles a TSVC kernel (param variant: the loop length is the
// first argument) with gcc -O3 and returns its target.
func tsvcTarget(b *testing.B, kernel string) *Target {
	b.Helper()
	dir := b.TempDir()
	src, _ := filepath.Abs(filepath.Join("..", "bench", "tsvc", kernel+".c"))
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no TSVC source: %v", err)
	}
	obj := filepath.Join(dir, kernel+".o")
	if out, err := exec.Command("gcc", "-g", "-O3", "-msse4.2", "-fno-pie", "-DTSVC_PARAM", "-I", filepath.Dir(src),
		"-c", src, "-o", obj).CombinedOutput(); err != nil {
		b.Fatalf("gcc: %v\n%s", err, out)
	}
	exe, err := Link(obj, LinkOptions{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	file, err := x86.Open(obj)
	if err != nil {
		b.Fatal(err)
	}
	t, err := NewTarget(file, exe, kernel)
	if err != nil {
		b.Fatal(err)
	}
	if t.Proc, err = Start(exe, Options{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { t.Proc.Close() })
	return t
}

// BenchmarkGenerateTSVC measures generating 64 vectors, with coverage, for
// the TSVC kernel vpvtv (a[i] += b[i] * c[i] over n elements, three global
// arrays of 32000 ints filled with random bytes).
func BenchmarkGenerateTSVC(b *testing.B) {
	t := tsvcTarget(b, "vpvtv")
	runs := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		vs, err := Generate(context.Background(), []*Target{t}, GenerateOptions{Vectors: 64, Seed: int64(i)})
		if err != nil {
			b.Fatal(err)
		}
		if len(vs.Vectors) != 64 || vs.Coverage[0].Fraction() < 1 {
			b.Fatalf("%d vectors, coverage %.2f", len(vs.Vectors), vs.Coverage[0].Fraction())
		}
		runs += vs.Runs
	}
	b.ReportMetric(float64(runs)/float64(b.N), "runs/op")
}

// BenchmarkCrossCheck measures the semantics cross-check on vpvtv: the
// instructions single-stepped, lifted, evaluated and compared per second.
func BenchmarkCrossCheck(b *testing.B) {
	t := tsvcTarget(b, "vpvtv")
	vs, err := Generate(context.Background(), []*Target{t}, GenerateOptions{Vectors: 8, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	checked := 0
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		rep, err := CrossCheck(context.Background(), t, vs.Vectors, CrossCheckOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Mismatches != 0 {
			b.Fatalf("mismatches: %v", rep.First)
		}
		checked += rep.Checked
	}
	b.ReportMetric(float64(checked)/time.Since(start).Seconds(), "insns/s")
}

// BenchmarkCrossCheckLoop measures the cross-check's per-instruction rate on
// one long run (a loop of 2000 iterations), where the per-run costs
// (restoring memory, collecting observables) do not count.
func BenchmarkCrossCheckLoop(b *testing.B) {
	exe, p := benchProcess(b)
	file, err := x86.Open(exe.Object.Path)
	if err != nil {
		b.Fatal(err)
	}
	t, err := NewTarget(file, exe, "loop")
	if err != nil {
		b.Fatal(err)
	}
	t.Proc = p
	v, _ := loopVector(2000)
	checked := 0
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		rep, err := CrossCheck(context.Background(), t, []Vector{v}, CrossCheckOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Mismatches != 0 || rep.Outcomes["returned"] != 1 {
			b.Fatalf("%+v", rep)
		}
		checked += rep.Checked
	}
	b.ReportMetric(float64(checked)/time.Since(start).Seconds(), "insns/s")
}
