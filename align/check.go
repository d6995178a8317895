package align

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"eqc/align/product/pair"
	"eqc/inputs"
	"eqc/prove"
	"eqc/tracer"
	"eqc/ub"
	"eqc/x86"
)

// Verdicts, as docs/design.md defines them.
const (
	Equivalent    = pair.Equivalent
	NotEquivalent = pair.NotEquivalent
	Unknown       = pair.Unknown
)

// Request names one check: a function of the source file against one of
// the target file.
type Request struct {
	SrcPath, SrcFunc string
	DstPath, DstFunc string
	// UB is the undefined-behaviour model spec asked for (ub.Parse: "none",
	// "all", a comma-separated list of models, or all,-MODEL...; "" is
	// "all"). Proofs assume OBVA, and the sio, shift and div checks of a
	// source built with clang's sanitizer traps (loop-free engine); a
	// confirmed difference is reported not-equivalent under any model once
	// the UB monitor (tracer.ConfirmUnder) has found no undefined behaviour
	// of the model in the source's run on the input.
	UB string
	// Witness, when set, is the source built with its signed-overflow,
	// shift and division checks as traps (bench.TargetUBSan), defining
	// SrcFunc: a difference's input has sio or shift undefined behaviour
	// exactly when the witness traps on it (tracer.Confirmer.Witness),
	// where the UB monitor alone must count every wrapping add as one.
	Witness string
	// Engine is the loop engine asked for: "static", "data" or "auto"
	// ("" is "auto").
	Engine string
	// Correlator is the static engine's correlator: "bt" (backtracking
	// over the co-executions) or "ceg" (best-first, counterexample-guided);
	// "" is DefaultCorrelator.
	Correlator string
	Timeout    time.Duration
	// Context are more ELF files whose DWARF describes the globals the
	// pair names (their sizes and declared alignment): typically the
	// object that defines them. Facts are taken from them as from SRC and
	// DST, and listed among the proof's assumptions.
	Context []string
	// Phase, if set, is told each phase of the check as it starts
	// ("lifting", "loop-free proof", "differential test", "loop engines",
	// "confirming a counterexample"), for a progress line.
	Phase func(string) `json:"-"`
}

// phase reports a phase of the check to r.Phase.
func (r Request) phase(name string) {
	if r.Phase != nil {
		r.Phase(name)
	}
}

