package bench

import (
	"fmt"
	"slices"
	"strings"
)

// Levels are the optimization levels a matrix may use, lowest first.
var Levels = []string{"O0", "O1", "O2", "O3"}

// Target is a named set of code-generation flags added on top of an
// optimization level, such as "-msse4.2". The zero Target is the compiler's
// default x86-64 target.
type Target struct {
	Name  string
	Flags []string
}

// TargetSSE42 is the extra target flag set of seed 001: the same code
// allowed to use SSE4.2 instructions.
var TargetSSE42 = Target{Name: "sse4.2", Flags: []string{"-msse4.2"}}

// The flag differential of the UB models (thesis §2.3): the same code
// compiled so that the optimizer may not use signed overflow (fwrapv,
// fno-strict-overflow) or type-based aliasing (fno-strict-aliasing). A
// check that needs a UB model against the plain build and not against this
// one is where the compiler used that undefined behaviour.
var (
	TargetWrapv            = Target{Name: "fwrapv", Flags: []string{"-fwrapv"}}
	TargetNoStrictOverflow = Target{Name: "fno-strict-overflow", Flags: []string{"-fno-strict-overflow"}}
	TargetNoStrictAliasing = Target{Name: "fno-strict-aliasing", Flags: []string{"-fno-strict-aliasing"}}
)

// TargetUBSan is a source built for the UB premises: clang's checks of
// signed overflow, shifts and division compiled as traps (a ud1 naming the
// check), which the loop-free engine turns into premises of the sio, shift
// and div models (eqc sweep --src-opt O0+ubsan). gcc traps with ud2, which
// names no check: its sources gain traps but no premises.
var TargetUBSan = Target{Name: "ubsan", Flags: []string{"-fsanitize=signed-integer-overflow,shift,integer-divide-by-zero", "-fsanitize-undefined-trap-on-error"}}

// WitnessCompiler builds the sources' sanitizer builds that serve as
// witnesses of C's undefined behaviour (align.Request.Witness), whatever
// compiler built the pair: clang names the check each trap is for, which
// the proofs through a witness need (gcc's ud2 names none).
const WitnessCompiler = "clang-16"

// TargetPIE is the code Debian's gcc and clang make by default, which the
// flags eqc gives (CommonFlags: -fno-pie) do not: position independent,
// so switches become tables of 4-byte offsets from the table's start and
// external data is reached through the GOT.
var TargetPIE = Target{Name: "pie", Flags: []string{"-fpie"}}

// BuiltinTargets are the targets every suite and eqc sweep --opt and
// --src-opt know ("O2+fwrapv", "O0+ubsan"); a suite's manifest may add
// its own.
var BuiltinTargets = []Target{TargetSSE42, TargetWrapv, TargetNoStrictOverflow, TargetNoStrictAliasing, TargetUBSan, TargetPIE}

// Opt is one optimization setting of a compile matrix: a level and a target.
type Opt struct {
	Level  string // one of Levels
	Target Target
}

// String writes the setting as the manifest does: "O3", or "O3+sse4.2"
// with a target.
func (o Opt) String() string {
	if o.Target.Name == "" {
		return o.Level
	}
	return o.Level + "+" + o.Target.Name
}

// ParseOpt reads "LEVEL" or "LEVEL+TARGET"; targets are looked up by name
// in targets.
func ParseOpt(text string, targets []Target) (Opt, error) {
	level, targetName, hasTarget := strings.Cut(text, "+")
	if !slices.Contains(Levels, level) {
		return Opt{}, fmt.Errorf("unknown optimization level %q in %q (want one of %s)", level, text, strings.Join(Levels, " "))
	}
	if !hasTarget {
		return Opt{Level: level}, nil
	}
	for _, t := range targets {
		if t.Name == targetName {
			return Opt{Level: level, Target: t}, nil
		}
	}
	return Opt{}, fmt.Errorf("unknown target %q in %q", targetName, text)
}

// Variant is one way of preprocessing a suite's sources, such as TSVC's
// fixed and param variants; Flags are usually -D options.
type Variant struct {
	Name  string
	Flags []string
}

// DefaultVariant is the only variant of a suite that declares none.
var DefaultVariant = Variant{Name: "default"}

// Matrix is the set of builds of every source: each compiler at each
// optimization setting (each source is built once per variant on top).
type Matrix struct {
	Compilers []string // compiler names understood by LookupCompiler
	Opts      []Opt
}

// DefaultMatrix is the compile matrix of tsvc.md: gcc-12 and clang-16 at
// O0..O3, and at O2/O3 with SSE4.2 as the extra target flag set (the
// papers use -O0/-O1 only as source sides, so the extra target is only
// built where it is a target).
func DefaultMatrix() Matrix {
	return Matrix{
		Compilers: []string{"gcc-12", "clang-16"},
		Opts: []Opt{
			{Level: "O0"}, {Level: "O1"}, {Level: "O2"}, {Level: "O3"},
			{Level: "O2", Target: TargetSSE42}, {Level: "O3", Target: TargetSSE42},
		},
	}
}

// LevelMatrix is the matrix without extra targets: both compilers at O0..O3.
func LevelMatrix() Matrix {
	return Matrix{
		Compilers: []string{"gcc-12", "clang-16"},
		Opts:      []Opt{{Level: "O0"}, {Level: "O1"}, {Level: "O2"}, {Level: "O3"}},
	}
}
