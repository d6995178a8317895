package results

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// The second, independent reader: hyparquet, a pure-JavaScript Parquet
// reader sharing no code with parquet-go, run with node. See
// testdata/reader/README.md.

var readerFiles = []string{"package.json", "package-lock.json", "dump.mjs"}

// secondReader installs hyparquet (once per machine and version of
// testdata/reader) and returns the node binary and the script to run. It
// skips the test only when node or npm is not installed.
func secondReader(t *testing.T) (node, script string) {
	t.Helper()
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Skip("node or npm not installed: the second reader (hyparquet) cannot run")
	}
	h := sha256.New()
	for _, f := range readerFiles {
		b, err := os.ReadFile(filepath.Join("testdata", "reader", f))
		if err != nil {
			t.Fatal(err)
		}
		h.Write([]byte(f))
		h.Write(b)
	}
	dir := filepath.Join(os.TempDir(), "eqc-results-reader-"+hex.EncodeToString(h.Sum(nil))[:16])
	stamp := filepath.Join(dir, ".installed")
	if _, err := os.Stat(stamp); err == nil {
		return node, filepath.Join(dir, "dump.mjs")
	}
	// Install into a fresh directory, then move it into place, so a
	// concurrent or interrupted install never leaves a half-installed cache.
	tmp, err := os.MkdirTemp(os.TempDir(), "eqc-results-reader-install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	for _, f := range readerFiles {
		b, _ := os.ReadFile(filepath.Join("testdata", "reader", f))
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("installing the second reader (npm ci in %s): %v\n%s", tmp, err, out)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".installed"), []byte(time.Now().String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(stamp); serr != nil { // not a lost race
			t.Fatalf("installing the second reader: %v", err)
		}
	}
	return node, filepath.Join(dir, "dump.mjs")
}

// dump is what dump.mjs prints.
type dump struct {
	NumRows   json.Number       `json:"num_rows"`
	RowGroups int               `json:"row_groups"`
	KV        map[string]string `json:"key_value_metadata"`
	Schema    []struct {
		Name           string         `json:"name"`
		Type           string         `json:"type"`
		LogicalType    map[string]any `json:"logical_type"`
		ConvertedType  *string        `json:"converted_type"`
		RepetitionType string         `json:"repetition_type"`
	} `json:"schema"`
	Rows []map[string]any `json:"rows"`
}

func readWithHyparquet(t *testing.T, node, script, path string) *dump {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(node, script, path)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("hyparquet could not read %s: %v\n%s", path, err, stderr.String())
	}
	dec := json.NewDecoder(&stdout)
	dec.UseNumber()
	var d dump
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("dump.mjs output: %v", err)
	}
	return &d
}

func TestSecondReaderHyparquet(t *testing.T) {
	node, script := secondReader(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name             string
		n, groupRows     int
		wantGroups, seed int
	}{{"many", 3000, 500, 6, 50}, {"one", 1, 100, 1, 51}, {"none", 0, 100, 0, 52}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".parquet")
			want := randomRows(uint64(tc.seed), tc.n)
			writeFile(t, path, want, RowGroupRows(tc.groupRows))
			// The project's reader and the independent one must both give
			// back exactly what was written.
			ours, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, ours, want)
			d := readWithHyparquet(t, node, script, path)
			checkSchema(t, d)
			if d.NumRows.String() != strconv.Itoa(tc.n) || d.RowGroups != tc.wantGroups || len(d.Rows) != tc.n {
				t.Fatalf("hyparquet: num_rows %s, %d row groups, %d rows; want %d, %d, %d",
					d.NumRows, d.RowGroups, len(d.Rows), tc.n, tc.wantGroups, tc.n)
			}
			if d.KV[MetadataSchemaVersion] != SchemaVersion {
				t.Errorf("hyparquet: metadata %v lacks %s=%s", d.KV, MetadataSchemaVersion, SchemaVersion)
			}
			for i := range want {
				compareRow(t, i, d.Rows[i], &want[i])
			}
		})
	}
	t.Run("corrupt", func(t *testing.T) {
		// The independent reader agrees that a truncated file is bad.
		good := filepath.Join(dir, "many.parquet")
		b, _ := os.ReadFile(good)
		bad := filepath.Join(dir, "bad.parquet")
		os.WriteFile(bad, b[:len(b)-100], 0o644)
		if err := exec.Command(node, script, bad).Run(); err == nil {
			t.Error("hyparquet read a truncated file")
		}
		var ce *CorruptError
		if _, err := ReadFile(bad); !errors.As(err, &ce) {
			t.Errorf("ReadFile: %v, want *CorruptError", err)
		}
	})
}