// Result is one check's answer: the fields of `eqc check --json`.
type Result struct {
	Function    string  `json:"function"`
	DstFunction string  `json:"dst_function,omitempty"`
	Verdict     string  `json:"verdict"`
	Reason      string  `json:"reason"`
	Engine      string  `json:"engine"`
	WallS       float64 `json:"wall_s"`
	SMTQueries  int     `json:"smt_queries"`
	// SMTS is the time the check's solver calls took, summed (the two
	// engines of a race query at once, so it may exceed WallS).
	SMTS         float64 `json:"smt_s"`
	ProductNodes int     `json:"product_nodes"`
	ProductEdges int     `json:"product_edges"`
	// AlignmentPredicatesTried counts the data-driven engine's predicate
	// assignments aligned; CorrelationsTried the alignments built into a
	// product (both engines).
	AlignmentPredicatesTried int `json:"alignment_predicates_tried,omitempty"`
	CorrelationsTried        int `json:"correlations_tried,omitempty"`
	// CandidatesExpanded and CandidatesPruned count the best-first
	// correlator's partial alignments expanded and candidates the runs
	// ruled out (--correlator ceg).
	CandidatesExpanded int `json:"candidates_expanded,omitempty"`
	CandidatesPruned   int `json:"candidates_pruned,omitempty"`
	// Counterexamples counts the solver's models the loop engines learned
	// from (Outcome).
	Counterexamples int `json:"counterexamples,omitempty"`
	// Candidates and Invariants count the loop engine's invariant
	// conjuncts: learned, and kept by Houdini (Outcome).
	Candidates int      `json:"candidates,omitempty"`
	Invariants int      `json:"invariants,omitempty"`
	Input      *Input   `json:"input,omitempty"`
	Observed   []string `json:"observed,omitempty"`
	// Counterexample is the same difference in the source's terms
	// (explain.go): parameters and memory by name and type, values in
	// decimal, both sides' observables by name.
	Counterexample *Counterexample `json:"counterexample,omitempty"`
	Assumptions    []string        `json:"assumptions,omitempty"`
	// TestVectors counts the inputs both binaries were run on before the
	// proof search (differential testing of functions with loops).
	TestVectors int `json:"test_vectors,omitempty"`
	// The size of the two functions: instructions (assembly lines) and
	// natural loops; and the composite edges of the target's TFG, between
	// its entry, loop heads and exit (ir.TFG.CompositeEdges).
	ALOCSrc  int `json:"aloc_src,omitempty"`
	ALOCDst  int `json:"aloc_dst,omitempty"`
	LoopsSrc int `json:"loops_src,omitempty"`
	LoopsDst int `json:"loops_dst,omitempty"`
	// Call sites of the two functions (tail calls included), so that
	// reports can tell functions with calls from those without.
	CallsSrc          int `json:"calls_src,omitempty"`
	CallsDst          int `json:"calls_dst,omitempty"`
	CompositeEdgesDst int `json:"composite_edges_dst,omitempty"`
	// CacheHits counts the queries the solver cache answered (set by the
	// caller that owns the cache).
	CacheHits int `json:"cache_hits,omitempty"`
	// ProofPath is the proof file written for an equivalent verdict
	// (eqc check --proof).
	ProofPath string `json:"proof,omitempty"`
	// Proof is what an equivalent verdict rests on, for a proof file.
	Proof *prove.ProofFile `json:"-"`
	// Witness is the source's sanitizer build an equivalent verdict was
	// proved through (witnessproof.go), or "".
	Witness string `json:"witness,omitempty"`
}

// Input is a concrete input, as shown to the user.
type Input struct {
	Args      []uint64 `json:"args"`
	FloatArgs []uint64 `json:"float_args,omitempty"` // low quadwords of xmm0.., as bit patterns
	// Globals and Memory (heap buffers by address) hold hex bytes from the
	// start; bytes past those shown are zero.
	Globals map[string]string `json:"globals,omitempty"`
	Memory  map[string]string `json:"memory,omitempty"`
}

// Check runs one check. Bad input files are an error (the caller reports
// them and exits 65); everything else, including solver failures and
// timeouts, is a Result.
func Check(ctx context.Context, req Request, s prove.Solver) (Result, error) {
	ts := &timedSolver{Solver: s}
	start := time.Now()
	res, err := check(ctx, req, ts)
	if err == nil {
		throughWitness(ctx, req, ts, start, &res)
	}
	res.SMTS = time.Duration(ts.ns.Load()).Seconds()
	return res, err
}

// timedSolver adds up the time its solver takes to answer (Result.SMTS);
// safe for the race's concurrent engines.
type timedSolver struct {
	prove.Solver
	ns atomic.Int64
}

func (t *timedSolver) Check(ctx context.Context, q prove.Query) prove.Result {
	t0 := time.Now()
	r := t.Solver.Check(ctx, q)
	t.ns.Add(int64(time.Since(t0)))
	return r
}

