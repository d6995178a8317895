package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"eqc/x86"
)

// The conventions every subcommand follows (docs/design.md, CLI contract):
//
//   - flags may come before, between or after the positional arguments;
//     "--" ends the flags;
//   - -h and --help print the subcommand's usage on stdout and exit 0;
//   - a usage error prints one line "eqc CMD: what is wrong" and a pointer
//     to --help on stderr, and exits 64;
//   - a duration is a Go duration (90s, 5m, 1h30m) or a number of seconds.

// parseArgs parses args with fs, with flags anywhere among the positional
// arguments, and returns the positional arguments. When it returns ok
// false, the command exits with status: 0 after -h/--help (fs.Usage wrote
// to stdout), 64 after a bad flag (named on stderr in one line). fs.Usage
// must write to fs.Output().
func parseArgs(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (pos []string, status int, ok bool) {
	fs.SetOutput(io.Discard) // Parse's own messages: replaced by ours
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage; fs.SetOutput(stderr) }()
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			usage()
			return nil, 0, false
		}
		if err != nil {
			return nil, usageError(stderr, fs.Name(), "%v", err), false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, true
		}
		// fs.Parse stops at the first positional argument, or after a
		// "--", which it consumes: everything after that is positional.
		if i := len(args) - len(rest); i > 0 && args[i-1] == "--" {
			return append(pos, rest...), 0, true
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// usageError prints a usage error of subcommand cmd on one line, and a
// pointer to its help, and returns the usage exit status.
func usageError(stderr io.Writer, cmd, format string, a ...any) int {
	fmt.Fprintf(stderr, "eqc %s: %s (run 'eqc %s --help')\n", cmd, fmt.Sprintf(format, a...), cmd)
	return exitUsage
}

// wantArgs checks the number of positional arguments: n of them, named
// by names (e.g. "SRC DST").
func wantArgs(stderr io.Writer, cmd string, pos []string, names string) (int, bool) {
	n := len(strings.Fields(names))
	if len(pos) == n {
		return 0, true
	}
	switch {
	case len(pos) == 0:
		return usageError(stderr, cmd, "want %s", names), false
	case len(pos) < n:
		return usageError(stderr, cmd, "want %s, got only %s", names, strings.Join(pos, " ")), false
	}
	return usageError(stderr, cmd, "want %s, got %d arguments: %s", names, len(pos), strings.Join(pos, " ")), false
}

// durationValue is a flag holding a duration given as a Go duration or as
// a number of seconds ("60" is a minute).
type durationValue struct{ d *time.Duration }

func (v durationValue) String() string {
	if v.d == nil {
		return ""
	}
	return v.d.String()
}

func (v durationValue) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	*v.d = d
	return nil
}

// parseDuration reads a Go duration or a plain number of seconds.
func parseDuration(s string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || f > 1e9 {
			return 0, fmt.Errorf("%q: a duration must be between 0 and 10^9 seconds", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration: give seconds (60) or a duration with units (90s, 5m, 1h30m)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q: a duration must not be negative", s)
	}
	return d, nil
}

// durationFlag defines a duration flag on fs (see durationValue).
func durationFlag(fs *flag.FlagSet, name string, def time.Duration, usage string) *time.Duration {
	d := def
	fs.Var(durationValue{&d}, name, usage+" (a duration: 90s, 5m, or seconds)")
	return &d
}

// objectProblem inspects an input object as every subcommand does before
// using it: an error when it has no function symbols (a stripped object:
// eqc finds functions by the symbol table), and a warning when it has no
// DWARF (no -g: parameters, types and names unknown; checks still run).
func objectProblem(f *x86.File) (warning string, fatal error) {
	if len(f.Functions) == 0 {
		return "", fmt.Errorf("%s has no function symbols (stripped? eqc finds functions by the symbol table: do not strip, compile with -g)", f.Path)
	}
	for _, fn := range f.Functions {
		if fn.Debug != nil {
			return "", nil
		}
	}
	return fmt.Sprintf("warning: %s has no DWARF (compile with -g): parameters, types and names are unknown", f.Path), nil
}

// checkObject opens path and reports objectProblem's findings on stderr
// as subcommand cmd: false when the object cannot be used. check and
// trace take relocatable objects only: anything else is left to their own
// one-line error.
func checkObject(stderr io.Writer, cmd, path string) bool {
	f, err := x86.Open(path)
	if err != nil || cmd != "lift" && f.Kind != x86.Relocatable {
		return true // the subcommand's own open names the error
	}
	warning, fatal := objectProblem(f)
	if fatal != nil {
		fmt.Fprintf(stderr, "eqc %s: %v\n", cmd, fatal)
		return false
	}
	if warning != "" {
		fmt.Fprintf(stderr, "eqc %s: %s\n", cmd, warning)
	}
	return true
}
