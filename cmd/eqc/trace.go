package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"eqc/prove"
	"eqc/prove/deadblocks"
	"eqc/tracer"
)

// funcList is a repeatable flag (--func NAME...).
type funcList []string

func (f *funcList) String() string     { return strings.Join(*f, ",") }
func (f *funcList) Set(s string) error { *f = append(*f, s); return nil }

// runTrace is `eqc trace [--json] [--vectors N] [--check-semantics] FILE
// [--func NAME]...`: link the relocatable object FILE with the tracer's
// driver, generate test vectors for each function (every function of FILE
// by default) guided by block coverage, and with --check-semantics
// single-step every vector comparing each executed instruction's lifted
// semantics with the CPU.
func runTrace(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print one JSON object per function (JSON Lines)")
	nvec := fs.Int("vectors", 64, "test vectors per function")
	check := fs.Bool("check-semantics", false, "single-step every vector and compare each instruction's lifted semantics with the CPU")
	seed := fs.Int64("seed", 1, "seed of the vector generator")
	maxShow := fs.Int("show", 5, "mismatches shown per function (text output)")
	dead := fs.Bool("dead", true, "prove unreached blocks dead with the SMT solver and leave them out of block_coverage")
	var funcs funcList
	fs.Var(&funcs, "func", "trace only this function (repeatable)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eqc trace [--json] [--vectors N] [--check-semantics] FILE [--func NAME]...\n")
		fs.PrintDefaults()
	}
	pos, status, ok := parseArgs(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if status, ok := wantArgs(stderr, "trace", pos, "FILE"); !ok {
		return status
	}
	path := pos[0]
	if *nvec <= 0 {
		fmt.Fprintf(stderr, "eqc trace: --vectors must be positive\n")
		return exitUsage
	}

	if !checkObject(stderr, "trace", path) {
		return exitBadInput
	}
	obj, err := tracer.OpenObjectTrace(path, funcs)
	if err != nil {
		fmt.Fprintf(stderr, "eqc trace: %v\n", firstLine(err.Error()))
		return exitBadInput
	}
	defer obj.Close()

	opts := tracer.TraceOptions{Vectors: *nvec, Seed: *seed, CheckSemantics: *check}
	if *dead {
		s, _, err := prove.New(prove.Options{})
		if err != nil {
			fmt.Fprintf(stderr, "eqc trace: %v (dead blocks not proved)\n", err)
		} else {
			defer s.Close()
			opts.Dead = deadProver(s)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	prog := newProgress(stderr)
	enc := json.NewEncoder(stdout)
	if !*jsonOut {
		fmt.Fprintf(stdout, "%-24s %7s %6s %14s %20s %20s\n", "function", "vectors", "faults", "block_coverage", "instructions_checked", "semantics_mismatches")
	}
	status = 0
	for i, name := range obj.Funcs {
		opts.Progress = func(s string) {
			prog.show(fmt.Sprintf("[%d/%d] %s: %s", i+1, len(obj.Funcs), name, s))
		}
		row := obj.Trace(ctx, name, opts)
		prog.clear()
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "eqc trace: interrupted\n")
			return exitUnknown
		}
		if row.Error != "" {
			status = exitUnknown
		}
		if *jsonOut {
			if err := enc.Encode(row); err != nil {
				fmt.Fprintf(stderr, "eqc trace: %v\n", err)
				return exitBadInput
			}
			continue
		}
		printTraceRow(stdout, row, *check, *maxShow)
	}
	return status
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// deadTimeout bounds the dead-block proof of one function; what is not
// proved by then counts as live.
const deadTimeout = 2 * time.Minute

// deadProver is the dead-block proof (prove/deadblocks) with solver s, as
// the tracer's coverage takes it: each function's missed blocks within
// deadTimeout, each query within 5 seconds.
func deadProver(s prove.Solver) tracer.DeadProver {
	return func(ctx context.Context, t *tracer.Target, missed []int) ([]int, string, error) {
		ctx, cancel := context.WithTimeout(ctx, deadTimeout)
		defer cancel()
		rep, err := deadblocks.Prove(ctx, t.File, t.CFG, missed, deadblocks.Options{Solver: s, QueryTimeout: 5 * time.Second})
		return rep.Dead, rep.Undecided(), err
	}
}

func printTraceRow(w io.Writer, row *tracer.TraceReport, check bool, maxShow int) {
	if row.Error != "" {
		fmt.Fprintf(w, "%-24s error: %s\n", row.Function, row.Error)
		return
	}
	checked, mism := "-", "-"
	if check {
		checked, mism = fmt.Sprint(row.InstructionsChecked), fmt.Sprint(row.SemanticsMismatches)
	}
	fmt.Fprintf(w, "%-24s %7d %6d %14.3f %20s %20s\n", row.Function, row.Vectors, row.Faults, row.BlockCoverage, checked, mism)
	if len(row.DeadBlocks) > 0 {
		fmt.Fprintf(w, "    %d of %d blocks proved dead (left out of block_coverage): %s\n",
			len(row.DeadBlocks), row.Blocks, strings.Join(row.DeadBlocks, " "))
	}
	if row.CrossCheck == nil {
		return
	}
	for i, m := range row.CrossCheck.First {
		if i >= maxShow {
			fmt.Fprintf(w, "    ... %d more mismatching instructions (--json lists them)\n", len(row.CrossCheck.First)-i)
			break
		}
		fmt.Fprintf(w, "    mismatch ×%d at %#x (%s): %x  %s\n", m.Count, m.Addr, m.Function, m.Bytes, m.Intel)
		for _, d := range m.Diffs {
			fmt.Fprintf(w, "        %s\n", d)
		}
		fmt.Fprintf(w, "        pre:  %s\n", m.Pre.String())
		fmt.Fprintf(w, "        post: %s\n", m.Post.String())
	}
	if len(row.Unsupported) > 0 {
		var us []string
		for u, n := range row.Unsupported {
			us = append(us, fmt.Sprintf("%s×%d", u, n))
		}
		sort.Strings(us)
		fmt.Fprintf(w, "    not lifted: %s\n", strings.Join(us, " "))
	}
}

// progress writes a status line to stderr when it is a terminal.
type progress struct {
	w  io.Writer
	on bool
	n  int
}

func newProgress(w io.Writer) *progress {
	return &progress{w: w, on: isTerminal(w)}
}

func (p *progress) show(s string) {
	if !p.on {
		return
	}
	if len(s) > 100 {
		s = s[:100]
	}
	fmt.Fprintf(p.w, "\r%-*s", max(p.n, len(s)), s)
	p.n = len(s)
}

func (p *progress) clear() {
	if p.on && p.n > 0 {
		fmt.Fprintf(p.w, "\r%*s\r", p.n, "")
		p.n = 0
	}
}
