package pair

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"

	"eqc/inputs"
	"eqc/ir"
	"eqc/prove"
	"eqc/x86"
)

// Co-executions from counterexamples (Counter §3.5, at the entry). The
// seeded co-executions keep their integer arguments small, so a loop whose
// trip count grows with a value's magnitude (one pass per decimal digit of
// x) may never go around twice in them; the correlation then has no step
// for that target edge, and the proof fails with a model in which the edge
// is taken. The model's entry arguments are an input the proof is about:
// a co-execution from them (seeded like the others, its integer parameters'
// registers set from the model, its pointer parameters pointing to the
// bytes the model has there) joins the runs and the engine correlates
// again. It is data like every run: whatever it suggests, the solver
// decides. A proof that used such runs records them (prove.ExtraRun), so
// that the checker reruns the same co-executions.

// ExtraRunSeed is the seed of the nth run from a counterexample: past the
// seeded runs and the held-out ones, so no two runs share a seed.
func ExtraRunSeed(n int) int { return 64 + n }

// PointerParams are the entry values of the argument registers that carry
// pointer parameters (strings too) by the source's signature.
func (p *Pair) PointerParams() []ir.Term {
	regs, nparams := p.registerParams()
	var out []ir.Term
	for i, r := range x86.CalleeArgRegs[:min(nparams, len(x86.CalleeArgRegs))] {
		if regs[i].Pointer {
			out = append(out, p.SrcVar(x86.StateGPR0+r))
		}
	}
	return out
}

// integerParam says whether argument register i carries an integer
// parameter (not a pointer, not a string) by the source's signature.
func integerParam(regs []inputs.RegisterParam, nparams, i int) bool {
	return i < nparams && !regs[i].Pointer && !regs[i].String
}

// IntegerParamRegs are the indices (in x86.CalleeArgRegs) of the argument
// registers that carry integer parameters by the source's signature.
func (p *Pair) IntegerParamRegs() []int {
	regs, nparams := p.registerParams()
	var out []int
	for i := range regs {
		if integerParam(regs, nparams, i) {
			out = append(out, i)
		}
	}
	return out
}

// The bytes a run from a counterexample takes from the model where a
// pointer parameter points: at most maxPointee, at least minPointee.
const (
	maxPointee = 64
	minPointee = 16
)

// RunFromModel is the co-execution of seed whose integer parameters take
// their values from the solver's model m (a parameter the model leaves
// free keeps the seed's value), and whose pointer parameters point to the
// bytes the model gives where its pointers point (modelPointee; a string
// loop over digits needs digits, which random bytes seldom are). It reports false when the model sets
// nothing of the kind, or some run in runs starts from the same integer
// arguments and the model sets no pointee. The pointees are read from
// nodeMem when the model gives it (Outcome.ModelMem: is_blank_line's
// "target edge impossible" at its loop head is a model of that node's
// memory, with a blank where the string starts, and of an entry memory
// the query leaves free), else from the entry memory.
func (p *Pair) RunFromModel(m ir.Env, nodeMem ir.Term, seed int, runs []*CoRun) (prove.ExtraRun, bool) {
	regs, nparams := p.registerParams()
	seeded := p.newCoRun(seed, nil).Entry
	var mem *ir.Mem
	if nodeMem != ir.NoTerm {
		if v, err := ir.NewEvaluator(p.B, m).Eval(nodeMem); err == nil {
			mem = v.Mem()
		}
	}
	if v, ok := m.VarValue(p.B, p.SrcVar(x86.StateMem)); ok && mem == nil {
		mem = v.Mem()
	}
	out := prove.ExtraRun{Seed: seed}
	hasInt, hasPointee := false, false
	for i, r := range x86.CalleeArgRegs[:min(nparams, len(x86.CalleeArgRegs))] {
		idx := x86.StateGPR0 + r
		a := seeded[idx].BV().Uint64()
		v, set := m.VarValue(p.B, p.SrcVar(idx))
		pointee := ""
		switch {
		case integerParam(regs, nparams, i):
			hasInt = true
			if set {
				a = v.BV().Uint64()
			}
		case set && mem != nil:
			pointee, hasPointee = hex.EncodeToString(modelPointee(mem, v.BV().Uint64())), true
		}
		out.Args = append(out.Args, prove.Addr(a))
		out.Pointees = append(out.Pointees, pointee)
	}
	if !hasPointee {
		out.Pointees = nil
	}
	out.Shared = sharedOffsets(p, m, regs, nparams)
	shared := out.Shared != nil
	if !hasInt && !hasPointee && !shared {
		return prove.ExtraRun{}, false
	}
	for _, cr := range runs {
		same := !hasPointee && !shared
		for i, a := range out.Args {
			if integerParam(regs, nparams, i) && !sameArg(regs[i], cr.Entry[x86.StateGPR0+x86.CalleeArgRegs[i]].BV().Uint64(), uint64(a)) {
				same = false
				break
			}
		}
		if same {
			return prove.ExtraRun{}, false
		}
	}
	return out, true
}

