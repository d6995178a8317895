package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// SPEC CPU for its owners. SPEC CPU is licensed, so eqc ships no copy and
// no recipe for it: it reads a user's installed tree, where each benchmark
// describes its own build in benchspec/SUITE/NNN.name/Spec/object.pm (the
// harness's metadata: the language, the C files, the benchmark's flags).
// eqc builds the integer benchmarks written in C, from their src/
// directories, with the flags the SPEC tools would add on 64-bit Linux.

// SpecCPUError reports a SPEC CPU tree, or a benchmark in it, that eqc
// cannot build: no benchspec directory, an object.pm without sources, a
// missing src directory.
type SpecCPUError struct {
	Path string
	Msg  string
}

func (e *SpecCPUError) Error() string { return fmt.Sprintf("bench: SPEC CPU %s: %s", e.Path, e.Msg) }

// specIntNumbers are the integer benchmarks of SPEC CPU2006 and CPU2017
// by number (their benchspec directory holds the floating-point ones too;
// CPU2000 keeps them apart in CINT2000). The C++ and Fortran ones among
// them are left out by their object.pm's language.
var specIntNumbers = map[int]bool{
	// CPU2006 CINT2006.
	400: true, 401: true, 403: true, 429: true, 445: true, 456: true, 458: true, 462: true, 464: true, 471: true, 473: true, 483: true,
	// CPU2017 SPECrate and SPECspeed integer.
	500: true, 502: true, 505: true, 520: true, 523: true, 525: true, 531: true, 541: true, 548: true, 557: true,
	600: true, 602: true, 605: true, 620: true, 623: true, 625: true, 631: true, 641: true, 648: true, 657: true,
}

// specGeneration names the SPEC release a benchspec subdirectory belongs
// to and the flags its tools give every C file built for 64-bit Linux
// (the harness's own define and the LP64 portability flag of SPEC's
// example configurations). int reports whether a benchmark of that
// directory is an integer one.
type specGeneration struct {
	dir   string
	flags []string
	int   func(number int) bool
}

var specGenerations = []specGeneration{
	{"CINT2000", []string{"-DSPEC_CPU2000", "-DSPEC_CPU2000_LP64"}, func(int) bool { return true }},
	{"CPU2006", []string{"-DSPEC_CPU", "-DNDEBUG", "-DSPEC_CPU_LP64"}, func(n int) bool { return specIntNumbers[n] }},
	{"CPU", []string{"-DSPEC", "-DNDEBUG", "-DSPEC_LP64"}, func(n int) bool { return specIntNumbers[n] }},
}

// specPortability holds per-benchmark portability flags for x86-64 Linux,
// where a benchmark needs more than its generation's, as SPEC's example
// configurations give them to the best of our knowledge: no copy of SPEC
// was at hand to check them, and a user adds what is missing with
// --spec-cflags (make spec SPEC_CFLAGS=...).
var specPortability = map[string][]string{
	"400.perlbench":   {"-DSPEC_CPU_LINUX_X64"},
	"462.libquantum":  {"-DSPEC_CPU_LINUX"},
	"500.perlbench_r": {"-DSPEC_LINUX_X64"},
	"600.perlbench_s": {"-DSPEC_LINUX_X64"},
	"186.crafty":      {"-DLINUX"},
	"253.perlbmk":     {"-DSPEC_CPU2000_LINUX_I386", "-DSPEC_CPU2000_NEED_BOOL", "-DSPEC_CPU2000_GLIBC22"},
	"254.gap":         {"-DSYS_IS_USG", "-DSYS_HAS_IOCTL_PROTO", "-DSYS_HAS_TIME_PROTO", "-DSYS_HAS_CALLOC_PROTO", "-DSYS_HAS_MALLOC_PROTO", "-DSYS_HAS_SIGNAL_PROTO"},
}

// IsSpecCPUTree reports whether dir is the top of an installed SPEC CPU
// tree (it has benchspec/ and no suite manifest of eqc's).
func IsSpecCPUTree(dir string) bool {
	if info, err := os.Stat(filepath.Join(dir, "benchspec")); err != nil || !info.IsDir() {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, ManifestName))
	return err != nil
}

// isSpecCPUBenchmark reports whether dir is one benchmark of a SPEC CPU
// tree (it has Spec/object.pm).
func isSpecCPUBenchmark(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "Spec", "object.pm"))
	return err == nil
}

// SpecCPUSuites returns one suite per integer C benchmark of the SPEC CPU
// tree at dir (CPU2000, CPU2006 or CPU2017, whichever it holds), in name
// order. extra flags (a user's own portability flags) are added to every
// build. A benchmark that cannot be read is reported in skipped, with its
// reason, and the others are returned; a tree with no integer C benchmark
// is an error.
func SpecCPUSuites(dir string, extra []string) (suites []*Suite, skipped []error, err error) {
	top, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, g := range specGenerations {
		benches, _ := filepath.Glob(filepath.Join(top, "benchspec", g.dir, "[0-9]*.*"))
		sort.Strings(benches)
		for _, b := range benches {
			if !isSpecCPUBenchmark(b) {
				continue
			}
			number, _, _ := strings.Cut(filepath.Base(b), ".")
			n, err := strconv.Atoi(number)
			if err != nil || !g.int(n) {
				continue
			}
			s, err := specCPUSuite(b, g, extra)
			switch {
			case err == errNotC:
			case err != nil:
				skipped = append(skipped, err)
			default:
				suites = append(suites, s)
			}
		}
	}
	if len(suites) == 0 {
		return nil, skipped, &SpecCPUError{Path: dir, Msg: "no integer C benchmark under benchspec/{CINT2000,CPU2006,CPU}/NNN.name/Spec/object.pm"}
	}
	return suites, skipped, nil
}

