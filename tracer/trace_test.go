package tracer

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// traceSrc has a function with a block no run reaches (at -O0 gcc keeps
// the inner test, which can never hold) and one without.
const traceSrc = `
int contra(int x) { if (x > 5) { if (x < 3) return x * 7; return 1; } return 0; }
int clamp(int x, int lo, int hi) { if (x < lo) return lo; if (x > hi) return hi; return x; }
`

func TestTraceObject(t *testing.T) {
	obj := compile(t, "gcc", "trace", traceSrc, "-O0")
	if _, err := OpenObjectTrace(obj, []string{"nosuch"}); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown function: %v", err)
	}
	o, err := OpenObjectTrace(obj, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if !slices.Equal(o.Funcs, []string{"contra", "clamp"}) {
		t.Fatalf("functions %v", o.Funcs)
	}

	// The dead-block proof is the caller's: asked about the missed blocks
	// only, its answer (less any block a vector reached) leaves the
	// denominator, its note is dead_analysis.
	var asked [][]int
	prover := func(_ context.Context, tg *Target, missed []int) ([]int, string, error) {
		if tg.Name != "contra" {
			t.Errorf("prover asked about %s", tg.Name)
		}
		asked = append(asked, missed)
		return append([]int{tg.CFG.RPO[0]}, missed...), "a note", nil
	}
	var progress []string
	r := o.Trace(context.Background(), "contra", TraceOptions{Vectors: 8, Seed: 1, Dead: prover,
		Progress: func(s string) { progress = append(progress, s) }})
	if r.Error != "" {
		t.Fatal(r.Error)
	}
	if len(asked) != 1 || len(asked[0]) == 0 || len(r.MissedBlocks) != len(asked[0]) {
		t.Fatalf("prover asked %v, missed %v", asked, r.MissedBlocks)
	}
	if !slices.Equal(r.DeadBlocks, r.MissedBlocks) || r.BlocksLive != r.Blocks-len(r.MissedBlocks) ||
		r.BlockCoverage != 1 || r.BlockCoverageAll >= 1 || r.DeadAnalysis != "a note" || r.Vectors != 8 {
		t.Errorf("report %+v", r)
	}
	if len(progress) == 0 || !strings.HasPrefix(progress[len(progress)-1], "proving ") {
		t.Errorf("progress %q", progress)
	}

	// A failing proof is dead_analysis; the semantics cross-check fills
	// its fields.
	r = o.Trace(context.Background(), "contra", TraceOptions{Vectors: 4, Seed: 1, CheckSemantics: true,
		Dead: func(context.Context, *Target, []int) ([]int, string, error) { return nil, "", errors.New("no solver") }})
	if r.Error != "" || r.DeadAnalysis != "no solver" || len(r.DeadBlocks) != 0 || r.BlocksLive != r.Blocks ||
		r.CrossCheck == nil || r.InstructionsChecked == 0 || !r.CheckedSemantics {
		t.Errorf("report %+v", r)
	}

	// Nothing missed: no prover asked; the row's JSON has the contract's
	// fields first, and empty lists rather than null.
	r = o.Trace(context.Background(), "clamp", TraceOptions{Vectors: 8, Seed: 1, Dead: prover})
	if r.Error != "" || len(r.MissedBlocks) != 0 || r.BlockCoverage != 1 || len(asked) != 1 {
		t.Errorf("report %+v (prover asked %v)", r, asked)
	}
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(js), `{"file":"`+obj+`","function":"clamp","vectors":8,"faults":0,"block_coverage":1,`) ||
		!strings.Contains(string(js), `"mismatches":[]`) || !strings.Contains(string(js), `"dead_blocks":[]`) ||
		strings.Contains(string(js), "dead_analysis") {
		t.Errorf("JSON %s", js)
	}
}
