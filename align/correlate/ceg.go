package correlate

import (
	"container/heap"
	"context"
	"fmt"
	"os"

	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/learn"
	"eqc/x86"
)

// Best-first correlation (Counter, OOPSLA'20 §3.9–3.11, Figures 6–7).
// The frontier holds partial alignments; the most promising is expanded
// at its first product edge without a source path set, by the candidates
// that fit the runs there (rankCandidates), each kept only if every run
// still walks under it: a run that takes the target's step but none of
// the source's paths, or whose memories then differ, prunes it (§3.9.1,
// §3.9.2). The runs are Counter's counterexamples: the seeded
// co-executions and, after a failed round, the runs from the solver's
// models (engines.go); walking them under a new product edge is
// propagating them across it. Promise (Figure 6): over every product
// node the walks reach, the live target values that no affine relation on
// the node's states ties to the source's; fewer is better. Ties go to the
// deeper alignment (it is nearer a proof; Counter sums over nodes, and
// the -O0 frame's values that nothing relates made every deeper
// alignment look worse), then to fewer such source values, then to the
// candidate order rankCandidates gives, whose trip ratios say more about
// the unroll factor than Counter's "lowest first" (clang's sum1d pairs 40
// source iterations with one pass).
//
// A wrong correlation leaves some values related to nothing: two lanes
// of a vector accumulator that sum to the source's total only with the
// other two, a target counter that runs ahead of the source's. The right
// one keeps every node's count near zero, so its partial alignments stay
// at the front as the search goes deeper.

// Bounds of the best-first search.
const (
	maxExpansions   = 48 // partial alignments expanded per search
	maxRankSamples  = 48 // aligned states per node the ranking reads
	rankWidth       = 32 // relations are sought modulo 2^rankWidth
	maxCegDepth     = 24 // product edges of an alignment
	maxRankedColumn = 46 // columns of one node's table (with at most maxRankSamples rows)
)

// promise is Figure 6's measure of a partial alignment: the live values
// of the target, and of the source, that no affine relation ties to the
// other side; fewer is better.
type promise struct {
	unrelatedDst, unrelatedSrc int
}

// partial is a partial alignment on the frontier.
type partial struct {
	specs   map[pair.EdgeKey]pair.SrcSpec
	pairs   [][]pair.VisitPair // per run: the aligned visits before its missing step
	missing *pair.MissingStep  // the first run's missing step; nil when complete
	run     int                // the run it was met in
	rank    promise
	depth   int // product edges specified
	order   int // when it was made, for candidate order and determinism
}

type frontier []*partial

func (f frontier) Len() int { return len(f) }
func (f frontier) Less(i, j int) bool {
	a, b := f[i], f[j]
	switch {
	case a.rank.unrelatedDst != b.rank.unrelatedDst:
		return a.rank.unrelatedDst < b.rank.unrelatedDst
	case a.depth != b.depth:
		return a.depth > b.depth
	case a.rank.unrelatedSrc != b.rank.unrelatedSrc:
		return a.rank.unrelatedSrc < b.rank.unrelatedSrc
	}
	return a.order < b.order
}
func (f frontier) Swap(i, j int) { f[i], f[j] = f[j], f[i] }
func (f *frontier) Push(x any)   { *f = append(*f, x.(*partial)) }
func (f *frontier) Pop() any {
	old := *f
	x := old[len(old)-1]
	*f = old[:len(old)-1]
	return x
}

// SearchStats counts what a best-first search did.
type SearchStats struct {
	Expanded int // partial alignments expanded
	Pruned   int // candidates a run ruled out (no solver query spent on them)
}

