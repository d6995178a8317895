package paa

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/x86"
)

// The data-driven engine's alignment (PLDI'19 §4.1–4.3 and §4.6). Instead
// of pairing each target step with the source position where the two
// memories agree (the static engine, align/correlate), it guesses
// alignment predicates
//
//	cs·vs − cd·vd − e = k
//
// with vs a source variable and vd a target variable (a general register
// or a stack slot), cs, cd ∈ {1, 2, 4, 8, 16} and one of them 1, e 0 or a
// value fixed for the run (an argument's entry value, a global's
// address), and k a constant every run agrees on, and aligns every target arrival at a loop anchor with the first
// source arrival from the last aligned one on where the predicate holds.
// The source may stay where it is (the target leaves a peeled or an
// alignment loop for its main loop while the source is mid-loop).
//
// Beyond the paper (as the Counter paper, §2, shows is needed): one
// predicate per target loop anchor, since a vector loop and its scalar
// tail keep the index in different registers. The paper has e = 0 only:
// its test inputs put arrays at fixed addresses, ours place them apart
// per run, so a pointer compares with an index only relative to the
// argument or global it started from.
//
// An aligned pair of consecutive target arrivals gives a product edge
// and its source path set (the anchor, which arrival, how many loop
// passes). A predicate whose runs give one edge two different path sets
// is rejected (the PAA would need two transitions whose conditions the
// path sets cannot tell apart), and so is one whose path sets do not
// accept the test runs, co-executions learned nothing from (§4.3). What
// survives is an alignment like the static correlator's, and goes through
// the same product, learning and proof: the runs only suggest.
//
// Heap equality is part of every predicate (the paper's first round):
// walk compares the memories along each path set's first uses.

// Bounds of the predicate search.
const (
	testRuns         = 4    // co-executions kept out of learning, for testing PAAs
	maxKSourceVisits = 4000 // source arrivals a run offers values of k from
	maxPerAnchor     = 24   // predicates kept per target loop anchor
	maxAssignments   = 600  // predicate assignments aligned before giving up
	maxProbes        = 400  // candidate predicates probed per anchor
)

var predicateCoefficients = [][2]uint64{{1, 1}, {1, 2}, {1, 4}, {1, 8}, {1, 16}, {2, 1}, {4, 1}, {8, 1}, {16, 1}}

// alignVar is a variable an alignment predicate names: a general register
// or, when slot.size > 0, a stack slot at an offset from the entry rsp.
type alignVar struct {
	reg  int
	slot pair.Slot
}

func (v alignVar) value(st []ir.Value, rsp0 uint64) uint64 {
	if v.slot.Size > 0 {
		return pair.ReadSlot(st[x86.StateMem].Mem(), rsp0, v.slot)
	}
	return st[x86.StateGPR0+v.reg].BV().Uint64()
}

func (v alignVar) String() string {
	if v.slot.Size > 0 {
		return v.slot.String()
	}
	return x86.GPRNames[v.reg]
}

// predicate is one alignment predicate: cs·src − cd·dst ± base = k, where
// base is 0 (base.name == "") or a value fixed for the run: an argument
// register's value at the entry, a global's address (added when the
// target's side holds the pointer, subtracted when the source's does), or
// a target register the loop does not change (clang's word-at-a-time
// strlen walks an offset from an aligned pointer it computed before the
// loop: the source's pointer is their sum).
type predicate struct {
	src, dst alignVar
	cs, cd   uint64
	base     predicateBase
	k        uint64
}

// predicateBase is a value fixed for a run that a pointer is compared
// relative to: an argument register at the entry (reg ≥ 0), a global's
// address (global, a "&name" variable) or a target variable invariant at
// the anchor (dst, read at the target's arrival); plus says it is added.
type predicateBase struct {
	name   string
	reg    int
	global string
	dst    *alignVar
	plus   bool
}

