package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)

// check is a row for the hand-built set.
func check(bench, cc, dst, ub, verdict, reason string, wall float64, alocSrc, alocDst int64) Row {
	return Row{Suite: "tsvc", Benchmark: bench, Function: bench, Compiler: cc, SrcOpt: "O0", DstOpt: dst,
		UBModel: ub, Engine: "static", Verdict: verdict, Reason: reason, WallS: wall,
		ALOCSrc: alocSrc, ALOCDst: alocDst, StartedAt: t0}
}

// handBuilt is a small sweep: tsvc under gcc O3 and clang O3 with UB model
// "all", gcc O3 again with "none", and one SPEC row.
func handBuilt() []Row {
	rows := []Row{
		check("s000", "gcc", "O3", "all", Equivalent, "", 2, 14, 18),
		check("s112", "gcc", "O3", "all", Equivalent, "", 4, 14, 55),
		check("s351", "gcc", "O3", "all", Unknown, "timeout", 600, 29, 130),
		check("s453", "gcc", "O3", "all", NotEquivalent, "", 1, 15, 22),
		check("vpv", "gcc", "O3", "all", Unknown, "timeout", 600, 13, 25),
		check("vtv", "gcc", "O3", "all", Unknown, "unsupported:vpgatherdd", 3, 14, 25),

		check("s000", "clang", "O3", "all", Equivalent, "", 1, 14, 44),
		check("s112", "clang", "O3", "all", Equivalent, "", 5, 14, 24),
		check("s351", "clang", "O3", "all", Equivalent, "", 100, 29, 24),

		check("s000", "gcc", "O3", "none", Equivalent, "", 3, 14, 18),
		check("s112", "gcc", "O3", "none", Unknown, "invariants-too-weak", 9, 14, 55),
	}
	spec := check("bzip2", "gcc", "O2", "all", Equivalent, "", 7.5, 100, 80)
	spec.Suite, spec.Function = "spec", "BZ2_compress"
	rows = append(rows, spec)
	// A stale earlier run of s351/gcc/all: Latest drops it.
	stale := check("s351", "gcc", "O3", "all", Equivalent, "", 0.5, 29, 130)
	stale.StartedAt = t0.Add(-time.Hour)
	return append([]Row{stale}, rows...)
}

func TestLatestKeepsTheNewestRunOfEachCheck(t *testing.T) {
	rows := handBuilt()
	got := Latest(rows)
	if len(got) != len(rows)-1 || !reflect.DeepEqual(got, rows[1:]) {
		t.Fatalf("Latest kept %d rows, want the %d after the stale one, in order", len(got), len(rows)-1)
	}
	// On a tie the later row wins.
	a, b := validRow(), validRow()
	b.WallS = 9
	if got := Latest([]Row{a, b}); len(got) != 1 || got[0].WallS != 9 {
		t.Fatalf("tie: %+v", got)
	}
}

