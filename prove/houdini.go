package prove

import (
	"context"
	"fmt"
	"time"

	"eqc/ir"
	"eqc/ir/smtlib"
)

// The Houdini fixpoint (Flanagan and Leino): start from every candidate
// invariant at every site, and drop the candidates some edge cannot
// establish, until what is left is inductive. Each failed check returns a
// model; every candidate the model falsifies after the edge is dropped at
// once, which is what makes the fixpoint cheap when candidates are many.
//
// Two generalizations serve callers whose candidates are many and cheap to
// judge (the dead-block proof, prove/deadblocks) or whose queries may hang
// on one hard candidate (the loop engine, which splits with a per-query
// timeout); both are off unless asked for, and neither ever keeps a
// candidate the solver has not proved preserved:
//
//   - an edge's Settle judges candidates without the solver before each
//     query along it: those it finds implied are left out of the query,
//     those it finds broken are dropped. Before the first query, every
//     Settle is applied round the edges until none drops anything, so
//     that no query carries a candidate a cheap rule rules out.
//   - HoudiniOptions.Split: a query the solver does not decide is asked
//     again about each candidate alone, and the candidates not proved
//     preserved are dropped; the fixpoint is then still reached (weaker)
//     instead of given up.
//   - HoudiniOptions.Weaken: a candidate a model falsifies may be replaced
//     by a weaker one the model satisfies instead of dropped (Counter's
//     counterexamples as data: a bound learned from the runs, x ≥ 11,
//     moved to the model's x = 10), at most maxWeakenings times each and
//     maxEdgeWeakenings times on the models of one edge.
//     The replacement is a candidate like the others: the fixpoint goes
//     round every edge again, so it is kept only if proved preserved.
//   - HoudiniOptions.Refine: a model that drops candidates at a site is
//     a new data point there (Counter §3.5: the counterexample's state
//     joins the runs' states, and the site's strongest cover is
//     recomputed). Candidates learned from too few runs are often
//     combinations of a true relation and a coincidence of those runs
//     (an affine equality that also ties the stack pointer to a
//     global's address); the model breaks the coincidence and the
//     combination with it, and the relearned candidates, which the model
//     satisfies, hold the true relation alone. They join the site's
//     candidates (at most maxRefinements times a site) and are kept only
//     if proved preserved, like every other.

// Trace, when set, is told about every Houdini query (for debugging).
var Trace func(what string, from, to, candidates int, st smtlib.Status, d time.Duration)

// TraceDrop, when set, is told about every candidate a model drops at a
// site (for debugging: which candidates cost the queries).
var TraceDrop func(b *ir.Builder, site int, cand ir.Term)

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
	// Settle, when set, judges candidates without the solver. It is given
	// From's kept invariants (premise) and, for the candidates of To still
	// kept, their indices among To's candidates (idx) and their Posts, and
	// returns one verdict per candidate: HoudiniImplied when premise and
	// Pre imply it after the edge, HoudiniBroken to drop it (dropping is
	// always sound: what survives is still proved inductive), HoudiniAsk
	// to leave it to the solver.
	Settle func(premise []ir.Term, idx []int, posts []ir.Term) []HoudiniVerdict
}

// HoudiniVerdict is what a HoudiniEdge's Settle says of one candidate.
type HoudiniVerdict uint8

const (
	HoudiniAsk     HoudiniVerdict = iota // undecided: the solver is asked
	HoudiniImplied                       // preserved: left out of the query
	HoudiniBroken                        // dropped without a query
)