// baseValue is base b in run cr at the target's arrival j.
func (ps *search) baseValue(b predicateBase, cr *pair.CoRun, j int) uint64 {
	var v uint64
	switch {
	case b.name == "":
		return 0
	case b.global != "":
		v = cr.Globals[b.global]
	case b.dst != nil:
		v = ps.varValues(cr, 1, *b.dst)[j]
	default:
		v = cr.Entry[x86.StateGPR0+b.reg].BV().Uint64()
	}
	if b.plus {
		return v
	}
	return -v
}

// predicateBases are the bases a predicate may subtract: none, the
// argument registers that carry parameters, the globals the pair names.
func (ps *search) predicateBases() []predicateBase {
	p := ps.p
	out := []predicateBase{{}}
	_, nparams := p.ArgBits()
	for _, plus := range []bool{true, false} {
		for _, r := range x86.CalleeArgRegs[:min(nparams, len(x86.CalleeArgRegs))] {
			out = append(out, predicateBase{name: "entry." + x86.GPRNames[r], reg: r, plus: plus})
		}
		for _, g := range p.GlobalVars() {
			name := p.B.VarName(g)
			out = append(out, predicateBase{name: name, reg: -1, global: name, plus: plus})
		}
	}
	return out
}

// eval is the predicate's left side for a source value sv, a target value
// dv and the base's value bv.
func (pd *predicate) eval(sv, dv, bv uint64) uint64 {
	return pd.cs*sv - pd.cd*dv + bv
}

// holds reports whether pd holds between source arrival i and target
// arrival j of cr, from the values cached per run.
func (ps *search) holds(pd *predicate, cr *pair.CoRun, i, j int) bool {
	return pd.eval(ps.varValues(cr, 0, pd.src)[i], ps.varValues(cr, 1, pd.dst)[j], ps.baseValue(pd.base, cr, j)) == pd.k
}

// search is one predicate search over a pair's co-executions: the pair,
// and the values of the variables predicates name at every arrival of
// each run, computed once.
type search struct {
	p      *pair.Pair
	values map[valuesKey][]uint64
}

// varValues is v's value at every arrival of one side of cr (0 the
// source, 1 the target), computed once: the search asks for them
// thousands of times, and a stack slot is a read of a long store chain.
func (ps *search) varValues(cr *pair.CoRun, side int, v alignVar) []uint64 {
	key := valuesKey{cr, side, v}
	if vals, ok := ps.values[key]; ok {
		return vals
	}
	r := cr.Src
	if side == 1 {
		r = cr.Dst
	}
	vals := make([]uint64, len(r.Visits))
	for i, vis := range r.Visits {
		vals[i] = v.value(vis.State, cr.RSP0)
	}
	if ps.values == nil {
		ps.values = map[valuesKey][]uint64{}
	}
	ps.values[key] = vals
	return vals
}

// valuesKey names a cached column of variable values: a run, a side and
// a variable.
type valuesKey struct {
	cr   *pair.CoRun
	side int
	v    alignVar
}

func (pd *predicate) String() string {
	term := func(c uint64, v alignVar) string {
		if c == 1 {
			return v.String()
		}
		return fmt.Sprintf("%d·%s", c, v)
	}
	s := "src." + term(pd.cs, pd.src) + " − dst." + term(pd.cd, pd.dst)
	switch {
	case pd.base.name == "":
	case pd.base.plus:
		s += " + " + pd.base.name
	default:
		s += " − " + pd.base.name
	}
	return s + fmt.Sprintf(" = %d", int64(pd.k))
}

// cost orders predicates of one k: the paper's form (no base, unit
// coefficients) first.
func (pd *predicate) cost() int {
	c := 0
	switch {
	case pd.base.dst != nil:
		c += 3
	case pd.base.name != "":
		c += 2
	}
	if pd.cs != 1 || pd.cd != 1 {
		c++
	}
	return c
}

// dataSearch is what the predicate search reports besides its alignments.
type dataSearch struct {
	tried  int    // predicate assignments aligned
	reason string // why no alignment came out, when none did
	// chosen names, per alignment returned, its predicates.
	chosen []string
}

