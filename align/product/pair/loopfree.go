package pair

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"eqc/inputs"
	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
	"eqc/ub"
	"eqc/x86"
)

// Verdicts, as docs/design.md defines them.
const (
	Equivalent    = "equivalent"
	NotEquivalent = "not-equivalent"
	Unknown       = "unknown"
)

// This file is the first, loop-free form of the static engine: when
// neither function has a loop or a call, each collapses to one composite
// edge from entry to exit (and one to halt), the product program is that
// single pair of edges, and equivalence is three proof obligations over the
// shared entry state:
//
//   - both return normally on the same inputs (or both end abnormally);
//   - when both return, the observables agree: the return value at its
//     declared width, the stack pointer and callee-saved registers, and
//     every byte of memory outside the stack;
//   - (no calls, so the call sequences are both empty).
//
// The observable "memory outside the stack" is quantified over addresses;
// its negation, which is what the solver sees, is existential, so one fresh
// address variable a with a ∉ stack ∧ Ms[a] ≠ Md[a] keeps every query
// quantifier-free.

// StackLimit is the size of the region below the entry stack pointer that
// counts as the function's stack: memory there is dead after the return.
const StackLimit = ub.StackLimit

// maxPinnedBytes bounds the bytes of read-only objects whose contents the
// precondition states byte by byte, all objects together (the solver
// holds them in every query: with each object up to 4 KiB, gzip's main
// named tables enough for z3 to run out of memory on the precondition
// alone, and 8 KiB in all took it past 20 s).
const maxPinnedBytes = 4096

// maxPathTerms bounds the terms composing one function's paths may build.
const maxPathTerms = 2_000_000

// UnknownGlobalSize is the size assumed for a global whose size no DWARF
// states, for the assumption that globals lie outside the stack.
const UnknownGlobalSize = 1 << 20

// Outcome is the engine's answer for one pair.
type Outcome struct {
	Verdict string // "equivalent", "not-equivalent" or "unknown"
	Reason  string
	// Counterexample is set when an obligation failed with a model: the
	// concrete entry state the solver found (not yet confirmed).
	Counterexample *Counterexample
	// Model is the loop engine's: the solver's model of the obligation
	// that failed, when it failed Sat (a counterexample to the product,
	// not confirmed; the engine may run it, cexruns.go).
	Model ir.Env
	// ModelMem is the memory, over Model's variables, of the state the
	// failed obligation starts from (its edge's from-node; NoTerm for the
	// entry): a model of a loop head's state leaves the entry memory
	// free, and the bytes the failing path reads are in the node's.
	ModelMem ir.Term
	// ModelTakesNewEdge says the failed obligation was about a target
	// edge no run took (one the runs call infeasible): its model takes
	// that edge, which is worth a run (cexruns.go).
	ModelTakesNewEdge bool
	// Inputs are the loop engine's: the entry arguments of the models of
	// the products that failed (cexruns.go), inputs a real run may show
	// a difference on where the differential test's did not.
	Inputs []prove.ExtraRun
	// Obligations lists each proof obligation and how it ended.
	Obligations  []Obligation
	SMTQueries   int
	ProductNodes int
	ProductEdges int
	// Candidates and Invariants count the loop engine's invariant
	// conjuncts over the product's nodes: learned from the co-executions,
	// and kept by Houdini (of the product proved, or else of the first
	// one that failed).
	Candidates, Invariants int
	// Assumptions are the facts about the calling context every proof used.
	Assumptions []string
	// Proof is set with an "equivalent" verdict: what the proof rests on,
	// for the proof file (Check adds the file references).
	Proof *prove.ProofFile
	// Engine is the engine whose alignment a loop proof rests on.
	Engine string
	// PredicatesTried and CorrelationsTried count the alignments the two
	// loop engines tried: predicate assignments aligned, correlations
	// built into a product.
	PredicatesTried, CorrelationsTried int
	// CandidatesExpanded and CandidatesPruned are the best-first
	// correlator's counts (pair.Search).
	CandidatesExpanded, CandidatesPruned int
	// Counterexamples counts the solver's models the loop engine learned
	// from: each rebuilt an edge without a guess it refuted, or gave an
	// input for a co-execution or a native run (cexruns.go).
	Counterexamples int
	// HasLoops says the pair has a loop, which the loop-free engine
	// leaves to the loop engines (Reason "unsupported:loops").
	HasLoops bool
	// ProductFailed says Reason is why a product failed (to be built or
	// proved), not why no alignment was found.
	ProductFailed bool
}

// Obligation is one proof obligation: a query that must be Unsat.
type Obligation struct {
	Name   string
	Status smtlib.Status
	Reason string
}

// Counterexample is a solver model of the shared entry state on which an
// obligation fails.
type Counterexample struct {
	Obligation string
	Model      ir.Env
	pair       *Pair
}

// Arg returns the value of the i-th integer argument register in the
// counterexample.
func (c *Counterexample) Arg(i int) uint64 {
	v, ok := c.Model.VarValue(c.pair.B, c.pair.SrcVar(x86.StateGPR0+x86.CalleeArgRegs[i]))
	if !ok {
		return 0
	}
	return v.BV().Uint64()
}

// Pointee returns the bytes the counterexample's memory holds where its
// i-th integer argument register points (as RunFromModel takes them: the
// bytes the solver chose, 16 to 64 of them), nil without a memory.
func (c *Counterexample) Pointee(i int) []byte {
	memv, ok := c.Model.VarValue(c.pair.B, c.pair.SrcVar(x86.StateMem))
	if !ok {
		return nil
	}
	return modelPointee(memv.Mem(), c.Arg(i))
}

// StackArgs returns the n bytes of arguments above the return address in
// the counterexample's memory (StackArgBytes), as words; nil without a
// memory.
func (c *Counterexample) StackArgs(n int64) []uint64 {
	memv, ok := c.Model.VarValue(c.pair.B, c.pair.SrcVar(x86.StateMem))
	if !ok {
		return nil
	}
	rsp, ok := c.Model.VarValue(c.pair.B, c.pair.SrcVar(x86.StateGPR0+x86.RSP))
	if !ok {
		return nil
	}
	data := memv.Mem().Read(rsp.BV().Uint64()+8, int(n))
	var out []uint64
	for i := 0; i+8 <= len(data); i += 8 {
		out = append(out, binary.LittleEndian.Uint64(data[i:]))
	}
	return out
}