// HoudiniOptions generalize the fixpoint; the zero value is Houdini's.
type HoudiniOptions struct {
	// Split: when the solver does not decide an edge's query (a timeout
	// of the query, an unknown, a model that falsifies no candidate), each
	// candidate is asked about alone and those not proved preserved are
	// dropped, and the fixpoint goes on. Only the end of the context then
	// gives up.
	Split bool
	// QueryTimeout, when positive, bounds each query on its own: one
	// that runs past it is undecided, which with Split set is asked
	// again candidate by candidate, each within a quarter of it (a bound
	// that needs a%b < b can keep the solver for minutes while the
	// candidates beside it take milliseconds).
	QueryTimeout time.Duration
	// Weaken, when set, is given a candidate a model falsifies after an
	// edge and value, the model's value of a term over the candidate's
	// site after the edge; it returns a weaker candidate that value
	// satisfies, or false to drop it. Replacements are written into the
	// caller's cands.
	Weaken func(cand ir.Term, value func(ir.Term) (ir.Value, bool)) (ir.Term, bool)
	// Refine, when set, is given a site where a model dropped candidates
	// and value, the model's value of a term over the site after the
	// edge; it returns candidates for the site learned with that state
	// among the data. Those the site has not had join its candidates.
	Refine func(site int, value func(ir.Term) (ir.Value, bool)) []ir.Term
}

// maxRefinements bounds how often HoudiniOptions.Refine adds candidates to
// one site: each model shrinks the relearned equalities' span by one at
// least, but each round of new candidates costs queries. A reduction
// whose runs rarely change some lanes (clang's count of zeros: eight
// lanes in two registers, zeros only in the small-element run) has a
// coincidence per lane (lane = 0), which the models break about one at a
// time; with 4 the lanes' sum was never relearned.
const maxRefinements = 12

// maxWeakenings bounds how often HoudiniOptions.Weaken replaces one
// candidate: a bound that each counterexample moves by one (a counter
// going down) is dropped soon instead of walked to its end.
const maxWeakenings = 3

// maxEdgeWeakenings bounds the replacements made on one edge's models:
// each costs a query round, and on a wide edge (clang's sum, 32 source
// iterations a pass, 90 candidates) a round takes seconds; weakening
// every bound three times there took 117 rounds where dropping takes 49.
// (Twelve in all, over every edge, were too few: gcc's digits weakens
// on its entry edge's cheap queries and its loop's.)
const maxEdgeWeakenings = 12

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
	return HoudiniWith(ctx, s, b, cands, edges, HoudiniOptions{})
}

