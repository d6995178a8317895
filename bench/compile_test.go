package bench

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTSVCMatrix compiles every kernel in both variants with both
// compilers at O0..O3 and checks that each object defines exactly its
// kernel, built with the documented flags.
func TestTSVCMatrix(t *testing.T) {
	s, objs := builtTSVC(t)
	checkTSVCObjects(t, s, objs, LevelMatrix())
}

// TestTSVCTarget compiles every kernel with the extra target flag set.
func TestTSVCTarget(t *testing.T) {
	s, err := Builtin("tsvc")
	if err != nil {
		t.Fatal(err)
	}
	s.Matrix.Opts = []Opt{{Level: "O3", Target: TargetSSE42}}
	objs, err := s.Build(context.Background(), testWorkDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkTSVCObjects(t, s, objs, s.Matrix)
}

func checkTSVCObjects(t *testing.T, s *Suite, objs []Object, m Matrix) {
	t.Helper()
	if want := len(tsvcKernels) * len(s.Variants) * len(m.Compilers) * len(m.Opts); len(objs) != want {
		t.Fatalf("%d objects, want %d", len(objs), want)
	}
	seen := map[string]bool{}
	for _, o := range objs {
		id := fmt.Sprintf("%s/%s/%s/%s", o.Benchmark, o.Variant, o.Compiler, o.Opt)
		seen[id] = true
		if !slices.Equal(o.Functions, []string{o.Benchmark}) {
			t.Errorf("%s: global functions %v, want exactly [%s]", id, o.Functions, o.Benchmark)
		}
		if got := s.CheckedFunctions(o); !slices.Equal(got, []string{o.Benchmark}) {
			t.Errorf("%s: checked functions %v", id, got)
		}
		if !hasFuncSymbol(t, o.Path, o.Benchmark) {
			t.Errorf("%s: no function symbol %s in %s", id, o.Benchmark, o.Path)
		}
		flags := strings.Fields(o.CFlags)
		check := func(flag string, want bool) {
			if slices.Contains(flags, flag) != want {
				t.Errorf("%s: cflags %q: has %s = %v, want %v", id, o.CFlags, flag, !want, want)
			}
		}
		check("-"+o.Opt.Level, true)
		check("-fno-inline", true)
		check("-flive-patching=inline-only-static", o.Compiler == "gcc-12")
		check("-U__OPTIMIZE__", o.Opt.Level == "O2" || o.Opt.Level == "O3")
		check("-msse4.2", o.Opt.Target.Name == "sse4.2")
		check("-DTSVC_PARAM", o.Variant == "param")
		if o.Suite != "tsvc" || o.CompilerVersion == "" || len(o.Command) == 0 {
			t.Errorf("%s: incomplete object %+v", id, o)
		}
	}
	if missing := s.MissingFunctions(objs); len(missing) > 0 {
		t.Errorf("kernels defined by no object: %v", missing)
	}
	if len(seen) != len(objs) {
		t.Errorf("%d distinct builds among %d objects", len(seen), len(objs))
	}
}

// hasFuncSymbol reads the symbol table independently of GlobalFunctions.
func hasFuncSymbol(t *testing.T, path, name string) bool {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Type != elf.ET_REL || f.Machine != elf.EM_X86_64 {
		t.Errorf("%s: type %v machine %v, want a relocatable x86-64 object", path, f.Type, f.Machine)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name && elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Section != elf.SHN_UNDEF && s.Size > 0 {
			return true
		}
	}
	return false
}

func TestFlags(t *testing.T) {
	ctx := context.Background()
	gcc, err := LookupCompiler(ctx, "gcc-12")
	if err != nil {
		t.Fatal(err)
	}
	clang, err := LookupCompiler(ctx, "clang-16")
	if err != nil {
		t.Fatal(err)
	}
	param := Variant{Name: "param", Flags: []string{"-DTSVC_PARAM"}}
	cases := []struct {
		cc      *Compiler
		opt     Opt
		variant Variant
		want    string
	}{
		{gcc, Opt{Level: "O0"}, Variant{Name: "fixed"},
			"-O0 -g -fno-inline -fno-optimize-sibling-calls -fno-stack-protector -fcf-protection=none -fno-pie " +
				"-flive-patching=inline-only-static -fno-reorder-blocks-and-partition -fkeep-static-functions -fno-ipa-reference -c"},
		{gcc, Opt{Level: "O3", Target: TargetSSE42}, param,
			"-O3 -g -fno-inline -fno-optimize-sibling-calls -fno-stack-protector -fcf-protection=none -fno-pie " +
				"-flive-patching=inline-only-static -fno-reorder-blocks-and-partition -fkeep-static-functions -fno-ipa-reference " +
				"-U__OPTIMIZE__ -msse4.2 -DTSVC_PARAM -c"},
		{clang, Opt{Level: "O1"}, param,
			"-O1 -g -fno-inline -fno-optimize-sibling-calls -fno-stack-protector -fcf-protection=none -fno-pie -DTSVC_PARAM -c"},
		{clang, Opt{Level: "O2"}, Variant{Name: "fixed"},
			"-O2 -g -fno-inline -fno-optimize-sibling-calls -fno-stack-protector -fcf-protection=none -fno-pie -U__OPTIMIZE__ -c"},
		{clang, Opt{Level: "O0", Target: TargetUBSan}, Variant{Name: "fixed"},
			"-O0 -g -fno-inline -fno-optimize-sibling-calls -fno-stack-protector -fcf-protection=none -fno-pie " +
				"-fsanitize=signed-integer-overflow,shift,integer-divide-by-zero -fsanitize-undefined-trap-on-error -c"},
		{clang, Opt{Level: "O2", Target: TargetWrapv}, Variant{Name: "fixed"},
			"-O2 -g -fno-inline -fno-optimize-sibling-calls -fno-stack-protector -fcf-protection=none -fno-pie -U__OPTIMIZE__ -fwrapv -c"},
		{gcc, Opt{Level: "O3", Target: TargetNoStrictAliasing}, Variant{Name: "fixed"},
			"-O3 -g -fno-inline -fno-optimize-sibling-calls -fno-stack-protector -fcf-protection=none -fno-pie " +
				"-flive-patching=inline-only-static -fno-reorder-blocks-and-partition -fkeep-static-functions -fno-ipa-reference " +
				"-U__OPTIMIZE__ -fno-strict-aliasing -c"},
	}
	for _, c := range cases {
		if got := strings.Join(Flags(c.cc, c.opt, c.variant, nil), " "); got != c.want {
			t.Errorf("%s %s %s:\n got  %s\n want %s", c.cc.Name, c.opt, c.variant.Name, got, c.want)
		}
	}
}

func TestCompileCache(t *testing.T) {
	ctx := context.Background()
	gcc, err := LookupCompiler(ctx, "gcc-12")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, dir, "k.h", "#define K 3\n")
	write(t, dir, "k.c", "#include \"k.h\"\nint k(int x) { return x * K; }\n")
	out := filepath.Join(dir, "obj")
	first, err := Compile(ctx, gcc, Opt{Level: "O2"}, DefaultVariant, filepath.Join(dir, "k.c"), out)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Compile(ctx, gcc, Opt{Level: "O2"}, DefaultVariant, filepath.Join(dir, "k.c"), out)
	if err != nil {
		t.Fatal(err)
	}
	if first.Cached || !again.Cached || again.Path != first.Path {
		t.Errorf("first cached=%v, second cached=%v, paths %s %s: want a miss then a hit on the same file",
			first.Cached, again.Cached, first.Path, again.Path)
	}
	write(t, dir, "k.h", "#define K 5\n")
	edited, err := Compile(ctx, gcc, Opt{Level: "O2"}, DefaultVariant, filepath.Join(dir, "k.c"), out)
	if err != nil {
		t.Fatal(err)
	}
	if edited.Cached || edited.Path == first.Path {
		t.Errorf("editing the header did not invalidate the cache (%s)", edited.Path)
	}
	other, err := Compile(ctx, gcc, Opt{Level: "O1"}, DefaultVariant, filepath.Join(dir, "k.c"), out)
	if err != nil {
		t.Fatal(err)
	}
	if other.Cached || other.Path == edited.Path {
		t.Errorf("other flags share a cache entry (%s)", other.Path)
	}
}