// dataAlignments searches for up to limit alignments by alignment
// predicates over the training runs, each accepted by the test runs:
// first with the memories of aligned states required to agree (at the
// first few arrivals per anchor), then, when that finds none, without
// (PLDI'19 §4.6: a target that stores ahead of the source, or later,
// still aligns by its counters; the proof decides either way).
func (ps *search) dataAlignments(ctx context.Context, train, test []*pair.CoRun, limit int) ([]pair.Alignment, dataSearch) {
	out, ds := ps.dataRound(ctx, train, test, limit, true)
	if len(out) > 0 || ctx.Err() != nil {
		return out, ds
	}
	out, ds2 := ps.dataRound(ctx, train, test, limit, false)
	ds2.tried += ds.tried
	if len(out) == 0 {
		ds2.reason = ds.reason + " (nor without heap equality)"
		if ctx.Err() != nil {
			ds2.reason = "timeout"
		}
	}
	return out, ds2
}

// dataRound is one round of dataAlignments' search, with heap equality
// required of aligned states or not.
func (ps *search) dataRound(ctx context.Context, train, test []*pair.CoRun, limit int, heap bool) ([]pair.Alignment, dataSearch) {
	p := ps.p
	var ds dataSearch
	sg, dg := p.Src.TFG, p.Dst.TFG
	// The target's loop anchors the runs reach, in address order.
	seen := map[ir.NodeID]bool{}
	for _, cr := range train {
		for _, v := range cr.Dst.Visits[1:] {
			if !pair.IsEnd(dg, v.Node) {
				seen[v.Node] = true
			}
		}
	}
	var anchors []ir.NodeID
	for a := range seen {
		anchors = append(anchors, a)
	}
	sort.Slice(anchors, func(i, j int) bool { return dg.Nodes[anchors[i]].PC < dg.Nodes[anchors[j]].PC })
	if len(anchors) == 0 {
		ds.reason = "too-few-vectors: no run reaches a loop of the target"
		return nil, ds
	}
	srcVars := ps.changingVars(train, 0, sg, nil)
	bases := ps.predicateBases()
	choices := make([][]*predicate, len(anchors))
	index := map[ir.NodeID]int{}
	for i, a := range anchors {
		index[a] = i
		choices[i] = ps.anchorPredicates(train, a, srcVars, bases, heap)
		if pair.Debug {
			for _, pd := range choices[i] {
				fmt.Fprintf(os.Stderr, "eqc: predicate at %#x: %s\n", dg.Nodes[a].PC, pd)
			}
		}
		if len(choices[i]) == 0 && dg.Nodes[a].Kind != ir.NodeLoopExit {
			ds.reason = fmt.Sprintf("no-alignment-predicate: no predicate holds at the target's loop at %#x with a k every run reaching it agrees on", dg.Nodes[a].PC)
			return nil, ds
		}
		if ctx.Err() != nil {
			ds.reason = "timeout"
			return nil, ds
		}
	}
	// A loop exit (ir.NodeLoopExit: a vector loop's scalar tail) is
	// reached once a run and late in it, past the first source arrivals
	// a predicate is looked for among: one without predicates of its own
	// takes the loops' (the tail starts where the loop's counter
	// stopped, which the loop's predicate relates to the source's).
	var loopPreds []*predicate
	for i, a := range anchors {
		if dg.Nodes[a].Kind != ir.NodeLoopExit {
			loopPreds = append(loopPreds, choices[i]...)
		}
	}
	for i, a := range anchors {
		if len(choices[i]) > 0 {
			continue
		}
		if choices[i] = loopPreds; len(loopPreds) == 0 {
			ds.reason = fmt.Sprintf("no-alignment-predicate: no predicate holds at the target's loop exit at %#x, nor at a loop", dg.Nodes[a].PC)
			return nil, ds
		}
	}
	// Coordinate search over one predicate per anchor: an alignment that
	// fails blames the anchor whose predicate placed the failing pair,
	// and that anchor moves to its next predicate.
	pick := make([]int, len(anchors))
	var out []pair.Alignment
	done := map[string]bool{}
	firstFail := ""
	for ds.tried < maxAssignments && len(out) < limit && ctx.Err() == nil {
		ds.tried++
		preds := map[ir.NodeID]*predicate{}
		for i, a := range anchors {
			preds[a] = choices[i][pick[i]]
		}
		specs, blame, why := ps.predicateSpecs(train, preds, heap)
		if specs != nil {
			// Tested or not, the next assignment varies the last anchor.
			blame = anchors[len(anchors)-1]
			a, why2 := ps.testAlignment(specs, train, test, heap)
			if why2 == "" {
				key := pair.SpecsKey(specs)
				if !done[key] {
					done[key] = true
					out = append(out, a)
					var names []string
					for i, an := range anchors {
						names = append(names, fmt.Sprintf("%#x: %s", dg.Nodes[an].PC, choices[i][pick[i]]))
					}
					ds.chosen = append(ds.chosen, strings.Join(names, "; "))
				}
			} else {
				why = why2
			}
		}
		if firstFail == "" && why != "" {
			firstFail = why
		}
		if pair.Debug && why != "" && ds.tried <= 12 {
			fmt.Fprintf(os.Stderr, "eqc: predicate assignment %v: %s\n", pick, why)
		}
		i, ok := index[blame]
		if !ok {
			i = len(anchors) - 1
		}
		// Advance the blamed anchor; when it has no predicate left, the
		// ones before it (whose choice may be what misplaced it) go on.
		for i >= 0 && pick[i]+1 >= len(choices[i]) {
			pick[i] = 0
			i--
		}
		if i < 0 {
			break
		}
		pick[i]++
	}
	if len(out) == 0 {
		switch {
		case ctx.Err() != nil:
			ds.reason = "timeout"
		case firstFail != "":
			ds.reason = firstFail
		default:
			ds.reason = "no-alignment-predicate: every assignment of predicates to the target's loops failed"
		}
	}
	return out, ds
}