// Globals returns, for every global the pair's code names and whose size is
// known, its initial bytes in the counterexample.
func (c *Counterexample) Globals() map[string][]byte {
	p := c.pair
	memv, ok := c.Model.VarValue(p.B, p.SrcVar(x86.StateMem))
	if !ok {
		return nil
	}
	mem := memv.Mem()
	out := map[string][]byte{}
	for _, g := range p.GlobalVars() {
		name := p.B.VarName(g)
		if strings.HasPrefix(name, "&str:") {
			continue
		}
		size := p.GlobalSize(name)
		if size == 0 || size > 1<<20 {
			continue
		}
		addr, ok := c.Model.VarValue(p.B, g)
		if !ok {
			continue
		}
		out[strings.TrimPrefix(name, "&")] = mem.Read(addr.BV().Uint64(), int(size))
	}
	return out
}

// GlobalVars returns the address variables of globals the pair's code names.
func (p *Pair) GlobalVars() []ir.Term {
	var out []ir.Term
	seen := map[ir.Term]bool{}
	for _, side := range []Side{p.Src, p.Dst} {
		for t := range p.globalsOf(side) {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return p.B.VarName(out[i]) < p.B.VarName(out[j]) })
	return out
}

// globalsOf returns the address variables of globals one side's code names.
func (p *Pair) globalsOf(side Side) map[ir.Term]bool {
	var roots []ir.Term
	for _, e := range side.TFG.Edges {
		roots = append(roots, e.Cond, e.Fault)
		roots = append(roots, e.Transfer...)
	}
	out := map[ir.Term]bool{}
	for _, t := range p.B.PostOrder(roots...) {
		if p.B.Op(t) == ir.OpVar && strings.HasPrefix(p.B.VarName(t), "&") {
			out[t] = true
		}
	}
	return out
}

