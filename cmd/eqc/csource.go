package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"eqc/bench"
)

// C sources in eqc check. A SRC or DST argument ending in .c is compiled
// first, with the flags eqc's suites use (bench.Flags: debug information,
// no inlining, no sibling calls, no PIE, ...; clang's keepsig plugin when
// it can be built), SRC at --src-opt and DST at --dst-opt. One .c file
// alone is both sides: it is checked against its own optimized build.
// Objects go to --obj-dir (by default the user's cache directory), named
// by a hash of compiler, flags and source, so a second check of the same
// file compiles nothing.

// isCSource says a check argument is a C source to compile.
func isCSource(path string) bool { return strings.HasSuffix(path, ".c") }

// defaultObjDir is where eqc check puts the objects it compiles.
func defaultObjDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "eqc", "objects")
	}
	return filepath.Join(os.TempDir(), "eqc-objects")
}

// compileFlags are the flags eqc check and eqc cflags add to bench.Flags
// for a compiler: clang's keepsig plugin, when it can be built.
func compileFlags(ctx context.Context, cc *bench.Compiler, stderr io.Writer) []string {
	var extra []string
	if cc.Family == bench.Clang {
		f, err := bench.KeepSignaturesFlags(ctx, cc)
		if err != nil {
			fmt.Fprintf(stderr, "eqc: warning: without clang's keepsig plugin (%v): clang may change static functions' signatures\n", err)
		} else {
			extra = f
		}
	}
	return extra
}

// compileSide compiles one side of a check from C.
func compileSide(ctx context.Context, ccName, optText, src, objDir string, stderr io.Writer) (string, error) {
	cc, err := bench.LookupCompiler(ctx, ccName)
	if err != nil {
		return "", err
	}
	opt, err := bench.ParseOpt(optText, bench.BuiltinTargets)
	if err != nil {
		return "", err
	}
	obj, err := bench.Compile(ctx, cc, opt, bench.DefaultVariant, src, objDir, compileFlags(ctx, cc, stderr)...)
	if err != nil {
		return "", err
	}
	return obj.Path, nil
}

// compileWitness builds a C source at the source's level with the
// sanitizer's checks as traps (bench.TargetUBSan) by
// bench.WitnessCompiler, the witness that
// decides signed overflow and shifts on a difference's input
// (align.Request.Witness); "" when optText has a target of its own (an
// O0+ubsan source traps by itself) or the build fails, with a warning.
func compileWitness(optText, src, objDir string, stderr io.Writer) string {
	opt, err := bench.ParseOpt(optText, bench.BuiltinTargets)
	if err != nil || opt.Target.Name != "" {
		return ""
	}
	obj, err := compileSide(context.Background(), bench.WitnessCompiler, opt.Level+"+"+bench.TargetUBSan.Name, src, objDir, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "eqc: warning: %s: no sanitizer build to decide signed overflow on differences (%v)\n", src, err)
		return ""
	}
	return obj
}

// runCFlags is `eqc cflags [--cc NAME] [--opt O2]`: print the flags eqc
// compiles with, one line, so that users can build their own objects the
// same way (add the source and -o FILE).
func runCFlags(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cflags", flag.ContinueOnError)
	ccName := fs.String("cc", "gcc-12", "compiler: gcc-12, clang-16, or another gcc or clang by name")
	optText := fs.String("opt", "O2", "optimization setting: O0..O3, or LEVEL+TARGET (O2+fwrapv, O0+ubsan, O3+sse4.2, ...)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eqc cflags [--cc NAME] [--opt SETTING]\n")
		fs.PrintDefaults()
	}
	pos, status, ok := parseArgs(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if len(pos) != 0 {
		return usageError(stderr, "cflags", "unexpected argument %q", pos[0])
	}
	opt, err := bench.ParseOpt(*optText, bench.BuiltinTargets)
	if err != nil {
		return usageError(stderr, "cflags", "--opt: %v", err)
	}
	ctx := context.Background()
	cc, err := bench.LookupCompiler(ctx, *ccName)
	if err != nil {
		fmt.Fprintf(stderr, "eqc cflags: %v\n", err)
		return exitBadInput
	}
	flags := bench.Flags(cc, opt, bench.DefaultVariant, compileFlags(ctx, cc, stderr))
	fmt.Fprintln(stdout, strings.Join(flags, " "))
	return 0
}
