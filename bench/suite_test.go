package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBuiltinTSVC(t *testing.T) {
	s, err := Builtin("tsvc")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sorted(s.Functions), sorted(tsvcKernels); !slices.Equal(got, want) {
		t.Errorf("functions = %v, want %v", got, want)
	}
	var benchmarks []string
	for _, src := range s.Sources {
		benchmarks = append(benchmarks, strings.TrimSuffix(src, ".c"))
	}
	if got, want := sorted(benchmarks), sorted(tsvcKernels); !slices.Equal(got, want) {
		t.Errorf("sources = %v, want one per kernel", s.Sources)
	}
	if !slices.Equal(s.Support, []string{"globals.c"}) {
		t.Errorf("support = %v, want [globals.c]", s.Support)
	}
	wantVariants := []Variant{{Name: "fixed"}, {Name: "param", Flags: []string{"-DTSVC_PARAM"}}}
	if !slices.EqualFunc(s.Variants, wantVariants, variantEqual) {
		t.Errorf("variants = %v, want %v", s.Variants, wantVariants)
	}
	if !slices.EqualFunc(s.Matrix.Opts, DefaultMatrix().Opts, optEqual) ||
		!slices.Equal(s.Matrix.Compilers, DefaultMatrix().Compilers) {
		t.Errorf("matrix = %+v, want the default %+v", s.Matrix, DefaultMatrix())
	}
	if s.Dir != "" {
		t.Errorf("a built-in suite has Dir %q before Prepare", s.Dir)
	}
}

// TestBuiltinKernels builds the kernels suite with both compilers at -O0
// and checks that each object defines a global function for every
// non-static function definition of its source: the suite checks them
// all.
func TestBuiltinKernels(t *testing.T) {
	s, err := Builtin("kernels")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Functions) != 0 || len(s.Sources) < 4 {
		t.Fatalf("kernels: functions %v, sources %v: want every function of several sources", s.Functions, s.Sources)
	}
	s.Matrix.Opts = []Opt{{Level: "O0"}}
	if err := s.Prepare(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	objs, err := CompileAll(context.Background(), s.Jobs(), t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, o := range objs {
		fns, err := GlobalFunctions(o.Path)
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(o.Source)
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range fns {
			if !strings.Contains(string(src), " "+fn+"(") {
				t.Errorf("%s: %s is not defined in its source", o.Path, fn)
			}
		}
		total += len(fns)
	}
	if want := 2 * 56; total != want {
		t.Errorf("%d functions over both compilers, want %d", total, want)
	}
}

func TestPrepareIsStable(t *testing.T) {
	dir := t.TempDir()
	first, _ := Builtin("tsvc")
	second, _ := Builtin("tsvc")
	if err := first.Prepare(dir); err != nil {
		t.Fatal(err)
	}
	if err := second.Prepare(dir); err != nil {
		t.Fatal(err)
	}
	if first.Dir != second.Dir {
		t.Errorf("two Prepares gave %s and %s", first.Dir, second.Dir)
	}
	for _, f := range append(append([]string{"tsvc.h", ManifestName}, first.Sources...), first.Support...) {
		if _, err := os.Stat(filepath.Join(first.Dir, f)); err != nil {
			t.Errorf("prepared suite lacks %s: %v", f, err)
		}
	}
}

func TestUnknownSuite(t *testing.T) {
	for _, open := range []func(string) (*Suite, error){Builtin, Open} {
		_, err := open("no-such-suite")
		var unknown *UnknownSuiteError
		if !errors.As(err, &unknown) {
			t.Fatalf("err = %v, want *UnknownSuiteError", err)
		}
		if unknown.Name != "no-such-suite" || !strings.Contains(err.Error(), "tsvc") {
			t.Errorf("message %q should name the suite and the built-in ones", err)
		}
	}
	if _, err := Open("./no/such/dir"); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open of a missing directory: err = %v, want not-exist", err)
	}
}

func TestLoadWithoutManifest(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "one.c", "static int helper(int x) { return x + 1; }\nint first(int x) { return helper(x) * 2; }\nint second(void) { return 7; }\n")
	write(t, dir, "two.c", "unsigned third(unsigned x) { return x ^ (x >> 3); }\n")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != filepath.Base(dir) || !slices.Equal(s.Sources, []string{"one.c", "two.c"}) || len(s.Functions) != 0 {
		t.Fatalf("suite = %+v", s)
	}
	if !slices.EqualFunc(s.Variants, []Variant{DefaultVariant}, variantEqual) {
		t.Errorf("variants = %v, want only the default", s.Variants)
	}
	s.Matrix = Matrix{Compilers: []string{"gcc-12", "clang-16"}, Opts: []Opt{{Level: "O2"}}}
	objs, err := s.Build(context.Background(), testWorkDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 4 {
		t.Fatalf("%d objects, want 4", len(objs))
	}
	want := map[string][]string{"one": {"first", "second"}, "two": {"third"}}
	for _, o := range objs {
		if got := s.CheckedFunctions(o); !slices.Equal(got, want[o.Benchmark]) {
			t.Errorf("%s: checked functions %v, want %v (statics excluded)", o.Path, got, want[o.Benchmark])
		}
		if o.Suite != s.Name || o.Variant != "default" {
			t.Errorf("%s: suite %q variant %q", o.Path, o.Suite, o.Variant)
		}
	}
}

