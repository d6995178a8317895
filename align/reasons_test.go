package align

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"eqc/align/internal/aligntest"
	"eqc/bench"
)

// TestDataReasons: pairs the data-driven engine cannot align, or aligns
// wrongly, come out unknown with the reason why (testdata/reasons/reasons.c, -O0 against
// -O2, --ub none), never with a verdict.
func TestDataReasons(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs the data engine: half a minute")
	}
	src, err := filepath.Abs("testdata/reasons/reasons.c")
	if err != nil {
		t.Fatal(err)
	}
	var builds []aligntest.Build
	for _, cc := range compilers {
		builds = append(builds, aligntest.Build{CC: cc, Src: src, Lvl: "O0"}, aligntest.Build{CC: cc, Src: src, Lvl: "O2"})
	}
	objs := aligntest.CompileBuilds(t, builds, bench.DefaultVariant)
	var mu sync.Mutex
	for _, cc := range compilers {
		// (gcc-12's sum_down got a predicate the solver refuted while
		// co-execution's arrays held one repeated byte: the sums then
		// grew in step whatever the order.)
		down := Unknown + " no-alignment-predicate"
		for _, c := range []struct{ srcFn, dstFn, want string }{
			{"rare", "rare", Unknown + " too-few-vectors"},
			{"sum_up", "sum_down", down},
		} {
			req := Request{SrcPath: objs[aligntest.Build{CC: cc, Src: src, Lvl: "O0"}], SrcFunc: c.srcFn, DstPath: objs[aligntest.Build{CC: cc, Src: src, Lvl: "O2"}], DstFunc: c.dstFn, UB: "none", Engine: EngineData, Timeout: time.Minute}
			checkGolden(t, &mu, fmt.Sprintf("%s %s -O0 vs %s -O2 --engine data", cc, c.srcFn, c.dstFn), req, c.want)
		}
	}
}
