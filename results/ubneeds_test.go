package results

import (
	"testing"
)

// TestUBNeeds: a function proved under all and all,-sio, not under
// all,-obva or none, needs obva against all,-obva and seven models against
// none (all,-sio is the smallest proving spec with none's models); one
// proved under all only, with all,-obva and none not, is listed once
// (none against all is left out: all,-obva lies between and does not prove
// it either); one proved under none needs nothing; one proved nowhere is
// not listed; "sio+tbsa" rows (the older spelling) parse.
func TestUBNeeds(t *testing.T) {
	row := func(fn, model, verdict string) Row {
		return Row{Suite: "s", Benchmark: "b", Function: fn, Compiler: "gcc", SrcOpt: "O0", DstOpt: "O3", UBModel: model, Engine: "auto", Verdict: verdict, Reason: "r-" + model}
	}
	rows := []Row{
		row("f", "all", Equivalent), row("f", "all,-sio", Equivalent), row("f", "none", Unknown), row("f", "all,-obva", Unknown),
		row("g", "all", Equivalent), row("g", "none", Equivalent),
		row("h", "all", Unknown), row("h", "none", Unknown),
		row("k", "sio+tbsa", Equivalent), row("k", "sio", NotEquivalent),
		row("m", "all", Equivalent), row("m", "all,-obva", Unknown), row("m", "none", Unknown),
	}
	got := UBNeeds(rows)
	want := []struct{ fn, with, without, needs string }{
		{"f", "all", "all,-obva", "obva"},
		{"f", "all,-sio", "none", "tbsa,obva,shift,div,null,align,nan,restrict"},
		{"k", "sio+tbsa", "sio", "tbsa"},
		{"m", "all", "all,-obva", "obva"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Function != w.fn || g.With != w.with || g.Without != w.without || g.Needs != w.needs || g.Reason != "r-"+w.without {
			t.Errorf("%d: got %+v, want %+v", i, g, w)
		}
	}
	if tb := UBNeedsTable(got); len(tb.Rows) != 4 || tb.Rows[0][7] != "obva" {
		t.Errorf("table %+v", tb.Rows)
	}
}
