package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// CsmithSeeds are the seeds of the csmith programs in the corpus. Fixed
// seeds with a fixed csmith give the same programs on every machine.
var CsmithSeeds = []int{1, 2, 3, 4, 5}

// CsmithOptions keep the generated programs integer-only (the lifter
// treats floating point as uninterpreted), without packed structs (whose
// unaligned fields are noise here) and small enough to compile in a
// fraction of a second at -O3.
var CsmithOptions = []string{"--no-float", "--no-packed-struct", "--max-funcs", "8"}

// CsmithInclude is where Debian's csmith package puts csmith.h, which every
// generated program includes.
var CsmithInclude = "/usr/include/csmith"

// CacheDir is where tests of every package build the corpus, so that one
// `make test` compiles it once: objects are cached by the content hash of
// their source, compiler and flags, so sharing the directory is safe.
func CacheDir() string { return filepath.Join(os.TempDir(), "eqc-bench-cache") }

// Corpus builds the lifter/tracer measurement corpus into dir and returns
// its objects: the TSVC kernels (both variants), csmith programs from
// CsmithSeeds and the built-in "corpus" programs, each with gcc-12 and
// clang-16 at O0..O3. Sources are written under dir/src, objects to
// dir/obj; everything is cached, so a second call compiles nothing.
func Corpus(ctx context.Context, dir string) ([]Object, error) {
	var jobs []Job
	for _, name := range []string{"tsvc", "corpus"} {
		s, err := Builtin(name)
		if err != nil {
			return nil, err
		}
		s.Matrix = LevelMatrix()
		if err := s.Prepare(filepath.Join(dir, "src")); err != nil {
			return nil, err
		}
		jobs = append(jobs, s.Jobs()...)
	}

	sources, err := GenerateCsmith(ctx, filepath.Join(dir, "src"), CsmithSeeds)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(CsmithInclude, "csmith.h")); err != nil {
		return nil, &MissingToolError{Tool: "csmith headers", Tried: []string{filepath.Join(CsmithInclude, "csmith.h") + ": missing"}}
	}
	matrix := LevelMatrix()
	for _, src := range sources {
		for _, cc := range matrix.Compilers {
			for _, opt := range matrix.Opts {
				jobs = append(jobs, Job{
					Suite: "csmith", Compiler: cc, Opt: opt, Variant: DefaultVariant, Source: src,
					// csmith's code draws hundreds of warnings that say nothing here.
					Extra: []string{"-I" + CsmithInclude, "-w"},
				})
			}
		}
	}
	return CompileAll(ctx, jobs, filepath.Join(dir, "obj"), 0)
}

// GenerateCsmith writes one csmith program per seed (csmith-SEED.c) under
// dir, in a subdirectory named by csmith's version and CsmithOptions, and
// returns their paths. Programs already there are reused.
func GenerateCsmith(ctx context.Context, dir string, seeds []int) ([]string, error) {
	path, err := exec.LookPath("csmith")
	if err != nil {
		return nil, &MissingToolError{Tool: "csmith", Tried: []string{"csmith: not in PATH"}}
	}
	// csmith writes platform.info into its working directory, even for
	// --version; it runs in dir so that the file lands there.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var version bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Stdout, cmd.Dir = &version, dir
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("bench: csmith --version: %w", err)
	}
	sum := sha256.Sum256([]byte(version.String() + "\x00" + strings.Join(CsmithOptions, "\x00")))
	out := filepath.Join(dir, "csmith-"+hex.EncodeToString(sum[:])[:16])
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, seed := range seeds {
		file := filepath.Join(out, "csmith-"+strconv.Itoa(seed)+".c")
		paths = append(paths, file)
		if _, err := os.Stat(file); err == nil {
			continue
		}
		args := append(append([]string{}, CsmithOptions...), "--seed", strconv.Itoa(seed))
		var program bytes.Buffer
		cmd := exec.CommandContext(ctx, path, args...)
		cmd.Stdout = &program
		cmd.Dir = out
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("bench: csmith %s: %w", strings.Join(args, " "), err)
		}
		tmp, err := os.CreateTemp(out, ".tmp-*.c")
		if err != nil {
			return nil, err
		}
		_, werr := tmp.Write(program.Bytes())
		cerr := tmp.Close()
		if werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Rename(tmp.Name(), file)
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return nil, werr
		}
	}
	return paths, nil
}
