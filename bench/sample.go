package bench

import (
	"hash/fnv"
	"sort"
)

// SampledFunction is one function of a suite as a sample sees it: its
// object (the benchmark), its name and its size in bytes.
type SampledFunction struct {
	Benchmark, Name string
	Size            uint64
}

// Stratified picks up to n of fs so that every size range is represented:
// sorted by size, the functions are cut into n strata of (nearly) equal
// count, and from each the function with the smallest hash of its
// benchmark and name is taken. The choice depends only on the functions,
// not on their order or the run, so a resumed sweep samples the same ones.
// With n >= len(fs) all are returned. The result is sorted by benchmark
// and name.
func Stratified(fs []SampledFunction, n int) []SampledFunction {
	if n <= 0 || n >= len(fs) {
		out := append([]SampledFunction(nil), fs...)
		sortSampled(out)
		return out
	}
	sorted := append([]SampledFunction(nil), fs...)
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.Size != b.Size {
			return a.Size < b.Size
		}
		if a.Benchmark != b.Benchmark {
			return a.Benchmark < b.Benchmark
		}
		return a.Name < b.Name
	})
	var out []SampledFunction
	for k := 0; k < n; k++ {
		lo, hi := k*len(sorted)/n, (k+1)*len(sorted)/n
		best := lo
		for i := lo + 1; i < hi; i++ {
			if sampleHash(sorted[i]) < sampleHash(sorted[best]) {
				best = i
			}
		}
		out = append(out, sorted[best])
	}
	sortSampled(out)
	return out
}

func sampleHash(f SampledFunction) uint64 {
	h := fnv.New64a()
	h.Write([]byte(f.Benchmark + "\x00" + f.Name))
	return h.Sum64()
}

func sortSampled(fs []SampledFunction) {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Benchmark != fs[j].Benchmark {
			return fs[i].Benchmark < fs[j].Benchmark
		}
		return fs[i].Name < fs[j].Name
	})
}