func TestManifest(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "k1.c", "int k1(void) { return KVAL; }\nint helper1(void) { return 0; }\n")
	write(t, dir, "k2.c", "int k2(void) { return KVAL + 1; }\n")
	write(t, dir, "main.c", "int main(void) { return 0; }\n")
	write(t, dir, ManifestName, `# a small suite
name mine
sources k*.c   # globbed
support main.c
functions k1 k2 k3
variant small -DKVAL=1
variant big -DKVAL=1000
cflags -w
compilers gcc-12
target avx2 -mavx2
opts O0 O3+avx2 O2+sse4.2
`)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "mine" || !slices.Equal(s.Sources, []string{"k1.c", "k2.c"}) ||
		!slices.Equal(s.Support, []string{"main.c"}) || !slices.Equal(s.Functions, []string{"k1", "k2", "k3"}) ||
		!slices.Equal(s.CFlags, []string{"-w"}) || !slices.Equal(s.Matrix.Compilers, []string{"gcc-12"}) {
		t.Fatalf("suite = %+v", s)
	}
	wantOpts := []Opt{{Level: "O0"}, {Level: "O3", Target: Target{Name: "avx2", Flags: []string{"-mavx2"}}}, {Level: "O2", Target: TargetSSE42}}
	if !slices.EqualFunc(s.Matrix.Opts, wantOpts, optEqual) {
		t.Errorf("opts = %v, want %v", s.Matrix.Opts, wantOpts)
	}
	objs, err := s.Build(context.Background(), testWorkDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2*2*3 {
		t.Fatalf("%d objects, want 12", len(objs))
	}
	if missing := s.MissingFunctions(objs); !slices.Equal(missing, []string{"k3"}) {
		t.Errorf("missing functions %v, want [k3]", missing)
	}
	for _, o := range objs {
		if got := s.CheckedFunctions(o); !slices.Equal(got, []string{o.Benchmark}) {
			t.Errorf("%s: checked %v, want [%s] (helper1 is not listed)", o.Path, got, o.Benchmark)
		}
		if !strings.Contains(o.CFlags, "-DKVAL=") || !strings.HasSuffix(o.CFlags, "-w -c") {
			t.Errorf("%s: cflags %q lack the variant or suite flags", o.Path, o.CFlags)
		}
	}
}

func TestManifestErrors(t *testing.T) {
	cases := []struct {
		manifest string
		line     int
		want     string
	}{
		{"name a\nbogus x\n", 2, "unknown key"},
		{"sources nothere.c\n", 1, "no file matches"},
		{"sources ../k.c\n", 1, "in the suite directory"},
		{"variant v -DA\nvariant v -DB\n", 2, "declared twice"},
		{"opts O0 O7\n", 1, "unknown optimization level"},
		{"opts O3+avx512\n", 1, "unknown target"},
		{"compilers tcc\n", 1, "unknown compiler"},
		{"target avx2\n", 1, "needs a name and at least one flag"},
		{"functions\n", 1, "needs at least one value"},
		{"sources k.c\nsupport k.c\n", 0, "both a source and a support file"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		write(t, dir, "k.c", "int k(void) { return 0; }\n")
		write(t, dir, ManifestName, c.manifest)
		_, err := Load(dir)
		var me *ManifestError
		if !errors.As(err, &me) {
			t.Errorf("%q: err = %v, want *ManifestError", c.manifest, err)
			continue
		}
		if me.Line != c.line || !strings.Contains(me.Msg, c.want) {
			t.Errorf("%q: got line %d %q, want line %d containing %q", c.manifest, me.Line, me.Msg, c.line, c.want)
		}
	}

	empty := t.TempDir()
	var me *ManifestError
	if _, err := Load(empty); !errors.As(err, &me) || !strings.Contains(me.Msg, "no C sources") {
		t.Errorf("directory without C files: err = %v", err)
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func variantEqual(a, b Variant) bool {
	return a.Name == b.Name && slices.Equal(a.Flags, b.Flags)
}

func optEqual(a, b Opt) bool {
	return a.Level == b.Level && a.Target.Name == b.Target.Name && slices.Equal(a.Target.Flags, b.Target.Flags)
}
