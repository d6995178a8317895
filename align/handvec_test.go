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
	"eqc/prove"
)

// handVecPair is a reference function and a hand-vectorized version of
// it, each in its own file of testdata/handvec: the reference compiled at
// -O0, the other at -O2, checked by the data-driven engine.
type handVecPair struct {
	fn, ref, opt string
	// want is the verdict, with a reason prefix for unknown ones, per
	// compiler and UB model.
	want map[[2]string]string
	// mutants replace one text of opt each; they must come out
	// not-equivalent with a confirmed input (under --ub none, where a
	// confirmed difference is a verdict).
	mutants []loopMutant
}

// Seed 001's own hand-vectorized examples. Both -O0 loops keep their
// counters in the frame, which an argument array below the caller's stack
// pointer would overlap: the pairs are equivalent only under OBVA (as
// flip_words in loops_test.go), and nothing is equivalent under none (for
// whatever reason: on a loaded machine the solver may give up first —
// "solver-unknown ... canceled" in a fresh-clone CI beside other checks).
var handVecPairs = []handVecPair{
	// The word-at-a-time strlen of §5.3 against the byte loop of Figure
	// 11b: the iteration counts relate through the string's contents and
	// its alignment, which the predicates find from co-executions on
	// NUL-terminated strings. clang-16 unrolls the warm-up loop: its step
	// from the entry to the main loop takes 0 to 7 source passes, by the
	// start's alignment, so the step is split by via sets (one per
	// alignment, and an impossible rest), and its main loop counts from
	// an aligned pointer it computed (a target-invariant predicate base).
	{fn: "str_len", ref: "strlen_ref.c", opt: "strlen_word.c",
		want: map[[2]string]string{
			{"gcc-12", "obva"}:   Equivalent,
			{"gcc-12", "none"}:   Unknown,
			{"clang-16", "obva"}: Equivalent,
			{"clang-16", "none"}: Unknown,
		},
		mutants: []loopMutant{
			{name: "last_byte", from: "return cp - str + 7;", to: "return cp - str + 6;"},
			{name: "middle_byte", from: "return cp - str + 3;", to: "return cp - str + 4;"},
			// The zero test misses a NUL in a word's first byte when no
			// other byte of the word is zero: the loop runs on.
			{name: "lomagic", from: "lomagic = 0x0101010101010101UL", to: "lomagic = 0x0101010101010100UL"},
		}},
	// The bit flip of §2 against its 64-bit form. An odd length flips
	// one int before the word loop, so the target's step from the entry
	// to its loop takes one source pass or none, by the parity: the PAA
	// of the paper's Figure 3 has two transitions there, two via sets
	// here. clang-16 indexes its loop from a pointer the odd case moved:
	// the source's index is then the loop's plus a difference of two
	// values fixed for the run, which no predicate here has. Without heap
	// equality one aligns the counters off by the odd element, and the
	// memories then disagree in the proof.
	{fn: "flip_bits", ref: "flip_f.c", opt: "flip_g.c",
		want: map[[2]string]string{
			{"gcc-12", "obva"}:   Equivalent,
			{"gcc-12", "none"}:   Unknown,
			{"clang-16", "obva"}: Unknown + " invariants-too-weak",
		},
		mutants: []loopMutant{
			{name: "skip", from: "array++;", to: "array += 2;"},
			{name: "word", from: "*(word *)array = ~*(word *)array;", to: "*(word *)array = ~*(word *)array & ~1UL;"},
		}},
}

