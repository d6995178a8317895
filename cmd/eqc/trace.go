package main

import (
	"context"
	"encoding/hex"
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
	"eqc/tracer"
	"eqc/x86"
)

// traceRow is the per-function record of `eqc trace` (JSON Lines with
// --json). The first fields are the CLI contract's.
type traceRow struct {
	File                string         `json:"file"`
	Function            string         `json:"function"`
	Vectors             int            `json:"vectors"`
	Faults              int            `json:"faults"`
	BlockCoverage       float64        `json:"block_coverage"` // covered / live blocks (dead ones left out)
	InstructionsChecked int            `json:"instructions_checked"`
	SemanticsMismatches int            `json:"semantics_mismatches"`
	Mismatches          []mismatchJSON `json:"mismatches"`
	Blocks              int            `json:"blocks"` // counted blocks, dead ones included
	BlocksCovered       int            `json:"blocks_covered"`
	BlocksLive          int            `json:"blocks_live"`             // blocks less dead_blocks: block_coverage's denominator
	BlockCoverageAll    float64        `json:"block_coverage_all"`      // blocks_covered / blocks: dead blocks counted as missed
	MissedBlocks        []string       `json:"missed_blocks"`           // start addresses (as in the object) of blocks never reached, dead ones included
	DeadBlocks          []string       `json:"dead_blocks"`             // the missed blocks an SMT solver proved no execution reaches
	DeadAnalysis        string         `json:"dead_analysis,omitempty"` // why missed blocks could not all be decided (unsupported code, solver unknowns)
	Runs                int            `json:"runs"`
	Timeouts            int            `json:"timeouts"`
	Discarded           int            `json:"discarded"`
	Layout              string         `json:"layout"`
	CheckedSemantics    bool           `json:"checked_semantics"`
	InstructionsRun     int            `json:"instructions_executed,omitempty"`
	Unsupported         map[string]int `json:"unsupported_instructions,omitempty"`
	Skipped             map[string]int `json:"skipped_instructions,omitempty"`
	Uninterpreted       int            `json:"uninterpreted_parts,omitempty"`
	Error               string         `json:"error,omitempty"`
	report              *tracer.CrossCheckReport
}

type stateJSON struct {
	Rip    string            `json:"rip"`
	Rflags string            `json:"rflags"`
	Regs   map[string]string `json:"regs"`
	Xmm    map[string]string `json:"xmm"`
	Mem    []memJSON         `json:"mem,omitempty"`
}

type memJSON struct {
	Addr  string `json:"addr"`
	Bytes string `json:"bytes"`
}

type mismatchJSON struct {
	Function string    `json:"function"`
	Addr     string    `json:"addr"`
	Bytes    string    `json:"bytes"`
	Intel    string    `json:"intel"`
	Diffs    []string  `json:"diffs"`
	Count    int       `json:"count"`
	Pre      stateJSON `json:"pre"`
	Post     stateJSON `json:"post"`
}

func stateToJSON(s *tracer.State) stateJSON {
	out := stateJSON{Rip: fmt.Sprintf("%#x", s.Rip), Rflags: fmt.Sprintf("%#x", s.Rflags),
		Regs: map[string]string{}, Xmm: map[string]string{}}
	for i, r := range s.Regs {
		out.Regs[tracer.RegNames[i]] = fmt.Sprintf("%#x", r)
	}
	for i, x := range s.Xmm {
		if x != [2]uint64{} {
			out.Xmm[fmt.Sprintf("xmm%d", i)] = fmt.Sprintf("%016x%016x", x[1], x[0])
		}
	}
	for _, m := range s.Mem {
		out.Mem = append(out.Mem, memJSON{Addr: fmt.Sprintf("%#x", m.Addr), Bytes: hex.EncodeToString(m.Bytes)})
	}
	return out
}