// changingVars lists the variables of one side (general registers but
// rsp, where live, and stack slots) whose value differs between two
// arrivals at one of its loop anchors (at *only, when only is not nil) in
// some run: a predicate over a variable a loop does not change cannot tell
// its passes apart.
func (ps *search) changingVars(runs []*pair.CoRun, side int, g *ir.TFG, only *ir.NodeID) []alignVar {
	p := ps.p
	var sr []*pair.Run
	for _, cr := range runs {
		if side == 0 {
			sr = append(sr, cr.Src)
		} else {
			sr = append(sr, cr.Dst)
		}
	}
	var all []alignVar
	for r := range x86.GPRNames {
		if r != x86.RSP {
			all = append(all, alignVar{reg: r})
		}
	}
	for _, s := range pair.SlotsOf(sr) {
		if s.Size <= 8 {
			all = append(all, alignVar{reg: -1, slot: s})
		}
	}
	// A register is a variable only where it is live: at -O0 a loop head
	// holds the last pass's temporaries, one pass stale.
	live := pair.LiveAt(g, p.ExitLive())
	var out []alignVar
	for _, v := range all {
		changes := false
		for k, r := range sr {
			first := map[ir.NodeID]uint64{}
			vals := ps.varValues(runs[k], side, v)
			for i, vis := range r.Visits {
				if i == 0 || pair.IsEnd(g, vis.Node) || only != nil && vis.Node != *only {
					continue
				}
				if v.slot.Size == 0 && !live[vis.Node][x86.StateGPR0+v.reg] {
					continue
				}
				x := vals[i]
				if f, ok := first[vis.Node]; !ok {
					first[vis.Node] = x
				} else if f != x {
					changes = true
					break
				}
			}
			if changes {
				break
			}
		}
		if changes {
			out = append(out, v)
		}
	}
	return out
}

