// Command eqc proves optimized x86-64 machine code equivalent to the code it
// was compiled from, function by function. See ../../README.md and the CLI
// contract in docs/design.md.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// Exit statuses of the CLI contract.
const (
	exitEquivalent    = 0  // every check equivalent (or the command succeeded)
	exitNotEquivalent = 1  // some check not-equivalent
	exitUnknown       = 2  // none not-equivalent, some unknown
	exitUsage         = 64 // usage error, or a subcommand not built yet
	exitBadInput      = 65 // a bad input file
)

// version is set with -ldflags "-X main.version=..." by make build.
var version = "dev"

// command is one subcommand of eqc.
type command struct {
	name    string
	usage   string // arguments, after the name
	summary string
	run     func(args []string, stdout, stderr io.Writer) int // nil: not built yet
	issue   string                                            // what will build it, when run is nil
}

func commands() []command {
	return []command{
		{name: "check", usage: checkUsage,
			summary: "check that functions of DST are equivalent to those of SRC (objects or C sources)", run: runCheck},
		{name: "lift", usage: "[--json] FILE...", summary: "harvest and lift every function of ELF files", run: runLift},
		{name: "trace", usage: "[--json] [--vectors N] [--check-semantics] FILE [--func NAME]...",
			summary: "run functions natively on generated test vectors", run: runTrace},
		{name: "sweep", usage: sweepUsage,
			summary: "compile a suite, check every function pair, write Parquet", run: runSweep},
		{name: "slurm", usage: "--shards N [--submit] [--dir DIR] [--partition P] [--time-limit T] SWEEP-FLAGS...",
			summary: "run a sweep as a Slurm job array, one shard per task, then its report", run: runSlurm},
		{name: "report", usage: "[--format text|markdown|csv|json] [--width N] [--details] DIR", summary: "summary tables from the Parquet files under DIR", run: runReport},
		{name: "proof", usage: "verify [--json] [--solver LIST] [--timeout DURATION] [--context FILE]... PROOF SRC DST\n" +
			"               proof show [--format text|dot] PROOF",
			summary: "recheck a proof file (eqc check --proof) against the binaries, or show it", run: runProof},
		{name: "smt", usage: "[--solver z3,z3-process,cvc5,boolector (a list races them)] [--timeout DURATION] FILE",
			summary: "decide an SMT-LIB2 query with eqc's solver layer (a debugging aid)", run: runSMT},
		{name: "export", usage: "[--format csv|jsonl] [--latest] DIR", summary: "print the rows of the Parquet files under DIR as CSV or JSON Lines", run: runExport},
		{name: "cflags", usage: "[--cc NAME] [--opt SETTING]", summary: "print the compiler flags eqc builds objects with", run: runCFlags},
		{name: "version", summary: "print the version", run: runVersion},
	}
}

func main() {
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stopCPUProfile()
	os.Exit(code)
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	case "-version", "--version":
		return runVersion(nil, stdout, stderr)
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		if c.run == nil {
			fmt.Fprintf(stderr, "eqc %s: not built yet (%s builds it)\n", c.name, c.issue)
			return exitUsage
		}
		return c.run(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "eqc: unknown command %q; run 'eqc --help'\n", args[0])
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "eqc proves optimized x86-64 code equivalent to the code it was compiled from.\n\nUsage:\n")
	cmds := commands()
	sort.SliceStable(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	for _, c := range cmds {
		state := ""
		if c.run == nil {
			state = " (not built yet)"
		}
		fmt.Fprintf(w, "  eqc %-8s %s%s\n", c.name, c.summary, state)
		if c.usage != "" {
			fmt.Fprintf(w, "%15s%s %s\n", "", c.name, c.usage)
		}
	}
	fmt.Fprintf(w, "\nExit status: 0 all equivalent, 1 some not-equivalent, 2 some unknown, 64 usage, 65 bad input;\n")
	fmt.Fprintf(w, "eqc proof verify: 0 verified, 2 not verified.\n")
}

func runVersion(_ []string, stdout, _ io.Writer) int {
	fmt.Fprintf(stdout, "eqc %s\n", version)
	return 0
}