func check(ctx context.Context, req Request, s prove.Solver) (Result, error) {
	start := time.Now()
	// The engine that answers: the one whose alignment a loop proof
	// rests on, else the one asked for (a function without loops needs no
	// alignment, and either engine checks it alike).
	res := Result{Function: req.SrcFunc, Engine: req.Engine, Verdict: Unknown}
	if res.Engine == "" {
		res.Engine = EngineAuto
	}
	if req.DstFunc != req.SrcFunc {
		res.DstFunction = req.DstFunc
	}
	if req.Engine != "" {
		if err := ValidateEngine(req.Engine); err != nil {
			return res, err
		}
	}
	if err := ValidateCorrelator(req.Correlator); err != nil {
		return res, err
	}
	spec := req.UB
	if spec == "" {
		spec = "all"
	}
	models, err := ub.Parse(spec)
	if err != nil {
		return res, err
	}
	req.phase("lifting")
	p, err := pair.Load(req.SrcPath, req.SrcFunc, req.DstPath, req.DstFunc, req.Context...)
	if err != nil {
		return res, err
	}
	p.SetModels(models)
	res.ALOCSrc, res.ALOCDst = len(p.Src.Fn.Insts), len(p.Dst.Fn.Insts)
	res.LoopsSrc, res.LoopsDst = len(p.Src.Fn.Loops), len(p.Dst.Fn.Loops)
	res.CallsSrc, res.CallsDst = len(p.Src.Fn.CallSites), len(p.Dst.Fn.CallSites)
	res.CompositeEdgesDst = p.Dst.TFG.CompositeEdges()
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	req.phase("loop-free proof")
	out := pair.CheckLoopFree(ctx, p, s)
	hasLoops := out.HasLoops // the loop engines' outcome does not say
	var diff diffOutcome
	if hasLoops {
		// Real runs before the proof search: a loop proof that fails
		// yields no input to confirm, and a search that cannot correlate
		// an inequivalent pair may spend the whole timeout failing.
		req.phase("differential test")
		diff = diffTest(ctx, req, models, p)
		res.TestVectors = diff.runs
		if pair.Debug {
			fmt.Fprintf(os.Stderr, "eqc: %s\n", diff)
		}
		if diff.c != nil {
			reportDifference(ctx, req, models, p, diff.in, diff.c, &res)
			res.WallS = time.Since(start).Seconds()
			return res, nil
		}
		req.phase("loop engines")
		out = checkLoops(ctx, p, req.Engine, req.Correlator, s)
	}
	res.Verdict, res.Reason = out.Verdict, out.Reason
	res.SMTQueries, res.ProductNodes, res.ProductEdges = out.SMTQueries, out.ProductNodes, out.ProductEdges
	res.AlignmentPredicatesTried, res.CorrelationsTried = out.PredicatesTried, out.CorrelationsTried
	res.CandidatesExpanded, res.CandidatesPruned = out.CandidatesExpanded, out.CandidatesPruned
	res.Counterexamples = out.Counterexamples
	res.Candidates, res.Invariants = out.Candidates, out.Invariants
	if out.Engine != "" {
		res.Engine = out.Engine
	}
	if out.Verdict == Equivalent {
		res.Assumptions = out.Assumptions
		if out.Proof != nil { // named by content, for eqc check --proof
			if err := completeProof(out.Proof, req); err != nil {
				return res, err
			}
			res.Proof = out.Proof
		}
	}
	if ctx.Err() != nil && out.Verdict == Unknown {
		res.Reason = "timeout"
	}
	if hasLoops && out.Verdict == Unknown && len(out.Inputs) > 0 && ctx.Err() == nil {
		// The failed products' counterexamples are inputs the seeded
		// ones may have missed (a loop that runs long only on large
		// values): real runs on them, watched for the model's UB.
		req.phase("differential test on the counterexamples")
		d := diffTestOn(ctx, req, models, p, modelInputs(p, out.Inputs))
		if pair.Debug {
			fmt.Fprintf(os.Stderr, "eqc: on the loop engines' %d counterexamples: %s\n", len(out.Inputs), d)
		}
		if d.c != nil {
			diff = d
		}
	}
	if hasLoops && out.Verdict == Unknown && diff.ubNote != "" {
		res.Reason += "; differential test: " + diff.ubNote
	}
	if cex := out.Counterexample; cex != nil && ctx.Err() == nil {
		c := confirm(ctx, req, models, p, cex, &res)
		if res.Input == nil && c != nil && c.UB != nil && !hasLoops && ctx.Err() == nil {
			// The solver's input has undefined behaviour the model
			// excludes; ask again among small arguments (pair's
			// smallinputs.go), which only looks for a counterexample.
			p.SmallArgs = true
			again := pair.CheckLoopFree(ctx, p, s)
			p.SmallArgs = false
			res.SMTQueries += again.SMTQueries
			if again.Counterexample != nil && ctx.Err() == nil {
				res.Reason += "; again with small arguments"
				confirm(ctx, req, models, p, again.Counterexample, &res)
			}
		}
	}
	if !hasLoops && out.Verdict == Unknown && res.Input == nil && out.Counterexample != nil && ctx.Err() == nil {
		// The solver's counterexample did not show in real runs (it may
		// point an argument at the frame, or at nothing): the inputs of
		// the differential test are valid calling contexts, and a
		// function's mutant usually differs on one of them.
		diff = diffTest(ctx, req, models, p)
		res.TestVectors = diff.runs
		if diff.c == nil && diff.ubNote != "" {
			res.Reason += "; differential test: " + diff.ubNote
		}
	}
	if diff.c != nil && res.Input == nil {
		// A difference not reported as not-equivalent (its replay failed)
		// is still shown; a proof of equivalence it contradicts is not
		// trusted: the input was checked for the UB the model excludes
		// (OBVA needs a pointer into the callee's frame, which the
		// differential test's inputs never are; a sanitizer check the
		// source reaches makes its run fault, which is no difference),
		// so one of the two is wrong.
		if res.Verdict == Equivalent {
			res.Verdict, res.Assumptions, res.Proof = Unknown, nil, nil
			res.Reason = "internal-inconsistency: proved equivalent, but real runs differ on an input"
			res.Input, res.Observed = shownInput(diff.in, diff.c), diff.c.Differences
			res.Counterexample = explain(p, diff.in, diff.c)
		} else {
			reportDifference(ctx, req, models, p, diff.in, diff.c, &res)
		}
	}
	res.WallS = time.Since(start).Seconds()
	return res, nil
}