// bestFirst searches for up to limit complete alignments of the runs,
// most promising first.
func bestFirst(ctx context.Context, p *pair.Pair, runs []*pair.CoRun, limit int) ([]pair.Alignment, SearchStats) {
	var st SearchStats
	r := newRanker(p, runs)
	order := 0
	evaluate := func(specs map[pair.EdgeKey]pair.SrcSpec, depth int) *partial {
		pt := &partial{specs: specs, depth: depth, order: order, run: -1}
		order++
		for k, cr := range runs {
			pairs, missing, ok := p.WalkPrefix(cr, specs, true)
			if !ok {
				return nil
			}
			if missing != nil && pt.missing == nil {
				if !p.FitMissing(cr, missing) {
					if cr.Src.Ended {
						return nil // nothing the source does fits the step
					}
					missing = nil // the source run was cut short: stop there
				}
				pt.missing, pt.run = missing, k
			}
			pt.pairs = append(pt.pairs, pairs)
		}
		pt.rank = r.rank(pt.pairs)
		return pt
	}
	var out []pair.Alignment
	f := &frontier{}
	if root := evaluate(map[pair.EdgeKey]pair.SrcSpec{}, 0); root != nil {
		heap.Push(f, root)
	}
	for f.Len() > 0 && len(out) < limit && st.Expanded < maxExpansions && ctx.Err() == nil {
		best := heap.Pop(f).(*partial)
		if best.missing == nil {
			out = append(out, pair.Alignment{Specs: best.specs, Pairs: best.pairs})
			continue
		}
		if best.depth >= maxCegDepth {
			continue
		}
		st.Expanded++
		if pair.Debug {
			fmt.Fprintf(os.Stderr, "eqc: ceg: expand depth %d rank %+v %s\n", best.depth, best.rank, pair.SpecsKey(best.specs))
		}
		m := best.missing
		split := len(pair.ViaKeys(best.specs, m.Key.From, m.Key.DstTo)) > 0
		for _, c := range rankCandidates(runs[best.run], m, best.specs) {
			with := func(k pair.EdgeKey) *partial {
				next := make(map[pair.EdgeKey]pair.SrcSpec, len(best.specs)+1)
				for k, v := range best.specs {
					next[k] = v
				}
				next[k] = c
				return evaluate(next, best.depth+1)
			}
			var child *partial
			if !split {
				child = with(m.Key)
			}
			if child == nil && len(m.Path) > 0 {
				child = with(viaKey(m))
			}
			if child != nil {
				heap.Push(f, child)
			} else {
				st.Pruned++
			}
		}
	}
	return out, st
}

// viaKey is the key of missing step m restricted to the target's path m
// took: a step whose paths pair with different source path sets (clang
// peels an odd count's element before a two-at-a-time epilogue: the odd
// entry pairs with one source pass more than the even one) is split by
// path when the runs rule out one path set for all of its paths. Between
// two anchors a path is acyclic, so no other path takes only its edges;
// once a step is split, its other paths get keys of their own (and those
// no run took, product.Build's infeasible rest).
func viaKey(m *pair.MissingStep) pair.EdgeKey {
	ids := map[int]bool{}
	for _, id := range m.Path {
		ids[id] = true
	}
	k := m.Key
	k.Via = pair.ViaString(ids)
	return k
}

// ranker computes promises: it knows each side's live components per
// anchor and the stack slots the runs store to.
type ranker struct {
	p     *pair.Pair
	runs  []*pair.CoRun
	live  [2]map[ir.NodeID]map[int]bool
	slots [2][]pair.Slot
}

func newRanker(p *pair.Pair, runs []*pair.CoRun) *ranker {
	r := &ranker{p: p, runs: runs}
	r.live = [2]map[ir.NodeID]map[int]bool{pair.LiveAt(p.Src.TFG, p.ExitLive()), pair.LiveAt(p.Dst.TFG, p.ExitLive())}
	var src, dst []*pair.Run
	for _, cr := range runs {
		src, dst = append(src, cr.Src), append(dst, cr.Dst)
	}
	r.slots = [2][]pair.Slot{pair.SlotsOf(src), pair.SlotsOf(dst)}
	return r
}