func TestCompileSyntaxError(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "bad.c", "int ok(void) { return 0; }\nint broken(void) { return 1 +; }\n")
	for _, name := range []string{"gcc-12", "clang-16"} {
		cc, err := LookupCompiler(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Compile(ctx, cc, Opt{Level: "O0"}, DefaultVariant, filepath.Join(dir, "bad.c"), t.TempDir())
		var ce *CompileError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: err = %v, want *CompileError", name, err)
		}
		if !strings.Contains(ce.FirstError, "bad.c:2") || !strings.Contains(ce.FirstError, "error:") {
			t.Errorf("%s: first error line %q should point at bad.c:2", name, ce.FirstError)
		}
		if ce.Compiler != name || !strings.Contains(err.Error(), "bad.c") {
			t.Errorf("%s: error %q", name, err)
		}
	}
}

func TestMissingCompiler(t *testing.T) {
	ctx := context.Background()
	_, err := LookupCompiler(ctx, "gcc-12", "gcc-12-does-not-exist")
	var missing *MissingToolError
	if !errors.As(err, &missing) || missing.Tool != "gcc-12" || !strings.Contains(err.Error(), "gcc-12-does-not-exist") {
		t.Errorf("err = %v, want *MissingToolError naming gcc-12 and the binary tried", err)
	}
	// A compiler of the wrong version must not stand in for the one asked for.
	_, err = LookupCompiler(ctx, "gcc-99")
	if !errors.As(err, &missing) || missing.Tool != "gcc-99" {
		t.Errorf("gcc-99: err = %v, want *MissingToolError", err)
	}
	// The wrong family neither.
	_, err = LookupCompiler(ctx, "clang-16", "gcc-12")
	if !errors.As(err, &missing) || !strings.Contains(err.Error(), "not clang") {
		t.Errorf("clang-16 as gcc-12: err = %v, want *MissingToolError", err)
	}
	if _, err := LookupCompiler(ctx, "tcc"); err == nil || errors.As(err, &missing) {
		t.Errorf("tcc: err = %v, want an unknown-compiler error", err)
	}
	// A build whose matrix names a missing compiler fails before compiling.
	s, err := Builtin("corpus")
	if err != nil {
		t.Fatal(err)
	}
	s.Matrix.Compilers = []string{"clang-99"}
	if _, err := s.Build(ctx, t.TempDir(), 0); !errors.As(err, &missing) || missing.Tool != "clang-99" {
		t.Errorf("build with clang-99: err = %v, want *MissingToolError", err)
	}
}
