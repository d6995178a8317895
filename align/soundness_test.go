package align

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
	"eqc/prove"
)

// TestUntouchedStaticInitializers is the regression test of a soundness
// bug: in a csmith program, crc32_gentab, which writes only its 1 KiB
// table, was not-equivalent at -O0 against -O2 because a large
// initialized static array it never touches (g_1090) read as zeros in one
// executable and as its initializer in the other. testdata/soundness/
// bigstatic.c rebuilds the case: g_1090 lies 128 KiB into .data at -O0
// and at its start at -O2. With gcc-12 and clang-16:
//
//   - -O0 against -O2: the differential test runs all its inputs without
//     a difference (every global starts with its own initializer in both
//     executables), and Check never says not-equivalent;
//   - -O0 against -O2 of a mutant whose polynomial is off by one bit:
//     not-equivalent, with an input, every observed difference in the
//     table (none in g_1090).
//
// Check runs the static loop engine: the data engine spends unbounded
// memory on clang's vectorized crc32_gentab (a separate issue), and the
// verdicts pinned here come from the differential test, before either.
func TestUntouchedStaticInitializers(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "soundness", "bigstatic.c"))
	if err != nil {
		t.Fatal(err)
	}
	const fn, from, to = "crc32_gentab", "0xEDB88320UL", "0xEDB88321UL"
	if strings.Count(string(src), from) != 1 {
		t.Fatalf("mutation text %q occurs %d times", from, strings.Count(string(src), from))
	}
	s, _, err := prove.New(prove.Options{CacheSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, cc := range compilers {
		t.Run(cc, func(t *testing.T) {
			base := aligntest.CompileC(t, cc, "bigstatic", string(src), "O0", "O2")
			mut := aligntest.CompileC(t, cc, "mutant", strings.Replace(string(src), from, to, 1), "O2")

			req := Request{SrcPath: base["O0"], SrcFunc: fn, DstPath: base["O2"], DstFunc: fn, UB: "none", Engine: EngineStatic, Timeout: 30 * time.Second}
			p, err := pair.Load(req.SrcPath, req.SrcFunc, req.DstPath, req.DstFunc)
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			d := diffTest(context.Background(), req, 0, p)
			t.Logf("-O0 against -O2: %s in %v", d, time.Since(t0).Round(time.Millisecond))
			switch {
			case d.note != "":
				t.Errorf("-O0 against -O2: the differential test stopped: %s", d.note)
			case d.c != nil:
				t.Errorf("-O0 against -O2 differ on input %+v: %q", shownInput(d.in, d.c), d.c.Differences)
			case d.runs < diffMaxInputs:
				t.Errorf("-O0 against -O2: %d inputs run, want the plan's %d and more", d.runs, diffMaxInputs)
			}
			res, err := Check(context.Background(), req, s)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("-O0 against -O2: %s (%s) %.1fs, %d test vectors", res.Verdict, res.Reason, res.WallS, res.TestVectors)
			if res.Verdict == NotEquivalent {
				t.Errorf("-O0 against -O2: not-equivalent, observed %q on input %+v", res.Observed, res.Input)
			}

			req.DstPath = mut["O2"]
			res, err = Check(context.Background(), req, s)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("mutant: %s (%s) %.1fs, observed %q", res.Verdict, res.Reason, res.WallS, res.Observed)
			if res.Verdict != NotEquivalent || res.Input == nil || len(res.Observed) == 0 {
				t.Fatalf("mutant %s → %s: %s (%s), input %v; want not-equivalent with an input", from, to, res.Verdict, res.Reason, res.Input)
			}
			for _, o := range res.Observed {
				if !strings.HasPrefix(o, "global crc32_tab") {
					t.Errorf("mutant: observed %q, want differences in crc32_tab only", o)
				}
			}
		})
	}
}

// TestStaticLocalsAcrossCompilers is the regression test of a false
// not-equivalent on a cross-compiler pair (make spec's clang-16 -O0 →
// gcc-12 -O2, sqlite3RegisterBuiltinFunctions): a function passes its
// static table to a callee, and the two compilers name the table
// differently, so the native runs keyed the two pointers apart. Across
// compilers the check must not say not-equivalent, for the correct build
// and, since the difference it would show is the names', for a mutant
// either; with one compiler the correct build is proved and the mutant
// not-equivalent.
func TestStaticLocalsAcrossCompilers(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "soundness", "staticlocal.c"))
	if err != nil {
		t.Fatal(err)
	}
	mutant := strings.Replace(string(src), "use(tab, n)", "use(tab, n + 1)", 1)
	s, _, err := prove.New(prove.Options{CacheSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	gcc := aligntest.CompileC(t, "gcc-12", "staticlocal", string(src), "O0", "O2")
	gccMut := aligntest.CompileC(t, "gcc-12", "mutant", mutant, "O2")
	clang := aligntest.CompileC(t, "clang-16", "staticlocal", string(src), "O0")
	for _, tc := range []struct {
		name, src, dst string
		want           string
		reason         string
	}{
		{"clang-16 -O0 → gcc-12 -O2", clang["O0"], gcc["O2"], Unknown, "static-locals-named-apart"},
		{"clang-16 -O0 → gcc-12 -O2 mutant", clang["O0"], gccMut["O2"], Unknown, "static-locals-named-apart"},
		{"gcc-12 -O0 → -O2", gcc["O0"], gcc["O2"], Equivalent, ""},
		{"gcc-12 -O0 → -O2 mutant", gcc["O0"], gccMut["O2"], NotEquivalent, ""},
	} {
		req := Request{SrcPath: tc.src, SrcFunc: "reg", DstPath: tc.dst, DstFunc: "reg", UB: "all", Timeout: 30 * time.Second}
		res, err := Check(context.Background(), req, s)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s (%s)", tc.name, res.Verdict, res.Reason)
		if res.Verdict != tc.want || !strings.HasPrefix(res.Reason, tc.reason) {
			t.Errorf("%s: %s (%s), want %s %q", tc.name, res.Verdict, res.Reason, tc.want, tc.reason)
		}
	}
}