// sharedOffsets returns where the model's pointer parameters (not
// strings) lie from the lowest of them, by argument register, when the
// model sets at least two of them and they all lie within
// prove.MaxSharedOffset of it (-1 for the others); else nil. A model of
// a vectorized loop's fallback for overlapping arrays (clang's saxpy enters its scalar loop
// with n even only from there) has its pointers a few elements apart,
// which the seeded runs' separate arrays never are.
func sharedOffsets(p *Pair, m ir.Env, regs []inputs.RegisterParam, nparams int) []int64 {
	var idx []int
	var vals []uint64
	for i, r := range x86.CalleeArgRegs[:min(nparams, len(x86.CalleeArgRegs))] {
		if !regs[i].Pointer || regs[i].String {
			continue
		}
		v, set := m.VarValue(p.B, p.SrcVar(x86.StateGPR0+r))
		if !set {
			continue
		}
		idx, vals = append(idx, i), append(vals, v.BV().Uint64())
	}
	if len(vals) < 2 {
		return nil
	}
	lo := slices.Min(vals)
	out := make([]int64, idx[len(idx)-1]+1)
	for i := range out {
		out[i] = -1 // an array of its own
	}
	for k, i := range idx {
		off := vals[k] - lo
		if off > prove.MaxSharedOffset {
			return nil
		}
		out[i] = int64(off)
	}
	return out
}

// sameArg says whether x and y are the same value of parameter r: an
// int's upper half is undefined, and no run of the function reads it.
func sameArg(r inputs.RegisterParam, x, y uint64) bool {
	if r.Narrow {
		return uint32(x) == uint32(y)
	}
	return x == y
}

// modelPointee is the bytes of mem from a to the last one within
// maxPointee that mem sets (a model's memory: a default byte and the
// bytes the solver chose), and at least minPointee: a model may give
// every byte one value (all '0': digits), which the seeded run's bytes
// should not hide.
func modelPointee(mem *ir.Mem, a uint64) []byte {
	n := minPointee
	for _, w := range mem.Written() {
		if off := w - a; off < maxPointee {
			n = max(n, int(off)+1)
		}
	}
	return mem.Read(a, n)
}

// CoExecuteExtra runs the co-execution r describes, as far as the seeded
// runs after the first go, or as far as the first when r is Long (keeping
// fewer visits, maxLongExtraVisits): a vectorized loop's long runs,
// several per round, took the memory cap (stencil3, clang-16), so the
// engines make at most one long run a round, and only one that
// LongRunEnds finds ends.
func (p *Pair) CoExecuteExtra(r prove.ExtraRun) *CoRun {
	if r.Long {
		return p.coExecute(r.Seed, runLimits{steps: longRunSteps, visits: maxLongExtraVisits}, &r)
	}
	return p.coExecute(r.Seed, runLimits{steps: shortRunSteps, visits: maxRunVisits}, &r)
}

