package prove

import (
	"context"
	"fmt"
	"time"

	"eqc/ir"
)

// The Houdini fixpoint (Flanagan and Leino): start from every candidate
// invariant at every site, and drop the candidates some edge cannot
// establish, until what is left is inductive. Each failed check returns a
// model; every candidate the model falsifies after the edge is dropped at
// once, which is what makes the fixpoint cheap when candidates are many.

// Trace, when set, is told about every Houdini query (for debugging).
var Trace func(what string, from, to, candidates int, st Status, d time.Duration)

// DumpQuery, when set, is given every Houdini query (for debugging; the
// loop engine gives it its obligations too).
var DumpQuery func(what string, q Query)

// HoudiniEdge is an edge between two invariant sites.
type HoudiniEdge struct {
	From, To int
	// Pre are the edge's assumptions besides From's invariants: the
	// calling context, the edge's condition, that it does not fault.
	Pre []ir.Term
	// Post maps a candidate of To to what it says about the state after
	// the edge, as a term over the state before it.
	Post func(ir.Term) ir.Term
}

// HoudiniResult is the fixpoint: Kept[n][i] reports whether candidate i of
// site n survived.
type HoudiniResult struct {
	Kept    [][]bool
	Queries int
	// Unknown, when set, says why the fixpoint could not be reached (a
	// solver timeout or unknown); Kept is then not inductive.
	Unknown string
}

// Invariants returns the surviving candidates of site n.
func (r *HoudiniResult) Invariants(cands [][]ir.Term, n int) []ir.Term {
	var out []ir.Term
	for i, c := range cands[n] {
		if r.Kept[n][i] {
			out = append(out, c)
		}
	}
	return out
}

// Houdini computes the largest subset of cands (per site) that every edge
// preserves: for each edge, the kept invariants of From and the edge's Pre
// imply the Post of every kept invariant of To. Sites without edges into
// them keep all their candidates (the caller gives entry sites none).
func Houdini(ctx context.Context, s Solver, b *ir.Builder, cands [][]ir.Term, edges []HoudiniEdge) *HoudiniResult {
	r := &HoudiniResult{Kept: make([][]bool, len(cands))}
	for n, cs := range cands {
		r.Kept[n] = make([]bool, len(cs))
		for i := range cs {
			r.Kept[n][i] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, e := range edges {
			for {
				var posts []ir.Term
				var idx []int
				for i, c := range cands[e.To] {
					if r.Kept[e.To][i] {
						posts = append(posts, e.Post(c))
						idx = append(idx, i)
					}
				}
				if len(posts) == 0 {
					break
				}
				q := Query{B: b, Assertions: append(append(append([]ir.Term(nil), e.Pre...), r.Invariants(cands, e.From)...), b.Not(b.And(posts...)))}
				if DumpQuery != nil {
					DumpQuery(fmt.Sprintf("houdini-n%d-n%d-%d", e.From, e.To, len(posts)), q)
				}
				t0 := time.Now()
				res := s.Check(ctx, q)
				r.Queries++
				if Trace != nil {
					Trace("houdini", e.From, e.To, len(posts), res.Status, time.Since(t0))
				}
				if res.Status == Unsat {
					break
				}
				if res.Status != Sat {
					r.Unknown = "solver-unknown: " + res.Reason
					if ctx.Err() != nil {
						r.Unknown = "timeout"
					}
					return r
				}
				ev := ir.NewEvaluator(b, res.Model)
				dropped := false
				for k, t := range posts {
					v, err := ev.Eval(t)
					if err != nil || !v.Bool() {
						r.Kept[e.To][idx[k]] = false
						dropped = true
					}
				}
				if !dropped {
					// The model falsifies the conjunction but no conjunct:
					// impossible for a checked model. Give up soundly.
					r.Unknown = "solver-unknown: a model that falsifies no candidate"
					return r
				}
				changed = true
			}
		}
	}
	return r
}
