package bench

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
)

// Family is the kind of compiler, which decides the family-specific flags.
type Family string

const (
	GCC   Family = "gcc"
	Clang Family = "clang"
)

// Compiler is a resolved C compiler binary.
type Compiler struct {
	Name    string // the name the matrix uses: "gcc-12", "clang-16"
	Family  Family
	Path    string // the binary that runs
	Version string // first line of `--version`; part of every cache key
}

// MissingToolError reports that no binary for a required tool was found.
type MissingToolError struct {
	Tool  string   // "gcc-12", "clang-16", "csmith"
	Tried []string // the binaries tried, each with why it was rejected
}

func (e *MissingToolError) Error() string {
	return fmt.Sprintf("bench: %s not found (tried %s)", e.Tool, strings.Join(e.Tried, "; "))
}

// knownCompilers maps the matrix's compiler names to their family, the
// binaries to try in order and the major version a generic binary must
// report to stand in for the versioned one.
var knownCompilers = map[string]struct {
	family   Family
	binaries []string
	major    string
}{
	"gcc-12":   {GCC, []string{"gcc-12", "gcc"}, "12"},
	"clang-16": {Clang, []string{"clang-16", "clang"}, "16"},
}

var (
	lookupMu    sync.Mutex
	lookupCache = map[string]*Compiler{}
)

// LookupCompiler resolves a compiler of the matrix by name ("gcc-12",
// "clang-16", or any "gcc-N"/"clang-N"/"gcc"/"clang"). binaries, when given,
// replace the binaries tried (for a compiler installed under another name,
// and for tests). A binary is accepted only if its major version matches
// the name's, so a plain `gcc` of another version cannot stand in for
// gcc-12. A compiler that is not found is a *MissingToolError.
func LookupCompiler(ctx context.Context, name string, binaries ...string) (*Compiler, error) {
	family, candidates, major, err := compilerCandidates(name)
	if err != nil {
		return nil, err
	}
	if len(binaries) > 0 {
		candidates = binaries
	}
	key := name + "\x00" + strings.Join(candidates, "\x00")
	lookupMu.Lock()
	cc, ok := lookupCache[key]
	lookupMu.Unlock()
	if ok {
		return cc, nil
	}

	var tried []string
	for _, bin := range candidates {
		path, err := exec.LookPath(bin)
		if err != nil {
			tried = append(tried, bin+": not in PATH")
			continue
		}
		version, err := toolOutput(ctx, path, "--version")
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: --version failed: %v", bin, err))
			continue
		}
		if !strings.Contains(strings.ToLower(version), string(family)) {
			tried = append(tried, fmt.Sprintf("%s: not %s (%s)", bin, family, firstLine(version)))
			continue
		}
		if major != "" {
			dumped, err := toolOutput(ctx, path, "-dumpversion")
			if err != nil {
				tried = append(tried, fmt.Sprintf("%s: -dumpversion failed: %v", bin, err))
				continue
			}
			got, _, _ := strings.Cut(strings.TrimSpace(dumped), ".")
			if got != major {
				tried = append(tried, fmt.Sprintf("%s: version %s, want %s", bin, strings.TrimSpace(dumped), major))
				continue
			}
		}
		cc = &Compiler{Name: name, Family: family, Path: path, Version: firstLine(version)}
		lookupMu.Lock()
		lookupCache[key] = cc
		lookupMu.Unlock()
		return cc, nil
	}
	return nil, &MissingToolError{Tool: name, Tried: tried}
}

// compilerCandidates derives a compiler's family, default binaries and
// required major version from its name.
func compilerCandidates(name string) (Family, []string, string, error) {
	if k, ok := knownCompilers[name]; ok {
		return k.family, k.binaries, k.major, nil
	}
	for _, family := range []Family{GCC, Clang} {
		if name == string(family) {
			return family, []string{name}, "", nil
		}
		if major, ok := strings.CutPrefix(name, string(family)+"-"); ok && major != "" {
			return family, []string{name, string(family)}, major, nil
		}
	}
	return "", nil, "", fmt.Errorf("bench: unknown compiler %q (want gcc-N or clang-N)", name)
}

// CommonFlags are passed to every compiler at every level: debug
// information for the harvester, no inlining and no sibling calls so that
// every function and call of the source survives, no stack protector, CET
// or PIE to keep prologues and addressing plain. (Jump tables are lifted
// from their relocations, x86/jumptable.go.)
var CommonFlags = []string{
	"-g", "-fno-inline", "-fno-optimize-sibling-calls", "-fno-stack-protector",
	"-fcf-protection=none", "-fno-pie",
}

// GCCFlags are added for gcc at every level. -flive-patching=inline-only-static
// turns off the interprocedural analyses that change a function from
// outside (ipa-sra, ipa-cp clones, ipa-icf, ipa-ra, ipa-modref, ...);
// it makes gcc reject any of those re-enabled explicitly. The others keep
// .cold parts attached, keep unused static functions, and stop a static
// global from living in a register across a call.
var GCCFlags = []string{
	"-flive-patching=inline-only-static", "-fno-reorder-blocks-and-partition",
	"-fkeep-static-functions", "-fno-ipa-reference",
}

// Flags returns the compiler flags of one build, in order: level, common,
// family, -U__OPTIMIZE__ at O2/O3 (so that glibc headers do not emit their
// static inline helpers), target, variant, the suite's extra flags, and -c.
// The input and -o are not included: the string of these flags is the
// `cflags` recorded with every result.
func Flags(cc *Compiler, opt Opt, variant Variant, extra []string) []string {
	flags := []string{"-" + opt.Level}
	flags = append(flags, CommonFlags...)
	if cc.Family == GCC {
		flags = append(flags, GCCFlags...)
	}
	if opt.Level == "O2" || opt.Level == "O3" {
		flags = append(flags, "-U__OPTIMIZE__")
	}
	flags = append(flags, opt.Target.Flags...)
	flags = append(flags, variant.Flags...)
	flags = append(flags, extra...)
	return append(flags, "-c")
}

func toolOutput(ctx context.Context, path string, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return out.String(), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}
