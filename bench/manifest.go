package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// ManifestName is the file in a suite directory that describes the suite.
const ManifestName = "suite.txt"

// ManifestError reports a manifest (or a suite directory) that cannot be
// used; Line is 0 when the problem is not on one line.
type ManifestError struct {
	Path string
	Line int
	Msg  string
}

func (e *ManifestError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("bench: %s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("bench: %s: %s", e.Path, e.Msg)
}

// loadSuite reads a suite from fsys: the manifest if there is one, else
// every .c file as a source with functions discovered after compiling.
// where names the directory in errors.
func loadSuite(fsys fs.FS, defaultName, where string) (*Suite, error) {
	data, err := fs.ReadFile(fsys, ManifestName)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return loadSuiteManifest(fsys, defaultName, where, "", nil)
	case err != nil:
		return nil, err
	}
	return loadSuiteManifest(fsys, defaultName, where, path.Join(where, ManifestName), data)
}

// loadSuiteManifest reads a suite from fsys with the given manifest text
// (nil: none); where names the suite and manifestWhere the manifest in
// errors.
func loadSuiteManifest(fsys fs.FS, defaultName, where, manifestWhere string, data []byte) (*Suite, error) {
	s := &Suite{Name: defaultName, Matrix: DefaultMatrix()}
	if data != nil {
		if err := s.parseManifest(fsys, data, manifestWhere); err != nil {
			return nil, err
		}
	}
	if len(s.Sources) == 0 {
		all, err := fs.Glob(fsys, "*.c")
		if err != nil {
			return nil, err
		}
		for _, f := range all {
			if !slices.Contains(s.Support, f) {
				s.Sources = append(s.Sources, f)
			}
		}
	}
	if len(s.Sources) == 0 {
		return nil, &ManifestError{Path: where, Msg: "no C sources"}
	}
	if len(s.Variants) == 0 {
		s.Variants = []Variant{DefaultVariant}
	}
	return s, nil
}

// parseManifest reads the line-based manifest described in doc.go.
func (s *Suite) parseManifest(fsys fs.FS, data []byte, where string) error {
	targets := slices.Clone(BuiltinTargets)
	var opts []string
	optsLine := 0
	lineNo := 0
	fail := func(format string, args ...any) error {
		return &ManifestError{Path: where, Line: lineNo, Msg: fmt.Sprintf(format, args...)}
	}
	files := func(patterns []string) ([]string, error) {
		var out []string
		for _, p := range patterns {
			if strings.Contains(p, "/") || strings.Contains(p, `\`) {
				return nil, fail("%q: files must be in the suite directory", p)
			}
			matches, err := fs.Glob(fsys, p)
			if err != nil {
				return nil, fail("bad pattern %q: %v", p, err)
			}
			if len(matches) == 0 {
				return nil, fail("no file matches %q", p)
			}
			out = append(out, matches...)
		}
		return out, nil
	}

	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		lineNo++
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		key, args := fields[0], fields[1:]
		if len(args) == 0 {
			return fail("%q needs at least one value", key)
		}
		switch key {
		case "name":
			if len(args) != 1 {
				return fail("name takes one word")
			}
			s.Name = args[0]
		case "sources":
			found, err := files(args)
			if err != nil {
				return err
			}
			for _, f := range found {
				if !strings.HasSuffix(f, ".c") {
					return fail("source %q is not a .c file", f)
				}
				if !slices.Contains(s.Sources, f) {
					s.Sources = append(s.Sources, f)
				}
			}
		case "support":
			found, err := files(args)
			if err != nil {
				return err
			}
			s.Support = append(s.Support, found...)
		case "functions":
			s.Functions = append(s.Functions, args...)
		case "variant":
			if slices.ContainsFunc(s.Variants, func(v Variant) bool { return v.Name == args[0] }) {
				return fail("variant %q declared twice", args[0])
			}
			s.Variants = append(s.Variants, Variant{Name: args[0], Flags: args[1:]})
		case "cflags":
			s.CFlags = append(s.CFlags, args...)
		case "compilers":
			for _, name := range args {
				if _, _, _, err := compilerCandidates(name); err != nil {
					return fail("%v", err)
				}
			}
			s.Matrix.Compilers = args
		case "target":
			if len(args) < 2 {
				return fail("target needs a name and at least one flag")
			}
			t := Target{Name: args[0], Flags: args[1:]}
			targets = slices.DeleteFunc(targets, func(old Target) bool { return old.Name == t.Name })
			targets = append(targets, t)
		case "opts":
			opts, optsLine = args, lineNo
		case "static-functions":
			if len(args) != 1 || (args[0] != "yes" && args[0] != "no") {
				return fail("static-functions takes yes or no")
			}
			s.StaticFunctions = args[0] == "yes"
		default:
			return fail("unknown key %q (want name, sources, support, functions, variant, cflags, compilers, target, opts or static-functions)", key)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for _, f := range s.Sources {
		if slices.Contains(s.Support, f) {
			return &ManifestError{Path: where, Msg: fmt.Sprintf("%s is both a source and a support file", f)}
		}
	}
	if opts != nil {
		lineNo = optsLine
		s.Matrix.Opts = nil
		for _, text := range opts {
			opt, err := ParseOpt(text, targets)
			if err != nil {
				return fail("%v", err)
			}
			s.Matrix.Opts = append(s.Matrix.Opts, opt)
		}
	}
	return nil
}
