package paa

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"eqc/align/internal/aligntest"
	"eqc/align/product/pair"
	"eqc/bench"
	"eqc/ir"
)

// clang-16's word loop in strlen_word.c walks an offset (rcx) from an
// aligned pointer (rax) it computes before the loop, so the source's
// pointer is their sum: the predicates at the loop must offer the one
// with rax as the base, a target register the loop does not change.
func TestInvariantBase(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles strlen")
	}
	ref, _ := filepath.Abs("../testdata/handvec/strlen_ref.c")
	word, _ := filepath.Abs("../testdata/handvec/strlen_word.c")
	objs := aligntest.CompileBuilds(t, []aligntest.Build{{CC: "clang-16", Src: ref, Lvl: "O0"}, {CC: "clang-16", Src: word, Lvl: "O2"}}, bench.DefaultVariant)
	p, err := pair.Load(objs[aligntest.Build{CC: "clang-16", Src: ref, Lvl: "O0"}], "str_len", objs[aligntest.Build{CC: "clang-16", Src: word, Lvl: "O2"}], "str_len")
	if err != nil {
		t.Fatal(err)
	}
	runs := p.CoExecuteAll(context.Background())
	dg := p.Dst.TFG
	var texts []string
	for _, a := range anchorsOf(dg) {
		ps := &search{p: p}
		for _, pd := range ps.anchorPredicates(runs, a, ps.changingVars(runs, 0, p.Src.TFG, nil), ps.predicateBases(), true) {
			texts = append(texts, fmt.Sprintf("%#x: %s", dg.Nodes[a].PC, pd))
		}
	}
	const want = "− dst.rcx − dst.rax = 0"
	found := false
	for _, s := range texts {
		found = found || strings.HasSuffix(s, want)
	}
	if !found {
		t.Errorf("no predicate ends in %q among %q", want, texts)
	}
}

// anchorsOf lists g's loop anchors (neither the entry nor an end).
func anchorsOf(g *ir.TFG) []ir.NodeID {
	var out []ir.NodeID
	for a := range pair.AnchorSet(g) {
		if a != g.Entry && !pair.IsEnd(g, a) {
			out = append(out, a)
		}
	}
	return out
}
