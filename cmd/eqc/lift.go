package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"eqc/x86"
)

// runLift is `eqc lift [--json] FILE...`: harvest and lift every function,
// one line (or JSON object) per function. A bad file is reported on one
// line naming it; the other files are still lifted, and the exit status is 65.
func runLift(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lift", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print one JSON object per function (JSON Lines)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: eqc lift [--json] FILE...\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	status := 0
	enc := json.NewEncoder(stdout)
	if !*jsonOut {
		fmt.Fprintf(stdout, "%-32s %-24s %6s %6s %5s  %s\n", "file", "function", "insns", "blocks", "loops", "unsupported")
	}
	for _, path := range fs.Args() {
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
