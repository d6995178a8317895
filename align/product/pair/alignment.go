package pair

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"eqc/ir"
	"eqc/x86"
)

// Bounds of alignments, for searching and for walking co-executions.
const (
	MaxLook        = 80 // source arrivals scanned for candidates after one target step
	MaxUnroll      = 64 // largest mu of a source path set
	HeapChecksEach = 3  // uses of a chosen spec per run whose memories are compared
)

// NodeKey is a product node: a source anchor and a target anchor.
type NodeKey struct{ Src, Dst ir.NodeID }

// EdgeKey is a product edge before its source side is chosen: the product
// node it leaves, the target anchor the target edge goes to and, when via
// is set, the target edges (a via set) its paths may take: the target's
// paths between the two anchors that take only those. A via set splits a
// target step whose paths pair with different source path sets (an odd
// length's extra element before a loop, PLDI'19 Figure 3); only the
// data-driven engine makes them, and product.Build requires them to cover
// every path of the step.
type EdgeKey struct {
	From  NodeKey
	DstTo ir.NodeID
	Via   string
}

// ViaString is the via set of a target's edge IDs: sorted, comma-separated.
func ViaString(ids map[int]bool) string {
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

// ViaIDs is the set of edge IDs via names (nil for "": every edge).
func ViaIDs(via string) map[int]bool {
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

// PathWithin reports whether every edge of path is in the via set ids.
func PathWithin(path []int, ids map[int]bool) bool {
	for _, id := range path {
		if !ids[id] {
			return false
		}
	}
	return true
}

// stepSpec finds the spec of the target's step from from to dstTo along
// path: the one for every path, else the first via set (in ViaKeys'
// order) holding path.
func stepSpec(specs map[EdgeKey]SrcSpec, from NodeKey, dstTo ir.NodeID, path []int) (EdgeKey, SrcSpec, bool) {
	ek := EdgeKey{From: from, DstTo: dstTo}
	if sp, ok := specs[ek]; ok {
		return ek, sp, true
	}
	for _, k := range ViaKeys(specs, from, dstTo) {
		if PathWithin(path, ViaIDs(k.Via)) {
			return k, specs[k], true
		}
	}
	return ek, SrcSpec{}, false
}

// SrcSpec is the source side of a product edge: the path set from the
// product node's source anchor to anchor to, ending at its arrivals-th
// arrival there, going around loops at most mu times. Arrivals 0 (with
// to the from-node's own source anchor and mu 0) is the empty path: the
// source stays while the target takes its step. Only the data-driven
// engine pairs that way, and product.Build refuses a cycle of such edges.
type SrcSpec struct {
	To           ir.NodeID
	Arrivals, Mu int
}

// Stays reports whether sp is the empty path.
func (sp SrcSpec) Stays() bool { return sp.Arrivals == 0 }

// VisitPair is one aligned pair of arrivals in a co-execution.
type VisitPair struct {
	Node NodeKey
	S, D int // indices into the runs' visits
}

// Alignment is one complete correlation and the aligned visits it gives.
type Alignment struct {
	Specs map[EdgeKey]SrcSpec
	Pairs [][]VisitPair // per co-execution
}

// Search is what an engine's search for alignments gives: up to the limit
// asked for, best first, and its counts; when it found none, Reason says
// why (an unknown verdict's reason).
type Search struct {
	Alignments []Alignment
	// PredicatesTried counts the data-driven engine's predicate
	// assignments aligned.
	PredicatesTried int
	// Expanded and Pruned count the best-first correlator's partial
	// alignments expanded and candidates the runs ruled out before any
	// solver query.
	Expanded, Pruned int
	Reason           string
}

// Compatible reports whether a source anchor may pair with a target anchor:
// exits with exits, abnormal ends with abnormal ends, the rest with the rest.
func Compatible(src, dst ir.Node) bool {
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

// MissingStep is a target step an alignment pairs with nothing, met
// walking a co-execution: the product edge, the source's visit it leaves
// from and the target's visit it arrives at, and the source path sets
// that fit it there (fittingSpecs; never none).
type MissingStep struct {
	Key   EdgeKey
	S, D  int
	Specs []SrcSpec
	Path  []int // the target's path of the step (edge IDs)
}

// Walk follows co-execution cr under specs. It returns the aligned pairs;
// or the first product edge without a spec and the source path sets that
// fit it, with the pairs before it (the best-first correlator ranks a
// partial alignment by them); or ok = false when the runs contradict specs
// (with heap, also when the memories disagree at one of a spec's first
// uses in the run).
func (p *Pair) Walk(cr *CoRun, specs map[EdgeKey]SrcSpec, heap bool) (pairs []VisitPair, missing *MissingStep, ok bool) {
	return p.walk(cr, specs, heap, true)
}

// WalkPrefix is Walk without looking for the source path sets that fit
// a missing step (missing.Specs is nil; FitMissing finds them): the
// best-first correlator ranks a partial alignment by every run's aligned
// visits, and branches at one run's missing step only.
func (p *Pair) WalkPrefix(cr *CoRun, specs map[EdgeKey]SrcSpec, heap bool) (pairs []VisitPair, missing *MissingStep, ok bool) {
	return p.walk(cr, specs, heap, false)
}

// FitMissing fills in the source path sets that fit m, a missing step
// WalkPrefix met walking cr; false when none does (Walk would have
// reported the run contradicting the alignment, or cut short).
func (p *Pair) FitMissing(cr *CoRun, m *MissingStep) bool {
	m.Specs = p.fittingSpecs(cr, m.S, m.D)
	return len(m.Specs) > 0
}

func (p *Pair) walk(cr *CoRun, specs map[EdgeKey]SrcSpec, heap, fit bool) (pairs []VisitPair, missing *MissingStep, ok bool) {
	S, D := cr.Src.Visits, cr.Dst.Visits
	sg, dg := p.Src.TFG, p.Dst.TFG
	si := 0
	uses := map[EdgeKey]int{}
	pairs = append(pairs, VisitPair{Node: NodeKey{S[0].Node, D[0].Node}, S: 0, D: 0})
	for j := 0; j+1 < len(D); j++ {
		from := NodeKey{S[si].Node, D[j].Node}
		ek, spec, have := stepSpec(specs, from, D[j+1].Node, D[j+1].Path)
		if !have && !fit {
			return pairs, &MissingStep{Key: ek, S: si, D: j + 1, Path: D[j+1].Path}, true
		}
		if !have {
			fit := p.fittingSpecs(cr, si, j+1)
			if len(fit) == 0 {
				if !cr.Src.Ended && si+MaxLook >= len(S) {
					return pairs, nil, true // the source run was cut short: stop here
				}
				return nil, nil, false
			}
			return pairs, &MissingStep{Key: ek, S: si, D: j + 1, Specs: fit, Path: D[j+1].Path}, true
		}
		// Follow the spec along the source run.
		next, arrivals := -1, 0
		if spec.Stays() {
			if spec.To != S[si].Node {
				return nil, nil, false
			}
			next = si
		}
		for q := si + 1; q < len(S) && next < 0; q++ {
			if S[q].Node == spec.To {
				arrivals++
				if arrivals == spec.Arrivals {
					next = q
					break
				}
			}
		}
		if next < 0 {
			if !cr.Src.Ended {
				return pairs, nil, true // cut short
			}
			return nil, nil, false
		}
		if mu := S[next].Retreats - S[si].Retreats; mu > spec.Mu {
			// The same target step takes the source around its loop more
			// often here than where the spec was chosen (a scalar tail
			// of 0 to 3 elements after a vector loop): widen the path
			// set, which every earlier use still fits.
			if mu > MaxUnroll {
				return nil, nil, false
			}
			spec.Mu = mu
			specs[ek] = spec
		}
		if heap && uses[ek] < HeapChecksEach {
			uses[ek]++
			if !HeapEqual(S[next].State[x86.StateMem].Mem(), D[j+1].State[x86.StateMem].Mem(), cr.RSP0) {
				return nil, nil, false
			}
		}
		if !Compatible(sg.Nodes[S[next].Node], dg.Nodes[D[j+1].Node]) {
			return nil, nil, false
		}
		si = next
		pairs = append(pairs, VisitPair{Node: NodeKey{S[si].Node, D[j+1].Node}, S: si, D: j + 1})
	}
	if cr.Dst.Ended && cr.Src.Ended && si != len(S)-1 {
		return nil, nil, false // the target ended and the source did not
	}
	return pairs, nil, true
}

// fittingSpecs lists the source path sets that may pair with the target's
// step to visit d from the source's visit si, in the order of the source's
// arrivals: those to the source's arrivals within MaxLook at an anchor
// compatible with the target's, at most MaxUnroll loop passes on, where
// the two memories agree outside the stack.
func (p *Pair) fittingSpecs(cr *CoRun, si, d int) []SrcSpec {
	S, D := cr.Src.Visits, cr.Dst.Visits
	sg, dg := p.Src.TFG, p.Dst.TFG
	dm := D[d].State[x86.StateMem].Mem()
	count := map[ir.NodeID]int{}
	var out []SrcSpec
	seen := map[SrcSpec]bool{}
	for q := si + 1; q < len(S) && q <= si+MaxLook; q++ {
		count[S[q].Node]++
		mu := S[q].Retreats - S[si].Retreats
		if mu > MaxUnroll || !Compatible(sg.Nodes[S[q].Node], dg.Nodes[D[d].Node]) {
			continue
		}
		sp := SrcSpec{To: S[q].Node, Arrivals: count[S[q].Node], Mu: mu}
		if seen[sp] {
			continue
		}
		if !HeapEqual(S[q].State[x86.StateMem].Mem(), dm, cr.RSP0) {
			continue
		}
		seen[sp] = true
		out = append(out, sp)
	}
	return out
}

// ViaKeys are the keys of specs that split the target's step from from to
// dstTo by via sets, in via order.
func ViaKeys(specs map[EdgeKey]SrcSpec, from NodeKey, dstTo ir.NodeID) []EdgeKey {
	var out []EdgeKey
	for k := range specs {
		if k.From == from && k.DstTo == dstTo && k.Via != "" {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Via < out[j].Via })
	return out
}

// SpecsKey names an alignment's specs, for telling alignments apart.
func SpecsKey(specs map[EdgeKey]SrcSpec) string {
	var parts []string
	for k, sp := range specs {
		parts = append(parts, fmt.Sprintf("%d/%d/%d[%s]:%d/%d/%d", k.From.Src, k.From.Dst, k.DstTo, k.Via, sp.To, sp.Arrivals, sp.Mu))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// maxViaSets bounds the via sets of one target step (a bit each below).
const maxViaSets = 64

// ViaCovers reports whether every path of g from anchor v to anchor w
// (through no other anchor) takes only the edges of one of the via sets,
// so that the product edges of the sets, between them, pair every path
// of the step. A depth-first search carries the sets that hold the path
// so far; (node, sets) pairs are searched once.
func ViaCovers(g *ir.TFG, v, w ir.NodeID, anchors map[ir.NodeID]bool, vias []map[int]bool) bool {
	if len(vias) > maxViaSets {
		return false
	}
	type state struct {
		n    ir.NodeID
		sets uint64
	}
	seen := map[state]bool{}
	var covered func(n ir.NodeID, sets uint64) bool
	covered = func(n ir.NodeID, sets uint64) bool {
		if seen[state{n, sets}] {
			return true // searched, or on the current path (no path cycles between anchors)
		}
		seen[state{n, sets}] = true
		for _, e := range g.Out(n) {
			next := uint64(0)
			for i, via := range vias {
				if sets&(1<<i) != 0 && via[e.ID] {
					next |= 1 << i
				}
			}
			switch {
			case e.To == w:
				if next == 0 {
					return false
				}
			case anchors[e.To]:
			case !covered(e.To, next):
				return false
			}
		}
		return true
	}
	return covered(v, 1<<len(vias)-1)
}
