package align

import (
	"sort"
	"strconv"
	"strings"

	"eqc/ir"
	"eqc/x86"
)

// Correlation (thesis Algorithm 1, guided by co-execution as Counter is by
// counterexamples): every edge of the target between anchors is paired
// with a path set of the source, named by where it ends, how many times it
// arrives there and how many times it may go around a loop on the way.
// Candidates come from the concrete runs: after the target takes an edge,
// the source positions where the two memories agree outside the stack are
// the places the source may have got to. A choice made for one product
// edge must fit every later use of that edge in every run; when it does
// not, the search backtracks. Whatever the runs suggest, the solver
// decides: a wrong correlation fails its obligations and the next one is
// tried.

// nodeKey is a product node: a source anchor and a target anchor.
type nodeKey struct{ src, dst ir.NodeID }

// edgeKey is a product edge before its source side is chosen: the product
// node it leaves, the target anchor the target edge goes to and, when via
// is set, the target edges (a via set) its paths may take: the target's
// paths between the two anchors that take only those. A via set splits a
// target step whose paths pair with different source path sets (an odd
// length's extra element before a loop, PLDI'19 Figure 3); only the
// data-driven engine makes them, and buildProduct requires them to cover
// every path of the step.
type edgeKey struct {
	from  nodeKey
	dstTo ir.NodeID
	via   string
}

