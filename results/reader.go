package results

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
)

// CorruptError says a file is not readable as Parquet: bad magic, a
// truncated or garbled footer, an undecodable page. Such a file should be
// set aside (SetAside), never overwritten.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("results: %s: corrupt Parquet file: %v", e.Path, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// SchemaError says a file is sound Parquet but not an eqc results file: it
// lacks columns every results file has. It is not corrupt and is left alone.
type SchemaError struct {
	Path    string
	Missing []string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("results: %s: not an eqc results file (no column %s)", e.Path, strings.Join(e.Missing, ", "))
}

// ReadFile reads every row of one results file, in file order. A file that
// is not readable Parquet gives *CorruptError, one without the results
// columns *SchemaError, a row breaking the value rules *InvalidRowError;
// each names the file. Columns missing from an older file read as zero
// values; columns the reader does not know are ignored.
func ReadFile(path string) (rows []Row, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	corrupt := func(err error) ([]Row, error) { return nil, &CorruptError{Path: path, Err: err} }
	// parquet-go trusts the footer's offsets; a garbled footer can make it
	// panic rather than fail. Either way the file is corrupt.
	defer func() {
		if p := recover(); p != nil {
			rows, err = corrupt(fmt.Errorf("decoder panic: %v", p))
		}
	}()
	if err := checkFrame(f, st.Size()); err != nil {
		return corrupt(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return corrupt(err)
	}
	if missing := missingColumns(pf.Schema()); len(missing) > 0 {
		return nil, &SchemaError{Path: path, Missing: missing}
	}
	n := pf.NumRows()
	if n < 0 {
		return corrupt(fmt.Errorf("footer claims %d rows", n))
	}
	// Given the *parquet.File, the reader does not parse the footer again;
	// it converts from the file's schema to Row's when they differ.
	r := parquet.NewGenericReader[Row](pf)
	defer r.Close()
	rows = make([]Row, 0, min(n, 1<<16))
	buf := make([]Row, 1024)
	for {
		k, err := r.Read(buf)
		rows = append(rows, buf[:k]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return corrupt(err)
		}
		if k == 0 {
			return corrupt(errors.New("reader made no progress"))
		}
	}
	if int64(len(rows)) != n {
		return corrupt(fmt.Errorf("read %d rows, footer says %d", len(rows), n))
	}
	for i := range rows {
		rows[i].StartedAt = rows[i].StartedAt.UTC()
		if err := rows[i].Validate(); err != nil {
			e := err.(*InvalidRowError)
			e.Path, e.Index = path, i
			return nil, e
		}
	}
	return rows, nil
}

// checkFrame checks the magic numbers and the footer length before
// parquet-go sees the file, which would otherwise allocate whatever length
// a garbled footer claims.
func checkFrame(f *os.File, size int64) error {
	const magic = "PAR1"
	if size < 12 {
		return fmt.Errorf("%d bytes is too short for a Parquet file", size)
	}
	var head [4]byte
	var tail [8]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return err
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(head[:]) != magic {
		return fmt.Errorf("no Parquet magic number at the start (%q)", head[:])
	}
	if string(tail[4:]) != magic {
		return fmt.Errorf("no Parquet magic number at the end (%q): truncated?", tail[4:])
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n == 0 || n > size-12 {
		return fmt.Errorf("footer length %d does not fit in %d bytes", n, size)
	}
	return nil
}

func missingColumns(s *parquet.Schema) []string {
	have := map[string]bool{}
	for _, f := range s.Fields() {
		have[f.Name()] = true
	}
	var missing []string
	for _, c := range requiredColumns {
		if !have[c] {
			missing = append(missing, c)
		}
	}
	return missing
}

// Files lists the *.parquet files under root (recursively; root itself if
// it is a file), sorted by path. Writers' temporary files are not listed.
func Files(root string) ([]string, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	if !st.IsDir() {
		return []string{root}, nil
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".parquet") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	sort.Strings(files)
	return files, nil
}

// Set is what ReadDir found under a directory.
type Set struct {
	Rows  []Row    // rows of every good file: files in path order, rows in file order
	Files []string // the files read
	Bad   []error  // one per file that could not be read: *CorruptError, *SchemaError, *InvalidRowError or an I/O error
	Temps []string // temporary files of writers that never closed (interrupted sweeps)
}

// Corrupt returns the *CorruptError entries of Bad.
func (s *Set) Corrupt() []*CorruptError {
	var out []*CorruptError
	for _, err := range s.Bad {
		var c *CorruptError
		if errors.As(err, &c) {
			out = append(out, c)
		}
	}
	return out
}

// ReadDir reads every results file under root (see Files). A file that
// cannot be read goes to Set.Bad and the others are still read; the error is
// only for root itself. ReadDir changes nothing on disk.
func ReadDir(root string) (*Set, error) {
	files, err := Files(root)
	if err != nil {
		return nil, err
	}
	s := &Set{}
	for _, f := range files {
		rows, err := ReadFile(f)
		if err != nil {
			s.Bad = append(s.Bad, err)
			continue
		}
		s.Files = append(s.Files, f)
		s.Rows = append(s.Rows, rows...)
	}
	if st, err := os.Stat(root); err == nil && st.IsDir() {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && isTemp(d.Name()) {
				s.Temps = append(s.Temps, p)
			}
			return nil
		})
		sort.Strings(s.Temps)
	}
	return s, nil
}

// clock is time.Now; tests stop it.
var clock = time.Now

// setAsideLayout is the timestamp in a set-aside file's name.
const setAsideLayout = "20060102T150405.000000000Z"

// SetAside moves a bad file out of the way: path becomes
// "path.corrupt-<UTC timestamp>" (with "-1", "-2", ... appended if that name
// is taken), so it no longer ends in .parquet and no reader or writer touches
// it again. It never overwrites and never deletes: the move is a hard link
// plus unlink, which fails rather than replace. The reason is recorded beside
// it in "<new path>.reason". SetAside returns the new path.
func SetAside(path, reason string) (string, error) {
	if _, err := os.Lstat(path); err != nil {
		return "", fmt.Errorf("results: set aside: %w", err)
	}
	now := clock().UTC()
	base := path + ".corrupt-" + now.Format(setAsideLayout)
	for i := 0; ; i++ {
		dst := base
		if i > 0 {
			dst = fmt.Sprintf("%s-%d", base, i)
		}
		err := renameNoReplace(path, dst)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("results: set aside %s: %w", path, err)
		}
		note := fmt.Sprintf("%s\nset aside from %s at %s\n", reason, path, now.Format(time.RFC3339Nano))
		if err := writeNew(dst+".reason", []byte(note)); err != nil {
			return dst, fmt.Errorf("results: set aside %s as %s, but recording the reason failed: %w", path, dst, err)
		}
		return dst, nil
	}
}

// writeNew writes data to a file that must not exist yet.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
