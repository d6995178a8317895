package aligntest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"eqc/bench"
)

// CompileC writes src to name.c and compiles it with compiler cc at each
// level through package bench (the suite's flags); objects by level.
func CompileC(t testing.TB, cc, name, src string, levels ...string) map[string]string {
	t.Helper()
	ctx := context.Background()
	comp, err := bench.LookupCompiler(ctx, cc)
	if err != nil {
		t.Fatalf("%v (run `make deps`)", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, name+".c")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	objs := map[string]string{}
	for _, lvl := range levels {
		opt, err := bench.ParseOpt(lvl, bench.BuiltinTargets)
		if err != nil {
			t.Fatal(err)
		}
		o, err := bench.Compile(ctx, comp, opt, bench.DefaultVariant, path, filepath.Join(dir, lvl))
		if err != nil {
			t.Fatal(err)
		}
		objs[lvl] = o.Path
	}
	return objs
}

// Build is one compilation: a compiler name, a C file, a level.
type Build struct{ CC, Src, Lvl string }

// CompileBuilds compiles every build in variant with the extra flags,
// through package bench so the flags are the suite's, a few at a time,
// and returns the objects.
func CompileBuilds(t *testing.T, builds []Build, variant bench.Variant, extra ...string) map[Build]string {
	t.Helper()
	ctx := context.Background()
	out := t.TempDir()
	objs := map[Build]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, len(builds))
	sem := make(chan bool, 4)
	for _, bd := range builds {
		cc, err := bench.LookupCompiler(ctx, bd.CC)
		if err != nil {
			t.Fatalf("%v (run `make deps`)", err)
		}
		opt, err := bench.ParseOpt(bd.Lvl, bench.BuiltinTargets)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			defer func() { <-sem }()
			o, err := bench.Compile(ctx, cc, opt, variant, bd.Src, filepath.Join(out, bd.CC, bd.Lvl), extra...)
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			objs[bd] = o.Path
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return objs
}