// viaString is the via set of a target's edge IDs: sorted, comma-separated.
func viaString(ids map[int]bool) string {
	sorted := make([]int, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Ints(sorted)
	parts := make([]string, len(sorted))
	for i, id := range sorted {
		parts[i] = strconv.Itoa(id)
	}
	return strings.Join(parts, ",")
}

// viaIDs is the set of edge IDs via names (nil for "": every edge).
func viaIDs(via string) map[int]bool {
	if via == "" {
		return nil
	}
	out := map[int]bool{}
	for _, part := range strings.Split(via, ",") {
		id, err := strconv.Atoi(part)
		if err != nil {
			panic("align: bad via set " + via)
		}
		out[id] = true
	}
	return out
}

// within reports whether every edge of path is in the via set ids.
func within(path []int, ids map[int]bool) bool {
	for _, id := range path {
		if !ids[id] {
			return false
		}
	}
	return true
}

// stepSpec finds the spec of the target's step from from to dstTo along
// path: the one for every path, else the first via set (in viaKeys'
// order) holding path.
func stepSpec(specs map[edgeKey]srcSpec, from nodeKey, dstTo ir.NodeID, path []int) (edgeKey, srcSpec, bool) {
	ek := edgeKey{from: from, dstTo: dstTo}
	if sp, ok := specs[ek]; ok {
		return ek, sp, true
	}
	for _, k := range viaKeys(specs, from, dstTo) {
		if within(path, viaIDs(k.via)) {
			return k, specs[k], true
		}
	}
	return ek, srcSpec{}, false
}

// srcSpec is the source side of a product edge: the path set from the
// product node's source anchor to anchor to, ending at its arrivals-th
// arrival there, going around loops at most mu times. Arrivals 0 (with
// to the from-node's own source anchor and mu 0) is the empty path: the
// source stays while the target takes its step. Only the data-driven
// engine pairs that way, and buildProduct refuses a cycle of such edges.
type srcSpec struct {
	to           ir.NodeID
	arrivals, mu int
}

// stays reports whether sp is the empty path.
func (sp srcSpec) stays() bool { return sp.arrivals == 0 }

// visitPair is one aligned pair of arrivals in a co-execution.
type visitPair struct {
	node nodeKey
	s, d int // indices into the runs' visits
}

// alignment is one complete correlation and the aligned visits it gives.
type alignment struct {
	specs map[edgeKey]srcSpec
	pairs [][]visitPair // per co-execution
}

// Bounds of the correlation search.
const (
	maxLook        = 80 // source arrivals scanned for candidates after one target step
	maxCandidates  = 6  // alternatives tried per product edge
	maxUnroll      = 64 // largest mu of a source path set
	heapChecksEach = 3  // uses of a chosen spec per run whose memories are compared
)

// compatible reports whether a source anchor may pair with a target anchor:
// exits with exits, abnormal ends with abnormal ends, the rest with the rest.
func compatible(src, dst ir.Node) bool {
	end := func(k ir.NodeKind) int {
		switch k {
		case ir.NodeExit:
			return 1
		case ir.NodeHalt:
			return 2
		}
		return 0
	}
	return end(src.Kind) == end(dst.Kind)
}

// correlate searches for up to limit complete alignments of the runs.
func (p *Pair) correlate(runs []*coRun, limit int) []alignment {
	var out []alignment
	var search func(specs map[edgeKey]srcSpec, depth int)
	search = func(specs map[edgeKey]srcSpec, depth int) {
		if len(out) >= limit || depth > 24 {
			return
		}
		a := alignment{specs: specs}
		for _, cr := range runs {
			pairs, missing, cands, ok := p.walk(cr, specs, true)
			if !ok {
				return
			}
			if missing != nil {
				for _, c := range cands {
					next := make(map[edgeKey]srcSpec, len(specs)+1)
					for k, v := range specs {
						next[k] = v
					}
					next[*missing] = c
					search(next, depth+1)
				}
				return
			}
			a.pairs = append(a.pairs, pairs)
		}
		out = append(out, a)
	}
	search(map[edgeKey]srcSpec{}, 0)
	return out
}

// walk follows co-execution cr under specs. It returns the aligned pairs;
// or the first product edge without a spec and the candidates for it; or
// ok = false when the runs contradict specs (with heap, also when the
// memories disagree at one of a spec's first uses in the run).
func (p *Pair) walk(cr *coRun, specs map[edgeKey]srcSpec, heap bool) (pairs []visitPair, missing *edgeKey, cands []srcSpec, ok bool) {
	S, D := cr.src.visits, cr.dst.visits
	sg, dg := p.Src.TFG, p.Dst.TFG
	si := 0
	uses := map[edgeKey]int{}
	pairs = append(pairs, visitPair{node: nodeKey{S[0].node, D[0].node}, s: 0, d: 0})
	for j := 0; j+1 < len(D); j++ {
		from := nodeKey{S[si].node, D[j].node}
		ek, spec, have := stepSpec(specs, from, D[j+1].node, D[j+1].path)
		if !have {
			cands = p.candidates(cr, si, j+1, specs)
			if len(cands) == 0 {
				if !cr.src.ended && si+maxLook >= len(S) {
					return pairs, nil, nil, true // the source run was cut short: stop here
				}
				return nil, nil, nil, false
			}
			return nil, &ek, cands, true
		}
		// Follow the spec along the source run.
		next, arrivals := -1, 0
		if spec.stays() {
			if spec.to != S[si].node {
				return nil, nil, nil, false
			}
			next = si
		}
		for q := si + 1; q < len(S) && next < 0; q++ {
			if S[q].node == spec.to {
				arrivals++
				if arrivals == spec.arrivals {
					next = q
					break
				}
			}
		}
		if next < 0 {
			if !cr.src.ended {
				return pairs, nil, nil, true // cut short
			}
			return nil, nil, nil, false
		}
		if mu := S[next].retreats - S[si].retreats; mu > spec.mu {
			// The same target step takes the source around its loop more
			// often here than where the spec was chosen (a scalar tail
			// of 0 to 3 elements after a vector loop): widen the path
			// set, which every earlier use still fits.
			if mu > maxUnroll {
				return nil, nil, nil, false
			}
			spec.mu = mu
			specs[ek] = spec
		}
		if heap && uses[ek] < heapChecksEach {
			uses[ek]++
			if !heapEqual(S[next].state[x86.StateMem].Mem(), D[j+1].state[x86.StateMem].Mem(), cr.rsp0) {
				return nil, nil, nil, false
			}
		}
		if !compatible(sg.Nodes[S[next].node], dg.Nodes[D[j+1].node]) {
			return nil, nil, nil, false
		}
		si = next
		pairs = append(pairs, visitPair{node: nodeKey{S[si].node, D[j+1].node}, s: si, d: j + 1})
	}
	if cr.dst.ended && cr.src.ended && si != len(S)-1 {
		return nil, nil, nil, false // the target ended and the source did not
	}
	return pairs, nil, nil, true
}

// candidates lists source specs for the target's step to visit d from the
// source's visit si: source arrivals whose memory agrees with the target's
// outside the stack. First come those that arrive at a product node specs
// already have (clang's s176: the target's outer loop head goes with the
// source's outer loop head, not with the source's inner loop after 8
// iterations, where memory agrees too); then, around a loop, the unroll
// factor the trip counts suggest; then powers of two.
func (p *Pair) candidates(cr *coRun, si, d int, specs map[edgeKey]srcSpec) []srcSpec {
	S, D := cr.src.visits, cr.dst.visits
	sg, dg := p.Src.TFG, p.Dst.TFG
	dm := D[d].state[x86.StateMem].Mem()
	count := map[ir.NodeID]int{}
	var out []srcSpec
	seen := map[srcSpec]bool{}
	for q := si + 1; q < len(S) && q <= si+maxLook; q++ {
		count[S[q].node]++
		mu := S[q].retreats - S[si].retreats
		if mu > maxUnroll || !compatible(sg.Nodes[S[q].node], dg.Nodes[D[d].node]) {
			continue
		}
		sp := srcSpec{to: S[q].node, arrivals: count[S[q].node], mu: mu}
		if seen[sp] {
			continue
		}
		if !heapEqual(S[q].state[x86.StateMem].Mem(), dm, cr.rsp0) {
			continue
		}
		seen[sp] = true
		out = append(out, sp)
	}
	pow2 := func(n int) bool { return n&(n-1) == 0 }
	known := map[nodeKey]bool{{S[0].node, D[0].node}: true}
	for ek, sp := range specs {
		known[ek.from] = true
		known[nodeKey{sp.to, ek.dstTo}] = true
	}
	// The expected number of arrivals: the trip-count ratio for a step
	// around a loop; for a step out of one, what a pass around it was paired
	// with, since a bottom-tested vector loop leaves after its last full
	// pass (gcc's dsum: four source iterations, then the scalar tail).
	expect := tripRatio(cr, S[si].node, D[d-1].node, D[d].node)
	if loop, ok := specs[edgeKey{from: nodeKey{S[si].node, D[d-1].node}, dstTo: D[d-1].node}]; ok && expect == 0 && D[d-1].node != D[d].node {
		expect = loop.arrivals
	}
	rank := func(sp srcSpec) int {
		r := 0
		if !known[nodeKey{sp.to, D[d].node}] {
			r += 4
		}
		if sp.arrivals != expect {
			r += 2
		}
		if !pow2(sp.arrivals) {
			r++
		}
		return r
	}
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	if len(out) > maxCandidates {
		out = out[:maxCandidates]
	}
	return out
}

// tripRatio is, for a target step around a loop (from and to the same
// target node), the ratio of the source's arrivals at src to the target's
// at that node over the whole co-execution, rounded: the unroll factor the
// two loops' trip counts suggest (clang's sum1d adds 40 elements per
// iteration: 32000 source arrivals against 800). It is 0 when the step is
// not around a loop or a run was cut short.
func tripRatio(cr *coRun, src, dstFrom, dstTo ir.NodeID) int {
	if dstFrom != dstTo || !cr.src.ended || !cr.dst.ended {
		return 0
	}
	cs, cd := cr.src.arrivals(src), cr.dst.arrivals(dstTo)
	if cd < 2 {
		return 0
	}
	return (cs + cd/2) / cd
}