// confirm runs both binaries on the counterexample and turns a real
// difference into not-equivalent. It returns the comparison (nil when the
// runs failed).
func confirm(ctx context.Context, req Request, models ub.Set, p *pair.Pair, cex *pair.Counterexample, res *Result) *tracer.Confirmation {
	req.phase("confirming a counterexample")
	in := tracer.Input{Globals: cex.Globals()}
	for i := 0; i < 6; i++ {
		in.Args = append(in.Args, cex.Arg(i))
	}
	// Arguments on the stack (a struct over 16 bytes by value, scalars
	// past the registers): the words the model puts above the return
	// address, the run's stack arguments.
	if f := p.Src.Fn.Func; f != nil && f.Debug != nil {
		if n := pair.StackArgBytes(f.Debug); n > 0 {
			in.Args = append(in.Args, cex.StackArgs(n)...)
		}
	}
	// A pointer parameter gets the bytes the solver put where it points,
	// moved into a buffer of the run's heap (the differential test's):
	// the solver's address itself (0x80000, a frame slot) is seldom
	// mapped, and the source's run would fault where the target's
	// difference shows.
	regions, params := diffShape(p)
	for _, pm := range params {
		if pm.buf < 0 || pm.Kind != inputs.Pointer || pm.Reg >= len(in.Args) {
			continue
		}
		if data := cex.Pointee(pm.Reg); data != nil {
			addr := regions[pm.buf].addr
			in.Args[pm.Reg] = addr
			in.Mem = append(in.Mem, tracer.MemInit{Addr: addr, Data: data})
		}
	}
	if why := punnedPointers(p, in.Args); why != "" && models.Has(ub.TBSA) {
		res.Reason += "; not confirmed: the input breaks the model: " + why
		return nil
	}
	if why := overlappingRestrict(p, in.Args); why != "" && models.Has(ub.Restrict) {
		res.Reason += "; not confirmed: the input breaks the model: " + why
		return nil
	}
	cf, err := tracer.NewConfirmer(ctx, req.SrcPath, req.SrcFunc, req.DstPath, req.DstFunc)
	var c *tracer.Confirmation
	if err == nil {
		defer cf.Close()
		cf.UB, cf.Witness = models, req.Witness
		c, err = confirmOn(ctx, cf, &in, 0, nil)
		cf.UB = 0
	}
	if err != nil {
		res.Reason += fmt.Sprintf("; not confirmed: running the counterexample failed: %v", err)
		return nil
	}
	if !c.Differ {
		detail := c.Detail
		if detail == "" {
			detail = "both binaries showed the same observables"
		}
		res.Reason += "; not confirmed by real runs: " + detail
		return c
	}
	in, c = minimizeWatched(ctx, cf, p, models, in, c)
	reportDifference(ctx, req, models, p, in, c, res)
	return c
}

