package bench

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// TestStratified checks the sample's rules on random suites: n functions
// (or all), one from each size stratum, the same whatever the input order.
func TestStratified(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 200; trial++ {
		total := rng.Intn(60)
		var fs []SampledFunction
		for i := 0; i < total; i++ {
			fs = append(fs, SampledFunction{Benchmark: fmt.Sprintf("b%d", rng.Intn(4)), Name: fmt.Sprintf("f%d", i), Size: uint64(rng.Intn(500))})
		}
		n := rng.Intn(20)
		got := Stratified(fs, n)
		want := n
		if n <= 0 || n > total {
			want = total
		}
		if len(got) != want {
			t.Fatalf("trial %d: %d of %d functions sampled, want %d", trial, len(got), total, want)
		}
		shuffled := append([]SampledFunction(nil), fs...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if again := Stratified(shuffled, n); fmt.Sprint(again) != fmt.Sprint(got) {
			t.Fatalf("trial %d: the sample depends on the input order:\n%v\n%v", trial, got, again)
		}
		if n <= 0 || n >= total {
			continue
		}
		// Every stratum of the size order contributes one function: the
		// k-th smallest sampled size lies in the k-th stratum's range.
		sizes := make([]uint64, 0, total)
		for _, f := range fs {
			sizes = append(sizes, f.Size)
		}
		slices.Sort(sizes)
		picked := make([]uint64, 0, n)
		for _, f := range got {
			picked = append(picked, f.Size)
		}
		slices.Sort(picked)
		for k, s := range picked {
			lo, hi := sizes[k*total/n], sizes[(k+1)*total/n-1]
			if s < lo || s > hi {
				t.Fatalf("trial %d: sampled size #%d is %d, outside stratum %d's [%d, %d]", trial, k, s, k, lo, hi)
			}
		}
	}
}