// TestHandVectorized checks handVecPairs with both compilers.
func TestHandVectorized(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and proves hand-vectorized loops: a minute")
	}
	dir := t.TempDir()
	abs := func(name string) string {
		p, err := filepath.Abs(filepath.Join("testdata/handvec", name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	var builds []aligntest.Build
	for _, pair := range handVecPairs {
		opt, err := os.ReadFile(abs(pair.opt))
		if err != nil {
			t.Fatal(err)
		}
		for _, cc := range compilers {
			builds = append(builds, aligntest.Build{CC: cc, Src: abs(pair.ref), Lvl: "O0"}, aligntest.Build{CC: cc, Src: abs(pair.opt), Lvl: "O2"})
		}
		for _, m := range pair.mutants {
			if strings.Count(string(opt), m.from) != 1 {
				t.Fatalf("mutant %s: %q must occur once in %s", m.name, m.from, pair.opt)
			}
			path := filepath.Join(dir, strings.TrimSuffix(pair.opt, ".c")+"_"+m.name+".c")
			if err := os.WriteFile(path, []byte(strings.Replace(string(opt), m.from, m.to, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, cc := range compilers {
				builds = append(builds, aligntest.Build{CC: cc, Src: path, Lvl: "O2"})
			}
		}
	}
	objs := aligntest.CompileBuilds(t, builds, bench.DefaultVariant)

	var mu sync.Mutex
	var wg sync.WaitGroup
	var split []splitProof
	sem := make(chan bool, 2)
	run := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			defer func() { <-sem }()
			f()
		}()
	}
	for _, pair := range handVecPairs {
		for cu, want := range pair.want {
			cc, ub := cu[0], cu[1]
			req := Request{SrcPath: objs[aligntest.Build{CC: cc, Src: abs(pair.ref), Lvl: "O0"}], SrcFunc: pair.fn, DstPath: objs[aligntest.Build{CC: cc, Src: abs(pair.opt), Lvl: "O2"}], DstFunc: pair.fn, UB: ub, Engine: EngineData, Timeout: 3 * time.Minute}
			key := fmt.Sprintf("%s %s -O0 vs %s -O2 --ub %s --engine data", cc, pair.ref, pair.opt, ub)
			run(func() {
				if pf := checkGolden(t, &mu, key, req, want); pf != nil {
					mu.Lock()
					split = append(split, splitProof{pf, req.SrcPath, req.DstPath})
					mu.Unlock()
				}
			})
		}
		for _, m := range pair.mutants {
			m.expected = NotEquivalent
			for _, cc := range compilers {
				path := filepath.Join(dir, strings.TrimSuffix(pair.opt, ".c")+"_"+m.name+".c")
				req := Request{SrcPath: objs[aligntest.Build{CC: cc, Src: abs(pair.ref), Lvl: "O0"}], SrcFunc: pair.fn, DstPath: objs[aligntest.Build{CC: cc, Src: path, Lvl: "O2"}], DstFunc: pair.fn, UB: "none", Engine: EngineData, Timeout: 30 * time.Second}
				key := fmt.Sprintf("%s %s -O0 vs %s -O2", cc, pair.ref, filepath.Base(path))
				run(func() { checkMutant(t, &mu, key, m, req) })
			}
		}
	}
	wg.Wait()

	// A proof whose target steps are split by via sets is refused when
	// a set loses an edge or names another, or when the edge for the
	// paths outside the sets goes.
	if len(split) == 0 {
		t.Fatal("no proof splits a target step by via sets")
	}
	for _, sp := range split {
		via, rest := -1, -1
		for i, e := range sp.pf.Product.Edges {
			if len(e.DstVia) > 1 && via < 0 {
				via = i
			}
		}
		for i, e := range sp.pf.Product.Edges {
			if e.Infeasible && e.From == sp.pf.Product.Edges[via].From && e.DstTo == sp.pf.Product.Edges[via].DstTo {
				rest = i
			}
		}
		tampers := []aligntest.Tamper{
			{Name: "via set loses an edge", Edit: func(pf *prove.ProofFile) string {
				e := &pf.Product.Edges[via]
				e.DstVia = e.DstVia[1:]
				return ""
			}, Want: ""},
			{Name: "via set names another edge", Edit: func(pf *prove.ProofFile) string {
				pf.Product.Edges[via].DstVia[0].ID++
				return ""
			}, Want: "does not fit"},
		}
		if rest >= 0 {
			tampers = append(tampers, aligntest.Tamper{Name: "the paths outside the via sets dropped", Edit: func(pf *prove.ProofFile) string {
				pf.Product.Edges = append(pf.Product.Edges[:rest:rest], pf.Product.Edges[rest+1:]...)
				return ""
			}, Want: ""})
		}
		aligntest.CheckTampers(t, sp.pf, sp.src, sp.dst, tampers)
	}
}

// splitProof is a proof with a target step split by via sets, and its
// binaries.
type splitProof struct {
	pf       *prove.ProofFile
	src, dst string
}
