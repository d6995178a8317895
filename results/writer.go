package results

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// DefaultRowGroupRows is the number of rows per row group unless
// RowGroupRows says otherwise.
const DefaultRowGroupRows = 8192

// tempMarker is part of the name of every temporary file a Writer creates:
// ".<final name>.tmp-<random>". It does not end in ".parquet", so readers
// never mistake an unfinished file for a result.
const tempMarker = ".tmp-"

// Option configures a Writer.
type Option func(*Writer)

// RowGroupRows sets how many rows go into one row group (n > 0).
func RowGroupRows(n int) Option {
	return func(w *Writer) {
		if n > 0 {
			w.groupRows = n
		}
	}
}

// Overwrite lets Close replace an existing file under the final name. An
// existing file that does not read back cleanly is set aside (SetAside)
// rather than replaced, so a corrupt file is never silently lost.
func Overwrite() Option { return func(w *Writer) { w.overwrite = true } }

// Version names the eqc version that writes the file, in the Parquet
// footer's created_by ("eqc version V(build schema N)").
func Version(v string) Option { return func(w *Writer) { w.version = v } }

// Metadata adds a key/value pair to the file's metadata (e.g. the sweep's
// command line).
func Metadata(key, value string) Option {
	return func(w *Writer) { w.meta = append(w.meta, [2]string{key, value}) }
}

// ExistsError says the final name of a Writer is taken and Overwrite was not
// given. The rows are still in the temporary file TempPath when Close
// returned it; Create returns it before writing anything (TempPath "").
type ExistsError struct {
	Path     string
	TempPath string
}

func (e *ExistsError) Error() string {
	if e.TempPath != "" {
		return fmt.Sprintf("results: %s already exists; rows left in %s", e.Path, e.TempPath)
	}
	return fmt.Sprintf("results: %s already exists", e.Path)
}

// Writer writes rows to one Parquet file. Rows go to a temporary file in
// the same directory; Close finishes it, syncs it and gives it its final
// name in one atomic step, so the final name never holds a partial file, even
// if the process is killed. A Writer is safe for concurrent use.
type Writer struct {
	path      string
	groupRows int
	overwrite bool
	version   string
	meta      [][2]string

	mu      sync.Mutex
	tmp     *os.File
	pw      *parquet.GenericWriter[Row]
	pending int   // rows in the current row group
	rows    int64 // rows written in all
	done    bool
}

// Create starts a results file that will be called path. The directory must
// exist. Without Overwrite, Create fails with *ExistsError when path exists.
func Create(path string, opts ...Option) (*Writer, error) {
	w := &Writer{path: path, groupRows: DefaultRowGroupRows}
	for _, o := range opts {
		o(w)
	}
	if !w.overwrite {
		if _, err := os.Lstat(path); err == nil {
			return nil, &ExistsError{Path: path}
		}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+tempMarker+"*")
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	w.tmp = tmp
	// CreateTemp makes the file private; a results file is for notebooks too.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("results: %w", err)
	}
	popts := []parquet.WriterOption{
		parquet.Compression(&parquet.Snappy),
		parquet.CreatedBy("eqc", cmp.Or(w.version, "unknown"), "schema "+SchemaVersion),
		parquet.KeyValueMetadata(MetadataSchemaVersion, SchemaVersion),
	}
	for _, kv := range w.meta {
		popts = append(popts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	w.pw = parquet.NewGenericWriter[Row](tmp, popts...)
	return w, nil
}

// Path is the final name of the file.
func (w *Writer) Path() string { return w.path }

// TempPath is the temporary file the rows go to until Close.
func (w *Writer) TempPath() string { return w.tmp.Name() }

// Rows is the number of rows written so far.
func (w *Writer) Rows() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rows
}

// Write validates rows and appends them. If a row is invalid it returns an
// *InvalidRowError (Index within this call) and writes none of them.
func (w *Writer) Write(rows ...Row) error {
	for i := range rows {
		if err := rows[i].Validate(); err != nil {
			e := err.(*InvalidRowError)
			e.Path, e.Index = w.path, i
			return e
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return fmt.Errorf("results: %s: write after Close", w.path)
	}
	for len(rows) > 0 {
		n := min(len(rows), w.groupRows-w.pending)
		batch := make([]Row, n)
		copy(batch, rows[:n])
		for i := range batch {
			batch[i].normalize()
		}
		if _, err := w.pw.Write(batch); err != nil {
			return fmt.Errorf("results: %s: %w", w.path, err)
		}
		rows = rows[n:]
		w.pending += n
		w.rows += int64(n)
		if w.pending == w.groupRows {
			if err := w.pw.Flush(); err != nil {
				return fmt.Errorf("results: %s: %w", w.path, err)
			}
			w.pending = 0
		}
	}
	return nil
}

// Close finishes the file: footer, fsync, then the temporary file takes the
// final name (and the directory is synced). On any error the temporary file
// is removed, except for *ExistsError, which keeps it and names it. Close
// after Close or Abort returns nil.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	w.done = true
	tmp := w.tmp.Name()
	fail := func(err error) error {
		w.tmp.Close()
		os.Remove(tmp)
		return fmt.Errorf("results: %s: %w", w.path, err)
	}
	if err := w.pw.Close(); err != nil {
		return fail(err)
	}
	if err := w.tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := w.tmp.Close(); err != nil {
		return fail(err)
	}
	if w.overwrite {
		if _, err := os.Lstat(w.path); err == nil {
			if _, err := ReadFile(w.path); err != nil {
				if _, err := SetAside(w.path, err.Error()); err != nil {
					os.Remove(tmp)
					return err
				}
			}
		}
		if err := os.Rename(tmp, w.path); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("results: %w", err)
		}
	} else if err := renameNoReplace(tmp, w.path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &ExistsError{Path: w.path, TempPath: tmp}
		}
		os.Remove(tmp)
		return fmt.Errorf("results: %w", err)
	}
	syncDir(filepath.Dir(w.path))
	return nil
}

// Abort gives up the file: the temporary file is removed and the final name
// is left as it was.
func (w *Writer) Abort() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	w.done = true
	w.tmp.Close()
	return os.Remove(w.tmp.Name())
}

// renameNoReplace renames oldpath to newpath unless newpath exists, in which
// case it fails with an error satisfying errors.Is(err, fs.ErrExist). It
// uses a hard link (atomic: link(2) never replaces) and falls back to
// check-then-rename on file systems without hard links.
func renameNoReplace(oldpath, newpath string) error {
	err := os.Link(oldpath, newpath)
	if err == nil {
		return os.Remove(oldpath)
	}
	if errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, serr := os.Lstat(newpath); serr == nil {
		return &fs.PathError{Op: "rename", Path: newpath, Err: fs.ErrExist}
	}
	return os.Rename(oldpath, newpath)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: not every file system syncs directories
		d.Close()
	}
}

// isTemp reports whether name is a Writer's temporary file.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".parquet"+tempMarker)
}