func TestSummarizeHandBuilt(t *testing.T) {
	groups := Summarize(Latest(handBuilt()))
	type want struct {
		key                     GroupKey
		total, proved, neq, unk int
		median, mean            float64
		reasons                 []ReasonCount
	}
	// Medians and means computed by hand from the rows above:
	//   gcc O3 all:   walls 1 2 3 4 600 600 -> median (3+4)/2 = 3.5, mean 1210/6
	//   clang O3 all: walls 1 5 100 -> median 5, mean 106/3
	//   gcc O3 none:  walls 3 9 -> median 6, mean 6
	//   spec gcc O2:  7.5
	wants := []want{
		{GroupKey{"spec", "gcc", "O0", "O2", "all", "static"}, 1, 1, 0, 0, 7.5, 7.5, nil},
		{GroupKey{"tsvc", "clang", "O0", "O3", "all", "static"}, 3, 3, 0, 0, 5, 106.0 / 3, nil},
		{GroupKey{"tsvc", "gcc", "O0", "O3", "all", "static"}, 6, 2, 1, 3, 3.5, 1210.0 / 6,
			[]ReasonCount{{"timeout", 2}, {"unsupported:vpgatherdd", 1}}},
		{GroupKey{"tsvc", "gcc", "O0", "O3", "none", "static"}, 2, 1, 0, 1, 6, 6,
			[]ReasonCount{{"invariants-too-weak", 1}}},
	}
	if len(groups) != len(wants) {
		t.Fatalf("%d groups, want %d: %+v", len(groups), len(wants), groups)
	}
	for i, w := range wants {
		g := groups[i]
		if g.GroupKey != w.key || g.Total != w.total || g.Proved != w.proved || g.NotEquivalent != w.neq || g.Unknown != w.unk {
			t.Errorf("group %d: %+v, want %+v", i, g, w)
		}
		if math.Abs(g.MedianWallS-w.median) > 1e-12 || math.Abs(g.MeanWallS-w.mean) > 1e-12 {
			t.Errorf("group %v: median %v mean %v, want %v %v", g.GroupKey, g.MedianWallS, g.MeanWallS, w.median, w.mean)
		}
		if !reflect.DeepEqual(g.TopUnknown, w.reasons) {
			t.Errorf("group %v: reasons %v, want %v", g.GroupKey, g.TopUnknown, w.reasons)
		}
	}
}

func TestTopReasonsAreCapped(t *testing.T) {
	var rows []Row
	for i, reason := range []string{"a", "b", "b", "c", "c", "c", "d", "d", "d", "d"} {
		r := validRow()
		r.Function = fmt.Sprint(i)
		r.Verdict, r.Reason = Unknown, reason
		rows = append(rows, r)
	}
	g := Summarize(rows)[0]
	if want := []ReasonCount{{"d", 4}, {"c", 3}, {"b", 2}}; !reflect.DeepEqual(g.TopUnknown, want) {
		t.Fatalf("top reasons %v, want %v", g.TopUnknown, want)
	}
}

func TestAblationsSideBySide(t *testing.T) {
	groups := Summarize(Latest(handBuilt()))
	a := Ablations(groups)
	if a == nil || !reflect.DeepEqual(a.Models, []string{"all", "none"}) {
		t.Fatalf("ablation models: %+v", a)
	}
	if len(a.Lines) != 1 {
		t.Fatalf("%d lines, want 1: only tsvc gcc O3 ran under two UB models", len(a.Lines))
	}
	gcc := a.Lines[0]
	if gcc.Compiler != "gcc" || gcc.Suite != "tsvc" || gcc.Cells[0].Proved != 2 || gcc.Cells[1].Proved != 1 || gcc.Cells[1].Total != 2 {
		t.Fatalf("tsvc gcc line: %+v %+v %+v", gcc.AblationKey, gcc.Cells[0], gcc.Cells[1])
	}
	// A model missing on a line is a nil cell; a model only run on lines
	// with one model ("tbsa" on suite x) gets no column.
	more := append([]Group(nil), groups...)
	more = append(more,
		Group{GroupKey: GroupKey{"tsvc", "clang", "O0", "O3", "none", "static"}, Total: 1},
		Group{GroupKey: GroupKey{"tsvc", "clang", "O0", "O3", "sio", "static"}, Total: 1},
		Group{GroupKey: GroupKey{"x", "gcc", "O0", "O3", "tbsa", "static"}, Total: 1})
	slices.SortFunc(more, func(a, b Group) int { return compareGroupKeys(a.GroupKey, b.GroupKey) })
	a = Ablations(more)
	if !reflect.DeepEqual(a.Models, []string{"all", "none", "sio"}) || len(a.Lines) != 2 ||
		a.Lines[0].Compiler != "clang" || a.Lines[0].Cells[2] == nil || a.Lines[1].Cells[2] != nil {
		t.Fatalf("ablation with a gap: %+v", a)
	}
	if Ablations(groups[:1]) != nil {
		t.Fatal("one UB model is no ablation")
	}
}

