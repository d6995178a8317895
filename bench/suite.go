package bench

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"
)

// builtinFiles holds the sources of the built-in suites so that the eqc
// binary can build them outside the repository.
//
//go:embed tsvc/*.c tsvc/*.h tsvc/suite.txt corpus/*.c kernels/*.c kernels/suite.txt
var builtinFiles embed.FS

// builtinSuites maps a built-in suite's name to its directory in builtinFiles.
var builtinSuites = map[string]string{
	"tsvc":    "tsvc",
	"corpus":  "corpus",
	"kernels": "kernels",
}

// Suite is a benchmark suite as data: C sources compiled one object each,
// the functions to check in them, the preprocessor variants and the
// compile matrix.
type Suite struct {
	Name string
	// Dir is the directory holding the sources. A built-in suite has none
	// until Prepare writes its embedded files out.
	Dir string
	// Sources are the C files compiled one object each, relative to Dir.
	Sources []string
	// Support files are compiled only into runnable programs (for TSVC,
	// globals.c defines the arrays the kernels use), relative to Dir.
	Support []string
	// Functions are the functions to check. Empty means every global
	// function of every object, found in its symbol table.
	Functions []string
	Variants  []Variant
	Matrix    Matrix
	// CFlags are extra flags for every build of the suite (-I, -D, -w).
	CFlags []string
	// StaticFunctions adds the static functions each object defines to
	// the functions checked (when Functions is empty); clang builds then
	// load the keepsig plugin (KeepSignaturesFlags) so that the optimizer
	// keeps their signatures.
	StaticFunctions bool
	// Program says the sources are the units of one program (a recipe's,
	// a SPEC CPU benchmark's): a global one unit declares is defined by
	// another, whose DWARF gives its size where the declaring unit's says
	// nothing (clang describes no extern variable), so each check takes
	// the other units' source objects as context.
	Program bool

	files  fs.FS   // the embedded files of a built-in suite
	recipe *Recipe // the recipe of a suite fetched from Debian's sources
}

// UnknownSuiteError reports a suite name that is neither built in nor a
// directory.
type UnknownSuiteError struct {
	Name  string
	Known []string
}

func (e *UnknownSuiteError) Error() string {
	return fmt.Sprintf("bench: unknown suite %q: built-in suites are %s, or give a directory of C files",
		e.Name, strings.Join(e.Known, ", "))
}

