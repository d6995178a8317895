package results

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

func TestRoundTripRandomRows(t *testing.T) {
	for _, tc := range []struct {
		seed      uint64
		n, groups int
	}{{1, 0, 100}, {2, 1, 100}, {3, 1000, 64}, {4, 5000, DefaultRowGroupRows}} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.parquet")
			want := randomRows(tc.seed, tc.n)
			w, err := Create(path, RowGroupRows(tc.groups), Version("v1.2-test"))
			if err != nil {
				t.Fatal(err)
			}
			// Uneven batches, so row groups straddle Write calls.
			for rest := want; len(rest) > 0; {
				k := min(len(rest), 1+len(rest)/3)
				if err := w.Write(rest[:k]...); err != nil {
					t.Fatal(err)
				}
				rest = rest[k:]
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, got, want)
			f, _ := os.Open(path)
			defer f.Close()
			st, _ := f.Stat()
			pf, err := parquet.OpenFile(f, st.Size())
			if err != nil {
				t.Fatal(err)
			}
			if wantGroups := (tc.n + tc.groups - 1) / tc.groups; len(pf.RowGroups()) != wantGroups {
				t.Errorf("%d row groups, want %d", len(pf.RowGroups()), wantGroups)
			}
			if v, _ := pf.Lookup(MetadataSchemaVersion); v != SchemaVersion {
				t.Errorf("schema version metadata %q, want %q", v, SchemaVersion)
			}
			if by, want := pf.Metadata().CreatedBy, "eqc version v1.2-test(build schema "+SchemaVersion+")"; by != want {
				t.Errorf("created_by %q, want %q", by, want)
			}
		})
	}
}

func TestWriteTruncatesToMicrosecondsInUTC(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.parquet")
	r := validRow()
	r.StartedAt = time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.FixedZone("X", 3600))
	writeFile(t, path, []Row{r})
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 3, 4, 4, 6, 7, 123456000, time.UTC)
	if !got[0].StartedAt.Equal(want) || got[0].StartedAt.Location() != time.UTC {
		t.Errorf("started_at %v, want %v", got[0].StartedAt, want)
	}
}

func TestWriteRejectsInvalidRowsAndWritesNoneOfTheBatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.parquet")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := validRow()
	bad.Verdict = "proved"
	err = w.Write(validRow(), bad)
	var ie *InvalidRowError
	if !errors.As(err, &ie) || ie.Index != 1 || ie.Column != "verdict" || ie.Path != path {
		t.Fatalf("got %v, want *InvalidRowError at row 1 column verdict naming %s", err, path)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if rows, err := ReadFile(path); err != nil || len(rows) != 0 {
		t.Fatalf("file holds %d rows (%v), want 0", len(rows), err)
	}
}

func TestConcurrentWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.parquet")
	w, err := Create(path, RowGroupRows(50))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range randomRows(uint64(100+g), 100) {
				if err := w.Write(r); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if rows, err := ReadFile(path); err != nil || len(rows) != 800 {
		t.Fatalf("read %d rows (%v), want 800", len(rows), err)
	}
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	return names
}

func TestUnclosedWriterLeavesNoFinalFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.parquet")
	w, err := Create(path, RowGroupRows(10))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(randomRows(5, 100)...); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("final name exists before Close: %v", err)
	}
	names := entries(t, dir)
	if len(names) != 1 || !isTemp(names[0]) {
		t.Fatalf("directory holds %v, want one temporary file", names)
	}
	if files, _ := Files(dir); len(files) != 0 {
		t.Fatalf("Files lists %v; a temporary file is not a result", files)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Fatalf("Abort left %v", names)
	}
}

// TestHelperWriterProcess is not a test: TestKilledWriterLeavesNoFinalFile
// runs it in a child process, which writes rows and waits to be killed.
func TestHelperWriterProcess(t *testing.T) {
	path := os.Getenv("EQC_RESULTS_HELPER_OUT")
	if path == "" {
		t.Skip("helper process only")
	}
	w, err := Create(path, RowGroupRows(100))
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	if err := w.Write(randomRows(6, 1000)...); err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	fmt.Println("ready")
	time.Sleep(time.Minute)
	os.Exit(4) // never Close
}

func TestKilledWriterLeavesNoFinalFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sweep.parquet")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriterProcess$")
	cmd.Env = append(os.Environ(), "EQC_RESULTS_HELPER_OUT="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper said %q", line)
	}
	names := entries(t, dir)
	if len(names) != 1 || !isTemp(names[0]) {
		t.Errorf("while writing the directory holds %v, want one temporary file", names)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a killed writer left %s: %v", path, err)
	}
	set, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Files) != 0 || len(set.Bad) != 0 || len(set.Rows) != 0 || len(set.Temps) != 1 {
		t.Fatalf("ReadDir after kill: files %v bad %v rows %d temps %v; want only one temp", set.Files, set.Bad, len(set.Rows), set.Temps)
	}
}

func TestCreateAndCloseNeverReplaceWithoutOverwrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.parquet")
	writeFile(t, path, randomRows(7, 3))
	var ee *ExistsError
	if _, err := Create(path); !errors.As(err, &ee) || ee.Path != path {
		t.Fatalf("Create over an existing file: %v, want *ExistsError", err)
	}
	// The name gets taken between Create and Close.
	other := filepath.Join(dir, "s.parquet")
	w, err := Create(other)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(randomRows(8, 2)...)
	os.WriteFile(other, []byte("someone else's"), 0o644)
	if err := w.Close(); !errors.As(err, &ee) || ee.TempPath == "" {
		t.Fatalf("Close onto a taken name: %v, want *ExistsError with the temporary file", err)
	}
	if b, _ := os.ReadFile(other); string(b) != "someone else's" {
		t.Fatalf("Close replaced the file that took its name")
	}
	if rows, err := ReadFile(ee.TempPath); err != nil || len(rows) != 2 {
		t.Fatalf("rows not kept in %s: %d, %v", ee.TempPath, len(rows), err)
	}
}

func TestOverwriteSetsACorruptFileAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.parquet")
	writeFile(t, path, randomRows(9, 3))
	writeFile(t, path, randomRows(10, 4), Overwrite()) // a good file is replaced
	if rows, _ := ReadFile(path); len(rows) != 4 {
		t.Fatalf("overwrite: %d rows, want 4", len(rows))
	}
	os.WriteFile(path, []byte("PAR1 garbage"), 0o644)
	writeFile(t, path, randomRows(11, 5), Overwrite())
	if rows, _ := ReadFile(path); len(rows) != 5 {
		t.Fatalf("overwrite: %d rows, want 5", len(rows))
	}
	asides, _ := filepath.Glob(path + ".corrupt-*Z")
	if len(asides) != 1 {
		t.Fatalf("the corrupt file was not set aside: %v", entries(t, dir))
	}
	if b, _ := os.ReadFile(asides[0]); string(b) != "PAR1 garbage" {
		t.Fatalf("set-aside file holds %q", b)
	}
}
