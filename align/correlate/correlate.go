package correlate

import (
	"context"
	"fmt"
	"sort"

	"eqc/align/product/pair"
	"eqc/ir"
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

// maxCandidates bounds the alternatives tried per product edge.
const maxCandidates = 6

// correlate searches for up to limit complete alignments of the runs.
func correlate(p *pair.Pair, runs []*pair.CoRun, limit int) []pair.Alignment {
	var out []pair.Alignment
	var search func(specs map[pair.EdgeKey]pair.SrcSpec, depth int)
	search = func(specs map[pair.EdgeKey]pair.SrcSpec, depth int) {
		if len(out) >= limit || depth > 24 {
			return
		}
		a := pair.Alignment{Specs: specs}
		for _, cr := range runs {
			pairs, missing, ok := p.Walk(cr, specs, true)
			if !ok {
				return
			}
			if missing != nil {
				for _, c := range rankCandidates(cr, missing, specs) {
					next := make(map[pair.EdgeKey]pair.SrcSpec, len(specs)+1)
					for k, v := range specs {
						next[k] = v
					}
					next[missing.Key] = c
					search(next, depth+1)
				}
				return
			}
			a.Pairs = append(a.Pairs, pairs)
		}
		out = append(out, a)
	}
	search(map[pair.EdgeKey]pair.SrcSpec{}, 0)
	return out
}

// rankCandidates orders the source path sets that fit a missing step
// (the candidates for its spec) and keeps the first maxCandidates. First
// come those that arrive at a product node specs already have (clang's
// s176: the target's outer loop head goes with the source's outer loop
// head, not with the source's inner loop after 8 iterations, where memory
// agrees too); then, around a loop, the unroll factor the trip counts
// suggest; then powers of two.
func rankCandidates(cr *pair.CoRun, m *pair.MissingStep, specs map[pair.EdgeKey]pair.SrcSpec) []pair.SrcSpec {
	S, D := cr.Src.Visits, cr.Dst.Visits
	si, d := m.S, m.D
	out := m.Specs
	pow2 := func(n int) bool { return n&(n-1) == 0 }
	known := map[pair.NodeKey]bool{{Src: S[0].Node, Dst: D[0].Node}: true}
	for ek, sp := range specs {
		known[ek.From] = true
		known[pair.NodeKey{Src: sp.To, Dst: ek.DstTo}] = true
	}
	// The expected number of arrivals: the trip-count ratio for a step
	// around a loop; for a step out of one, what a pass around it was paired
	// with, since a bottom-tested vector loop leaves after its last full
	// pass (gcc's dsum: four source iterations, then the scalar tail).
	expect := tripRatio(cr, S[si].Node, D[d-1].Node, D[d].Node)
	if loop, ok := specs[pair.EdgeKey{From: pair.NodeKey{Src: S[si].Node, Dst: D[d-1].Node}, DstTo: D[d-1].Node}]; ok && expect == 0 && D[d-1].Node != D[d].Node {
		expect = loop.Arrivals
	}
	rank := func(sp pair.SrcSpec) int {
		r := 0
		if !known[pair.NodeKey{Src: sp.To, Dst: D[d].Node}] {
			r += 4
		}
		if sp.Arrivals != expect {
			r += 2
		}
		if !pow2(sp.Arrivals) {
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
func tripRatio(cr *pair.CoRun, src, dstFrom, dstTo ir.NodeID) int {
	if dstFrom != dstTo || !cr.Src.Ended || !cr.Dst.Ended {
		return 0
	}
	cs, cd := cr.Src.Arrivals(src), cr.Dst.Arrivals(dstTo)
	if cd < 2 {
		return 0
	}
	return (cs + cd/2) / cd
}

// Name is the static engine's --engine name.
const Name = "static"

// The correlators (--correlator): backtracking in the order of the
// candidates' static rank (correlate), and best-first by the promise the
// runs give each partial alignment (bestFirst, ceg.go). The default is the
// one measured better: on the kernels suite (both compilers, 30 s a check)
// best-first proved 46 of 112 to backtracking's 45, none fewer, in 1339 s
// of checks to 1492 s (its search stops after maxExpansions where
// backtracking can run to the timeout).
const (
	Backtracking      = "bt"
	BestFirst         = "ceg"
	DefaultCorrelator = BestFirst
)

// ValidateCorrelator says why name is not a --correlator ("" is the
// default).
func ValidateCorrelator(name string) error {
	switch name {
	case "", Backtracking, BestFirst:
		return nil
	}
	return fmt.Errorf("unknown correlator %q (want %s or %s)", name, Backtracking, BestFirst)
}

// Engine is the static engine: correlation, by the correlator named
// Correlator ("" is DefaultCorrelator).
type Engine struct{ Correlator string }

// Name is Name.
func (Engine) Name() string { return Name }

const noCorrelation = "no-correlation: no alignment of the co-executions fits"

// Alignments are the first limit alignments the correlator finds.
func (e Engine) Alignments(ctx context.Context, p *pair.Pair, runs []*pair.CoRun, limit int) pair.Search {
	c := e.Correlator
	if c == "" {
		c = DefaultCorrelator
	}
	if c == BestFirst {
		aligns, st := bestFirst(ctx, p, runs, limit)
		return pair.Search{Alignments: aligns, Expanded: st.Expanded, Pruned: st.Pruned, Reason: noCorrelation}
	}
	return pair.Search{Alignments: correlate(p, runs, limit), Reason: noCorrelation}
}