// BuiltinNames lists the built-in suites, sorted.
func BuiltinNames() []string {
	var names []string
	for name := range builtinSuites {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Builtin returns a fresh copy of a built-in suite: "tsvc" (the 28 TSVC
// kernels), "corpus" (small real C programs for lifter measurement) or
// "kernels" (loop kernels over pointer-and-length arrays, the shape
// ordinary code has).
// Its Dir is empty until Prepare or Build writes its sources out.
func Builtin(name string) (*Suite, error) {
	dir, ok := builtinSuites[name]
	if !ok {
		return nil, &UnknownSuiteError{Name: name, Known: BuiltinNames()}
	}
	sub, err := fs.Sub(builtinFiles, dir)
	if err != nil {
		panic(fmt.Sprintf("bench: embedded suite %s: %v", name, err))
	}
	s, err := loadSuite(sub, name, "builtin:"+name)
	if err != nil {
		panic(fmt.Sprintf("bench: embedded suite %s is broken: %v", name, err))
	}
	s.files = sub
	return s, nil
}

// Load reads the suite in dir: its manifest (suite.txt) if there is one,
// else every .c file as a source, every global function as a function to
// check, one variant and the default matrix. A bad manifest or a
// directory without C files is a *ManifestError.
func Load(dir string) (*Suite, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("bench: suite directory: %w", err)
	}
	if !info.IsDir() {
		return nil, &ManifestError{Path: dir, Msg: "not a directory"}
	}
	s, err := loadSuite(os.DirFS(abs), filepath.Base(abs), abs)
	if err != nil {
		return nil, err
	}
	s.Dir = abs
	return s, nil
}

// Open resolves a --suite argument: an existing directory (or anything
// that looks like a path) is loaded, a file is a recipe (ParseRecipe), a
// built-in recipe's name is that program's suite (both fetched by Fetch),
// anything else is a built-in suite's name.
func Open(nameOrDir string) (*Suite, error) {
	if info, err := os.Stat(nameOrDir); err == nil && info.IsDir() {
		return Load(nameOrDir)
	} else if err == nil && info.Mode().IsRegular() {
		// A recipe of the user's own, in the syntax of bench/spec.
		data, err := os.ReadFile(nameOrDir)
		if err != nil {
			return nil, err
		}
		r, err := ParseRecipe(strings.TrimSuffix(filepath.Base(nameOrDir), ".txt"), nameOrDir, data)
		if err != nil {
			return nil, err
		}
		return r.Suite(), nil
	}
	if strings.ContainsRune(nameOrDir, filepath.Separator) || strings.HasPrefix(nameOrDir, ".") {
		return Load(nameOrDir)
	}
	if slices.Contains(RecipeNames(), nameOrDir) {
		r, err := BuiltinRecipe(nameOrDir)
		if err != nil {
			return nil, err
		}
		return r.Suite(), nil
	}
	return Builtin(nameOrDir)
}

// OpenOptions are what OpenAll needs beyond the suite's name.
type OpenOptions struct {
	// Warn receives one line per benchmark of a SPEC CPU tree that cannot
	// be built (and is left out); nil discards them.
	Warn io.Writer
	// SpecCFlags are added to every build of a SPEC CPU benchmark (a
	// user's portability flags).
	SpecCFlags []string
}

// OpenAll resolves a --suite argument that may name several suites:
// "spec" is every built-in recipe, in name order; the top directory of an
// installed SPEC CPU tree is each of its integer C benchmarks
// (SpecCPUSuites), one benchmark's directory in it that benchmark;
// anything else is Open's.
func OpenAll(nameOrDir string, o OpenOptions) ([]*Suite, error) {
	if info, err := os.Stat(nameOrDir); err == nil && info.IsDir() {
		switch {
		case IsSpecCPUTree(nameOrDir):
			suites, skipped, err := SpecCPUSuites(nameOrDir, o.SpecCFlags)
			for _, e := range skipped {
				if o.Warn != nil {
					fmt.Fprintf(o.Warn, "eqc: left out: %v\n", e)
				}
			}
			return suites, err
		case isSpecCPUBenchmark(nameOrDir):
			s, err := OpenSpecCPUBenchmark(nameOrDir, o.SpecCFlags)
			if err != nil {
				return nil, err
			}
			return []*Suite{s}, nil
		}
	}
	if nameOrDir != SpecSuite {
		s, err := Open(nameOrDir)
		if err != nil {
			return nil, err
		}
		return []*Suite{s}, nil
	}
	var out []*Suite
	for _, name := range RecipeNames() {
		r, err := BuiltinRecipe(name)
		if err != nil {
			return nil, err
		}
		out = append(out, r.Suite())
	}
	return out, nil
}

// Fetch gets a recipe suite's sources (apt-get source, unpack, the
// recipe's prepare commands; all cached under SpecRoot) and reads its
// manifest lines over them. Other suites need no fetching. log receives a
// line per step that does work.
func (s *Suite) Fetch(ctx context.Context, log io.Writer) error {
	if s.recipe == nil || s.Dir != "" {
		return nil
	}
	return s.prepareRecipe(ctx, log)
}

// Prepare puts a built-in suite's sources on disk under workDir, in a
// directory named by the hash of its contents (so the path, and with it
// the objects' DWARF, is the same every time), and sets Dir. It does
// nothing for a suite loaded from a directory.
func (s *Suite) Prepare(workDir string) error {
	if s.Dir != "" {
		return nil
	}
	if s.recipe != nil {
		return s.Fetch(context.Background(), io.Discard)
	}
	if s.files == nil {
		panic("bench: suite " + s.Name + " has neither a directory nor embedded files")
	}
	h := sha256.New()
	var names []string
	err := fs.WalkDir(s.files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(s.files, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%d:%s;%d:", len(p), p, len(data))
		h.Write(data)
		names = append(names, p)
		return nil
	})
	if err != nil {
		return err
	}
	final := filepath.Join(workDir, s.Name+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(final); err == nil {
		s.Dir, err = filepath.Abs(final)
		return err
	}
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(workDir, ".tmp-"+s.Name+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, name := range names {
		data, err := fs.ReadFile(s.files, name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, filepath.FromSlash(name)), data, 0o644); err != nil {
			return err
		}
	}
	// Another process may have won the race; its copy is identical.
	if err := os.Rename(tmp, final); err != nil {
		if _, statErr := os.Stat(final); statErr != nil {
			return err
		}
	}
	s.Dir, err = filepath.Abs(final)
	return err
}

// Job is one compilation of a build list.
type Job struct {
	Suite    string
	Compiler string // a name for LookupCompiler
	Opt      Opt
	Variant  Variant
	Source   string   // path of the C file
	Extra    []string // flags after the variant's
}

// Jobs expands the suite's matrix: every source in every variant with
// every compiler at every optimization setting. The suite must be on disk
// (see Prepare).
func (s *Suite) Jobs() []Job {
	if s.Dir == "" {
		panic("bench: Jobs of suite " + s.Name + " before Prepare")
	}
	var jobs []Job
	for _, src := range s.Sources {
		for _, v := range s.Variants {
			for _, cc := range s.Matrix.Compilers {
				for _, opt := range s.Matrix.Opts {
					jobs = append(jobs, Job{
						Suite: s.Name, Compiler: cc, Opt: opt, Variant: v,
						Source: filepath.Join(s.Dir, src), Extra: s.CFlags,
					})
				}
			}
		}
	}
	return jobs
}

// Build compiles the whole matrix of the suite with up to parallel
// compilers at once (0 means one per CPU). Sources of a built-in suite are
// written under workDir/src, objects go to workDir/obj (the same place
// Corpus puts them, so the two share their TSVC objects).
func (s *Suite) Build(ctx context.Context, workDir string, parallel int) ([]Object, error) {
	if err := s.Prepare(filepath.Join(workDir, "src")); err != nil {
		return nil, err
	}
	return CompileAll(ctx, s.Jobs(), filepath.Join(workDir, "obj"), parallel)
}

// CheckedFunctions returns the functions of o that the suite checks: the
// listed functions o defines, or all its global functions (and its static
// ones, with StaticFunctions) when the suite lists none.
func (s *Suite) CheckedFunctions(o Object) []string {
	defined := o.Functions
	if s.StaticFunctions {
		defined = append(slices.Clone(o.Functions), o.Statics...)
		sort.Strings(defined)
	}
	if len(s.Functions) == 0 {
		return defined
	}
	var out []string
	for _, f := range defined {
		if slices.Contains(s.Functions, f) {
			out = append(out, f)
		}
	}
	return out
}

// MissingFunctions returns the listed functions that none of objs
// defines: a manifest naming a function its sources do not have (or a
// compiler that renamed or dropped one).
func (s *Suite) MissingFunctions(objs []Object) []string {
	defined := map[string]bool{}
	for _, o := range objs {
		for _, f := range o.Functions {
			defined[f] = true
		}
	}
	var missing []string
	for _, f := range s.Functions {
		if !defined[f] {
			missing = append(missing, f)
		}
	}
	return missing
}

// CompileAll runs Compile for every job into outDir, at most parallel at a
// time (0 means one per CPU), and returns the objects in job order. The
// first failure cancels the rest and is returned.
func CompileAll(ctx context.Context, jobs []Job, outDir string, parallel int) ([]Object, error) {
	if parallel <= 0 {
		parallel = runtime.NumCPU()
	}
	compilers := map[string]*Compiler{}
	for _, j := range jobs {
		if _, ok := compilers[j.Compiler]; ok {
			continue
		}
		cc, err := LookupCompiler(ctx, j.Compiler)
		if err != nil {
			return nil, err
		}
		compilers[j.Compiler] = cc
	}

	objects := make([]Object, len(jobs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for i, j := range jobs {
		g.Go(func() error {
			obj, err := Compile(gctx, compilers[j.Compiler], j.Opt, j.Variant, j.Source, outDir, j.Extra...)
			if err != nil {
				return err
			}
			obj.Suite = j.Suite
			objects[i] = obj
			return nil
		})
	}
	// errgroup keeps the first error, which is the failure that cancelled
	// the others.
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return objects, nil
}