// checkSchema checks the physical and logical type of every column as the
// independent reader sees them.
func checkSchema(t *testing.T, d *dump) {
	t.Helper()
	rt := reflect.TypeFor[Row]()
	if len(d.Schema) != rt.NumField() {
		t.Fatalf("hyparquet sees %d columns, Row has %d", len(d.Schema), rt.NumField())
	}
	for i, e := range d.Schema {
		f := rt.Field(i)
		if e.Name != columnName(f) {
			t.Errorf("column %d is %q, want %q", i, e.Name, columnName(f))
		}
		if e.RepetitionType != "REQUIRED" {
			t.Errorf("column %s is %s, want REQUIRED", e.Name, e.RepetitionType)
		}
		logical, _ := e.LogicalType["type"].(string)
		switch f.Type.Kind() {
		case reflect.String:
			if e.Type != "BYTE_ARRAY" || logical != "STRING" {
				t.Errorf("column %s: %s/%v, want BYTE_ARRAY STRING", e.Name, e.Type, e.LogicalType)
			}
		case reflect.Float64:
			if e.Type != "DOUBLE" {
				t.Errorf("column %s: %s, want DOUBLE", e.Name, e.Type)
			}
		case reflect.Int64:
			signed64 := logical == "INTEGER" && e.LogicalType["bitWidth"] == json.Number("64") && e.LogicalType["isSigned"] == true
			if e.Type != "INT64" || (e.LogicalType != nil && !signed64) {
				t.Errorf("column %s: %s/%v, want INT64 (signed 64-bit integer)", e.Name, e.Type, e.LogicalType)
			}
		case reflect.Bool:
			if e.Type != "BOOLEAN" {
				t.Errorf("column %s: %s, want BOOLEAN", e.Name, e.Type)
			}
		default: // started_at
			if e.Type != "INT64" || logical != "TIMESTAMP" || e.LogicalType["unit"] != "MICROS" || e.LogicalType["isAdjustedToUTC"] != true {
				t.Errorf("column %s: %s/%v, want INT64 TIMESTAMP(MICROS, UTC)", e.Name, e.Type, e.LogicalType)
			}
		}
	}
}

// compareRow compares every column of one row read by hyparquet with the
// row written.
func compareRow(t *testing.T, i int, got map[string]any, want *Row) {
	t.Helper()
	v := reflect.ValueOf(want).Elem()
	if len(got) != v.NumField() {
		t.Fatalf("row %d: hyparquet gives %d columns, want %d", i, len(got), v.NumField())
	}
	for f := 0; f < v.NumField(); f++ {
		col := columnName(v.Type().Field(f))
		g, ok := got[col]
		if !ok {
			t.Fatalf("row %d: no column %s", i, col)
		}
		bad := func(wantV any) {
			t.Fatalf("row %d column %s: hyparquet read %#v, parquet-go wrote %#v", i, col, g, wantV)
		}
		switch w := v.Field(f).Interface().(type) {
		case string:
			if s, ok := g.(string); !ok || s != w {
				bad(w)
			}
		case int64:
			// INT64 arrives as a BigInt, printed as a decimal string.
			if s, ok := g.(string); !ok || s != strconv.FormatInt(w, 10) {
				bad(w)
			}
		case float64:
			n, ok := g.(json.Number)
			x, err := strconv.ParseFloat(n.String(), 64)
			if !ok || err != nil || x != w {
				bad(w)
			}
		case bool:
			if x, ok := g.(bool); !ok || x != w {
				bad(w)
			}
		case time.Time:
			m, ok := g.(map[string]any)
			if !ok || m["timestamp_us"] != strconv.FormatInt(w.UnixMicro(), 10) {
				bad(w.UnixMicro())
			}
		default:
			t.Fatalf("column %s: no comparison for %T", col, w)
		}
	}
}
