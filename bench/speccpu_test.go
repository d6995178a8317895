package bench

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// specTree is a stand-in for an installed SPEC CPU tree (testdata/speccpu/README.md).
const specTree = "testdata/speccpu"

func TestParseSpecObject(t *testing.T) {
	for _, tc := range []struct {
		name, text   string
		lang         string
		sources      []string
		flags        []string
		wantNoSource bool
	}{
		{"plain", "$benchlang = 'C';\n@sources=qw(a.c b.c);\n", "C", []string{"a.c", "b.c"}, nil, false},
		{"lines and blanks", "$benchlang='C';\n@sources = qw( a.c\n   sub/b.c\n );\n$bench_flags = '-DX -I.';\n", "C", []string{"a.c", "sub/b.c"}, []string{"-DX", "-I."}, false},
		{"conditional flags left out", "@sources=qw(a.c);\n$bench_flags = '-DX';\nif ($^O =~ /MSWin32/) {\n  $bench_flags .= ' -DWIN';\n}\n", "", []string{"a.c"}, []string{"-DX"}, false},
		{"appended and cflags", "@sources=qw(a.c);\n$bench_flags = '-DX';\n$bench_flags .= \" -DY\";\n$bench_cflags = '-DZ';\n", "", []string{"a.c"}, []string{"-DX", "-DY", "-DZ"}, false},
		{"reassigned", "@sources=qw(a.c);\n$bench_flags = '-DX';\n$bench_flags = '-DY';\n", "", []string{"a.c"}, []string{"-DY"}, false},
		{"c++", "$benchlang = 'CXX';\n@sources=qw(a.cc);\n", "CXX", []string{"a.cc"}, nil, false},
		{"several executables", "$benchlang = 'C';\n%sources=('x' => [qw(a.c)]);\n", "C", nil, nil, true},
	} {
		o := ParseSpecObject(tc.text)
		if o.Lang != tc.lang || !slices.Equal(o.Sources, tc.sources) || !slices.Equal(o.Flags, tc.flags) {
			t.Errorf("%s: got %+v, want lang %q sources %q flags %q", tc.name, o, tc.lang, tc.sources, tc.flags)
		}
	}
}

// TestSpecCPUSuites reads the stand-in tree: the integer C benchmarks of
// CPU2000 and CPU2006 become suites (C++ and floating point left out, a
// benchmark without sources reported), their flags absolute, and each
// builds with gcc-12 (the sources #error without the flags they need).
func TestSpecCPUSuites(t *testing.T) {
	if !IsSpecCPUTree(specTree) || IsSpecCPUTree("testdata") {
		t.Fatal("IsSpecCPUTree")
	}
	var warn bytes.Buffer
	suites, err := OpenAll(specTree, OpenOptions{Warn: &warn, SpecCFlags: []string{"-DUSER_FLAG"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range suites {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"164.gzip", "401.bzip2"}) {
		t.Fatalf("suites %v, want [164.gzip 401.bzip2]", names)
	}
	if !strings.Contains(warn.String(), "429.mcf") || !strings.Contains(warn.String(), "no sources directory") || strings.Count(warn.String(), "\n") != 1 {
		t.Errorf("warnings %q, want one line for 429.mcf", warn.String())
	}
	bz := suites[1]
	if !slices.Equal(bz.Sources, []string{"spec.c", filepath.Join("lib", "mix.c")}) || !bz.StaticFunctions {
		t.Errorf("401.bzip2: %+v", bz)
	}
	abs, _ := filepath.Abs(filepath.Join(specTree, "benchspec/CPU2006/401.bzip2/src"))
	for _, want := range []string{"-DSPEC_CPU", "-DSPEC_CPU_LP64", "-DTOY_SHIFT=3", "-I" + filepath.Join(abs, "include"), "-DUSER_FLAG"} {
		if !slices.Contains(bz.CFlags, want) {
			t.Errorf("401.bzip2 cflags %q lack %q", bz.CFlags, want)
		}
	}
	if slices.Contains(suites[0].CFlags, "-DSPEC_CPU") || !slices.Contains(suites[0].CFlags, "-DSPEC_CPU2000") {
		t.Errorf("164.gzip cflags %q", suites[0].CFlags)
	}
	for _, s := range suites {
		s.Matrix = Matrix{Compilers: []string{"gcc-12"}, Opts: []Opt{{Level: "O0"}}}
		objs, err := s.Build(context.Background(), t.TempDir(), 0)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		var funcs []string
		for _, o := range objs {
			funcs = append(funcs, s.CheckedFunctions(o)...)
		}
		slices.Sort(funcs)
		want := map[string][]string{"164.gzip": {"low_bits"}, "401.bzip2": {"rotate", "spec_hash", "toy_mix"}}[s.Name]
		if !slices.Equal(funcs, want) {
			t.Errorf("%s: functions %v, want %v", s.Name, funcs, want)
		}
	}

	// One benchmark's directory is that benchmark, integer or not; a C++
	// one is refused with the reason.
	one, err := OpenAll(filepath.Join(specTree, "benchspec/CPU2006/433.milc"), OpenOptions{})
	if err != nil || len(one) != 1 || one[0].Name != "433.milc" {
		t.Errorf("433.milc: %v, %v", one, err)
	}
	var se *SpecCPUError
	if _, err := OpenAll(filepath.Join(specTree, "benchspec/CPU2006/471.omnetpp"), OpenOptions{}); !errors.As(err, &se) || !strings.Contains(err.Error(), "not a C benchmark") {
		t.Errorf("471.omnetpp: %v", err)
	}
	// A tree without integer C benchmarks is an error, not an empty sweep.
	empty := t.TempDir()
	if _, _, err := SpecCPUSuites(filepath.Join(specTree, "benchspec/.."), nil); err != nil {
		t.Errorf("tree through ..: %v", err)
	}
	if _, _, err := SpecCPUSuites(empty, nil); !errors.As(err, &se) {
		t.Errorf("empty tree: %v", err)
	}
}