// invariantBases are the target's registers live at the anchor a that
// keep one value over a run's arrivals there and take different values
// in different runs (a constant would only shift k), each added and
// subtracted; a register equal to one of bases in every run is left out.
func (ps *search) invariantBases(runs []*pair.CoRun, a ir.NodeID, bases []predicateBase) []predicateBase {
	p := ps.p
	live := pair.LiveAt(p.Dst.TFG, p.ExitLive())[a]
	var out []predicateBase
	for r := range x86.GPRNames {
		if r == x86.RSP || !live[x86.StateGPR0+r] {
			continue
		}
		v := alignVar{reg: r}
		invariant, differs, reached := true, false, 0
		same := make([]bool, len(bases)) // equal to bases[i] so far
		for i := range same {
			same[i] = bases[i].name != ""
		}
		var first uint64
		for _, cr := range runs {
			vals := ps.varValues(cr, 1, v)
			j0 := -1
			for j, vis := range cr.Dst.Visits {
				if vis.Node != a {
					continue
				}
				if j0 < 0 {
					j0 = j
				} else if vals[j] != vals[j0] {
					invariant = false
				}
			}
			if j0 < 0 {
				continue
			}
			if reached == 0 {
				first = vals[j0]
			}
			differs = differs || vals[j0] != first
			reached++
			for i, b := range bases {
				b.plus = true
				same[i] = same[i] && ps.baseValue(b, cr, j0) == vals[j0]
			}
		}
		if !invariant || !differs || reached < 2 || slices.Contains(same, true) {
			continue
		}
		for _, plus := range []bool{true, false} {
			out = append(out, predicateBase{name: "dst." + v.String(), reg: -1, dst: &v, plus: plus})
		}
	}
	return out
}

// anchorPredicates lists the predicates for the target's loop anchor a,
// best first. For each pair of changing variables, coefficients and base,
// the first arrival at a offers the values of k it gives with every
// source arrival at a loop anchor; a k that every run reaching a offers
// (at least two) is a candidate. Candidates are probed smallest |k| first
// (then the paper's form: no base, unit coefficients): a candidate passes
// when in every short run reaching a each arrival there meets a later
// source arrival where it holds (and, with heap, at the first few, the
// memories agree).
func (ps *search) anchorPredicates(runs []*pair.CoRun, a ir.NodeID, srcVars []alignVar, bases []predicateBase, heap bool) []*predicate {
	p := ps.p
	sg := p.Src.TFG
	dstVars := ps.changingVars(runs, 1, p.Dst.TFG, &a)
	// The first arrival at a of each run reaching it, and the source
	// arrivals (at loop anchors, up to maxKSourceVisits) that may pair
	// with it.
	type firstVisit struct {
		cr  *pair.CoRun
		j   int
		src []int
	}
	var firsts []firstVisit
	var reaching []*pair.CoRun
	for k, cr := range runs {
		for j, v := range cr.Dst.Visits {
			if v.Node != a {
				continue
			}
			fv := firstVisit{cr: cr, j: j}
			for i, sv := range cr.Src.Visits {
				if i == 0 || pair.IsEnd(sg, sv.Node) {
					continue
				}
				if len(fv.src) >= maxKSourceVisits {
					break
				}
				fv.src = append(fv.src, i)
			}
			firsts = append(firsts, fv)
			// The long first run only offers k: probing along its tens of
			// thousands of arrivals would cost more than it tells.
			if k > 0 || len(runs) < 3 {
				reaching = append(reaching, cr)
			}
			break
		}
	}
	if len(firsts) < 2 {
		return nil
	}
	bases = append(bases[:len(bases):len(bases)], ps.invariantBases(runs, a, bases)...)
	var cands []*predicate
	for _, vs := range srcVars {
		for _, vd := range dstVars {
			for _, c := range predicateCoefficients {
				for _, base := range bases {
					pd0 := &predicate{src: vs, dst: vd, cs: c[0], cd: c[1], base: base}
					var common map[uint64]bool
					for _, fv := range firsts {
						ks := map[uint64]bool{}
						sv := ps.varValues(fv.cr, 0, vs)
						dv := ps.varValues(fv.cr, 1, vd)[fv.j]
						bv := ps.baseValue(base, fv.cr, fv.j)
						for _, i := range fv.src {
							if k := pd0.eval(sv[i], dv, bv); common == nil || common[k] {
								ks[k] = true
							}
						}
						common = ks
						if len(common) == 0 {
							break
						}
					}
					for k := range common {
						pd := *pd0
						pd.k = k
						cands = append(cands, &pd)
					}
				}
			}
		}
	}
	abs := func(k uint64) uint64 {
		if int64(k) < 0 {
			return -k
		}
		return k
	}
	// A large k is a coincidence of addresses more often than an offset
	// between indices: small ones first.
	small := func(pd *predicate) bool { return abs(pd.k) <= 1<<12 }
	sort.Slice(cands, func(i, j int) bool {
		x, y := cands[i], cands[j]
		if small(x) != small(y) {
			return small(x)
		}
		if abs(x.k) != abs(y.k) {
			return abs(x.k) < abs(y.k)
		}
		if x.cost() != y.cost() {
			return x.cost() < y.cost()
		}
		return x.String() < y.String()
	})
	var out []*predicate
	for n, pd := range cands {
		if len(out) >= maxPerAnchor || n >= maxProbes {
			break
		}
		if ps.probe(reaching, a, pd, heap) {
			out = append(out, pd)
		}
	}
	return out
}

