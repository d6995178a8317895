package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"eqc/bench"
	"eqc/x86"
)

// runLift is `eqc lift [--json] FILE...`: harvest and lift every function,
// one line (or JSON object) per function. A bad file is reported on one
// line naming it; the other files are still lifted, and the exit status is 65.
//
// With --suite NAME|DIR it first compiles the suite's whole matrix with the
// real compilers (into --out) and lifts every object; --summary then prints
// one line per compiler, level and variant instead of one per function.
func runLift(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lift", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print one JSON object per function (JSON Lines)")
	suite := fs.String("suite", "", "compile this suite (a built-in name or a directory) and lift its objects")
	out := fs.String("out", filepath.Join("results", "objects"), "with --suite: where the compiled objects go")
	jobs := fs.Int("jobs", 0, "with --suite: compilers run at once (0: one per core)")
	summary := fs.Bool("summary", false, "print one line per compiler × level × variant")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eqc lift [--json] [--summary] FILE...\n       eqc lift [--json] [--summary] --suite NAME|DIR [--out DIR] [--jobs N]\n")
		fs.PrintDefaults()
	}
	files, status, ok := parseArgs(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if *suite != "" {
		if len(files) != 0 {
			return usageError(stderr, "lift", "--suite takes no FILE (got %s)", files[0])
		}
		return liftSuite(*suite, *out, *jobs, *jsonOut, *summary, stdout, stderr)
	}
	if len(files) == 0 {
		return usageError(stderr, "lift", "want FILE... or --suite NAME|DIR")
	}
	if *summary {
		var objs []bench.Object
		for _, p := range files {
			objs = append(objs, bench.Object{Path: p})
		}
		return printLiftSummary(objs, *jsonOut, stdout, stderr)
	}
	status = 0
	enc := json.NewEncoder(stdout)
	if !*jsonOut {
		fmt.Fprintf(stdout, "%-32s %-24s %6s %6s %5s  %s\n", "file", "function", "insns", "blocks", "loops", "unsupported")
	}
	for _, path := range files {
		if !checkObject(stderr, "lift", path) {
			status = exitBadInput
			continue
		}
		sums, err := x86.LiftFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "eqc lift: %v\n", err)
			status = exitBadInput
			continue
		}
		for _, s := range sums {
			if *jsonOut {
				if err := enc.Encode(s); err != nil {
					fmt.Fprintf(stderr, "eqc lift: %v\n", err)
					return exitBadInput
				}
				continue
			}
			fmt.Fprintf(stdout, "%-32s %-24s %6d %6d %5d  %s\n", s.File, s.Function, s.Instructions, s.Blocks, s.Loops, strings.Join(s.Unsupported, ","))
		}
	}
	return status
}

// liftSuite compiles a suite and lifts every object.
func liftSuite(name, out string, jobs int, jsonOut, summary bool, stdout, stderr io.Writer) int {
	s, err := bench.Open(name)
	if err != nil {
		fmt.Fprintf(stderr, "eqc lift: %v\n", err)
		var unknown *bench.UnknownSuiteError
		if errors.As(err, &unknown) {
			return exitUsage
		}
		return exitBadInput
	}
	objs, err := s.Build(context.Background(), out, jobs)
	if err != nil {
		fmt.Fprintf(stderr, "eqc lift: building suite %s: %v\n", name, err)
		return exitBadInput
	}
	if summary {
		return printLiftSummary(objs, jsonOut, stdout, stderr)
	}
	paths := make([]string, len(objs))
	for i, o := range objs {
		paths[i] = o.Path
	}
	return runLift(append(jsonFlag(jsonOut), paths...), stdout, stderr)
}

func jsonFlag(on bool) []string {
	if on {
		return []string{"--json"}
	}
	return nil
}

// liftGroup is one line of the summary: the objects of one compiler, level
// and variant.
type liftGroup struct {
	Compiler     string `json:"compiler"`
	Opt          string `json:"opt"`
	Variant      string `json:"variant"`
	Objects      int    `json:"objects"`
	Functions    int    `json:"functions"`
	Lifted       int    `json:"fully_lifted"`
	Instructions int    `json:"instructions"`
	Blocks       int    `json:"blocks"`
	Loops        int    `json:"loops"`
	// Unsupported counts the functions naming each unsupported entry.
	Unsupported map[string]int `json:"unsupported"`
}

// printLiftSummary lifts objs and prints one line per group.
func printLiftSummary(objs []bench.Object, jsonOut bool, stdout, stderr io.Writer) int {
	status := 0
	groups := map[string]*liftGroup{}
	var keys []string
	for _, o := range objs {
		key := o.Compiler + "\x00" + o.Opt.String() + "\x00" + o.Variant
		g := groups[key]
		if g == nil {
			g = &liftGroup{Compiler: o.Compiler, Opt: o.Opt.String(), Variant: o.Variant, Unsupported: map[string]int{}}
			groups[key] = g
			keys = append(keys, key)
		}
		sums, err := x86.LiftFile(o.Path)
		if err != nil {
			fmt.Fprintf(stderr, "eqc lift: %v\n", err)
			status = exitBadInput
			continue
		}
		g.Objects++
		for _, s := range sums {
			g.Functions++
			g.Instructions += s.Instructions
			g.Blocks += s.Blocks
			g.Loops += s.Loops
			if len(s.Unsupported) == 0 {
				g.Lifted++
			}
			for _, u := range s.Unsupported {
				g.Unsupported[u]++
			}
		}
	}
	sort.Strings(keys)
	if !jsonOut {
		fmt.Fprintf(stdout, "%-10s %-10s %-8s %7s %9s %12s %7s %6s %12s  %s\n",
			"compiler", "opt", "variant", "objects", "functions", "instructions", "blocks", "loops", "fully lifted", "unsupported")
	}
	enc := json.NewEncoder(stdout)
	var total liftGroup
	for _, k := range keys {
		g := groups[k]
		total.Objects += g.Objects
		total.Functions += g.Functions
		total.Lifted += g.Lifted
		total.Instructions += g.Instructions
		if jsonOut {
			enc.Encode(g)
			continue
		}
		var unsup []string
		for u, n := range g.Unsupported {
			unsup = append(unsup, fmt.Sprintf("%s×%d", u, n))
		}
		sort.Strings(unsup)
		fmt.Fprintf(stdout, "%-10s %-10s %-8s %7d %9d %12d %7d %6d %6d/%-5d  %s\n",
			g.Compiler, g.Opt, g.Variant, g.Objects, g.Functions, g.Instructions, g.Blocks, g.Loops, g.Lifted, g.Functions, strings.Join(unsup, " "))
	}
	if !jsonOut {
		fmt.Fprintf(stdout, "total: %d objects, %d functions, %d instructions; %d functions fully lifted (%.1f%%)\n",
			total.Objects, total.Functions, total.Instructions, total.Lifted, 100*float64(total.Lifted)/float64(max(total.Functions, 1)))
	}
	return status
}
