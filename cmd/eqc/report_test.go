package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eqc/results"

	"github.com/parquet-go/parquet-go"
)

func reportRows(compiler string, n int) []results.Row {
	rows := make([]results.Row, n)
	for i := range rows {
		v, reason := results.Equivalent, ""
		if i%3 == 2 {
			v, reason = results.Unknown, "timeout"
		}
		name := "s" + string(rune('a'+i))
		rows[i] = results.Row{Suite: "tsvc", Benchmark: name, Function: name, Compiler: compiler, SrcOpt: "O0", DstOpt: "O3",
			UBModel: "all", Engine: "static", Verdict: v, Reason: reason, WallS: float64(i + 1), ALOCSrc: 10, ALOCDst: 20,
			StartedAt: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)}
	}
	return rows
}

func writeResults(t *testing.T, path string, rows []results.Row) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	w, err := results.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rows...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReport(t *testing.T) {
	dir := t.TempDir()
	writeResults(t, filepath.Join(dir, "gcc.parquet"), reportRows("gcc", 6))
	writeResults(t, filepath.Join(dir, "shard", "clang.parquet"), reportRows("clang", 3))
	for _, args := range [][]string{{"report", dir}, {"report", "--format", "text", dir}} {
		code, out, errOut := eqc(args...)
		if code != 0 || errOut != "" {
			t.Fatalf("eqc %q: exit %d, stderr %q", args, code, errOut)
		}
		for _, want := range []string{"9 rows from 2 file(s)", "Summary", "gcc", "clang", "4/6", "2/3", "timeout ×2", "Per kernel: tsvc", "gcc -O3", "✓", "? timeout"} {
			if !strings.Contains(out, want) {
				t.Errorf("report lacks %q:\n%s", want, out)
			}
		}
	}
	// Flags after DIR, and Markdown.
	code, out, _ := eqc("report", dir, "--format", "markdown")
	if code != 0 || !strings.Contains(out, "### Summary") || !strings.Contains(out, "| tsvc | gcc | O0→O3 |") {
		t.Errorf("markdown: exit %d\n%s", code, out)
	}
}

func TestReportSetsCorruptFilesAside(t *testing.T) {
	dir := t.TempDir()
	writeResults(t, filepath.Join(dir, "good.parquet"), reportRows("gcc", 3))
	writeResults(t, filepath.Join(dir, "truncated.parquet"), reportRows("clang", 3))
	bad := filepath.Join(dir, "truncated.parquet")
	b, _ := os.ReadFile(bad)
	os.WriteFile(bad, b[:len(b)/2], 0o644)
	garbage := filepath.Join(dir, "garbage.parquet")
	os.WriteFile(garbage, []byte("this is not parquet"), 0o644)

	code, out, errOut := eqc("report", dir)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (one file read); stderr %q", code, errOut)
	}
	if !strings.Contains(out, "3 rows from 1 file(s)") {
		t.Errorf("report does not go on with the good file:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one stderr line per corrupt file, got %q", errOut)
	}
	for i, p := range []string{garbage, bad} {
		if !strings.Contains(lines[i], p) || !strings.Contains(lines[i], "corrupt") || !strings.Contains(lines[i], "set aside as "+p+".corrupt-") {
			t.Errorf("line %q does not name %s and where it was set aside", lines[i], p)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still under its name", p)
		}
		asides, _ := filepath.Glob(p + ".corrupt-*Z")
		reasons, _ := filepath.Glob(p + ".corrupt-*Z.reason")
		if len(asides) != 1 || len(reasons) != 1 {
			t.Errorf("%s: set aside as %v with reasons %v", p, asides, reasons)
		}
	}
	// Set aside once: the next report is clean.
	if code, _, errOut := eqc("report", dir); code != 0 || errOut != "" {
		t.Errorf("second report: exit %d, stderr %q", code, errOut)
	}
}

func TestReportBadInputs(t *testing.T) {
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("x"), 0o644)
	onlyBad := t.TempDir()
	os.WriteFile(filepath.Join(onlyBad, "r.parquet"), nil, 0o644)
	interrupted := t.TempDir()
	w, err := results.Create(filepath.Join(interrupted, "r.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(reportRows("gcc", 2)...) // never closed: an interrupted sweep

	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"report", empty}, exitBadInput, "no results (*.parquet files) under " + empty},
		{[]string{"report", filepath.Join(empty, "missing")}, exitBadInput, "missing"},
		{[]string{"report", onlyBad}, exitBadInput, "no readable results file"},
		{[]string{"report", interrupted}, exitBadInput, "unfinished temporary file"},
		{[]string{"report"}, exitUsage, "want DIR"},
		{[]string{"report", empty, empty}, exitUsage, "got 2 arguments"},
		{[]string{"report", "--format", "html", empty}, exitUsage, "html"},
	} {
		code, _, errOut := eqc(c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("eqc %q: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.msg)
		}
	}
	if asides, _ := filepath.Glob(filepath.Join(onlyBad, "r.parquet.corrupt-*Z")); len(asides) != 1 {
		t.Errorf("the empty .parquet file was not set aside")
	}
}

func TestReportSkipsForeignParquetWithoutSettingItAside(t *testing.T) {
	dir := t.TempDir()
	writeResults(t, filepath.Join(dir, "good.parquet"), reportRows("gcc", 3))
	// A sound Parquet file of another schema is not corrupt: it is named and
	// skipped, and stays where it is.
	type other struct {
		X int64 `parquet:"x"`
	}
	foreign := filepath.Join(dir, "other.parquet")
	if err := parquet.WriteFile(foreign, []other{{1}, {2}}); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := eqc("report", dir)
	if code != 0 || !strings.Contains(errOut, "skipped") || !strings.Contains(errOut, foreign) || strings.Contains(errOut, "set aside") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("a foreign file was moved: %v", err)
	}
}