// traceArgs splits `FILE [--func NAME]...` with flags anywhere.
func traceArgs(fs *flag.FlagSet, args []string) (file string, err error) {
	for {
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		if fs.NArg() == 0 {
			return file, nil
		}
		if file != "" {
			return "", fmt.Errorf("one FILE only (got %q and %q)", file, fs.Arg(0))
		}
		file, args = fs.Arg(0), fs.Args()[1:]
	}
}

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
		fmt.Fprintf(stderr, "usage: eqc trace [--json] [--vectors N] [--check-semantics] FILE [--func NAME]...\n")
		fs.PrintDefaults()
	}
	path, err := traceArgs(fs, args)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintf(stderr, "eqc trace: %v\n", err)
		}
		return exitUsage
	}
	if path == "" {
		fs.Usage()
		return exitUsage
	}
	if *nvec <= 0 {
		fmt.Fprintf(stderr, "eqc trace: --vectors must be positive\n")
		return exitUsage
	}

	file, err := x86.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "eqc trace: %v\n", err)
		return exitBadInput
	}
	if file.Kind != x86.Relocatable {
		fmt.Fprintf(stderr, "eqc trace: %s: not a relocatable object (%v); compile with -c\n", path, file.Kind)
		return exitBadInput
	}
	names := []string(funcs)
	if len(names) == 0 {
		seen := map[string]bool{}
		for _, f := range file.Functions {
			if !seen[f.Name] {
				seen[f.Name] = true
				names = append(names, f.Name)
			}
		}
	}
	for _, n := range names {
		if _, err := file.Func(n); err != nil {
			fmt.Fprintf(stderr, "eqc trace: %v\n", err)
			return exitBadInput
		}
	}
	exe, err := tracer.Link(path, tracer.LinkOptions{})
	if err != nil {
		fmt.Fprintf(stderr, "eqc trace: %v\n", firstLine(err.Error()))
		return exitBadInput
	}
	defer exe.Remove()
	proc, err := tracer.Start(exe, tracer.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "eqc trace: %s: %v\n", path, err)
		return exitBadInput
	}
	defer proc.Close()

	var solver prove.Solver
	if *dead {
		s, _, err := prove.New(prove.Options{})
		if err != nil {
			fmt.Fprintf(stderr, "eqc trace: %v (dead blocks not proved)\n", err)
		} else {
			solver = s
			defer s.Close()
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	prog := newProgress(stderr)
	enc := json.NewEncoder(stdout)
	if !*jsonOut {
		fmt.Fprintf(stdout, "%-24s %7s %6s %14s %20s %20s\n", "function", "vectors", "faults", "block_coverage", "instructions_checked", "semantics_mismatches")
	}
	status := 0
	for i, name := range names {
		row := traceFunction(ctx, file, exe, proc, path, name, *nvec, *seed, *check, solver, func(s string) {
			prog.show(fmt.Sprintf("[%d/%d] %s: %s", i+1, len(names), name, s))
		})
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

func traceFunction(ctx context.Context, file *x86.File, exe *tracer.Executable, proc *tracer.Process,
	path, name string, nvec int, seed int64, check bool, solver prove.Solver, progress func(string)) traceRow {
	row := traceRow{File: path, Function: name, CheckedSemantics: check, Mismatches: []mismatchJSON{},
		MissedBlocks: []string{}, DeadBlocks: []string{}}
	t, err := tracer.NewTarget(file, exe, name)
	if err != nil {
		row.Error = err.Error()
		return row
	}
	t.Proc = proc
	vs, err := tracer.Generate(ctx, []*tracer.Target{t}, tracer.GenerateOptions{Vectors: nvec, Seed: seed,
		Progress: func(p tracer.GenProgress) {
			progress(fmt.Sprintf("vectors: %d runs, %d kept, coverage %.0f%%", p.Runs, p.Kept, 100*p.Coverage))
		}})
	if err != nil {
		row.Error = err.Error()
		return row
	}
	cov := &vs.Coverage[0]
	if solver != nil && len(cov.Missed()) > 0 {
		progress(fmt.Sprintf("proving %d unreached blocks dead", len(cov.Missed())))
		dctx, cancel := context.WithTimeout(ctx, deadTimeout)
		rep, err := cov.ProveMissedDead(dctx, t, tracer.DeadOptions{Solver: solver, QueryTimeout: 5 * time.Second})
		cancel()
		switch {
		case err != nil:
			row.DeadAnalysis = err.Error()
		case rep.Reason != "":
			row.DeadAnalysis = rep.Reason
		case rep.Unknown > 0:
			row.DeadAnalysis = fmt.Sprintf("%d of %d solver queries undecided", rep.Unknown, rep.Queries)
		}
	}
	row.Vectors, row.Faults, row.Runs, row.Timeouts, row.Discarded = len(vs.Vectors), vs.Faults, vs.Runs, vs.Timeouts, vs.Discarded
	row.BlockCoverage, row.Blocks, row.BlocksCovered = cov.Fraction(), len(cov.Blocks), cov.Covered()
	row.BlocksLive, row.BlockCoverageAll = cov.Live(), cov.FractionAll()
	for _, b := range cov.Missed() {
		row.MissedBlocks = append(row.MissedBlocks, fmt.Sprintf("%#x", t.CFG.Blocks[b].Start))
	}
	for _, b := range cov.Dead {
		row.DeadBlocks = append(row.DeadBlocks, fmt.Sprintf("%#x", t.CFG.Blocks[b].Start))
	}
	row.Layout = vs.Layout.String()
	if !check {
		return row
	}
	progress(fmt.Sprintf("single-stepping %d vectors", len(vs.Vectors)))
	rep, err := tracer.CrossCheck(ctx, t, vs.Vectors, tracer.CrossCheckOptions{})
	if err != nil {
		row.Error = err.Error()
		return row
	}
	row.report = rep
	row.InstructionsChecked, row.SemanticsMismatches = rep.Checked, rep.Mismatches
	row.InstructionsRun, row.Unsupported, row.Skipped, row.Uninterpreted = rep.Executed, rep.Unsupported, rep.Skipped, rep.Uninterpreted
	for _, m := range rep.First {
		row.Mismatches = append(row.Mismatches, mismatchJSON{Function: m.Function, Addr: fmt.Sprintf("%#x", m.Addr),
			Bytes: hex.EncodeToString(m.Bytes), Intel: m.Intel, Diffs: m.Diffs, Count: m.Count,
			Pre: stateToJSON(&m.Pre), Post: stateToJSON(&m.Post)})
	}
	return row
}

func printTraceRow(w io.Writer, row traceRow, check bool, maxShow int) {
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
	if row.report == nil {
		return
	}
	for i, m := range row.report.First {
		if i >= maxShow {
			fmt.Fprintf(w, "    ... %d more mismatching instructions (--json lists them)\n", len(row.report.First)-i)
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
	f, ok := w.(*os.File)
	if !ok {
		return &progress{}
	}
	st, err := f.Stat()
	return &progress{w: w, on: err == nil && st.Mode()&os.ModeCharDevice != 0}
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