// minimizeBudget bounds the time minimizing a counterexample takes,
// besides a quarter of what is left of the check. It is a safety net:
// minimizeTries bounds the runs, and a budget that cut them short on a
// loaded machine would make the input shown depend on the load.
const minimizeBudget = 5 * time.Second

// minimizeContext is ctx bounded for one minimization (minimizeBudget).
func minimizeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	budget := minimizeBudget
	if dl, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(dl)/4)
	}
	return context.WithTimeout(ctx, budget)
}

// minimizeWatched minimizes a confirmed difference on in (minimize) with
// every candidate's source run watched for the undefined behaviour models
// exclude (a loop-free function's run is short, so each watch is cheap),
// within minimizeBudget and a quarter of what is left of the check.
func minimizeWatched(ctx context.Context, cf *tracer.Confirmer, p *pair.Pair, models ub.Set, in tracer.Input, c *tracer.Confirmation) (tracer.Input, *tracer.Confirmation) {
	mctx, cancel := minimizeContext(ctx)
	defer cancel()
	cf.UB = models
	defer func() { cf.UB = 0 }()
	return minimize(mctx, cf, p, in, c)
}

// reportDifference records a difference real runs confirmed on in: the
// input and the differing observables, and the verdict not-equivalent,
// but only when an independent replay (replay) shows a difference too, on
// which the source's run has no undefined behaviour under models.
func reportDifference(ctx context.Context, req Request, models ub.Set, p *pair.Pair, in tracer.Input, c *tracer.Confirmation, res *Result) {
	res.Input, res.Observed = shownInput(in, c), c.Differences
	res.Counterexample = explain(p, in, c)
	if nanPayloadOnly(p, in, c) {
		res.Verdict = Unknown
		res.Reason = "nan-payload: the runs differ only in which NaN a floating-point result holds (two NaN operands of an addition or multiplication the compiler swapped); C leaves NaN payloads unspecified"
		return
	}
	// The UB monitor does not follow restrict pointers: an input that
	// points one near another pointer argument is left unconfirmed
	// (overlappingRestrict), whichever search found it.
	if why := overlappingRestrict(p, in.Args); why != "" && models.Has(ub.Restrict) {
		res.Verdict = Unknown
		res.Reason = "difference on an input the model excludes: " + why
		return
	}
	// A monitored run of the source already found no UB of these models
	// on in (the differential test's): the replay checks the difference.
	if why := replay(ctx, req, models&^c.UBChecked, in); why != "" {
		res.Verdict = Unknown
		res.Reason = "difference not reproduced by an independent replay: " + why
		return
	}
	for _, side := range [][2]string{{req.SrcPath, req.SrcFunc}, {req.DstPath, req.DstFunc}} {
		if callee := sameObjectCallee(side[0], side[1]); callee != "" {
			res.Verdict = Unknown
			res.Reason = "same-object-callee: the difference shows, but native runs replace " + callee + ", which " + side[0] + " defines, by a stub, and the other build may run its code inlined"
			return
		}
	}
	if names := p.StaticLocalsNamedApart(); names != "" {
		res.Verdict = Unknown
		res.Reason = "static-locals-named-apart: the difference shows, but the two files name a function's static objects differently (" + names + "; compilers do: gcc `x.0`, clang `f.x`), so the runs place and key them apart"
		return
	}
	if staticFunction(req.DstPath, req.DstFunc) {
		res.Verdict = Unknown
		res.Reason = "static-function: the difference shows, but a static function's callers all sit in its file, and the compiler may have specialized its interface to them (a constant or dead argument removed, clang's IPSCCP and dead-argument elimination): its callers are what to check"
		return
	}
	res.Verdict, res.Reason = NotEquivalent, ""
}

