package results

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"
)

func TestColumnsStartWithTheDesignSchema(t *testing.T) {
	cols := Columns()
	if len(cols) < len(DesignColumns) || !slices.Equal(cols[:len(DesignColumns)], DesignColumns) {
		t.Fatalf("Row columns %v do not start with docs/design.md's %v", cols, DesignColumns)
	}
	seen := map[string]bool{}
	for _, c := range cols {
		if seen[c] || c == "" {
			t.Errorf("column name %q empty or repeated", c)
		}
		seen[c] = true
	}
}

func TestValidate(t *testing.T) {
	ok := validRow()
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid row rejected: %v", err)
	}
	cases := []struct {
		column string
		break_ func(*Row)
	}{
		{"suite", func(r *Row) { r.Suite = "" }},
		{"function", func(r *Row) { r.Function = "" }},
		{"engine", func(r *Row) { r.Engine = "" }},
		{"verdict", func(r *Row) { r.Verdict = "maybe" }},
		{"verdict", func(r *Row) { r.Verdict = "" }},
		{"reason", func(r *Row) { r.Verdict, r.Reason = Unknown, "" }},
		{"wall_s", func(r *Row) { r.WallS = math.NaN() }},
		{"cpu_s", func(r *Row) { r.CPUS = math.Inf(1) }},
		{"smt_s", func(r *Row) { r.SMTS = -1 }},
		{"invariants", func(r *Row) { r.Invariants = -3 }},
		{"block_coverage", func(r *Row) { r.BlockCoverage = 1.5 }},
		{"started_at", func(r *Row) { r.StartedAt = time.Time{} }},
		{"cex_input", func(r *Row) { r.CexInput = "\xff\xfe" }},
	}
	for _, c := range cases {
		r := validRow()
		c.break_(&r)
		err := r.Validate()
		var ie *InvalidRowError
		if !errors.As(err, &ie) || ie.Column != c.column {
			t.Errorf("breaking %s: got %v, want *InvalidRowError for that column", c.column, err)
		}
	}
}
