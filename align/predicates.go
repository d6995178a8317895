package align

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"eqc/ir"
	"eqc/x86"
)

// The data-driven engine's alignment (PLDI'19 §4.1–4.3 and §4.6). Instead
// of pairing each target step with the source position where the two
// memories agree (correlate.go), it guesses alignment predicates
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
	slot slot
}

func (v alignVar) value(st []ir.Value, rsp0 uint64) uint64 {
	if v.slot.size > 0 {
		return readSlot(st[x86.StateMem].Mem(), rsp0, v.slot)
	}
	return st[x86.StateGPR0+v.reg].BV().Uint64()
}

func (v alignVar) String() string {
	if v.slot.size > 0 {
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

// value is the base in run cr at the target's arrival j.
func (b predicateBase) value(cr *coRun, j int) uint64 {
	var v uint64
	switch {
	case b.name == "":
		return 0
	case b.global != "":
		v = cr.env.globals[b.global]
	case b.dst != nil:
		v = cr.varValues(1, *b.dst)[j]
	default:
		v = cr.entry[x86.StateGPR0+b.reg].BV().Uint64()
	}
	if b.plus {
		return v
	}
	return -v
}

// predicateBases are the bases a predicate may subtract: none, the
// argument registers that carry parameters, the globals the pair names.
func (p *Pair) predicateBases() []predicateBase {
	out := []predicateBase{{}}
	_, nparams := p.narrowArgs()
	for _, plus := range []bool{true, false} {
		for _, r := range x86.CalleeArgRegs[:min(nparams, len(x86.CalleeArgRegs))] {
			out = append(out, predicateBase{name: "entry." + x86.GPRNames[r], reg: r, plus: plus})
		}
		for _, g := range p.globalVars() {
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

// holdsAt reports whether pd holds between source arrival i and target
// arrival j of cr, from the values cached per run.
func (pd *predicate) holdsAt(cr *coRun, i, j int) bool {
	return pd.eval(cr.varValues(0, pd.src)[i], cr.varValues(1, pd.dst)[j], pd.base.value(cr, j)) == pd.k
}

// varValues is v's value at every arrival of one side of cr (0 the
// source, 1 the target), computed once: the search asks for them
// thousands of times, and a stack slot is a read of a long store chain.
func (cr *coRun) varValues(side int, v alignVar) []uint64 {
	key := valuesKey{side, v}
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if vals, ok := cr.values[key]; ok {
		return vals
	}
	r := cr.src
	if side == 1 {
		r = cr.dst
	}
	vals := make([]uint64, len(r.visits))
	for i, vis := range r.visits {
		vals[i] = v.value(vis.state, cr.rsp0)
	}
	if cr.values == nil {
		cr.values = map[valuesKey][]uint64{}
	}
	cr.values[key] = vals
	return vals
}

// valuesKey names a cached column of variable values: a side and a
// variable.
type valuesKey struct {
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
func (p *Pair) dataAlignments(ctx context.Context, train, test []*coRun, limit int) ([]alignment, dataSearch) {
	out, ds := p.dataRound(ctx, train, test, limit, true)
	if len(out) > 0 || ctx.Err() != nil {
		return out, ds
	}
	out, ds2 := p.dataRound(ctx, train, test, limit, false)
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
func (p *Pair) dataRound(ctx context.Context, train, test []*coRun, limit int, heap bool) ([]alignment, dataSearch) {
	var ds dataSearch
	sg, dg := p.Src.TFG, p.Dst.TFG
	// The target's loop anchors the runs reach, in address order.
	seen := map[ir.NodeID]bool{}
	for _, cr := range train {
		for _, v := range cr.dst.visits[1:] {
			if !isEnd(dg, v.node) {
				seen[v.node] = true
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
	srcVars := p.changingVars(train, 0, sg, nil)
	bases := p.predicateBases()
	choices := make([][]*predicate, len(anchors))
	index := map[ir.NodeID]int{}
	for i, a := range anchors {
		index[a] = i
		choices[i] = p.anchorPredicates(train, a, srcVars, bases, heap)
		if debug {
			for _, pd := range choices[i] {
				fmt.Fprintf(os.Stderr, "eqc: predicate at %#x: %s\n", dg.Nodes[a].PC, pd)
			}
		}
		if len(choices[i]) == 0 {
			ds.reason = fmt.Sprintf("no-alignment-predicate: no predicate holds at the target's loop at %#x with a k every run reaching it agrees on", dg.Nodes[a].PC)
			return nil, ds
		}
		if ctx.Err() != nil {
			ds.reason = "timeout"
			return nil, ds
		}
	}
	// Coordinate search over one predicate per anchor: an alignment that
	// fails blames the anchor whose predicate placed the failing pair,
	// and that anchor moves to its next predicate.
	pick := make([]int, len(anchors))
	var out []alignment
	done := map[string]bool{}
	firstFail := ""
	for ds.tried < maxAssignments && len(out) < limit && ctx.Err() == nil {
		ds.tried++
		preds := map[ir.NodeID]*predicate{}
		for i, a := range anchors {
			preds[a] = choices[i][pick[i]]
		}
		specs, blame, why := p.predicateSpecs(train, preds, heap)
		if specs != nil {
			// Tested or not, the next assignment varies the last anchor.
			blame = anchors[len(anchors)-1]
			a, why2 := p.testAlignment(specs, train, test, heap)
			if why2 == "" {
				key := specsKey(specs)
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
		if debug && why != "" && ds.tried <= 12 {
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
func (p *Pair) changingVars(runs []*coRun, side int, g *ir.TFG, only *ir.NodeID) []alignVar {
	var sr []*run
	for _, cr := range runs {
		if side == 0 {
			sr = append(sr, cr.src)
		} else {
			sr = append(sr, cr.dst)
		}
	}
	var all []alignVar
	for r := range x86.GPRNames {
		if r != x86.RSP {
			all = append(all, alignVar{reg: r})
		}
	}
	for _, s := range slotsOf(sr) {
		if s.size <= 8 {
			all = append(all, alignVar{reg: -1, slot: s})
		}
	}
	// A register is a variable only where it is live: at -O0 a loop head
	// holds the last pass's temporaries, one pass stale.
	live := liveAt(g, p.exitLive())
	var out []alignVar
	for _, v := range all {
		changes := false
		for k, r := range sr {
			first := map[ir.NodeID]uint64{}
			vals := runs[k].varValues(side, v)
			for i, vis := range r.visits {
				if i == 0 || isEnd(g, vis.node) || only != nil && vis.node != *only {
					continue
				}
				if v.slot.size == 0 && !live[vis.node][x86.StateGPR0+v.reg] {
					continue
				}
				x := vals[i]
				if f, ok := first[vis.node]; !ok {
					first[vis.node] = x
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
func (p *Pair) invariantBases(runs []*coRun, a ir.NodeID, bases []predicateBase) []predicateBase {
	live := liveAt(p.Dst.TFG, p.exitLive())[a]
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
			vals := cr.varValues(1, v)
			j0 := -1
			for j, vis := range cr.dst.visits {
				if vis.node != a {
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
				same[i] = same[i] && b.value(cr, j0) == vals[j0]
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
func (p *Pair) anchorPredicates(runs []*coRun, a ir.NodeID, srcVars []alignVar, bases []predicateBase, heap bool) []*predicate {
	sg := p.Src.TFG
	dstVars := p.changingVars(runs, 1, p.Dst.TFG, &a)
	// The first arrival at a of each run reaching it, and the source
	// arrivals (at loop anchors, up to maxKSourceVisits) that may pair
	// with it.
	type firstVisit struct {
		cr  *coRun
		j   int
		src []int
	}
	var firsts []firstVisit
	var reaching []*coRun
	for k, cr := range runs {
		for j, v := range cr.dst.visits {
			if v.node != a {
				continue
			}
			fv := firstVisit{cr: cr, j: j}
			for i, sv := range cr.src.visits {
				if i == 0 || isEnd(sg, sv.node) {
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
	bases = append(bases[:len(bases):len(bases)], p.invariantBases(runs, a, bases)...)
	var cands []*predicate
	for _, vs := range srcVars {
		for _, vd := range dstVars {
			for _, c := range predicateCoefficients {
				for _, base := range bases {
					pd0 := &predicate{src: vs, dst: vd, cs: c[0], cd: c[1], base: base}
					var common map[uint64]bool
					for _, fv := range firsts {
						ks := map[uint64]bool{}
						sv := fv.cr.varValues(0, vs)
						dv := fv.cr.varValues(1, vd)[fv.j]
						bv := base.value(fv.cr, fv.j)
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
		if p.probe(reaching, a, pd, heap) {
			out = append(out, pd)
		}
	}
	return out
}

// probe reports whether pd aligns, in every run, each arrival at the
// target's anchor a with a source arrival no earlier than the last one's
// (the first at a loop anchor where pd holds and, with heap, memories
// agree; after the first, within maxLook source arrivals), up to where a
// run's source side was cut short.
func (p *Pair) probe(runs []*coRun, a ir.NodeID, pd *predicate, heap bool) bool {
	for _, cr := range runs {
		S, D := cr.src.visits, cr.dst.visits
		si, limit, arrivals := 1, maxKSourceVisits, 0
		for j := 1; j < len(D); j++ {
			if D[j].node != a {
				continue
			}
			arrivals++
			next := p.matchFrom(cr, pd, si, j, limit, heap && arrivals <= heapChecksEach*4)
			if next < 0 {
				if !cr.src.ended && si+maxLook >= len(S) {
					break
				}
				return false
			}
			si, limit = next, next+maxLook+1
		}
	}
	return true
}

// matchFrom is the first source arrival from si on (before limit) at an
// anchor compatible with the target's arrival j where pd holds and the
// memories agree outside the stack, or -1. It stops at the source's end.
func (p *Pair) matchFrom(cr *coRun, pd *predicate, si, j, limit int, heap bool) int {
	sg, dg := p.Src.TFG, p.Dst.TFG
	S, D := cr.src.visits, cr.dst.visits
	dn := dg.Nodes[D[j].node]
	for i := max(si, 1); i < len(S) && i < limit; i++ {
		if isEnd(sg, S[i].node) {
			return -1
		}
		if compatible(sg.Nodes[S[i].node], dn) && pd.holdsAt(cr, i, j) &&
			(!heap || heapEqual(S[i].state[x86.StateMem].Mem(), D[j].state[x86.StateMem].Mem(), cr.rsp0)) {
			return i
		}
	}
	return -1
}

// predicateSpecs aligns every training run by preds (one per target loop
// anchor) and turns consecutive aligned pairs into source path sets. On
// failure it returns the target anchor to blame and why.
func (p *Pair) predicateSpecs(runs []*coRun, preds map[ir.NodeID]*predicate, heap bool) (map[edgeKey]srcSpec, ir.NodeID, string) {
	sg, dg := p.Src.TFG, p.Dst.TFG
	// The uses of each target step, in the order first met.
	steps := map[edgeKey][]stepUse{}
	var order []edgeKey
	for k, cr := range runs {
		S, D := cr.src.visits, cr.dst.visits
		si := 0
		// Memories are compared at the first few arrivals per anchor (as
		// walk compares them along each path set's first uses): later
		// ones are as many comparisons of large memories.
		uses := map[ir.NodeID]int{}
		for j := 1; j < len(D); j++ {
			dn := D[j].node
			next := -1
			if isEnd(dg, dn) {
				if !cr.src.ended {
					break // cut short: nothing more to align
				}
				next = len(S) - 1
				if !compatible(sg.Nodes[S[next].node], dg.Nodes[dn]) {
					return nil, D[j-1].node, fmt.Sprintf("no-alignment-predicate: run %d ends differently on the two sides", k)
				}
			} else {
				pd := preds[dn]
				uses[dn]++
				next = p.matchFrom(cr, pd, si, j, si+maxLook+1, heap && uses[dn] <= heapChecksEach)
				if next < 0 {
					if !cr.src.ended && si+maxLook >= len(S) {
						break // the source run was cut short
					}
					return nil, dn, fmt.Sprintf("no-alignment-predicate: %s holds at no source arrival for the target's arrival %d at %#x in run %d", pd, j, dg.Nodes[dn].PC, k)
				}
			}
			ek := edgeKey{from: nodeKey{S[si].node, D[j-1].node}, dstTo: dn}
			sp := srcSpec{to: S[next].node}
			if next > si {
				for q := si + 1; q <= next; q++ {
					if S[q].node == sp.to {
						sp.arrivals++
					}
				}
				sp.mu = S[next].retreats - S[si].retreats
			}
			// The predicate that placed the pair: dn's, or at the end the
			// last loop's (which placed the source where it went on from).
			blame := dn
			if isEnd(dg, dn) {
				blame = D[j-1].node
			}
			if sp.mu > maxUnroll {
				return nil, blame, fmt.Sprintf("no-alignment-predicate: a source path set of %d loop passes", sp.mu)
			}
			if _, ok := steps[ek]; !ok {
				order = append(order, ek)
			}
			steps[ek] = append(steps[ek], stepUse{sp, D[j].path, blame})
			si = next
			if isEnd(dg, dn) {
				break
			}
		}
	}
	specs := map[edgeKey]srcSpec{}
	for _, ek := range order {
		if blame, why := splitStep(specs, ek, steps[ek]); why != "" {
			return nil, blame, fmt.Sprintf("predicate-overfits: the target's step from %#x to %#x %s", dg.Nodes[ek.from.dst].PC, dg.Nodes[ek.dstTo].PC, why)
		}
	}
	return specs, ir.NoNode, ""
}

// stepUse is one use of a target step in an aligned run: the source path
// set it pairs with, the target's path (edge IDs), and the anchor whose
// predicate placed the pair.
type stepUse struct {
	spec  srcSpec
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
func splitStep(specs map[edgeKey]srcSpec, ek edgeKey, uses []stepUse) (ir.NodeID, string) {
	type group struct {
		spec srcSpec
		via  map[int]bool
		uses []stepUse
	}
	var groups []*group
	for _, u := range uses {
		var g *group
		for _, h := range groups {
			if h.spec.to == u.spec.to && h.spec.arrivals == u.spec.arrivals {
				g = h
			}
		}
		if g == nil {
			g = &group{spec: u.spec, via: map[int]bool{}}
			groups = append(groups, g)
		}
		g.spec.mu = max(g.spec.mu, u.spec.mu)
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
				if within(u.path, g.via) {
					return u.blame, "pairs with two source path sets on the same target path"
				}
			}
		}
		specs[edgeKey{from: ek.from, dstTo: ek.dstTo, via: viaString(g.via)}] = g.spec
	}
	return ir.NoNode, ""
}

// testAlignment walks the training runs under specs, which gives the
// aligned pairs learning uses (as the proof checker will walk them), and
// then the test runs (§4.3: a PAA that does not accept them overfits).
func (p *Pair) testAlignment(specs map[edgeKey]srcSpec, train, test []*coRun, heap bool) (alignment, string) {
	a := alignment{specs: specs}
	for k, cr := range append(append([]*coRun{}, train...), test...) {
		pairs, missing, _, ok := p.walk(cr, specs, heap)
		if ok && missing != nil && k >= len(train) && p.Dst.TFG.Nodes[missing.dstTo].Kind == ir.NodeExit {
			// A test run leaves for the exit from where no training run
			// did: buildProduct pairs such an edge with the source's way
			// to its exit (structuralSpec), and the solver judges it.
			continue
		}
		if !ok || missing != nil {
			what := "test"
			if k < len(train) {
				what = "training"
			}
			if !ok {
				return alignment{}, fmt.Sprintf("predicate-overfits: %s run %d contradicts the alignment (memories differ, or a path set does not fit)", what, k)
			}
			dg := p.Dst.TFG
			return alignment{}, fmt.Sprintf("predicate-overfits: the alignment pairs nothing with the target's step from %#x to %#x in %s run %d", dg.Nodes[missing.from.dst].PC, dg.Nodes[missing.dstTo].PC, what, k)
		}
		if k < len(train) {
			a.pairs = append(a.pairs, pairs)
		}
	}
	return a, ""
}

// specsKey names an alignment's specs, for telling alignments apart.
func specsKey(specs map[edgeKey]srcSpec) string {
	var parts []string
	for k, sp := range specs {
		parts = append(parts, fmt.Sprintf("%d/%d/%d[%s]:%d/%d/%d", k.from.src, k.from.dst, k.dstTo, k.via, sp.to, sp.arrivals, sp.mu))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