// sameObjectCallee names a function that name, in the file at path, calls
// and the file itself defines (a section-relative call target counts as
// one), or "".
func sameObjectCallee(path, name string) string {
	f, err := x86.Open(path)
	if err != nil {
		return ""
	}
	fn, err := f.Function(name)
	if err != nil {
		return ""
	}
	for _, cs := range fn.CallSites {
		if !cs.HasCallee || cs.Callee.GOT {
			continue
		}
		callee := strings.TrimSuffix(cs.Callee.Symbol, "@plt")
		if strings.HasPrefix(callee, ".") {
			return callee
		}
		if _, err := f.Function(callee); err == nil {
			return callee
		}
	}
	return ""
}

// staticFunction reports whether the function name of the file at path
// has local binding (C's static): a correct compilation need not keep
// its interface.
func staticFunction(path, name string) bool {
	f, err := x86.Open(path)
	if err != nil {
		return false
	}
	for _, fn := range f.Functions {
		if fn.Name == name {
			return fn.Local
		}
	}
	return false
}

// replay runs both binaries on in once more, each linked afresh into a new
// process (tracer.Confirm), so that no state of the runs that found the
// difference (a process reused across inputs, a restored snapshot) can
// have made it, and the source's run is checked for undefined behaviour
// under models; it returns why the difference did not survive, or "".
func replay(ctx context.Context, req Request, models ub.Set, in tracer.Input) string {
	if ctx.Err() != nil {
		// The check's time is up, but a verdict is owed its replay.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
	}
	cf, err := tracer.NewConfirmer(ctx, req.SrcPath, req.SrcFunc, req.DstPath, req.DstFunc)
	var c *tracer.Confirmation
	if err == nil {
		defer cf.Close()
		cf.UB, cf.Witness = models, req.Witness
		c, err = cf.Confirm(ctx, in)
	}
	switch {
	case err != nil:
		return err.Error()
	case !c.Differ:
		if c.Detail != "" {
			return c.Detail
		}
		return "both binaries showed the same observables"
	}
	return ""
}

// shownInput is in as the user sees it: the arguments as both runs got
// them, and memory in hex without its trailing zero bytes (the bytes past
// those shown are zero).
func shownInput(in tracer.Input, c *tracer.Confirmation) *Input {
	shown := &Input{Args: c.Args, FloatArgs: in.FloatArgs}
	hexOf := func(data []byte) string {
		n := len(data)
		for n > 0 && data[n-1] == 0 {
			n--
		}
		return hex.EncodeToString(data[:n])
	}
	if len(in.Globals) > 0 {
		shown.Globals = map[string]string{}
		for name, data := range in.Globals {
			shown.Globals[name] = hexOf(data)
		}
	}
	for _, m := range in.Mem {
		if shown.Memory == nil {
			shown.Memory = map[string]string{}
		}
		where := fmt.Sprintf("%#x", m.Addr)
		if m.Symbol != "" {
			where = fmt.Sprintf("%s+%d", m.Symbol, m.Offset)
		}
		shown.Memory[where] = hexOf(m.Data)
	}
	return shown
}

// completeProof names the binaries and context files of req in pf by path
// and SHA-256, and the UB model.
func completeProof(pf *prove.ProofFile, req Request) error {
	ref := func(path, fn string) (prove.FileRef, error) {
		h, err := prove.HashFile(path)
		return prove.FileRef{Path: path, Function: fn, SHA256: h}, err
	}
	var err error
	if pf.Source, err = ref(req.SrcPath, req.SrcFunc); err != nil {
		return err
	}
	if pf.Target, err = ref(req.DstPath, req.DstFunc); err != nil {
		return err
	}
	pf.Context = nil
	for _, c := range req.Context {
		r, err := ref(c, "")
		if err != nil {
			return err
		}
		pf.Context = append(pf.Context, r)
	}
	pf.UB = req.UB
	if pf.UB == "" {
		pf.UB = "all"
	}
	return nil
}