// OpenSpecCPUBenchmark returns the suite of one benchmark directory of a
// SPEC CPU tree (benchspec/CPU2006/401.bzip2, say), integer or not.
func OpenSpecCPUBenchmark(dir string, extra []string) (*Suite, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// CFP2000 and unknown layouts get no generation flags.
	g := specGeneration{dir: filepath.Base(filepath.Dir(abs))}
	for _, known := range specGenerations {
		if known.dir == g.dir {
			g = known
		}
	}
	s, err := specCPUSuite(abs, g, extra)
	if err == errNotC {
		return nil, &SpecCPUError{Path: dir, Msg: "not a C benchmark ($benchlang in Spec/object.pm)"}
	}
	return s, err
}

var errNotC = fmt.Errorf("not a C benchmark")

// specCPUSuite builds the suite of the benchmark at dir from its object.pm.
func specCPUSuite(dir string, g specGeneration, extra []string) (*Suite, error) {
	name := filepath.Base(dir)
	pm := filepath.Join(dir, "Spec", "object.pm")
	data, err := os.ReadFile(pm)
	if err != nil {
		return nil, &SpecCPUError{Path: pm, Msg: err.Error()}
	}
	obj := ParseSpecObject(string(data))
	if obj.Lang != "" && obj.Lang != "C" {
		return nil, errNotC
	}
	if len(obj.Sources) == 0 {
		return nil, &SpecCPUError{Path: pm, Msg: "no @sources=qw(...) list (a benchmark with several executables is not supported)"}
	}
	src := filepath.Join(dir, "src")
	if info, err := os.Stat(src); err != nil || !info.IsDir() {
		return nil, &SpecCPUError{Path: src, Msg: "no sources directory"}
	}
	s := &Suite{Name: name, Dir: src, Matrix: DefaultMatrix(), Variants: []Variant{DefaultVariant}, StaticFunctions: true, Program: true}
	for _, f := range obj.Sources {
		if !strings.HasSuffix(f, ".c") {
			continue // assembly or C++ helpers of a C benchmark
		}
		clean := filepath.Clean(f)
		if filepath.IsAbs(clean) || strings.HasPrefix(clean, "..") {
			return nil, &SpecCPUError{Path: pm, Msg: fmt.Sprintf("source %q lies outside src/", f)}
		}
		if _, err := os.Stat(filepath.Join(src, clean)); err != nil {
			return nil, &SpecCPUError{Path: pm, Msg: fmt.Sprintf("source %s: %v", f, err)}
		}
		if !slices.Contains(s.Sources, clean) {
			s.Sources = append(s.Sources, clean)
		}
	}
	if len(s.Sources) == 0 {
		return nil, &SpecCPUError{Path: pm, Msg: "no C file in @sources"}
	}
	// The SPEC tools compile in src/ itself; eqc compiles in each file's
	// own directory, so relative include directories are made absolute.
	var flags []string
	flags = append(flags, g.flags...)
	flags = append(flags, specPortability[name]...)
	flags = append(flags, obj.Flags...)
	flags = append(flags, extra...)
	for i, f := range flags {
		if p, ok := strings.CutPrefix(f, "-I"); ok && p != "" && !filepath.IsAbs(p) {
			flags[i] = "-I" + filepath.Join(src, p)
		}
	}
	s.CFlags = append(flags, "-I"+src, "-w")
	return s, nil
}

// SpecObject is what eqc reads of a benchmark's Spec/object.pm.
type SpecObject struct {
	Lang    string   // $benchlang ("C", "CXX", "F", ...)
	Sources []string // @sources=qw(...), relative to src/
	Flags   []string // $bench_flags and $bench_cflags
}

var (
	specLangRE    = regexp.MustCompile(`(?m)^\$benchlang\s*=\s*'([^']*)'`)
	specSourcesRE = regexp.MustCompile(`(?ms)^@sources\s*=\s*qw\s*\((.*?)\)`)
	specFlagsRE   = regexp.MustCompile(`(?m)^\$(bench_c?flags)\s*(\.?=)\s*(?:'([^']*)'|"([^"]*)")`)
)

// ParseSpecObject reads the three assignments eqc needs from an
// object.pm. object.pm is Perl; eqc reads only statements that start a
// line (unindented), which are the unconditional ones in SPEC's files
// (perlbench adds Windows flags inside an indented if).
func ParseSpecObject(text string) SpecObject {
	var o SpecObject
	if m := specLangRE.FindStringSubmatch(text); m != nil {
		o.Lang = strings.TrimSpace(m[1])
	}
	if m := specSourcesRE.FindStringSubmatch(text); m != nil {
		o.Sources = strings.Fields(m[1])
	}
	vars := map[string][]string{}
	for _, m := range specFlagsRE.FindAllStringSubmatch(text, -1) {
		name := m[1]
		if m[2] == "=" {
			vars[name] = nil // a plain assignment replaces what came before
		}
		vars[name] = append(vars[name], strings.Fields(m[3]+m[4])...)
	}
	o.Flags = append(vars["bench_flags"], vars["bench_cflags"]...)
	return o
}
