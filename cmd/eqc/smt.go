package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
)

// runSMT is `eqc smt [--solver LIST] [--timeout D] FILE`: parse an SMT-LIB2
// script into eqc's terms and decide it with eqc's solver layer — the same
// path every proof obligation takes (printer, backend, model reader, model
// check). A debugging aid; the exit status is 0 for sat or unsat, 2 for
// unknown, 65 for a file that does not parse.
func runSMT(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("smt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	solvers := fs.String("solver", "z3", "comma-separated backends to race: z3, z3-process, cvc5, boolector")
	timeout := durationFlag(fs, "timeout", 60*time.Second, "give up after this long")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eqc smt [--solver LIST] [--timeout DURATION] FILE\n")
		fs.PrintDefaults()
	}
	pos, status, ok := parseArgs(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if status, ok := wantArgs(stderr, "smt", pos, "FILE"); !ok {
		return status
	}
	path := pos[0]
	text, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "eqc smt: %v\n", err)
		return exitBadInput
	}
	b := ir.NewBuilder()
	script, err := smtlib.ParseScript(b, string(text))
	if err != nil {
		fmt.Fprintf(stderr, "eqc smt: %s: %v\n", path, err)
		return exitBadInput
	}
	s, _, err := prove.New(prove.Options{Backends: strings.Split(*solvers, ",")})
	if err != nil {
		fmt.Fprintf(stderr, "eqc smt: %v\n", err)
		if errors.Is(err, prove.ErrUnknownKind) {
			return exitUsage
		}
		return exitUnknown
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	r := s.Check(ctx, prove.Query{B: b, Assertions: script.Asserts})
	fmt.Fprintf(stdout, "%v\n", r.Status)
	switch r.Status {
	case smtlib.Unknown:
		fmt.Fprintf(stdout, "; reason: %s\n", r.Reason)
		return exitUnknown
	case smtlib.Sat:
		names := make([]string, 0, len(script.Names.Vars))
		for name := range script.Names.Vars {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			v, _ := r.Model.VarValue(b, script.Names.Vars[name])
			fmt.Fprintf(stdout, "%s = %v\n", name, v)
		}
	}
	fmt.Fprintf(stdout, "; %s, %v\n", r.Solver, r.Elapsed.Round(time.Microsecond))
	return 0
}
