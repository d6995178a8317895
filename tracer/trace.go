package tracer

import (
	"context"
	"encoding/hex"
	"fmt"

	"eqc/x86"
)

// Tracing a relocatable object, function by function (eqc trace): link it
// with the driver, start it, then for each function generate test vectors
// guided by block coverage, leave out of the coverage the missed blocks a
// caller-supplied DeadProver proves dead, and optionally single-step every
// vector through the semantics cross-check. The result of each function is
// a TraceReport, whose JSON encoding is eqc trace's --json row.

// ObjectTrace is a relocatable object linked with the driver and running,
// ready to trace its functions one after another in the one process.
type ObjectTrace struct {
	Path  string    // the object, as given
	File  *x86.File // harvested from it
	Funcs []string  // the functions to trace, in order
	exe   *Executable
	proc  *Process
}

// OpenObjectTrace harvests the relocatable object at path, checks that it
// defines every function of funcs (nil: trace each function it defines,
// in symbol order, once), links it with the driver and starts the
// process. Every error is the object's fault (not an object, not
// relocatable, no such function, no link, no start); the first line of
// its text says what it is. Close releases what it made.
func OpenObjectTrace(path string, funcs []string) (*ObjectTrace, error) {
	file, err := x86.Open(path)
	if err != nil {
		return nil, err
	}
	if file.Kind != x86.Relocatable {
		return nil, fmt.Errorf("%s: not a relocatable object (%v); compile with -c", path, file.Kind)
	}
	names := append([]string(nil), funcs...)
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
			return nil, err
		}
	}
	exe, err := Link(path, LinkOptions{})
	if err != nil {
		return nil, err
	}
	proc, err := Start(exe, Options{})
	if err != nil {
		exe.Remove()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &ObjectTrace{Path: path, File: file, Funcs: names, exe: exe, proc: proc}, nil
}

// Close stops the process and removes the executable.
func (o *ObjectTrace) Close() {
	o.proc.Close()
	o.exe.Remove()
}

// TraceOptions configure ObjectTrace.Trace.
type TraceOptions struct {
	Vectors        int   // test vectors wanted (GenerateOptions.Vectors)
	Seed           int64 // of the vector generator
	CheckSemantics bool  // single-step every vector (CrossCheck)
	// Dead, when set, is asked about the blocks no vector reached; those
	// it proves dead leave block_coverage's denominator
	// (Coverage.ProveMissedDead). Nil: none does.
	Dead DeadProver
	// Progress, when set, is told what the call is doing, in a few words.
	Progress func(string)
}

// TraceReport is what tracing one function found. Its JSON encoding is
// eqc trace's row (JSON Lines with --json); the first fields are the CLI
// contract's.
type TraceReport struct {
	File                string          `json:"file"`
	Function            string          `json:"function"`
	Vectors             int             `json:"vectors"`
	Faults              int             `json:"faults"`
	BlockCoverage       float64         `json:"block_coverage"` // covered / live blocks (dead ones left out)
	InstructionsChecked int             `json:"instructions_checked"`
	SemanticsMismatches int             `json:"semantics_mismatches"`
	Mismatches          []TraceMismatch `json:"mismatches"`
	Blocks              int             `json:"blocks"` // counted blocks, dead ones included
	BlocksCovered       int             `json:"blocks_covered"`
	BlocksLive          int             `json:"blocks_live"`             // blocks less dead_blocks: block_coverage's denominator
	BlockCoverageAll    float64         `json:"block_coverage_all"`      // blocks_covered / blocks: dead blocks counted as missed
	MissedBlocks        []string        `json:"missed_blocks"`           // start addresses (as in the object) of blocks never reached, dead ones included
	DeadBlocks          []string        `json:"dead_blocks"`             // the missed blocks an SMT solver proved no execution reaches
	DeadAnalysis        string          `json:"dead_analysis,omitempty"` // why missed blocks could not all be decided (unsupported code, solver unknowns)
	Runs                int             `json:"runs"`
	Timeouts            int             `json:"timeouts"`
	Discarded           int             `json:"discarded"`
	Layout              string          `json:"layout"`
	CheckedSemantics    bool            `json:"checked_semantics"`
	InstructionsRun     int             `json:"instructions_executed,omitempty"`
	Unsupported         map[string]int  `json:"unsupported_instructions,omitempty"`
	Skipped             map[string]int  `json:"skipped_instructions,omitempty"`
	Uninterpreted       int             `json:"uninterpreted_parts,omitempty"`
	Error               string          `json:"error,omitempty"`
	// CrossCheck is the semantics cross-check's report (CheckSemantics,
	// when it ran), with the mismatching instructions.
	CrossCheck *CrossCheckReport `json:"-"`
}