func TestKernelTableHasTheShapeOfFigure10(t *testing.T) {
	rows := Latest(handBuilt())
	var tsvc []Row
	for _, r := range rows {
		if r.Suite == "tsvc" && r.UBModel == "all" {
			tsvc = append(tsvc, r)
		}
	}
	ks := Kernels(tsvc)
	if len(ks) != 1 {
		t.Fatalf("%d tables", len(ks))
	}
	k := ks[0]
	if want := []KernelColumn{{"clang", "O0", "O3", "all", "static"}, {"gcc", "O0", "O3", "all", "static"}}; !reflect.DeepEqual(k.Columns, want) {
		t.Fatalf("columns %v, want %v", k.Columns, want)
	}
	if len(k.Rows) != 6 || k.Rows[0].Benchmark != "s000" || k.Rows[5].Benchmark != "vtv" {
		t.Fatalf("rows %+v", k.Rows)
	}
	s351 := k.Rows[2]
	if s351.Cells[0].Verdict != Equivalent || s351.Cells[1].Verdict != Unknown || s351.Cells[1].Reason != "timeout" || s351.Cells[1].ALOCDst != 130 {
		t.Fatalf("s351: %+v %+v", s351.Cells[0], s351.Cells[1])
	}
	if vpv := k.Rows[4]; vpv.Cells[0] != nil {
		t.Fatalf("vpv was not checked with clang: %+v", vpv.Cells[0])
	}

	var b bytes.Buffer
	KernelTableOf(k).Write(&b, Text)
	out := b.String()
	lines := strings.Split(out, "\n")
	// Title, blank, column groups, header, rule, 6 kernels, proved line.
	for _, want := range []string{"clang -O0", "gcc -O0", "clang -O3", "gcc -O3"} {
		if !strings.Contains(lines[2], want) {
			t.Errorf("column groups %q lack %q", lines[2], want)
		}
	}
	if f := strings.Fields(lines[3]); !reflect.DeepEqual(f, []string{"benchmark", "LOC", "LOC", "LOC", "out", "s", "LOC", "out", "s"}) {
		t.Errorf("header %q", lines[3])
	}
	for _, want := range []string{"s351", "? timeout", "✓", "✗", "proved", "3/3", "2/6"} {
		if !strings.Contains(out, want) {
			t.Errorf("per-kernel table lacks %q:\n%s", want, out)
		}
	}
	assertAligned(t, lines[3:12])
}

// assertAligned checks that no cell of a text table crosses the gaps
// between the columns of its rule line (lines[1]).
func assertAligned(t *testing.T, lines []string) {
	t.Helper()
	rule := []rune(lines[1])
	for _, l := range lines {
		r := []rune(l)
		for p, c := range rule {
			if c == ' ' && p < len(r) && r[p] != ' ' {
				t.Errorf("line %q crosses a column gap at %d:\n%s", l, p, strings.Join(lines, "\n"))
				return
			}
		}
	}
}

func TestReportTextAndMarkdown(t *testing.T) {
	for _, f := range []Format{Text, Markdown} {
		var b bytes.Buffer
		if err := WriteReport(&b, handBuilt(), f); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{"Summary", "UB ablation", "Per kernel: tsvc", "Per kernel: spec", "2/6", "3.50", "201.7", "timeout ×2", "BZ2_compress"} {
			if !strings.Contains(out, want) {
				t.Errorf("format %d: report lacks %q:\n%s", f, want, out)
			}
		}
		if f == Markdown {
			if !strings.Contains(out, "### Summary") || !strings.Contains(out, "|---|") || !strings.Contains(out, "gcc -O3 ub=all out") {
				t.Errorf("not Markdown:\n%s", out)
			}
		}
		if testing.Verbose() {
			t.Logf("\n%s", out)
		}
	}
}