// LongRunEnds says whether the long co-execution r describes (r.Long
// set) ends on both sides, found by a probe that keeps no states: a
// model's argument may send a loop around for ever (interleave's n near
// 2^31), and two engines' rounds of such runs, each keeping its visits'
// states, outgrew a 4 GiB check. A probe still going when ctx is done
// says no.
func (p *Pair) LongRunEnds(ctx context.Context, r prove.ExtraRun) bool {
	return !p.coExecute(r.Seed, runLimits{steps: longRunSteps, visits: maxLongExtraVisits, probe: true, ctx: ctx}, &r).Cut()
}

// Cut says whether a side's run stopped before the function's end: at the
// step cap, or at a fault.
func (cr *CoRun) Cut() bool { return !cr.Src.Ended || !cr.Dst.Ended }

// TakesNewTargetPath says whether cr's target run takes, between two
// anchors, a path no run of runs took. A product that failed on a model
// whose input does so failed for want of runs (clang's s162: the seeded
// runs all peel an odd count before the two-at-a-time epilogue, so no
// alignment pairs the even entry to it with its own number of source
// passes), and the model's co-execution is worth another round.
func TakesNewTargetPath(runs []*CoRun, cr *CoRun) bool {
	type step struct {
		from ir.NodeID
		path string
	}
	key := func(r *Run, i int) step {
		return step{r.Visits[i-1].Node, fmt.Sprint(r.Visits[i].Path)}
	}
	seen := map[step]bool{}
	for _, c := range runs {
		for i := 1; i < len(c.Dst.Visits); i++ {
			seen[key(c.Dst, i)] = true
		}
	}
	for i := 1; i < len(cr.Dst.Visits); i++ {
		if !seen[key(cr.Dst, i)] {
			return true
		}
	}
	return false
}

// Small arguments for a counterexample's run. Nothing in a failed query
// bounds the integer parameters, so its model may take a path no run took
// with a count near 2^30 (clang's addn enters its unrolled loop straight
// from the entry when n is a multiple of 4 below 8: the model had n =
// 2^30, with the arrays overlapping), whose run is cut before the
// function ends or, from the seeded arrays (apart), takes another path.
// Asked again with the parameters small, the solver mostly finds the same
// path with a count a short run reaches: first within ±4, then ±16, then
// smallinputs.go's bound, and off the arguments some run already took.
// Only the model changes: what the query decides does not.

// SmallModelTiers are the bounds a counterexample's model is asked again
// under, tightest first.
var SmallModelTiers = []int64{4, 16, SmallArgBound}

// SmallModelBounds returns the bounds that keep every integer parameter
// within bound and the integer arguments off those every run of runs
// started from (RunFromModel would not run such an input again), and
// whether m breaks them (when it does not, m is as good as a bounded one).
func (p *Pair) SmallModelBounds(m ir.Env, bound int64, runs []*CoRun) (ir.Term, bool) {
	b := p.B
	bounds := p.smallArgs(bound)
	if len(bounds) == 0 {
		return ir.NoTerm, false
	}
	regs, nparams := p.registerParams()
	for _, cr := range runs {
		var same []ir.Term
		for i, r := range x86.CalleeArgRegs[:min(nparams, len(x86.CalleeArgRegs))] {
			if integerParam(regs, nparams, i) {
				v, a := p.SrcVar(x86.StateGPR0+r), cr.Entry[x86.StateGPR0+r].BV()
				if regs[i].Narrow {
					v, a = b.Extract(v, 31, 0), a.Extract(31, 0)
				}
				same = append(same, b.Eq(v, b.ConstBV(a)))
			}
		}
		bounds = append(bounds, b.Not(b.And(same...)))
	}
	t := b.And(bounds...)
	v, err := ir.NewEvaluator(b, m).Eval(t)
	return t, err == nil && !v.Bool()
}
