package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Object is one relocatable object built from one source file.
type Object struct {
	Path      string // the .o file
	Suite     string // the suite the source belongs to ("" for a lone Compile)
	Source    string // absolute path of the C file
	Benchmark string // the source's base name without .c, the results' `benchmark`
	Compiler  string // matrix name of the compiler: "gcc-12", "clang-16"
	// CompilerVersion is the first line of the compiler's --version.
	CompilerVersion string
	Opt             Opt
	Variant         string
	// CFlags are the flags exactly as passed, space-separated, without the
	// input file and -o; recorded as `cflags` in every result row.
	CFlags string
	// Command is the full command line that built (or would have built)
	// Path; the compiler runs in the source's directory with the source
	// named by its base name, so DWARF names the file without a directory.
	Command []string
	// Functions are the global functions the object defines, sorted;
	// Statics its static functions, sorted.
	Functions, Statics []string
	// Sizes are the functions' sizes in bytes (global and static).
	Sizes map[string]uint64
	// Cached reports that the object was already in outDir.
	Cached bool
}

// CompileError reports a C file the compiler rejected.
type CompileError struct {
	Source     string
	Compiler   string
	Command    []string
	FirstError string // the compiler's first error line
	Stderr     string
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("bench: %s does not compile with %s: %s", e.Source, e.Compiler, e.FirstError)
}

// cacheVersion changes whenever the meaning of a cache key changes.
const cacheVersion = "eqc-bench-object-v1"

// Compile builds src into a relocatable object in outDir with the flags of
// (cc, opt, variant) and returns it. extra flags (a suite's own cflags)
// follow the variant's. Objects are cached: the file name carries a hash
// of the compiler version, the flags, the source and the headers beside it
// (see cacheKey), and an object already present is returned without
// running the compiler. A source the compiler rejects is a *CompileError.
func Compile(ctx context.Context, cc *Compiler, opt Opt, variant Variant, src, outDir string, extra ...string) (Object, error) {
	src, err := filepath.Abs(src)
	if err != nil {
		return Object{}, err
	}
	flags := Flags(cc, opt, variant, extra)
	key, err := cacheKey(cc, flags, src)
	if err != nil {
		return Object{}, err
	}
	benchmark := strings.TrimSuffix(filepath.Base(src), ".c")
	name := fmt.Sprintf("%s.%s.%s.%s.%s.o", benchmark, cc.Name, opt, variant.Name, key[:16])
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return Object{}, err
	}
	out, err := filepath.Abs(filepath.Join(outDir, name))
	if err != nil {
		return Object{}, err
	}
	obj := Object{
		Path:            out,
		Source:          src,
		Benchmark:       benchmark,
		Compiler:        cc.Name,
		CompilerVersion: cc.Version,
		Opt:             opt,
		Variant:         variant.Name,
		CFlags:          strings.Join(flags, " "),
		Command:         append(append([]string{cc.Path}, flags...), filepath.Base(src), "-o", out),
	}

	if _, err := os.Stat(out); err == nil {
		obj.Cached = true
	} else if err := runCompiler(ctx, cc, obj, flags); err != nil {
		return Object{}, err
	}
	syms, err := ReadFunctionSymbols(out)
	if err != nil {
		return Object{}, err
	}
	obj.Functions, obj.Statics, obj.Sizes = syms.Globals, syms.Statics, syms.Sizes
	return obj, nil
}

// runCompiler writes the object under a temporary name and renames it into
// place, so that a concurrent build or a killed one never leaves a
// truncated object where the cache would trust it.
func runCompiler(ctx context.Context, cc *Compiler, obj Object, flags []string) error {
	tmp, err := os.CreateTemp(filepath.Dir(obj.Path), ".tmp-*.o")
	if err != nil {
		return err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())

	args := append(append([]string{}, flags...), filepath.Base(obj.Source), "-o", tmp.Name())
	cmd := exec.CommandContext(ctx, cc.Path, args...)
	cmd.Dir = filepath.Dir(obj.Source)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return fmt.Errorf("bench: running %s: %w", cc.Path, err)
		}
		return &CompileError{
			Source:     obj.Source,
			Compiler:   cc.Name,
			Command:    obj.Command,
			FirstError: firstErrorLine(stderr.String()),
			Stderr:     stderr.String(),
		}
	}
	return os.Rename(tmp.Name(), obj.Path)
}

// firstErrorLine picks the compiler's first "error:" line, or failing that
// its first line of output.
func firstErrorLine(stderr string) string {
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "error:") {
			return strings.TrimSpace(line)
		}
	}
	if line := firstLine(stderr); line != "" {
		return line
	}
	return "compiler failed without a message"
}

// cacheKey hashes what decides an object's contents: the compiler's
// version line, the flags, the source, and every .h file in the source's
// directory (where the suites keep their headers). Headers elsewhere, such
// as system headers or csmith's, are assumed to change only with the
// compiler or the installation. The source's path is not part of the key:
// only DWARF's compilation directory depends on it.
func cacheKey(cc *Compiler, flags []string, src string) (string, error) {
	h := sha256.New()
	field := func(s string) {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	field(cacheVersion)
	field(cc.Version)
	field(string(cc.Family))
	for _, f := range flags {
		field(f)
	}
	content, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	field(string(content))

	dir := filepath.Dir(src)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var headers []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".h") {
			headers = append(headers, e.Name())
		}
	}
	sort.Strings(headers)
	for _, name := range headers {
		content, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		field(name)
		field(string(content))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