// probe reports whether pd aligns, in every run, each arrival at the
// target's anchor a with a source arrival no earlier than the last one's
// (the first at a loop anchor where pd holds and, with heap, memories
// agree; after the first, within MaxLook source arrivals), up to where a
// run's source side was cut short.
func (ps *search) probe(runs []*pair.CoRun, a ir.NodeID, pd *predicate, heap bool) bool {
	for _, cr := range runs {
		S, D := cr.Src.Visits, cr.Dst.Visits
		si, limit, arrivals := 1, maxKSourceVisits, 0
		for j := 1; j < len(D); j++ {
			if D[j].Node != a {
				continue
			}
			arrivals++
			next := ps.matchFrom(cr, pd, si, j, limit, heap && arrivals <= pair.HeapChecksEach*4)
			if next < 0 {
				if !cr.Src.Ended && si+pair.MaxLook >= len(S) {
					break
				}
				return false
			}
			si, limit = next, next+pair.MaxLook+1
		}
	}
	return true
}

// matchFrom is the first source arrival from si on (before limit) at an
// anchor compatible with the target's arrival j where pd holds and the
// memories agree outside the stack, or -1. It stops at the source's end.
func (ps *search) matchFrom(cr *pair.CoRun, pd *predicate, si, j, limit int, heap bool) int {
	p := ps.p
	sg, dg := p.Src.TFG, p.Dst.TFG
	S, D := cr.Src.Visits, cr.Dst.Visits
	dn := dg.Nodes[D[j].Node]
	for i := max(si, 1); i < len(S) && i < limit; i++ {
		if pair.IsEnd(sg, S[i].Node) {
			return -1
		}
		if pair.Compatible(sg.Nodes[S[i].Node], dn) && ps.holds(pd, cr, i, j) &&
			(!heap || pair.HeapEqual(S[i].State[x86.StateMem].Mem(), D[j].State[x86.StateMem].Mem(), cr.RSP0)) {
			return i
		}
	}
	return -1
}

