package results

import (
	"strings"
	"testing"
)

func TestShapeOf(t *testing.T) {
	for _, c := range []struct {
		loops, callsSrc, callsDst int64
		want                      Shape
	}{
		{0, 0, 0, LoopFree},
		{0, 2, 0, LoopFreeCalls},
		{0, 0, 1, LoopFreeCalls}, // the target calls memset where the source stores
		{1, 0, 0, Loops},
		{3, 1, 1, LoopsCalls},
		{1, 0, 1, LoopsCalls},
	} {
		r := Row{LoopsSrc: c.loops, CallsSrc: c.callsSrc, CallsDst: c.callsDst}
		if got := ShapeOf(&r); got != c.want {
			t.Errorf("loops %d calls %d/%d: %v, want %v", c.loops, c.callsSrc, c.callsDst, got, c.want)
		}
	}
}

func TestShapes(t *testing.T) {
	row := func(compiler string, loops, calls int64, verdict, reason string) Row {
		return Row{Suite: "s", Compiler: compiler, SrcOpt: "O0", DstOpt: "O2", UBModel: "all", Engine: "auto",
			LoopsSrc: loops, CallsSrc: calls, Verdict: verdict, Reason: reason}
	}
	noCalls := []Row{row("gcc-12", 0, 0, Equivalent, ""), row("gcc-12", 1, 0, Unknown, "timeout")}
	if Shapes(noCalls) != nil {
		t.Fatal("rows without calls (files before schema 7) must give no shape table")
	}
	rows := append(noCalls,
		row("gcc-12", 0, 1, Equivalent, ""),
		row("gcc-12", 0, 2, Unknown, "unsupported:calls (argument 1 of g may point into the frame)"),
		row("gcc-12", 2, 1, Unknown, "timeout"),
		row("gcc-12", 1, 1, Unknown, "unsupported:calls (x)"),
		row("gcc-12", 1, 1, NotEquivalent, ""),
		row("clang-16", 0, 0, Equivalent, ""),
	)
	lines := Shapes(rows)
	if len(lines) != 2 || lines[0].Compiler != "clang-16" || lines[1].Compiler != "gcc-12" {
		t.Fatalf("lines %+v, want clang-16 then gcc-12", lines)
	}
	g := lines[1]
	wantProved := [numShapes]int{1, 1, 0, 0}
	wantTotal := [numShapes]int{1, 2, 1, 3}
	if g.Proved != wantProved || g.Total != wantTotal {
		t.Errorf("gcc-12 proved %v total %v, want %v %v", g.Proved, g.Total, wantProved, wantTotal)
	}
	// Only the unknowns of checks with calls count; the loop timeout
	// without calls does not.
	want := []ReasonCount{{"unsupported:calls", 2}, {"timeout", 1}}
	if len(g.CallUnknown) != len(want) || g.CallUnknown[0] != want[0] || g.CallUnknown[1] != want[1] {
		t.Errorf("reasons %v, want %v", g.CallUnknown, want)
	}
	var b strings.Builder
	if err := ShapeTable(lines).Write(&b, Text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"loop-free+calls", "1/2", "0/3", "unsupported:calls ×2, timeout ×1", "–"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, b.String())
		}
	}
}
