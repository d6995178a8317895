package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// testWorkDir holds the sources and objects every test of the package
// shares, so that an object one test compiles is a cache hit for the next.
// It persists across runs in os.TempDir: objects are named by the hash of
// everything that decides their contents, so a stale one is never used,
// and a rerun compiles nothing. EQC_BENCH_FRESH=1 uses an empty one.
var testWorkDir string

// testScratch is this process's own directory for drivers and programs.
var testScratch string

func TestMain(m *testing.M) {
	code, err := runTests(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}

func runTests(m *testing.M) (int, error) {
	var err error
	testScratch, err = os.MkdirTemp("", "eqc-bench-test-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(testScratch)
	testWorkDir = CacheDir()
	if os.Getenv("EQC_BENCH_FRESH") != "" {
		testWorkDir = filepath.Join(testScratch, "work")
	}
	return m.Run(), nil
}

// tsvcKernels are the 28 kernels of tsvc.md.
var tsvcKernels = []string{
	"s000", "s1112", "s112", "s121", "s122", "s1221", "s1251", "s127", "s1281", "s1351",
	"s162", "s173", "s176", "s2244", "s243", "s251", "s3251", "s351", "s452", "s453",
	"sum1d", "vdotr", "vpv", "vpvpv", "vpvts", "vpvtv", "vtv", "vtvtv",
}

var (
	tsvcOnce    sync.Once
	tsvcSuite   *Suite
	tsvcObjects []Object
	tsvcErr     error
)

// builtTSVC builds the TSVC suite at O0..O3 with both compilers in both
// variants once per test binary: the part of the matrix that Corpus shares
// (the extra target is tested on its own, to keep the test time down).
func builtTSVC(t *testing.T) (*Suite, []Object) {
	t.Helper()
	tsvcOnce.Do(func() {
		tsvcSuite, tsvcErr = Builtin("tsvc")
		if tsvcErr != nil {
			return
		}
		tsvcSuite.Matrix = LevelMatrix()
		tsvcObjects, tsvcErr = tsvcSuite.Build(context.Background(), testWorkDir, 0)
	})
	if tsvcErr != nil {
		t.Fatalf("building tsvc: %v", tsvcErr)
	}
	return tsvcSuite, tsvcObjects
}