// rank sums, over the product nodes of the aligned visits, the values of
// each side that no affine relation ties to the other side (unrelated).
// A stack slot whose value is the run's entry value in every state is
// left out (memory the run has not written: noise that would count
// against every deeper alignment), and so is a node with too few states
// to tell: with no more rows than columns, any column is an affine
// function of the others.
func (r *ranker) rank(pairs [][]pair.VisitPair) promise {
	type state struct {
		st  [2][]ir.Value
		run int
	}
	byNode := map[pair.NodeKey][]state{}
	var keys []pair.NodeKey
	for k, ps := range pairs {
		cr := r.runs[k]
		for _, vp := range ps {
			if _, ok := byNode[vp.Node]; !ok {
				keys = append(keys, vp.Node)
			}
			byNode[vp.Node] = append(byNode[vp.Node], state{[2][]ir.Value{cr.Src.Visits[vp.S].State, cr.Dst.Visits[vp.D].State}, k})
		}
	}
	var pr promise
	for _, key := range keys {
		sts := byNode[key]
		if pair.IsEnd(r.p.Dst.TFG, key.Dst) {
			continue // the exit's observables are the obligations' business
		}
		if len(sts) > maxRankSamples {
			thinned := make([]state, maxRankSamples)
			for i := range thinned {
				thinned[i] = sts[i*(len(sts)-1)/(maxRankSamples-1)]
			}
			sts = thinned
		}
		var cols [2][][]uint64 // per side, per column, its values
		for side, n := range [2]ir.NodeID{key.Src, key.Dst} {
			for _, c := range r.columns(side, n) {
				vals := make([]uint64, len(sts))
				written := c.state >= 0
				for i, s := range sts {
					cr := r.runs[s.run]
					vals[i] = c.value(s.st[side], cr.RSP0)
					if !written {
						entry := cr.Src.Visits[0].State
						if side == 1 {
							entry = cr.Dst.Visits[0].State
						}
						written = vals[i] != c.value(entry, cr.RSP0)
					}
				}
				if written {
					cols[side] = append(cols[side], vals)
				}
			}
		}
		nsrc, ndst := len(cols[0]), len(cols[1])
		if nsrc+ndst > maxRankedColumn || len(sts) < nsrc+ndst+2 {
			continue
		}
		rows := make([][]uint64, len(sts))
		for i := range sts {
			row := make([]uint64, 0, nsrc+ndst)
			for _, side := range cols {
				for _, vals := range side {
					row = append(row, vals[i])
				}
			}
			rows[i] = row
		}
		ud, us := unrelated(rows, nsrc, ndst)
		pr.unrelatedDst += ud
		pr.unrelatedSrc += us
	}
	return pr
}

// column is one value of a side's state: a live register (or a 32-bit
// lane of a live xmm register), or a stack slot.
type column struct {
	state int    // component index; -1 for a slot
	lane  uint32 // xmm lane
	slot  pair.Slot
}

func (c column) value(st []ir.Value, rsp0 uint64) uint64 {
	switch {
	case c.state < 0:
		return pair.ReadSlot(st[x86.StateMem].Mem(), rsp0, c.slot)
	case c.state >= x86.StateXMM0 && c.state < x86.StateXMM0+16:
		return st[c.state].BV().Extract(32*c.lane+31, 32*c.lane).Uint64()
	default:
		return st[c.state].BV().Uint64()
	}
}

// columns are the values of side's state at anchor n the ranking relates:
// the live general registers but the stack pointer, the live xmm
// registers' lanes and the slots.
func (r *ranker) columns(side int, n ir.NodeID) []column {
	var out []column
	live := r.live[side][n]
	for i := 0; i < 16; i++ {
		if live[x86.StateGPR0+i] && i != x86.RSP {
			out = append(out, column{state: x86.StateGPR0 + i})
		}
	}
	for i := 0; i < 16; i++ {
		if live[x86.StateXMM0+i] {
			for lane := uint32(0); lane < 4; lane++ {
				out = append(out, column{state: x86.StateXMM0 + i, lane: lane})
			}
		}
	}
	for _, s := range r.slots[side] {
		out = append(out, column{state: -1, slot: s})
	}
	return out
}

// unrelated counts, of a table whose first nsrc columns are the source's
// values and next ndst the target's, the target's columns and the
// source's that no affine relation (mod 2^rankWidth) holding on every row
// ties to the other side or to a constant. The kernel's generators come
// in Howell form with the target's columns last, so a target value that
// is a function of the source's has a generator of its own that names
// source columns only besides it. A generator whose leading coefficient
// is even relates some low bits only (an aligned pointer's) and counts
// for nothing.
func unrelated(rows [][]uint64, nsrc, ndst int) (dst, src int) {
	n := nsrc + ndst
	if n == 0 || len(rows) == 0 {
		return 0, 0
	}
	related := make([]bool, n)
	for _, v := range learn.Kernel(rows, n, rankWidth) {
		var hasSrc, hasDst bool
		nz, lead := 0, -1
		for i := 0; i < n; i++ {
			if v[i] != 0 {
				nz, lead = nz+1, i
				if i < nsrc {
					hasSrc = true
				} else {
					hasDst = true
				}
			}
		}
		if nz == 0 || v[lead]&1 == 0 {
			continue // no variable, or a relation of some low bits only
		}
		for i := 0; i < n; i++ {
			if v[i] != 0 && (nz == 1 || hasSrc && hasDst) {
				related[i] = true
			}
		}
	}
	for i, ok := range related {
		if !ok {
			if i < nsrc {
				src++
			} else {
				dst++
			}
		}
	}
	return dst, src
}
