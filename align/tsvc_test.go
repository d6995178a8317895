package align

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
	"eqc/bench"
)

// TestTSVCMutants checks the mutants of testdata/tsvc/mutants.txt: each
// TSVC kernel at -O0 against a mutant of it at -O3, with both compilers,
// the globals' definitions (globals.c) as context as in a sweep. No
// mutant may come out equivalent; each must be not-equivalent with a
// confirmed input unless its line says unknown (then either will do).
func TestTSVCMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and checks 56 kernel mutants: a minute")
	}
	suite, err := bench.Builtin("tsvc")
	if err != nil {
		t.Fatal(err)
	}
	if err := suite.Prepare(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	var fixed bench.Variant
	for _, v := range suite.Variants {
		if v.Name == "fixed" {
			fixed = v
		}
	}
	if fixed.Name == "" {
		t.Fatalf("suite tsvc has no fixed variant: %+v", suite.Variants)
	}
	mutDir := t.TempDir()
	mutants := readTSVCMutants(t, "testdata/tsvc/mutants.txt", suite.Dir, mutDir)

	// Compile: the kernels at -O0, the mutants at -O3, globals.c at -O0.
	var builds []aligntest.Build
	for _, cc := range compilers {
		builds = append(builds, aligntest.Build{CC: cc, Src: filepath.Join(suite.Dir, "globals.c"), Lvl: "O0"})
		for _, m := range mutants {
			builds = append(builds, aligntest.Build{CC: cc, Src: filepath.Join(suite.Dir, m.fn+".c"), Lvl: "O0"}, aligntest.Build{CC: cc, Src: filepath.Join(mutDir, "mutant_"+m.name+".c"), Lvl: "O3"})
		}
	}
	objs := aligntest.CompileBuilds(t, builds, fixed, append([]string{"-I", suite.Dir}, suite.CFlags...)...)

	// Check, two at a time (each solver call is one thread).
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan bool, 2)
	for _, cc := range compilers {
		for _, m := range mutants {
			key := cc + " " + m.fn + " O0 -> mutant_" + m.name + ".c O3"
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- true
				defer func() { <-sem }()
				checkMutant(t, &mu, key, m, Request{
					SrcPath: objs[aligntest.Build{CC: cc, Src: filepath.Join(suite.Dir, m.fn+".c"), Lvl: "O0"}], SrcFunc: m.fn,
					DstPath: objs[aligntest.Build{CC: cc, Src: filepath.Join(mutDir, "mutant_"+m.name+".c"), Lvl: "O3"}], DstFunc: m.fn,
					UB: "none", Timeout: 30 * time.Second,
					Context: []string{objs[aligntest.Build{CC: cc, Src: filepath.Join(suite.Dir, "globals.c"), Lvl: "O0"}]},
				})
			}()
		}
	}
	wg.Wait()
}

// readTSVCMutants parses the mutants file and writes each mutant as
// dir/mutant_NAME.c, from the kernel file in suiteDir.
func readTSVCMutants(t *testing.T, path, suiteDir, dir string) []loopMutant {
	t.Helper()
	spec, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []loopMutant
	seen := map[string]bool{}
	for i, line := range strings.Split(string(spec), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := parseMutant(t, fmt.Sprintf("%s:%d", path, i+1), strings.Split(line, "\t"), seen)
		data, err := os.ReadFile(filepath.Join(suiteDir, m.fn+".c"))
		if err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		src := string(data)
		// The kernel's definition: from "int KERNEL KERNEL_PARAMS" to the
		// closing brace, so that the comment above it does not count.
		lo := strings.Index(src, "int "+m.fn+" KERNEL_PARAMS")
		hi := -1
		if lo >= 0 {
			hi = strings.Index(src[lo:], "\n}\n")
		}
		if hi < 0 || strings.Count(src[lo:lo+hi], m.from) != 1 {
			t.Fatalf("%s:%d: %q must occur once in the definition of %s in %s.c", path, i+1, m.from, m.fn, m.fn)
		}
		at := lo + strings.Index(src[lo:lo+hi], m.from)
		writeMutant(t, dir, m.name, src[:at]+m.to+src[at+len(m.from):])
		out = append(out, m)
	}
	return out
}
