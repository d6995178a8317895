package align

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"eqc/prove"
	"eqc/tracer"
	"eqc/x86"
)

// Verdicts, as DESIGN.md defines them.
const (
	Equivalent    = "equivalent"
	NotEquivalent = "not-equivalent"
	Unknown       = "unknown"
)

// Request names one check: a function of the source file against one of
// the target file.
type Request struct {
	SrcPath, SrcFunc string
	DstPath, DstFunc string
	// UB is the undefined-behaviour model asked for ("none", "all" or a
	// list). No UB assumption is modelled yet, so proofs never use one; a
	// confirmed difference is reported not-equivalent only under "none",
	// since otherwise its input might trigger UB the model would exclude.
	UB      string
	Timeout time.Duration
	// Context are more ELF files whose DWARF describes the globals the
	// pair names (their sizes and declared alignment): typically the
	// object that defines them. Facts are taken from them as from SRC and
	// DST, and listed among the proof's assumptions.
	Context []string
}

// Result is one check's answer: the fields of `eqc check --json`.
type Result struct {
	Function     string   `json:"function"`
	DstFunction  string   `json:"dst_function,omitempty"`
	Verdict      string   `json:"verdict"`
	Reason       string   `json:"reason"`
	Engine       string   `json:"engine"`
	WallS        float64  `json:"wall_s"`
	SMTQueries   int      `json:"smt_queries"`
	ProductNodes int      `json:"product_nodes"`
	ProductEdges int      `json:"product_edges"`
	Input        *Input   `json:"input,omitempty"`
	Observed     []string `json:"observed,omitempty"`
	Assumptions  []string `json:"assumptions,omitempty"`
}

// Input is a concrete input, as shown to the user.
type Input struct {
	Args    []uint64          `json:"args"`
	Globals map[string]string `json:"globals,omitempty"` // hex bytes
}

// Engine is the name of the engine that answers, in results.
const Engine = "static"

// Check runs one check. Bad input files are an error (the caller reports
// them and exits 65); everything else, including solver failures and
// timeouts, is a Result.
func Check(ctx context.Context, req Request, s prove.Solver) (Result, error) {
	start := time.Now()
	res := Result{Function: req.SrcFunc, Engine: Engine, Verdict: Unknown}
	if req.DstFunc != req.SrcFunc {
		res.DstFunction = req.DstFunc
	}
	p, err := LoadPair(req.SrcPath, req.SrcFunc, req.DstPath, req.DstFunc)
	if err != nil {
		return res, err
	}
	for _, path := range req.Context {
		f, err := x86.Open(path)
		if err != nil {
			return res, err
		}
		p.Context = append(p.Context, f)
	}
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	out := CheckLoopFree(ctx, p, s)
	if out.Reason == "unsupported:loops" {
		out = CheckLoops(ctx, p, s)
	}
	res.Verdict, res.Reason = out.Verdict, out.Reason
	res.SMTQueries, res.ProductNodes, res.ProductEdges = out.SMTQueries, out.ProductNodes, out.ProductEdges
	if out.Verdict == Equivalent {
		res.Assumptions = out.Assumptions
	}
	if ctx.Err() != nil && out.Verdict == Unknown {
		res.Reason = "timeout"
	}
	if cex := out.Counterexample; cex != nil && ctx.Err() == nil {
		confirm(ctx, req, cex, &res)
	}
	res.WallS = time.Since(start).Seconds()
	return res, nil
}

// confirm runs both binaries on the counterexample and turns a real
// difference into not-equivalent.
func confirm(ctx context.Context, req Request, cex *Counterexample, res *Result) {
	in := tracer.Input{Globals: cex.Globals()}
	for i := 0; i < 6; i++ {
		in.Args = append(in.Args, cex.Arg(i))
	}
	c, err := tracer.Confirm(ctx, req.SrcPath, req.SrcFunc, req.DstPath, req.DstFunc, in)
	var unknownGlobal *tracer.UnknownGlobalError
	for tries := 0; errors.As(err, &unknownGlobal) && tries < len(cex.Globals()); tries++ {
		// A global the code names but neither executable defines (e.g.
		// one the optimizer dropped): run without setting it.
		delete(in.Globals, unknownGlobal.Name)
		c, err = tracer.Confirm(ctx, req.SrcPath, req.SrcFunc, req.DstPath, req.DstFunc, in)
	}
	if err != nil {
		res.Reason += fmt.Sprintf("; not confirmed: running the counterexample failed: %v", err)
		return
	}
	shown := &Input{Args: c.Args}
	if len(in.Globals) > 0 {
		shown.Globals = map[string]string{}
		for name, data := range in.Globals {
			shown.Globals[name] = hex.EncodeToString(data)
		}
	}
	if !c.Differ {
		detail := c.Detail
		if detail == "" {
			detail = "both binaries showed the same observables"
		}
		res.Reason += "; not confirmed by real runs: " + detail
		return
	}
	res.Input, res.Observed = shown, c.Differences
	if req.UB != "none" {
		res.Reason = fmt.Sprintf("confirmed difference on an input not checked for undefined behaviour (UB model %q is not built yet; --ub none reports it as not-equivalent)", req.UB)
		return
	}
	res.Verdict, res.Reason = NotEquivalent, ""
}