// predicateSpecs aligns every training run by preds (one per target loop
// anchor) and turns consecutive aligned pairs into source path sets. On
// failure it returns the target anchor to blame and why.
func (ps *search) predicateSpecs(runs []*pair.CoRun, preds map[ir.NodeID]*predicate, heap bool) (map[pair.EdgeKey]pair.SrcSpec, ir.NodeID, string) {
	p := ps.p
	sg, dg := p.Src.TFG, p.Dst.TFG
	// The uses of each target step, in the order first met.
	steps := map[pair.EdgeKey][]stepUse{}
	var order []pair.EdgeKey
	for k, cr := range runs {
		S, D := cr.Src.Visits, cr.Dst.Visits
		si := 0
		// Memories are compared at the first few arrivals per anchor (as
		// walk compares them along each path set's first uses): later
		// ones are as many comparisons of large memories.
		uses := map[ir.NodeID]int{}
		for j := 1; j < len(D); j++ {
			dn := D[j].Node
			next := -1
			if pair.IsEnd(dg, dn) {
				if !cr.Src.Ended {
					break // cut short: nothing more to align
				}
				next = len(S) - 1
				if !pair.Compatible(sg.Nodes[S[next].Node], dg.Nodes[dn]) {
					return nil, D[j-1].Node, fmt.Sprintf("no-alignment-predicate: run %d ends differently on the two sides", k)
				}
			} else {
				pd := preds[dn]
				uses[dn]++
				next = ps.matchFrom(cr, pd, si, j, si+pair.MaxLook+1, heap && uses[dn] <= pair.HeapChecksEach)
				if next < 0 {
					if !cr.Src.Ended && si+pair.MaxLook >= len(S) {
						break // the source run was cut short
					}
					return nil, dn, fmt.Sprintf("no-alignment-predicate: %s holds at no source arrival for the target's arrival %d at %#x in run %d", pd, j, dg.Nodes[dn].PC, k)
				}
			}
			ek := pair.EdgeKey{From: pair.NodeKey{Src: S[si].Node, Dst: D[j-1].Node}, DstTo: dn}
			sp := pair.SrcSpec{To: S[next].Node}
			if next > si {
				for q := si + 1; q <= next; q++ {
					if S[q].Node == sp.To {
						sp.Arrivals++
					}
				}
				sp.Mu = S[next].Retreats - S[si].Retreats
			}
			// The predicate that placed the pair: dn's, or at the end the
			// last loop's (which placed the source where it went on from).
			blame := dn
			if pair.IsEnd(dg, dn) {
				blame = D[j-1].Node
			}
			if sp.Mu > pair.MaxUnroll {
				return nil, blame, fmt.Sprintf("no-alignment-predicate: a source path set of %d loop passes", sp.Mu)
			}
			if _, ok := steps[ek]; !ok {
				order = append(order, ek)
			}
			steps[ek] = append(steps[ek], stepUse{sp, D[j].Path, blame})
			si = next
			if pair.IsEnd(dg, dn) {
				break
			}
		}
	}
	specs := map[pair.EdgeKey]pair.SrcSpec{}
	for _, ek := range order {
		if blame, why := splitStep(specs, ek, steps[ek]); why != "" {
			return nil, blame, fmt.Sprintf("predicate-overfits: the target's step from %#x to %#x %s", dg.Nodes[ek.From.Dst].PC, dg.Nodes[ek.DstTo].PC, why)
		}
	}
	return specs, ir.NoNode, ""
}

// stepUse is one use of a target step in an aligned run: the source path
// set it pairs with, the target's path (edge IDs), and the anchor whose
// predicate placed the pair.
type stepUse struct {
	spec  pair.SrcSpec
	path  []int
	blame ir.NodeID
}

