package bench

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

func TestCorpus(t *testing.T) {
	builtTSVC(t) // shares its objects with the corpus through testWorkDir/obj
	objs, err := Corpus(context.Background(), testWorkDir)
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := Builtin("corpus")
	if err != nil {
		t.Fatal(err)
	}
	perSuite := map[string]int{}
	functions := map[string][]string{}
	for _, o := range objs {
		perSuite[o.Suite]++
		if o.Source == "" || o.Compiler == "" || o.Opt.Level == "" || o.Variant == "" || o.CFlags == "" {
			t.Errorf("incomplete object %+v", o)
		}
		if len(o.Functions) == 0 {
			t.Errorf("%s defines no global function", o.Path)
		}
		if o.Opt.Target.Name != "" {
			t.Errorf("%s: corpus builds have no extra target, got %s", o.Path, o.Opt)
		}
		functions[o.Benchmark] = o.Functions
	}
	builds := 2 * len(Levels)
	want := map[string]int{
		"tsvc":   len(tsvcKernels) * 2 * builds,
		"corpus": len(corpus.Sources) * builds,
		"csmith": len(CsmithSeeds) * builds,
	}
	for suite, n := range want {
		if perSuite[suite] != n {
			t.Errorf("%d %s objects, want %d", perSuite[suite], suite, n)
		}
	}
	for _, fn := range []string{"str_len_bytes", "str_len_words", "mem_copy", "crc32_bitwise", "insertion_sort", "binary_search", "popcount_loop", "flip_bits"} {
		found := false
		for _, fns := range functions {
			found = found || slices.Contains(fns, fn)
		}
		if !found {
			t.Errorf("no corpus object defines %s", fn)
		}
	}
	for _, seed := range CsmithSeeds {
		if fns := functions[fmt.Sprintf("csmith-%d", seed)]; !slices.Contains(fns, "main") {
			t.Errorf("csmith-%d: functions %v lack main", seed, fns)
		}
	}

	again, err := Corpus(context.Background(), testWorkDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range again {
		if !o.Cached {
			t.Errorf("%s rebuilt on the second call", o.Path)
			break
		}
	}
}