// HoudiniWith is Houdini with the edges' Settle and the options o.
func HoudiniWith(ctx context.Context, s Solver, b *ir.Builder, cands [][]ir.Term, edges []HoudiniEdge, o HoudiniOptions) *HoudiniResult {
	r := &HoudiniResult{Kept: make([][]bool, len(cands))}
	weakened := make([][]int, len(cands))
	weakenings := make([]int, len(edges))  // per edge
	refinements := make([]int, len(cands)) // per site
	var had []map[ir.Term]bool             // per site, every candidate it has had (for Refine)
	refine := func(site int, value func(ir.Term) (ir.Value, bool)) {
		if o.Refine == nil || refinements[site] == maxRefinements {
			return
		}
		refinements[site]++
		if had == nil {
			had = make([]map[ir.Term]bool, len(cands))
		}
		if had[site] == nil {
			had[site] = map[ir.Term]bool{}
			for _, c := range cands[site] {
				had[site][c] = true
			}
		}
		for _, c := range o.Refine(site, value) {
			if !had[site][c] {
				had[site][c] = true
				cands[site] = append(cands[site], c)
				r.Kept[site] = append(r.Kept[site], true)
				weakened[site] = append(weakened[site], 0)
			}
		}
	}
	for n, cs := range cands {
		weakened[n] = make([]int, len(cs))
		r.Kept[n] = make([]bool, len(cs))
		for i := range cs {
			r.Kept[n][i] = true
		}
	}
	// pending returns the kept candidates of e.To (indices) and their
	// Posts, less those e.Settle judges: it drops the broken ones
	// (reporting whether it dropped any) and leaves out the implied.
	pending := func(e *HoudiniEdge) (idx []int, posts []ir.Term, dropped bool) {
		for i, c := range cands[e.To] {
			if r.Kept[e.To][i] {
				posts = append(posts, e.Post(c))
				idx = append(idx, i)
			}
		}
		if e.Settle == nil || len(idx) == 0 {
			return idx, posts, false
		}
		vs := e.Settle(r.Invariants(cands, e.From), idx, posts)
		k := 0
		for j := range idx {
			switch vs[j] {
			case HoudiniBroken:
				r.Kept[e.To][idx[j]] = false
				dropped = true
			case HoudiniImplied:
			default:
				idx[k], posts[k] = idx[j], posts[j]
				k++
			}
		}
		return idx[:k], posts[:k], dropped
	}
	for changed := true; changed; {
		changed = false
		for i := range edges {
			if edges[i].Settle != nil {
				if _, _, dropped := pending(&edges[i]); dropped {
					changed = true
				}
			}
		}
	}
	check := func(q Query, timeout time.Duration) Result {
		if timeout <= 0 {
			return s.Check(ctx, q)
		}
		qctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return s.Check(qctx, q)
	}
	for changed := true; changed; {
		changed = false
		for i := range edges {
			e := &edges[i]
			for {
				idx, posts, dropped := pending(e)
				if dropped {
					changed = true
					continue
				}
				if len(posts) == 0 {
					break
				}
				pre := append(append([]ir.Term(nil), e.Pre...), r.Invariants(cands, e.From)...)
				q := Query{B: b, Assertions: append(pre, b.Not(b.And(posts...)))}
				if DumpQuery != nil {
					DumpQuery(fmt.Sprintf("houdini-n%d-n%d-%d", e.From, e.To, len(posts)), q)
				}
				t0 := time.Now()
				res := check(q, o.QueryTimeout)
				r.Queries++
				if Trace != nil {
					Trace("houdini", e.From, e.To, len(posts), res.Status, time.Since(t0))
				}
				if res.Status == smtlib.Unsat {
					break
				}
				if res.Status == smtlib.Sat {
					ev := ir.NewEvaluator(b, res.Model)
					value := func(t ir.Term) (ir.Value, bool) {
						v, err := ev.Eval(e.Post(t))
						return v, err == nil
					}
					dropped, refined := false, false
					for k, t := range posts {
						v, err := ev.Eval(t)
						if err == nil && v.Bool() {
							continue
						}
						dropped = true
						c := &cands[e.To][idx[k]]
						if o.Weaken != nil && weakened[e.To][idx[k]] < maxWeakenings && weakenings[i] < maxEdgeWeakenings {
							if w, ok := o.Weaken(*c, value); ok && w != *c {
								*c = w
								weakened[e.To][idx[k]]++
								weakenings[i]++
								continue
							}
						}
						r.Kept[e.To][idx[k]] = false
						if TraceDrop != nil {
							TraceDrop(b, e.To, *c)
						}
						if !refined {
							refined = true
							refine(e.To, value)
						}
					}
					if dropped {
						changed = true
						continue
					}
					if !o.Split {
						// The model falsifies the conjunction but no
						// conjunct: impossible for a checked model. Give
						// up soundly.
						r.Unknown = "solver-unknown: a model that falsifies no candidate"
						return r
					}
				} else if ctx.Err() != nil || !o.Split {
					r.Unknown = "solver-unknown: " + res.Reason
					if ctx.Err() != nil {
						r.Unknown = "timeout"
					}
					return r
				}
				// Split: keep only the candidates proved preserved alone.
				dropped = false
				for k, t := range posts {
					q := Query{B: b, Assertions: append(pre[:len(pre):len(pre)], b.Not(t))}
					if DumpQuery != nil {
						DumpQuery(fmt.Sprintf("houdini-n%d-n%d-split%d", e.From, e.To, k), q)
					}
					t0 := time.Now()
					res := check(q, o.QueryTimeout/4)
					r.Queries++
					if Trace != nil {
						Trace("houdini-split", e.From, e.To, 1, res.Status, time.Since(t0))
					}
					if res.Status != smtlib.Unsat {
						r.Kept[e.To][idx[k]] = false
						dropped = true
						if TraceDrop != nil {
							TraceDrop(b, e.To, cands[e.To][idx[k]])
						}
					}
				}
				if ctx.Err() != nil {
					r.Unknown = "timeout"
					return r
				}
				if !dropped {
					break
				}
				changed = true
			}
		}
	}
	return r
}