// TraceMismatch is one mismatching instruction of a TraceReport.
type TraceMismatch struct {
	Function string     `json:"function"`
	Addr     string     `json:"addr"`
	Bytes    string     `json:"bytes"`
	Intel    string     `json:"intel"`
	Diffs    []string   `json:"diffs"`
	Count    int        `json:"count"`
	Pre      TraceState `json:"pre"`
	Post     TraceState `json:"post"`
}

// TraceState is a machine state of a TraceMismatch, in hexadecimal.
type TraceState struct {
	Rip    string            `json:"rip"`
	Rflags string            `json:"rflags"`
	Regs   map[string]string `json:"regs"`
	Xmm    map[string]string `json:"xmm"` // the nonzero ones
	Mem    []TraceMem        `json:"mem,omitempty"`
}

// TraceMem is a block of memory of a TraceState.
type TraceMem struct {
	Addr  string `json:"addr"`
	Bytes string `json:"bytes"`
}

func traceState(s *State) TraceState {
	out := TraceState{Rip: fmt.Sprintf("%#x", s.Rip), Rflags: fmt.Sprintf("%#x", s.Rflags),
		Regs: map[string]string{}, Xmm: map[string]string{}}
	for i, r := range s.Regs {
		out.Regs[RegNames[i]] = fmt.Sprintf("%#x", r)
	}
	for i, x := range s.Xmm {
		if x != [2]uint64{} {
			out.Xmm[fmt.Sprintf("xmm%d", i)] = fmt.Sprintf("%016x%016x", x[1], x[0])
		}
	}
	for _, m := range s.Mem {
		out.Mem = append(out.Mem, TraceMem{Addr: fmt.Sprintf("%#x", m.Addr), Bytes: hex.EncodeToString(m.Bytes)})
	}
	return out
}

// Trace traces the function called name (one of o.Funcs, or any other the
// object defines): vectors, block coverage less the blocks opts.Dead
// proves dead, and with opts.CheckSemantics the semantics cross-check. A
// failure is the report's Error; when ctx ends, the report is partial.
func (o *ObjectTrace) Trace(ctx context.Context, name string, opts TraceOptions) *TraceReport {
	progress := opts.Progress
	if progress == nil {
		progress = func(string) {}
	}
	row := &TraceReport{File: o.Path, Function: name, CheckedSemantics: opts.CheckSemantics, Mismatches: []TraceMismatch{},
		MissedBlocks: []string{}, DeadBlocks: []string{}}
	t, err := NewTarget(o.File, o.exe, name)
	if err != nil {
		row.Error = err.Error()
		return row
	}
	t.Proc = o.proc
	vs, err := Generate(ctx, []*Target{t}, GenerateOptions{Vectors: opts.Vectors, Seed: opts.Seed,
		Progress: func(p GenProgress) {
			progress(fmt.Sprintf("vectors: %d runs, %d kept, coverage %.0f%%", p.Runs, p.Kept, 100*p.Coverage))
		}})
	if err != nil {
		row.Error = err.Error()
		return row
	}
	cov := &vs.Coverage[0]
	if opts.Dead != nil && len(cov.Missed()) > 0 {
		progress(fmt.Sprintf("proving %d unreached blocks dead", len(cov.Missed())))
		row.DeadAnalysis = cov.ProveMissedDead(ctx, t, opts.Dead)
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
	if !opts.CheckSemantics {
		return row
	}
	progress(fmt.Sprintf("single-stepping %d vectors", len(vs.Vectors)))
	rep, err := CrossCheck(ctx, t, vs.Vectors, CrossCheckOptions{})
	if err != nil {
		row.Error = err.Error()
		return row
	}
	row.CrossCheck = rep
	row.InstructionsChecked, row.SemanticsMismatches = rep.Checked, rep.Mismatches
	row.InstructionsRun, row.Unsupported, row.Skipped, row.Uninterpreted = rep.Executed, rep.Unsupported, rep.Skipped, rep.Uninterpreted
	for _, m := range rep.First {
		row.Mismatches = append(row.Mismatches, TraceMismatch{Function: m.Function, Addr: fmt.Sprintf("%#x", m.Addr),
			Bytes: hex.EncodeToString(m.Bytes), Intel: m.Intel, Diffs: m.Diffs, Count: m.Count,
			Pre: traceState(&m.Pre), Post: traceState(&m.Post)})
	}
	return row
}