// splitStep adds to specs the product edges of target step ek from its
// uses: one for every path when all uses pair with one source path set
// (mu the largest seen); else one per source path set, whose via set is
// the target edges its uses took (PLDI'19 Figure 3: an odd length takes
// the peeled element's edge, an even one does not). A use whose path
// fits another set's via set would be claimed by both: the split does not
// separate them, and the alignment overfits.
func splitStep(specs map[pair.EdgeKey]pair.SrcSpec, ek pair.EdgeKey, uses []stepUse) (ir.NodeID, string) {
	type group struct {
		spec pair.SrcSpec
		via  map[int]bool
		uses []stepUse
	}
	var groups []*group
	for _, u := range uses {
		var g *group
		for _, h := range groups {
			if h.spec.To == u.spec.To && h.spec.Arrivals == u.spec.Arrivals {
				g = h
			}
		}
		if g == nil {
			g = &group{spec: u.spec, via: map[int]bool{}}
			groups = append(groups, g)
		}
		g.spec.Mu = max(g.spec.Mu, u.spec.Mu)
		g.uses = append(g.uses, u)
		for _, id := range u.path {
			g.via[id] = true
		}
	}
	if len(groups) == 1 {
		specs[ek] = groups[0].spec
		return ir.NoNode, ""
	}
	for _, g := range groups {
		for _, h := range groups {
			if h == g {
				continue
			}
			for _, u := range h.uses {
				if pair.PathWithin(u.path, g.via) {
					return u.blame, "pairs with two source path sets on the same target path"
				}
			}
		}
		specs[pair.EdgeKey{From: ek.From, DstTo: ek.DstTo, Via: pair.ViaString(g.via)}] = g.spec
	}
	return ir.NoNode, ""
}

// testAlignment walks the training runs under specs, which gives the
// aligned pairs learning uses (as the proof checker will walk them), and
// then the test runs (§4.3: a PAA that does not accept them overfits).
func (ps *search) testAlignment(specs map[pair.EdgeKey]pair.SrcSpec, train, test []*pair.CoRun, heap bool) (pair.Alignment, string) {
	p := ps.p
	a := pair.Alignment{Specs: specs}
	for k, cr := range append(append([]*pair.CoRun{}, train...), test...) {
		pairs, missing, ok := p.Walk(cr, specs, heap)
		if ok && missing != nil && k >= len(train) && p.Dst.TFG.Nodes[missing.Key.DstTo].Kind == ir.NodeExit {
			// A test run leaves for the exit from where no training run
			// did: product.Build pairs such an edge with the source's way
			// to its exit (structuralSpec), and the solver judges it.
			continue
		}
		if !ok || missing != nil {
			what := "test"
			if k < len(train) {
				what = "training"
			}
			if !ok {
				return pair.Alignment{}, fmt.Sprintf("predicate-overfits: %s run %d contradicts the alignment (memories differ, or a path set does not fit)", what, k)
			}
			dg := p.Dst.TFG
			return pair.Alignment{}, fmt.Sprintf("predicate-overfits: the alignment pairs nothing with the target's step from %#x to %#x in %s run %d", dg.Nodes[missing.Key.From.Dst].PC, dg.Nodes[missing.Key.DstTo].PC, what, k)
		}
		if k < len(train) {
			a.Pairs = append(a.Pairs, pairs)
		}
	}
	return a, ""
}

// Name is the data-driven engine's --engine name.
const Name = "data"

// Engine is the data-driven engine: alignment predicates.
type Engine struct{}

// Name is Name.
func (Engine) Name() string { return Name }

// Alignments are the alignments dataAlignments finds, tested on testRuns
// held-out co-executions.
func (Engine) Alignments(ctx context.Context, p *pair.Pair, runs []*pair.CoRun, limit int) pair.Search {
	test := p.HeldOutCoRuns(ctx, testRuns)
	if test == nil {
		return pair.Search{Reason: "timeout"}
	}
	ps := &search{p: p}
	aligns, ds := ps.dataAlignments(ctx, runs, test, limit)
	if pair.Debug {
		fmt.Fprintf(os.Stderr, "eqc: alignment predicates: %d assignments tried, %d alignments: %q %s\n", ds.tried, len(aligns), ds.chosen, ds.reason)
	}
	return pair.Search{Alignments: aligns, PredicatesTried: ds.tried, Reason: ds.reason}
}
