package results

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

func TestCorruptFilesGiveTypedErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writeFile(t, good, randomRows(20, 500), RowGroupRows(100))
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), data...)
	for i := len(flipped) / 3; i < len(flipped)/3+64; i++ {
		flipped[i] ^= 0x5a
	}
	footer := append([]byte(nil), data...)
	for i := len(footer) - 200; i < len(footer)-8; i++ {
		footer[i] = 0xff
	}
	cases := map[string][]byte{
		"empty":          nil,
		"garbage":        []byte(strings.Repeat("not parquet at all ", 100)),
		"magic only":     []byte("PAR1PAR1"),
		"truncated half": data[:len(data)/2],
		"truncated tail": data[:len(data)-1],
		"no head":        data[4:],
		"pages garbled":  flipped,
		"footer garbled": footer,
	}
	for name, content := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".parquet")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(path)
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.Path != path || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: got %v, want *CorruptError naming %s", name, err, path)
		}
	}
	set, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Files) < 1 || set.Files[0] != good || len(set.Corrupt()) != len(cases) {
		t.Fatalf("ReadDir: files %v, %d corrupt; want good.parquet read and the others corrupt", set.Files, len(set.Corrupt()))
	}
}

func TestSetAsideNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.parquet")
	var asides []string
	for i := range 3 {
		content := []byte{byte('a' + i)}
		os.WriteFile(path, content, 0o644)
		aside, err := SetAside(path, "corrupt: test")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(aside, path+".corrupt-") {
			t.Errorf("set aside as %s", aside)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s still there", path)
		}
		asides = append(asides, aside)
		// Within one timestamp tick, or not, every set-aside file survives.
		for j, a := range asides {
			if b, err := os.ReadFile(a); err != nil || string(b) != string(rune('a'+j)) {
				t.Fatalf("set-aside %s holds %q (%v), want %q", a, b, err, string(rune('a'+j)))
			}
		}
		if note, err := os.ReadFile(aside + ".reason"); err != nil || !strings.Contains(string(note), "corrupt: test") {
			t.Errorf("reason not recorded: %q, %v", note, err)
		}
	}
	// Under a stopped clock every name collides: suffixes, no replacement.
	defer func(f func() time.Time) { clock = f }(clock)
	stopped := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock = func() time.Time { return stopped }
	var same []string
	for i := range 3 {
		os.WriteFile(path, []byte{byte('0' + i)}, 0o644)
		aside, err := SetAside(path, "again")
		if err != nil {
			t.Fatal(err)
		}
		same = append(same, aside)
	}
	base := path + ".corrupt-20260101T000000.000000000Z"
	if want := []string{base, base + "-1", base + "-2"}; !reflect.DeepEqual(same, want) {
		t.Fatalf("set aside as %v, want %v", same, want)
	}
	for i, a := range same {
		if b, _ := os.ReadFile(a); string(b) != string(rune('0'+i)) {
			t.Fatalf("%s holds %q", a, b)
		}
	}
	os.WriteFile(path, []byte("x"), 0o644)
	taken := path + ".corrupt-taken"
	os.WriteFile(taken, []byte("keep"), 0o644)
	if err := renameNoReplace(path, taken); !errors.Is(err, os.ErrExist) {
		t.Fatalf("renameNoReplace onto a taken name: %v", err)
	}
	if b, _ := os.ReadFile(taken); string(b) != "keep" {
		t.Fatal("renameNoReplace replaced a file")
	}
	os.Remove(path)
	if files, _ := Files(dir); len(files) != 0 {
		t.Errorf("set-aside files still look like results: %v", files)
	}
	if _, err := SetAside(filepath.Join(dir, "missing.parquet"), "x"); err == nil {
		t.Error("SetAside of a missing file succeeded")
	}
}

func TestReadDirIsRecursiveAndOrdered(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "b", "c"), 0o755)
	paths := []string{filepath.Join(dir, "b", "c", "z.parquet"), filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b", "y.parquet")}
	all := map[string][]Row{}
	for i, p := range paths {
		all[p] = randomRows(uint64(30+i), 10+i)
		writeFile(t, p, all[p])
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a result"), 0o644)
	set, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{paths[1], paths[0], paths[2]} // sorted by path
	if !reflect.DeepEqual(set.Files, want) {
		t.Fatalf("files %v, want %v", set.Files, want)
	}
	var rows []Row
	for _, p := range want {
		rows = append(rows, all[p]...)
	}
	sameRows(t, set.Rows, rows)
	// A single file works too.
	one, err := ReadDir(paths[0])
	if err != nil || len(one.Rows) != 10 {
		t.Fatalf("ReadDir(file): %d rows, %v", len(one.Rows), err)
	}
	if _, err := ReadDir(filepath.Join(dir, "nope")); err == nil {
		t.Fatal("ReadDir of a missing directory succeeded")
	}
}

// An older file, written before some columns existed, reads with those
// columns zero; a Parquet file without the results columns is a
// *SchemaError, not corrupt.
func TestOlderAndForeignSchemas(t *testing.T) {
	dir := t.TempDir()
	type oldRow struct {
		Suite     string    `parquet:"suite"`
		Benchmark string    `parquet:"benchmark"`
		Function  string    `parquet:"function"`
		Compiler  string    `parquet:"compiler"`
		DstOpt    string    `parquet:"dst_opt"`
		Engine    string    `parquet:"engine"`
		Verdict   string    `parquet:"verdict"`
		WallS     float64   `parquet:"wall_s"`
		StartedAt time.Time `parquet:"started_at,timestamp(microsecond)"`
	}
	old := filepath.Join(dir, "old.parquet")
	at := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := parquet.WriteFile(old, []oldRow{{"tsvc", "s000", "s000", "gcc", "O3", "static", Equivalent, 2.5, at}}); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	want := Row{Suite: "tsvc", Benchmark: "s000", Function: "s000", Compiler: "gcc", DstOpt: "O3", Engine: "static", Verdict: Equivalent, WallS: 2.5, StartedAt: at}
	sameRows(t, rows, []Row{want})

	type foreign struct {
		X int64 `parquet:"x"`
	}
	other := filepath.Join(dir, "other.parquet")
	parquet.WriteFile(other, []foreign{{1}})
	_, err = ReadFile(other)
	var se *SchemaError
	if !errors.As(err, &se) || se.Path != other {
		t.Fatalf("foreign file: %v, want *SchemaError", err)
	}
}

// FuzzReadFile: whatever the bytes, ReadFile returns rows or a typed error
// naming the file; it never panics.
func FuzzReadFile(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "seed.parquet")
	writeFile(f, good, randomRows(40, 20), RowGroupRows(8))
	data, _ := os.ReadFile(good)
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "f.parquet")
		os.WriteFile(path, b, 0o644)
		done := make(chan error, 1)
		go func() { _, err := ReadFile(path); done <- err }()
		var err error
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			os.WriteFile(filepath.Join(os.TempDir(), "eqc-fuzz-hang.parquet"), b, 0o644)
			t.Fatalf("ReadFile hangs on %d bytes", len(b))
		}
		if err == nil {
			return
		}
		var ce *CorruptError
		var se *SchemaError
		var ie *InvalidRowError
		if !errors.As(err, &ce) && !errors.As(err, &se) && !errors.As(err, &ie) {
			t.Fatalf("untyped error %v", err)
		}
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("error %v does not name the file", err)
		}
	})
}