// sectionRefs are the offsets into section sym (address variable g) at
// which the code of the sides that read it refers to it, in increasing
// order. (When both do, readOnlyDataDiffers has checked that their files
// hold the same bytes.)
func (p *Pair) sectionRefs(g ir.Term, sym string) []uint64 {
	var out []uint64
	for _, side := range []Side{p.Src, p.Dst} {
		if !p.globalsOf(side)[g] {
			continue
		}
		for _, in := range side.Fn.Insts {
			for _, ref := range in.Refs {
				if ref.Symbol == sym && ref.Offset >= 0 && !ref.GOT {
					out = append(out, uint64(ref.Offset))
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// readOnlyFiles are the files whose contents of read-only object name the
// pair's code reads: those of the sides whose code names it (g). A section
// symbol (.rodata) names a different object in each file; when one side
// alone reads it (clang -O0's jump table is resolved as the code is
// lifted, -O2's lookup table is read), the other file's bytes do not
// matter.
func (p *Pair) readOnlyFiles(g ir.Term) []*x86.File {
	var out []*x86.File
	for _, side := range []Side{p.Src, p.Dst} {
		if p.globalsOf(side)[g] {
			out = append(out, side.File)
		}
	}
	return out
}

// HasLoops reports whether either function has a loop (a retreating edge).
func (p *Pair) HasLoops() bool {
	for _, side := range []Side{p.Src, p.Dst} {
		for _, e := range side.TFG.Edges {
			if side.TFG.Retreating(e) {
				return true
			}
		}
	}
	return false
}

// CheckLoopFree runs the loop-free engine on p. It answers "equivalent"
// only when every obligation is Unsat; a failed obligation gives "unknown"
// with the Counterexample for the caller to confirm by real runs.
func CheckLoopFree(ctx context.Context, p *Pair, s prove.Solver) *Outcome {
	out := &Outcome{Verdict: "unknown"}
	for _, side := range []Side{p.Src, p.Dst} {
		if len(side.TFG.Unsupported) > 0 {
			out.Reason = "unsupported:" + side.TFG.Unsupported[0]
			return out
		}
	}
	if p.HasLoops() {
		out.Reason, out.HasLoops = "unsupported:loops", true
		return out
	}
	if reason := p.readOnlyDataDiffers(); reason != "" {
		out.Reason = reason
		return out
	}
	b := p.B
	sub := ir.NewSubstituter(b, p.Entry)
	sides := make([]loopFreeRun, 2)
	var srcPaths []*ir.Edge // the source's exit and halt path sets
	calls := false
	for k, side := range []Side{p.Src, p.Dst} {
		g := side.TFG
		exit, ok := g.PathSetWithin(g.Entry, g.Exit, ir.PathOptions{}, maxPathTerms)
		var halt *ir.Edge
		if ok && g.Halt != ir.NoNode {
			halt, ok = g.PathSetWithin(g.Entry, g.Halt, ir.PathOptions{}, maxPathTerms)
		}
		if !ok {
			out.Reason = fmt.Sprintf("too-large: composing the paths of %s built more than %d terms", side.Fn.Name, maxPathTerms)
			return out
		}
		calls = calls || HasCalls(exit, halt)
		for _, e := range []*ir.Edge{exit, halt} {
			if e != nil && k == 0 {
				srcPaths = append(srcPaths, e)
			}
		}
		r := loopFreeRun{normal: b.False(), ends: b.False(), endMem: ir.NoTerm}
		if exit != nil {
			r.normal = b.And(exit.Cond, b.Not(exit.Fault))
			r.final = exit.Transfer
		}
		if halt != nil && halt.Transfer != nil {
			r.ends = b.And(halt.Cond, b.Not(halt.Fault))
			r.endMem = halt.Transfer[x86.StateMem]
		}
		if k == 1 {
			// Over the source's entry state, normalized: a path of one
			// edge is the lifter's terms as they are, (rsp − 8) + 8 and
			// all, and the frame-read split (framereads.go) sees a store
			// into the frame only at the entry rsp plus a constant (an
			// -O0 target: the sanitizer build's bridge to the source).
			simp := p.Src.TFG.Simplifier
			r.normal, r.ends = simp.Simplify(sub.Apply(r.normal)), simp.Simplify(sub.Apply(r.ends))
			if r.final != nil {
				r.final = simp.SimplifyAll(sub.ApplyAll(r.final))
			}
			if r.endMem != ir.NoTerm {
				r.endMem = simp.Simplify(sub.Apply(r.endMem))
			}
		}
		sides[k] = r
	}
	src, dst := sides[0], sides[1]
	out.ProductNodes, out.ProductEdges = 2, 1
	pre, assumptions := p.LoopFreePrecondition()
	out.Assumptions = assumptions
	if p.SmallArgs {
		pre = b.And(append([]ir.Term{pre}, p.smallArgs(SmallArgBound)...)...)
	}
	var skipFrameStores func()
	var taint *ub.FrameTaint
	if p.UsesOBVA() {
		hyps, misses, t := p.loopFreeOBVA(srcPaths)
		taint = t
		pre = b.And(append([]ir.Term{pre}, hyps...)...)
		// Every obligation but same-termination assumes the source
		// returned normally (or ended in a call that does not return, for
		// endMem), where the rewrite is exact.
		rsp0 := p.SrcVar(x86.StateGPR0 + x86.RSP)
		skipFrameStores = func() {
			src.final = ub.SkipFrameStores(b, p.Src.TFG.Simplifier, rsp0, misses, src.final)
			if src.endMem != ir.NoTerm {
				src.endMem = ub.SkipFrameStores(b, p.Src.TFG.Simplifier, rsp0, misses, []ir.Term{src.endMem})[0]
			}
		}
		skipFrameStores()
	}
	if hyps := p.loopFreeTBSA(srcPaths, taint); len(hyps) > 0 {
		pre = b.And(append([]ir.Term{pre}, hyps...)...)
	}
	if hyps := p.loopFreeRestrict(srcPaths, taint); len(hyps) > 0 {
		pre = b.And(append([]ir.Term{pre}, hyps...)...)
	}
	if hyps := p.loopFreeNull(srcPaths, taint); len(hyps) > 0 {
		pre = b.And(append([]ir.Term{pre}, hyps...)...)
	}
	var escaped []*escapedLocal
	if calls {
		// Locals whose addresses both sides pass to callees, moved to
		// one block each (escaped.go).
		var err error
		escaped, err = p.escapedLocals(src.roots(), dst.roots())
		if err == nil && len(escaped) > 0 {
			for k, r := range []*loopFreeRun{&src, &dst} {
				rl := p.relocator(k, escaped)
				if k == 0 {
					pre = rl.Rewrite(pre) // the OBVA hypotheses are the source's
				}
				r.relocate(rl)
			}
			premises, lines := p.escapePremises(escaped)
			pre = b.And(append([]ir.Term{pre}, premises...)...)
			assumptions = append(assumptions, lines...)
			out.Assumptions = assumptions
		}
		if err != nil {
			out.Reason = "unsupported:calls (" + err.Error() + ")"
			return out
		}
		// Every term the obligations read, in the calling convention's
		// model of callees (calls.go).
		cc := p.callConvention(p.SrcVar(x86.StateMem), escaped)
		pre = cc.Rewrite(pre)
		for _, r := range []*loopFreeRun{&src, &dst} {
			r.normal, r.ends = cc.Rewrite(r.normal), cc.Rewrite(r.ends)
			if r.final != nil {
				r.final = cc.RewriteAll(r.final)
			}
			if r.endMem != ir.NoTerm {
				r.endMem = cc.Rewrite(r.endMem)
			}
		}
		if len(escaped) > 0 {
			// The relocation's guards on addresses the rewrite shows
			// outside the stack region (settler): the precondition's
			// premises about where those lie are no guards, so they
			// stay as they are.
			st := p.settler(escaped)
			pre = st.settle(pre)
			for _, r := range []*loopFreeRun{&src, &dst} {
				r.normal, r.ends = st.settle(r.normal), st.settle(r.ends)
				if r.final != nil {
					final := make([]ir.Term, len(r.final))
					for i, t := range r.final {
						final[i] = st.settle(t)
					}
					r.final = final
				}
				if r.endMem != ir.NoTerm {
					r.endMem = st.settle(r.endMem)
				}
			}
		}
		var mems []ir.Term
		for _, r := range []loopFreeRun{src, dst} {
			if r.final != nil {
				mems = append(mems, r.final[x86.StateMem])
			}
			if r.endMem != ir.NoTerm {
				mems = append(mems, r.endMem)
			}
		}
		if reason := p.callFrameReason(cc, mems...); reason != "" {
			out.Reason = reason
			return out
		}
		// The model puts the frame's bytes back over each callee's
		// memory: reloads of spilled pointers after a call pass the
		// source's stores through them again. The bases of the OBVA
		// accesses that remain are entry-state terms, which mean what
		// they meant before the rewrite.
		if skipFrameStores != nil {
			skipFrameStores()
		}
	}
	// Reads through pointers past the frame's stores (framereads.go): an
	// exact rewrite, so every obligation may read the rewritten terms.
	guards := frameGuards{}
	guard := p.frameReadGuard(p.SrcVar(x86.StateGPR0+x86.RSP), p.Src.TFG.Simplifier, p.outsideStack(nil), guards)
	pre = guard(pre)
	for _, r := range []*loopFreeRun{&src, &dst} {
		r.normal, r.ends = guard(r.normal), guard(r.ends)
		if r.final != nil {
			final := make([]ir.Term, len(r.final)) // r.final may be the path set's own slice
			for i, t := range r.final {
				final[i] = guard(t)
			}
			r.final = final
		}
		if r.endMem != ir.NoTerm {
			r.endMem = guard(r.endMem)
		}
	}

	check := func(name string, goal ...ir.Term) bool {
		q := prove.Query{B: b, Assertions: append([]ir.Term{pre}, goal...)}
		if prove.DumpQuery != nil {
			prove.DumpQuery("loopfree-"+strings.ReplaceAll(name, " ", "_"), q)
		}
		t0 := time.Now()
		r, queries, lifted := guards.checkLifted(ctx, s, p.Src.TFG.Simplifier, q)
		if !lifted {
			r = s.Check(ctx, q)
			queries++
		}
		if prove.Trace != nil {
			prove.Trace("loop-free "+name, 0, 1, 0, r.Status, time.Since(t0))
		}
		if Debug {
			fmt.Fprintf(os.Stderr, "eqc: loop-free %s: %v in %v (%d queries, splits lifted: %v)\n", name, r.Status, time.Since(t0), queries, lifted)
		}
		out.SMTQueries += queries
		out.Obligations = append(out.Obligations, Obligation{Name: name, Status: r.Status, Reason: r.Reason})
		switch r.Status {
		case smtlib.Unsat:
			return true
		case smtlib.Sat:
			out.Reason = "counterexample: " + name
			out.Counterexample = &Counterexample{Obligation: name, Model: r.Model, pair: p}
		default:
			out.Reason = "solver-unknown: " + name + ": " + r.Reason
		}
		return false
	}
	// The assumptions must hold in some state, or every obligation below
	// would be discharged vacuously.
	if prove.DumpQuery != nil {
		prove.DumpQuery("loopfree-precondition", prove.Query{B: b, Assertions: []ir.Term{pre}})
	}
	r := p.Satisfiable(ctx, s, pre)
	out.SMTQueries++
	if r.Status != smtlib.Sat {
		out.Reason = "inconsistent-assumptions: the precondition is not satisfiable (" + r.Status.String() + " " + r.Reason + ")"
		return out
	}
	// Both return normally, or neither does; both end in a call that
	// does not return, or neither does (what is left is a fault on both
	// sides: the "both fail" clause).
	if !check("same-termination", b.Or(b.Xor(src.normal, dst.normal), b.Xor(src.ends, dst.ends))) {
		return out
	}
	if src.endMem != ir.NoTerm && dst.endMem != ir.NoTerm {
		ends := b.And(src.ends, dst.ends)
		if !check("memory at a call that does not return", append([]ir.Term{ends}, p.memoryDiffersOutside(src.endMem, dst.endMem, escaped, nil)...)...) {
			return out
		}
	}
	if src.final == nil || dst.final == nil {
		// Neither ever returns.
		return p.loopFreeProved(out, assumptions)
	}
	both := b.And(src.normal, dst.normal)
	for _, o := range p.Observables(src.final, dst.final) {
		if o.Name == returnAddress {
			rsp0, simp := p.SrcVar(x86.StateGPR0+x86.RSP), p.Src.TFG.Simplifier
			o.Src, o.Dst = returnAddressBytes(b, simp, rsp0, src.final, o.Src), returnAddressBytes(b, simp, rsp0, dst.final, o.Dst)
		}
		if !check(o.Name, both, b.Not(b.Eq(o.Src, o.Dst))) {
			return out
		}
	}
	if !check("memory outside the stack", append([]ir.Term{both}, p.memoryDiffersOutside(src.final[x86.StateMem], dst.final[x86.StateMem], escaped, nil)...)...) {
		return out
	}
	return p.loopFreeProved(out, assumptions)
}

// loopFreeRun is one side's whole run, over the shared entry state.
type loopFreeRun struct {
	normal ir.Term   // returns normally: the exit path is taken and nothing on it faults
	final  []ir.Term // state at the return, over the shared entry state
	// ends: the run ends in a call that does not return (exit,
	// abort, longjmp): the halt path is taken and nothing on it
	// faults. The call is observable like every call, through the
	// memory it leaves (its result in the calling convention's
	// model, a function of its arguments and what it reads), so
	// endMem, the memory after it, is compared.
	ends   ir.Term
	endMem ir.Term
}

// roots are the terms of r.
func (r *loopFreeRun) roots() []ir.Term {
	out := append([]ir.Term{r.normal, r.ends}, r.final...)
	if r.endMem != ir.NoTerm {
		out = append(out, r.endMem)
	}
	return out
}

// relocate moves r's escaped locals (escaped.go).
func (r *loopFreeRun) relocate(rl *relocator) {
	r.normal, r.ends = rl.Rewrite(r.normal), rl.Rewrite(r.ends)
	if r.final != nil {
		r.final = rl.RewriteAll(r.final)
	}
	if r.endMem != ir.NoTerm {
		r.endMem = rl.Rewrite(r.endMem)
	}
}

// loopFreeProved is the outcome when every obligation held: equivalent,
// unless the check considered small arguments only (smallinputs.go).
func (p *Pair) loopFreeProved(out *Outcome, assumptions []string) *Outcome {
	if p.SmallArgs {
		out.Reason = "no counterexample with small arguments"
		return out
	}
	out.Verdict, out.Reason = "equivalent", ""
	out.Proof = p.loopFreeProof(assumptions, out.Obligations)
	return out
}

// loopFreeOBVA are the OBVA model's hypotheses (ub.OBVAHypotheses) for the
// source's paths from entry to exit and to halt, over the entry state, and
// the addresses they place outside the frame (ub.SkipFrameStores):
// the frame taint comes from what the source's paths leave in memory
// (whether some path stores a frame address outside the frame), which it
// returns too.
func (p *Pair) loopFreeOBVA(paths []*ir.Edge) ([]ir.Term, ub.Misses, *ub.FrameTaint) {
	b := p.B
	rsp0 := p.SrcVar(x86.StateGPR0 + x86.RSP)
	var edges []ub.TaintEdge
	for _, e := range paths {
		edges = append(edges, ub.TaintEdge{Mem: e.Transfer[x86.StateMem]})
	}
	taint := ub.AnalyzeFrameTaintOBVA(b, rsp0, p.SrcVar(x86.StateMem), edges)
	var out []ir.Term
	misses := ub.Misses{}
	for _, e := range paths {
		in := p.loopFreeInput(e, taint)
		in.Objects = p.ObjectSizes()
		out = append(out, ub.OBVAMisses(in, misses)...)
	}
	return out, misses, taint
}

// loopFreeNull are the null model's hypotheses (ub.NullHypotheses) for
// the source's paths from entry to exit and to halt, over the entry
// state; taint is OBVA's frame taint (nil without the model).
func (p *Pair) loopFreeNull(paths []*ir.Edge, taint *ub.FrameTaint) []ir.Term {
	if !p.UsesNull() {
		return nil
	}
	var out []ir.Term
	for _, e := range paths {
		in := p.loopFreeInput(e, taint)
		in.Pointers = p.PointerParams()
		out = append(out, ub.NullHypotheses(in)...)
	}
	return out
}

// loopFreeInput is the source path set of e (a path from the entry) as
// the UB models' hypotheses take it, over the entry state, with OBVA's
// frame taint (nil without the model); no objects.
func (p *Pair) loopFreeInput(e *ir.Edge, taint *ub.FrameTaint) ub.OBVAInput {
	g := p.Src.TFG
	return ub.OBVAInput{B: p.B, Simp: g.Simplifier, G: g, Paths: e.Path, Taint: taint, Rsp0: p.SrcVar(x86.StateGPR0 + x86.RSP)}
}

// returnObservables are where a result of type ret is at the return, by
// the SysV classification: integers and pointers in rax (and rdx), floats
// in xmm0, a struct of at most 16 bytes or a complex number eightbyte by
// eightbyte in the next integer (rax, rdx) or SSE (xmm0, xmm1) register
// by its members' class (x86.Eightbytes), masked to the members' bytes
// (padding is unspecified), a struct or union returned in memory
// by the address in rax (the memory obligation covers the block). What
// it cannot classify (a small union, a struct with bit-fields, no DWARF)
// is every register a result can use: an unused one holding different
// garbage makes the check unknown, never wrongly equivalent. Comparing
// rax alone for a struct of two floats (returned in xmm0) once let a
// mutant be proved equivalent.
func (p *Pair) returnObservables(ret x86.Type, src, dst []ir.Term) []Observable {
	b := p.B
	gpr := func(r int) (ir.Term, ir.Term) { return src[x86.StateGPR0+r], dst[x86.StateGPR0+r] }
	xmm := func(i int) (ir.Term, ir.Term) {
		return b.Extract(src[x86.StateXMM0+i], 63, 0), b.Extract(dst[x86.StateXMM0+i], 63, 0)
	}
	low := func(s, d ir.Term, bytes int64) (ir.Term, ir.Term) {
		w := uint32(8 * bytes)
		return b.Extract(s, w-1, 0), b.Extract(d, w-1, 0)
	}
	obs := func(name string, s, d ir.Term) Observable { return Observable{name, s, d} }
	switch k, n := ret.Kind, ret.Size; {
	case k == x86.KindVoid:
		return nil
	case (k == x86.KindInt || k == x86.KindBool || k == x86.KindEnum || k == x86.KindPointer) && n > 0 && n <= 8:
		s, d := gpr(x86.RAX)
		s, d = low(s, d, n)
		return []Observable{obs("return value", s, d)}
	case k == x86.KindInt && n == 16:
		s, d := gpr(x86.RAX)
		s2, d2 := gpr(x86.RDX)
		return []Observable{obs("return value", s, d), obs("return value (rdx)", s2, d2)}
	case k == x86.KindFloat && (n == 4 || n == 8):
		s, d := xmm(0)
		s, d = low(s, d, n)
		return []Observable{obs("return value (xmm0)", s, d)}
	case (k == x86.KindStruct || k == x86.KindUnion) && n > 16:
		s, d := gpr(x86.RAX)
		return []Observable{obs("return value", s, d)}
	case k == x86.KindStruct || k == x86.KindComplex:
		if e, ok := ret.Eightbytes(); ok && e.Exact {
			return p.eightbyteObservables(e, src, dst)
		}
	}
	var out []Observable
	for _, r := range []int{x86.RAX, x86.RDX} {
		s, d := gpr(r)
		out = append(out, obs("return value ("+x86.GPRNames[r]+")", s, d))
	}
	for i := 0; i < 2; i++ {
		s, d := xmm(i)
		out = append(out, obs(fmt.Sprintf("return value (xmm%d)", i), s, d))
	}
	return out
}

// eightbyteObservables are a small struct's (or complex number's)
// eightbytes in their return registers by class, masked to its members'
// bytes.
func (p *Pair) eightbyteObservables(e x86.Eightbytes, src, dst []ir.Term) []Observable {
	b := p.B
	ints := []int{x86.RAX, x86.RDX}
	var out []Observable
	for i := range e.N {
		var s, d ir.Term
		var name string
		if e.SSE[i] {
			x := e.Reg(i)
			s, d = b.Extract(src[x86.StateXMM0+x], 63, 0), b.Extract(dst[x86.StateXMM0+x], 63, 0)
			name = fmt.Sprintf("return value bytes %d..%d (xmm%d)", 8*i, 8*i+8, x)
		} else {
			r := ints[e.Reg(i)]
			s, d = src[x86.StateGPR0+r], dst[x86.StateGPR0+r]
			name = fmt.Sprintf("return value bytes %d..%d (%s)", 8*i, 8*i+8, x86.GPRNames[r])
		}
		if e.Mask[i] == 0 {
			continue // padding only: its register is taken, nothing compared
		}
		if e.Mask[i] != ^uint64(0) {
			mc := b.Const(64, e.Mask[i])
			s, d = b.BVAnd(s, mc), b.BVAnd(d, mc)
		}
		out = append(out, Observable{name, s, d})
	}
	return out
}

type Observable struct {
	Name     string
	Src, Dst ir.Term
}

// Observables are the register parts of the state both callers see at the
// return: the return value at its declared width (all of rax when there is
// no DWARF), the stack pointer and the callee-saved registers.
func (p *Pair) Observables(src, dst []ir.Term) []Observable {
	b := p.B
	var out []Observable
	ret := x86.Type{Kind: x86.KindUnknown, Size: 8}
	if d := p.Src.Fn.Func.Debug; d != nil {
		ret = d.Return
	}
	out = append(out, p.returnObservables(ret, src, dst)...)
	for _, r := range []int{x86.RSP, x86.RBX, x86.RBP, 12, 13, 14, 15} {
		i := x86.StateGPR0 + r
		out = append(out, Observable{x86.GPRNames[r] + " at return", src[i], dst[i]})
	}
	// Where ret went: the 8 bytes just below the final rsp. They lie in
	// the stack region the memory obligation ignores, so a target that
	// overwrote its return address would otherwise go unnoticed.
	retAddr := func(st []ir.Term) ir.Term {
		rsp := st[x86.StateGPR0+x86.RSP]
		return b.Select(st[x86.StateMem], b.Sub(rsp, b.Const(64, 8)), 8)
	}
	out = append(out, Observable{returnAddress, retAddr(src), retAddr(dst)})
	return out
}

// returnAddress names the observable of the 8 bytes below the final rsp.
const returnAddress = "return address"

// returnAddressBytes is read, state st's return address observable,
// read byte by byte through the stores of st's memory when st's final rsp
// is the entry rsp0 + 8, so that the 8 bytes read are those at rsp0
// (slotBytes). Read from whole memories through every path's stores and
// calls, z3 took 30 s on bzip2's BZ2_bzCompressEnd (four calls, a store
// through a pointer) and gave up after 50 s on bc's auto_var. Else it is
// read.
func returnAddressBytes(b *ir.Builder, simp *ir.Simplifier, rsp0 ir.Term, st []ir.Term, read ir.Term) ir.Term {
	if base, off := b.BaseOffset(simp.Simplify(st[x86.StateGPR0+x86.RSP])); base != rsp0 || off != 8 {
		return read
	}
	sb := &slotBytes{b: b, simp: simp, rsp0: rsp0, strip: stackStoreStripper(b, rsp0, 0), memo: map[slotByte]ir.Term{}}
	var out ir.Term
	for i := range int64(8) {
		v := sb.at(st[x86.StateMem], i)
		if out == ir.NoTerm {
			out = v
		} else {
			out = b.Concat(v, out)
		}
	}
	return simp.Simplify(out)
}

// slotBytes reads the bytes of the return address slot, [rsp0, rsp0+8),
// out of memory terms: each through the memory's stores and choices
// (ByteAt), the frames' stores below rsp0 dropped; and where a byte comes
// from a read of an earlier memory at the slot — the calling convention
// puts the slot's bytes back after each call as a read of the memory at
// the call (x86.CallConvention's replay) — through that memory's stores
// too, so that no read of a whole memory is left but of one no store
// made.
type slotBytes struct {
	b     *ir.Builder
	simp  *ir.Simplifier
	rsp0  ir.Term
	strip func(ir.Term) ir.Term
	memo  map[slotByte]ir.Term
}

type slotByte struct {
	mem ir.Term
	i   int64
}

// at is byte i of the slot in memory m.
func (sb *slotBytes) at(m ir.Term, i int64) ir.Term {
	k := slotByte{m, i}
	if v, ok := sb.memo[k]; ok {
		return v
	}
	b := sb.b
	m = sb.strip(m)
	a := sb.simp.Simplify(b.Add(sb.rsp0, b.Const(64, uint64(i))))
	v := b.Select(m, a, 1)
	if op := b.Op(m); op == ir.OpStore || op == ir.OpIte {
		v = sb.resolve(ByteAt(b, sb.simp, m, a, map[ir.Term]ir.Term{}), map[ir.Term]ir.Term{})
	}
	sb.memo[k] = v
	return v
}

// resolve rewrites in t every byte read of a stored or chosen memory at
// the slot (a one-byte select, or a byte extracted from a wider one) into
// that memory's byte (at).
func (sb *slotBytes) resolve(t ir.Term, memo map[ir.Term]ir.Term) ir.Term {
	if r, ok := memo[t]; ok {
		return r
	}
	b := sb.b
	r := t
	slot := func(sel ir.Term, byteIdx int64) (ir.Term, bool) {
		m := b.Arg(sel, 0)
		if op := b.Op(m); op != ir.OpStore && op != ir.OpIte {
			return ir.NoTerm, false
		}
		base, off := b.BaseOffset(b.Arg(sel, 1))
		j := int64(off) + byteIdx
		if base != sb.rsp0 || j < 0 || j >= 8 {
			return ir.NoTerm, false
		}
		return sb.at(m, j), true
	}
	switch b.Op(t) {
	case ir.OpSelect:
		if n, _ := b.Params(t); n == 1 {
			if v, ok := slot(t, 0); ok {
				r = v
			}
		}
	case ir.OpExtract:
		hi, lo := b.Params(t)
		if x := b.Arg(t, 0); b.Op(x) == ir.OpSelect && lo%8 == 0 && hi == lo+7 {
			if v, ok := slot(x, int64(lo/8)); ok {
				r = v
			}
		}
	}
	if r == t && len(b.Args(t)) > 0 {
		args := b.Args(t)
		var out []ir.Term
		for i, x := range args {
			if b.Sort(x).Kind == ir.KindMem {
				continue // a callee's view, a read's memory: bytes only
			}
			if y := sb.resolve(x, memo); y != x {
				if out == nil {
					out = append([]ir.Term(nil), args...)
				}
				out[i] = y
			}
		}
		if out != nil {
			r = sb.simp.Simplify(b.WithArgs(t, out))
		}
	}
	memo[t] = r
	return r
}

// Precondition states what every calling context guarantees, as one term
// over the shared entry state, and lists it for the proof: the stack
// pointer is 8 mod 16 (the call pushed the return address onto a 16-aligned
// stack) with room for the stack region below it; every global the code
// names lies outside that region, does not wrap around, and is disjoint
// from every other.
func (p *Pair) Precondition() (ir.Term, []string) {
	b := p.B
	rsp := p.SrcVar(x86.StateGPR0 + x86.RSP)
	c := func(v uint64) ir.Term { return b.Const(64, v) }
	facts := []ir.Term{
		b.Eq(b.BVAnd(rsp, c(15)), c(8)),
		b.Uge(rsp, c(StackLimit)),
		b.Ult(rsp, c(^uint64(0)-15)),
	}
	assumptions := []string{
		"rsp ≡ 8 (mod 16) at entry",
		fmt.Sprintf("the stack region [rsp−%#x, rsp+8) does not wrap around", StackLimit),
	}
	narrow, lines := p.narrowParamFacts()
	facts = append(facts, narrow...)
	assumptions = append(assumptions, lines...)
	type global struct {
		addr ir.Term
		size uint64
	}
	var globals []global
	for _, g := range p.GlobalVars() {
		name := b.VarName(g)
		size := p.GlobalSize(name)
		if size == 0 {
			size = UnknownGlobalSize
		}
		globals = append(globals, global{g, size})
		end := b.Add(g, c(size))
		facts = append(facts,
			b.Ule(g, end), b.Not(b.Eq(end, c(0))), // no wraparound (end may be 2^64 only as 0; exclude it)
			b.Or(b.Ule(end, b.Sub(rsp, c(StackLimit))), b.Uge(g, b.Add(rsp, c(8)))))
		assumptions = append(assumptions, fmt.Sprintf("global %s (%d bytes) lies outside the stack region", name, size))
	}
	// An absolute 32-bit relocation (R_X86_64_32, 32S) only links when the
	// symbol's address plus offset fits the field, which the code then
	// uses zero- or sign-extended: a fact about every linked binary.
	fits := map[string]bool{}
	for _, side := range []Side{p.Src, p.Dst} {
		for _, in := range side.Fn.Insts {
			for _, ref := range in.Refs {
				var ext func(ir.Term, uint32) ir.Term
				switch ref.RelocType {
				case elf.R_X86_64_32S:
					ext = b.SignExt
				case elf.R_X86_64_32:
					ext = b.ZeroExt
				default:
					continue
				}
				g, ok := b.LookupVar(x86.GlobalAddrVar(ref.Symbol))
				key := fmt.Sprintf("%s%+d/%v", ref.Symbol, ref.Offset, ref.RelocType)
				off := uint64(ref.Offset)
				if ref.HasLiteral && !ref.GOT {
					// A string literal's address is its own variable.
					g, ok = b.LookupVar(x86.LiteralAddrVar(ref.Literal))
					key, off = fmt.Sprintf("%q/%v", ref.Literal, ref.RelocType), 0
				}
				if !ok || fits[key] {
					continue
				}
				fits[key] = true
				v := b.Add(g, c(off))
				facts = append(facts, b.Eq(ext(b.Extract(v, 31, 0), 32), v))
				assumptions = append(assumptions, fmt.Sprintf("%s%+d fits its %v relocation field", ref.Symbol, ref.Offset, ref.RelocType))
			}
		}
	}
	// Constants the binaries fix: read-only objects hold their file
	// contents in every run (readOnlyDataDiffers has checked that both
	// files agree on them), a relocated field the address it names.
	mem0 := p.SrcVar(x86.StateMem)
	pinned := 0
	for _, g := range globals {
		name := b.VarName(g.addr)
		if strings.HasPrefix(name, "&str:") {
			continue
		}
		for _, f := range p.readOnlyFiles(g.addr) {
			sym := strings.TrimPrefix(name, "&")
			if _, ok := f.SectionObject(sym, 0); ok {
				// A section named as a whole: the objects in it the
				// code refers to (reading one pins no other table's
				// bytes, nor needs the other tables' relocations named).
				for _, off := range p.sectionRefs(g.addr, sym) {
					d, _ := f.SectionObject(sym, off)
					if !d.ReadOnly || d.Bytes == nil || pinned+len(d.Bytes) > maxPinnedBytes || !d.SameContents(d) {
						continue
					}
					pinned += len(d.Bytes)
					facts = append(facts, pinnedContents(b, mem0, b.Add(g.addr, c(off)), d)...)
					assumptions = append(assumptions, fmt.Sprintf("read-only %s%+d holds its %d bytes from %s", name, off, len(d.Bytes), f.Path))
				}
				break
			}
			d, ok := f.DataSymbol(sym)
			// SameContents(d): every relocation names its target.
			if !ok || !d.ReadOnly || d.Bytes == nil || pinned+len(d.Bytes) > maxPinnedBytes || !d.SameContents(d) {
				continue
			}
			pinned += len(d.Bytes)
			facts = append(facts, pinnedContents(b, mem0, g.addr, d)...)
			assumptions = append(assumptions, fmt.Sprintf("read-only %s holds its %d bytes from %s", name, len(d.Bytes), f.Path))
			break
		}
	}
	for _, g := range globals {
		name := b.VarName(g.addr)
		if al, why := p.globalAlign(name); al > 1 {
			facts = append(facts, b.Eq(b.BVAnd(g.addr, c(uint64(al-1))), c(0)))
			assumptions = append(assumptions, fmt.Sprintf("global %s is %d-byte aligned (%s)", name, al, why))
		}
	}
	for i := range globals {
		for j := i + 1; j < len(globals); j++ {
			x, y := globals[i], globals[j]
			facts = append(facts, b.Or(b.Ule(b.Add(x.addr, c(x.size)), y.addr), b.Ule(b.Add(y.addr, c(y.size)), x.addr)))
		}
	}
	if len(globals) > 1 {
		assumptions = append(assumptions, "distinct globals are disjoint")
	}
	var gs []resultApart
	for _, g := range globals {
		gs = append(gs, resultApart{g.addr, g.size, "global " + b.VarName(g.addr)})
	}
	rf, rl := p.resultBlockFacts(gs)
	return b.And(append(facts, rf...)...), append(assumptions, rl...)
}

// StackArgBytes is how many bytes of arguments the caller of a function
// of signature sig leaves above the return address, as far as they are
// known exactly: parameters in memory (a struct over 16 bytes) and
// scalars past the registers, in order, each in whole eightbytes, up to
// the first whose place is not certain (an alignment over 8, a size
// DWARF does not give).
func StackArgBytes(sig *x86.FuncDebug) int64 {
	var n int64
	for _, prm := range inputs.Classify(sig).Params {
		switch {
		case prm.Kind == inputs.Memory && prm.Type.Size > 0 && prm.Type.MembersExact():
			n += (prm.Type.Size + 7) &^ 7
		case prm.Kind == inputs.Memory:
			return n
		case prm.Kind != inputs.Float && prm.Reg >= len(x86.CalleeArgRegs):
			n += 8
		}
	}
	return n
}

// resultApart is a region the block a function returns its result in is
// apart from (resultBlockFacts).
type resultApart struct {
	addr ir.Term
	size uint64
	name string
}

// resultBlockFacts state, for a function returning a struct of over 16
// bytes (in the block whose address the caller passes in rdi), that the
// block is apart from the function's stack region, from the globals
// (others) and from what each pointer parameter points to (as many bytes
// as its pointee type has): the block is the caller's result object,
// which the callee reaches only through that address (clang marks the
// hidden parameter sret noalias; gcc's caller passes a temporary when the
// destination may be otherwise reached). Without them, `struct big r =
// *p; r.c += 1; return r;` compiled to copy *p straight into the block
// has a counterexample where p is the block.
func (p *Pair) resultBlockFacts(others []resultApart) ([]ir.Term, []string) {
	f := p.Src.Fn.Func
	if f == nil || f.Debug == nil || f.Debug.Return.ReturnClass() != x86.ReturnInMemory || f.Debug.Return.Size <= 0 {
		return nil, nil
	}
	b := p.B
	c := func(v uint64) ir.Term { return b.Const(64, v) }
	size := uint64(f.Debug.Return.Size)
	res := p.SrcVar(x86.StateGPR0 + x86.RDI)
	rsp := p.SrcVar(x86.StateGPR0 + x86.RSP)
	limit := uint64(StackLimit)
	facts := []ir.Term{
		b.Ule(res, b.Add(res, c(size))), b.Not(b.Eq(b.Add(res, c(size)), c(0))),
		// rsp plus −StackLimit, not rsp − StackLimit: ub.Disjoint then
		// states a range of rsp − rdi, the difference the reads through
		// the block's stores compare (prove/readoverwrite.go).
		ub.Disjoint(b, res, uint32(size), b.Add(rsp, c(-limit)), StackLimit+8),
	}
	var names []string
	for _, o := range others {
		if o.size == 0 || o.size > 1<<31 {
			continue
		}
		facts = append(facts, ub.Disjoint(b, res, uint32(size), o.addr, uint32(o.size)))
		names = append(names, o.name)
	}
	if n := StackArgBytes(f.Debug); n > 0 {
		facts = append(facts, ub.Disjoint(b, res, uint32(size), b.Add(rsp, c(8)), uint32(n)))
		names = append(names, fmt.Sprintf("the %d bytes of stack arguments", n))
	}
	for _, prm := range inputs.Classify(f.Debug).Params {
		n := prm.Type.PointeeSize
		if prm.Kind != inputs.Pointer || prm.Reg >= len(x86.CalleeArgRegs) || n <= 0 || n > 1<<20 {
			continue
		}
		ptr := p.SrcVar(x86.StateGPR0 + x86.CalleeArgRegs[prm.Reg])
		facts = append(facts, ub.Disjoint(b, res, uint32(size), ptr, uint32(n)))
		names = append(names, fmt.Sprintf("*%s (%d bytes)", prm.Name, n))
	}
	line := fmt.Sprintf("abi: the %d-byte result block (rdi) does not wrap around and lies apart from the stack region", size)
	if len(names) > 0 {
		line += ", " + strings.Join(names, ", ")
	}
	return facts, []string{line}
}

// MemoryDiffersOutsideStack returns the assertions of a byte at a fresh
// address outside the stack region [rsp−StackLimit, rsp+8) of the entry
// rsp where the memories ms and md differ: the negated memory observable,
// quantifier-free. Stores into the stack region are stripped first (they
// cannot change a byte outside it); simp, when set, normalizes the reads.
func (p *Pair) MemoryDiffersOutsideStack(ms, md ir.Term, simp *ir.Simplifier) []ir.Term {
	b := p.B
	a := b.Var("obligation.addr", ir.BVSort(64))
	rsp := p.SrcVar(x86.StateGPR0 + x86.RSP)
	// a in [rsp−StackLimit, rsp+8), modulo 2^64: the same as an
	// unsigned comparison with each end under the precondition (the
	// region does not wrap), and stated over a − rsp like the facts.
	inStack := b.Not(ub.Disjoint(b, a, 1, b.Sub(rsp, b.Const(64, StackLimit)), StackLimit+8))
	strip := stackStoreStripper(b, rsp, 8)
	bytes := map[ir.Term]ir.Term{}
	rs, rd := ByteAt(b, simp, strip(ms), a, bytes), ByteAt(b, simp, strip(md), a, bytes)
	return []ir.Term{b.Not(inStack), b.Not(b.Eq(rs, rd))}
}

// stackStoreStripper returns a function that removes from a memory term
// every store that lies wholly inside the stack region [rsp−StackLimit,
// rsp+hi), which is sound for reading the memory at any address outside that
// region (the only reads the memory obligation makes): such a store never
// changes a byte there. It spares the solver the -O0 frame's stores.
func stackStoreStripper(b *ir.Builder, rsp ir.Term, hi int64) func(ir.Term) ir.Term {
	memo := map[ir.Term]ir.Term{}
	inStack := func(addr ir.Term, n uint32) bool {
		off, ok := int64(0), false
		switch {
		case addr == rsp:
			ok = true
		case b.Op(addr) == ir.OpAdd && b.Arg(addr, 0) == rsp && b.Op(b.Arg(addr, 1)) == ir.OpConst:
			off, ok = int64(b.ConstValue(b.Arg(addr, 1)).Uint64()), true
		}
		return ok && off >= -StackLimit && off+int64(n) <= hi
	}
	var strip func(ir.Term) ir.Term
	strip = func(m ir.Term) ir.Term {
		if r, ok := memo[m]; ok {
			return r
		}
		r := m
		switch b.Op(m) {
		case ir.OpStore:
			n, _ := b.Params(m)
			inner := strip(b.Arg(m, 0))
			if inStack(b.Arg(m, 1), n) {
				r = inner
			} else if inner != b.Arg(m, 0) {
				r = b.Store(inner, b.Arg(m, 1), n, b.Arg(m, 2))
			}
		case ir.OpIte:
			x, y := strip(b.Arg(m, 1)), strip(b.Arg(m, 2))
			if x == y {
				r = x
			} else if x != b.Arg(m, 1) || y != b.Arg(m, 2) {
				r = b.Ite(b.Arg(m, 0), x, y)
			}
		}
		memo[m] = r
		return r
	}
	return strip
}

// pinnedContents are the facts that read-only object d at addr holds its
// contents in memory mem: each byte no relocation patches, and each
// relocated field the address of its target (plus its addend; the low 32
// bits of it in a 32-bit field, which the linker checks it fits).
func pinnedContents(b *ir.Builder, mem, addr ir.Term, d x86.DataSymbol) []ir.Term {
	c := func(v uint64) ir.Term { return b.Const(64, v) }
	patched := make([]bool, len(d.Bytes))
	var facts []ir.Term
	for _, r := range d.Relocs {
		n := uint32(4)
		if r.Type == elf.R_X86_64_64 {
			n = 8
		}
		if r.Off+uint64(n) > uint64(len(d.Bytes)) {
			continue // SameContents took it; it cannot happen
		}
		v := b.Add(b.Var(r.Target, ir.BVSort(64)), c(uint64(r.Addend)))
		if n == 4 {
			v = b.Extract(v, 31, 0)
		}
		facts = append(facts, b.Eq(b.Select(mem, b.Add(addr, c(r.Off)), n), v))
		for k := range uint64(n) {
			patched[r.Off+k] = true
		}
	}
	for i, v := range d.Bytes {
		if !patched[i] {
			facts = append(facts, b.Eq(b.Select(mem, b.Add(addr, c(uint64(i))), 1), b.Const(8, uint64(v))))
		}
	}
	return facts
}

// readOnlyDataDiffers returns why the pair cannot be checked when both
// files define an object the code names and its read-only contents may
// differ between them. Both sides read every global from one shared initial
// memory, which is right for writable data (its contents at the call are
// part of the common input) but not for constants each binary fixes. A
// table of addresses (relocated: string literals, functions, other
// objects) is the same in both files when its entries point to the same
// symbols and literals, which both sides name alike, whatever their
// addresses in each file (x86.DataSymbol.SameContents).
func (p *Pair) readOnlyDataDiffers() string {
	for _, g := range p.GlobalVars() {
		name, ok := strings.CutPrefix(p.B.VarName(g), "&")
		if !ok || strings.HasPrefix(name, "str:") {
			continue // string literals are named by their contents
		}
		if len(p.readOnlyFiles(g)) < 2 {
			continue // one side's code reads it: pinned to that file's bytes
		}
		ds, okS := p.Src.File.DataSymbol(name)
		dd, okD := p.Dst.File.DataSymbol(name)
		if !okS || !okD || (!ds.ReadOnly && !dd.ReadOnly) {
			continue
		}
		if ds.ReadOnly != dd.ReadOnly || !ds.SameContents(dd) {
			return "read-only-data: " + name + " may hold different constants in the two files"
		}
	}
	return ""
}

// AnchorOf names node v of g in a proof file.
func AnchorOf(g *ir.TFG, v ir.NodeID) prove.Anchor {
	if v == ir.NoNode {
		return prove.Anchor{Kind: "none"}
	}
	n := g.Nodes[v]
	return prove.Anchor{PC: prove.Addr(n.PC), Kind: n.Kind.String()}
}

// LoopFreeGraph is the loop-free engine's product: the two entries and the
// two exits, joined by the one edge of both functions' whole bodies.
func (p *Pair) LoopFreeGraph() prove.Graph {
	sg, dg := p.Src.TFG, p.Dst.TFG
	exit := 1
	return prove.Graph{
		Nodes: []prove.ProofNode{
			{ID: 0, Src: AnchorOf(sg, sg.Entry), Dst: AnchorOf(dg, dg.Entry)},
			{ID: 1, Src: AnchorOf(sg, sg.Exit), Dst: AnchorOf(dg, dg.Exit)},
		},
		Edges: []prove.ProofEdge{{From: 0, To: &exit, DstTo: AnchorOf(dg, dg.Exit),
			SrcPath: &prove.PathSpec{To: AnchorOf(sg, sg.Exit), Arrivals: 1, Mu: 0}}},
	}
}

// loopFreeProof is the loop-free engine's proof of p.
func (p *Pair) loopFreeProof(assumptions []string, obligations []Obligation) *prove.ProofFile {
	pf := prove.NewProofFile(prove.EngineLoopFree)
	pf.Assumptions = assumptions
	pf.Product = p.LoopFreeGraph()
	pf.Obligations = ObligationNames(obligations)
	return pf
}

func ObligationNames(obs []Obligation) []string {
	out := make([]string, 0, len(obs))
	for _, o := range obs {
		out = append(out, o.Name)
	}
	return out
}
