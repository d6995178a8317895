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
			case d.runs != diffMaxInputs:
				t.Errorf("-O0 against -O2: %d inputs run, want %d", d.runs, diffMaxInputs)
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
