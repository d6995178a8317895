package align

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"eqc/align/product/pair"
	"eqc/bench"
	"eqc/prove"
	"eqc/x86"
)

// reflexPad is put before a program for its second build: initialized data,
// a string and a function of its own move every global, literal and
// function of the program to other addresses and section offsets.
const reflexPad = `static int eqc_pad_data[97] = {1, 2, 3};
static const char *eqc_pad_str = "eqc: a literal that moves the others";
int eqc_pad_fn(int i) { return eqc_pad_data[i % 97] + eqc_pad_str[i % 8]; }
`

// TestReflexivity is the oracle Alive2 applies to its tests: a program
// checked against itself can only be equivalent. Every function of the
// corpus's real programs (bench/corpus and the csmith programs), built at
// -O2 with both compilers, is checked against a second build at the same
// level whose layout differs (reflexPad), under
// --ub none; none may be not-equivalent. Functions without loops get the
// whole check, functions with loops the differential test (real runs of
// both binaries), which is where a wrong not-equivalent comes from.
func TestReflexivity(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs the corpus")
	}
	ctx := context.Background()
	objs, err := bench.Corpus(ctx, bench.CacheDir())
	if err != nil {
		t.Fatal(err)
	}
	type job struct{ src, dst, fn, what string }
	var jobs []job
	padDir := t.TempDir()
	for _, o := range objs {
		if o.Suite == "tsvc" || o.Opt.String() != "O2" {
			continue
		}
		comp, err := bench.LookupCompiler(ctx, o.Compiler)
		if err != nil {
			t.Fatal(err)
		}
		code, err := os.ReadFile(o.Source)
		if err != nil {
			t.Fatal(err)
		}
		// The padded copy sits beside the original, for its includes.
		padded := filepath.Join(filepath.Dir(o.Source), "reflex_"+filepath.Base(o.Source))
		if err := os.WriteFile(padded, append([]byte(reflexPad), code...), 0o644); err != nil {
			t.Fatal(err)
		}
		var extra []string
		if o.Suite == "csmith" {
			extra = []string{"-I" + bench.CsmithInclude, "-w"}
		}
		o2, err := bench.Compile(ctx, comp, o.Opt, bench.DefaultVariant, padded, filepath.Join(padDir, o.Compiler), extra...)
		if err != nil {
			t.Fatal(err)
		}
		f, err := x86.Open(o.Path)
		if err != nil {
			t.Fatal(err)
		}
		var fns []string
		for _, fn := range f.Functions {
			fns = append(fns, fn.Name) // statics too: most of a csmith program
		}
		name := o.Compiler + " " + filepath.Base(o.Source)
		for _, fn := range fns {
			// Against the second build only: it is the same code at other
			// addresses, which is what a wrong not-equivalent comes from
			// (the check against the very same object found nothing the
			// second build did not, at twice the time).
			jobs = append(jobs, job{o.Path, o2.Path, fn, name + " second build"})
		}
	}
	s, _, err := prove.New(prove.Options{CacheSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mu sync.Mutex
	verdicts := map[string]int{}
	work := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				v, detail := reflexCheck(ctx, j.src, j.dst, j.fn, s)
				mu.Lock()
				verdicts[v]++
				switch v {
				case NotEquivalent:
					t.Errorf("%s %s: not-equivalent against itself: %s", j.what, j.fn, detail)
				case "loops: not run", "error":
					t.Logf("%s %s: %s: %s", j.what, j.fn, v, detail)
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	var parts []string
	for v, n := range verdicts {
		parts = append(parts, fmt.Sprintf("%s %d", v, n))
	}
	sort.Strings(parts)
	t.Logf("%d checks: %s", len(jobs), strings.Join(parts, ", "))
}

// reflexCheck checks fn of src against fn of dst: the whole check for a
// function without loops, the differential test for one with.
func reflexCheck(ctx context.Context, src, dst, fn string, s prove.Solver) (verdict, detail string) {
	req := Request{SrcPath: src, SrcFunc: fn, DstPath: dst, DstFunc: fn, UB: "none", Timeout: 20 * time.Second}
	p, err := pair.Load(src, fn, dst, fn)
	if err != nil {
		return "error", err.Error()
	}
	if len(p.Src.TFG.Unsupported)+len(p.Dst.TFG.Unsupported) > 0 || !p.HasLoops() {
		res, err := Check(ctx, req, s)
		if err != nil {
			return "error", err.Error()
		}
		return res.Verdict, strings.Join(res.Observed, "; ")
	}
	diff := diffTest(ctx, req, 0, p)
	if diff.c != nil && replay(ctx, req, 0, diff.in) == "" {
		return NotEquivalent, strings.Join(diff.c.Differences, "; ")
	}
	if diff.runs == 0 {
		return "loops: not run", diff.note
	}
	return "loops: no difference", ""
}
