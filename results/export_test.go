package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"testing"
)

// TestExport writes rows as CSV and JSON Lines and reads them back: the
// header is the schema's columns, every row is there, and values survive.
func TestExport(t *testing.T) {
	rows := handBuilt()
	var c, j bytes.Buffer
	if err := WriteCSV(&c, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONL(&j, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	cols := Columns()
	if len(recs) != len(rows)+1 || len(recs[0]) != len(cols) || recs[0][0] != "suite" {
		t.Fatalf("CSV: %d records of %d fields, header %v", len(recs), len(recs[0]), recs[0])
	}
	idx := map[string]int{}
	for i, name := range recs[0] {
		idx[name] = i
	}
	dec := json.NewDecoder(&j)
	for i, r := range rows {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			t.Fatalf("JSONL row %d: %v", i, err)
		}
		rec := recs[i+1]
		if rec[idx["function"]] != r.Function || obj["function"] != r.Function || obj["verdict"] != r.Verdict {
			t.Errorf("row %d: CSV %q, JSON %v; want %q", i, rec[idx["function"]], obj["function"], r.Function)
		}
		if w, err := strconv.ParseFloat(rec[idx["wall_s"]], 64); err != nil || w != r.WallS || obj["wall_s"] != r.WallS {
			t.Errorf("row %d: wall_s CSV %q JSON %v, want %v", i, rec[idx["wall_s"]], obj["wall_s"], r.WallS)
		}
		if len(obj) != len(cols) {
			t.Errorf("row %d: %d JSON keys, want %d", i, len(obj), len(cols))
		}
	}
}