// TestReportFits: with the default options every text line fits 100
// columns, a split table repeats its key columns in each part, and the
// details option prints the reasons whole.
func TestReportFits(t *testing.T) {
	rows := handBuilt()
	for i := range rows {
		if rows[i].Verdict == Unknown {
			rows[i].Reason += "; " + strings.Repeat("a long detail of the reason ", 6)
		}
	}
	var b bytes.Buffer
	if err := WriteReportOpts(&b, rows, Text, DefaultOptions); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > DefaultOptions.Width {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	if strings.Contains(out, "a long detail") && !strings.Contains(out, "…") {
		t.Errorf("a long reason is neither cut nor left out:\n%s", out)
	}
	var d bytes.Buffer
	if err := WriteReportOpts(&d, rows, Text, Options{Width: 100, Details: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.String(), strings.Repeat("a long detail of the reason ", 6)) {
		t.Errorf("--details cut a reason:\n%s", d.String())
	}
	// A table of many columns: each part keeps the key column.
	wide := &Table{Title: "wide", Header: []string{"name"}, Key: 1}
	row := []string{"row1"}
	for i := 0; i < 30; i++ {
		wide.Header = append(wide.Header, fmt.Sprintf("column%02d", i))
		row = append(row, "value")
	}
	wide.Rows = [][]string{row}
	parts := wide.fit(DefaultOptions)
	if len(parts) < 2 {
		t.Fatalf("a %d-column table was not split", len(wide.Header))
	}
	seen := 0
	for _, p := range parts {
		if p.Header[0] != "name" || p.Rows[0][0] != "row1" {
			t.Errorf("part %q lacks the key column: %v", p.Title, p.Header)
		}
		seen += len(p.Header) - 1
	}
	if seen != 30 {
		t.Errorf("the parts hold %d of the 30 columns", seen)
	}
}

// TestReportCSVAndJSON: both parse, and hold the same tables.
func TestReportCSVAndJSON(t *testing.T) {
	var j, c bytes.Buffer
	if err := WriteReport(&j, handBuilt(), JSON); err != nil {
		t.Fatal(err)
	}
	if err := WriteReport(&c, handBuilt(), CSV); err != nil {
		t.Fatal(err)
	}
	var tables []jsonTable
	if err := json.Unmarshal(j.Bytes(), &tables); err != nil {
		t.Fatalf("JSON: %v\n%s", err, j.String())
	}
	r := csv.NewReader(&c)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("CSV: %v", err)
	}
	titles := 0
	for _, rec := range recs {
		for _, tb := range tables {
			if len(rec) == 1 && rec[0] == tb.Title {
				titles++
			}
		}
	}
	if len(tables) < 3 || titles != len(tables) {
		t.Errorf("%d JSON tables, %d of their titles in the CSV", len(tables), titles)
	}
}

func TestParseFormat(t *testing.T) {
	for s, want := range map[string]Format{"text": Text, "markdown": Markdown, "md": Markdown, "csv": CSV, "json": JSON} {
		if f, err := ParseFormat(s); err != nil || f != want {
			t.Errorf("ParseFormat(%q) = %v, %v", s, f, err)
		}
	}
	if _, err := ParseFormat("html"); err == nil {
		t.Error("html accepted")
	}
}

// Verified counts the equivalent checks whose proof eqc proof verify
// accepted, and appears in the summary table beside proved/total.
func TestSummarizeCountsVerifiedProofs(t *testing.T) {
	var rows []Row
	for i, v := range []struct {
		verdict  string
		verified bool
	}{{Equivalent, true}, {Equivalent, true}, {Equivalent, false}, {Unknown, false}} {
		r := validRow()
		r.Benchmark = fmt.Sprintf("s%03d", i)
		r.Verdict, r.ProofVerified = v.verdict, v.verified
		if v.verdict == Unknown {
			r.Reason = "timeout"
		}
		rows = append(rows, r)
	}
	groups := Summarize(rows)
	if len(groups) != 1 || groups[0].Proved != 3 || groups[0].Verified != 2 {
		t.Fatalf("groups %+v, want one with 3 proved, 2 verified", groups)
	}
	tab := SummaryTable(groups)
	col := slices.Index(tab.Header, "verified")
	if col < 0 || tab.Rows[0][col] != "2" || tab.Rows[0][col-1] != "3/4" {
		t.Errorf("summary table header %v row %v: want verified 2 after proved/total 3/4", tab.Header, tab.Rows[0])
	}
}

// The search table lists the loop-engine checks only, sorted, with their
// effort; without any it is left out of the report.
func TestSearchTable(t *testing.T) {
	if SearchTable(handBuilt()) != nil {
		t.Fatal("a search table without loop-engine checks")
	}
	a := check("s112", "gcc", "O3", "all", Equivalent, "", 7.25, 14, 55)
	a.Engine, a.AlignmentPredicatesTried, a.CorrelationsTried, a.ProductNodes, a.ProductEdges, a.Candidates, a.Invariants = "data", 1, 1, 3, 3, 40, 12
	b := check("s000", "clang", "O3", "all", Unknown, "invariants-too-weak: n1→n1 (dst 0x18)", 3, 14, 44)
	b.Engine, b.Correlator, b.CandidatesExpanded, b.CorrelationsTried, b.Counterexamples, b.SMTQueries, b.Candidates = "static", "ceg", 5, 2, 3, 9, 30
	c := check("s176", "gcc", "O3", "all", Unknown, "no-alignment-predicate: no predicate holds at the target's loop at 0x40", 25, 14, 60)
	c.Engine = "data"
	rows := append(handBuilt(), a, b, c)
	tb := SearchTable(rows)
	if tb == nil || len(tb.Rows) != 3 {
		t.Fatalf("search table %+v, want 3 rows", tb)
	}
	want := [][]string{
		{"tsvc", "s000", "clang", "O0→O3", "all", "static/ceg", "? invariants-too-weak", "", "0", "5", "2", "3", "9", "0", "0", "30", "0", "3.00"},
		{"tsvc", "s112", "gcc", "O0→O3", "all", "data", "✓", "data", "1", "0", "1", "0", "0", "3", "3", "40", "12", "7.25"},
		{"tsvc", "s176", "gcc", "O0→O3", "all", "data", "? no-alignment-predicate", "", "0", "0", "0", "0", "0", "0", "0", "0", "0", "25.0"},
	}
	if !reflect.DeepEqual(tb.Rows, want) {
		t.Errorf("rows\n%q\nwant\n%q", tb.Rows, want)
	}
	var buf bytes.Buffer
	if err := WriteReport(&buf, rows, Text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Loop engine search per check") {
		t.Errorf("the report lacks the search table:\n%s", buf.String())
	}
}

func TestReasonKind(t *testing.T) {
	for _, tc := range [][2]string{
		{"timeout", "timeout"},
		{"memout", "memout"},
		{"invariants-too-weak: n0→dst 0x3b0: addresses in the path conditions do not overlap", "invariants-too-weak"},
		{"unsupported:calls (argument 1 of snprintf may point into the caller's frame)", "unsupported:calls"},
		{"unsupported:STOSQ:rep with a non-constant count", "unsupported:STOSQ:rep"},
		{"counterexample: return value; not confirmed by real runs: both binaries showed the same observables", "counterexample"},
		{"no-correlation;x", "no-correlation"},
		{"unsupported:vpgatherdd", "unsupported:vpgatherdd"},
		{"", ""},
	} {
		if got := ReasonKind(tc[0]); got != tc[1] {
			t.Errorf("ReasonKind(%q) = %q, want %q", tc[0], got, tc[1])
		}
	}
}
