package product

import "eqc/ir"

// The seam to invariant learning. The product lays out what the runs show
// as a table (columns are terms, rows their values on aligned states) and
// asks a Learning for relations among the columns; what learns them
// (package learn, wired in by align/product/learning) is the caller's to
// supply, so that the proof checker (align/verify), which builds products
// too, does not depend on it. Nothing learned is believed: candidates go
// through Houdini and pins are proved before an edge is rebuilt with them.

// Column is one column of a learning table: a bit-vector term of width at
// most 64 and its name, for descriptions.
type Column struct {
	Name string
	Term ir.Term
}

// Candidate is a candidate invariant of a product node: a formula over the
// node's variables and the entry state that holds on every aligned state
// it was learned from.
type Candidate struct {
	Term ir.Term
	Desc string // readable, for debugging
}

// CandidateFunc learns the candidate invariants of a node: relations among
// cols that hold on every row (rows[k][i] is cols[i]'s value on state k).
type CandidateFunc func(b *ir.Builder, cols []Column, rows [][]uint64) ([]Candidate, error)

// EqualityFunc learns the affine equalities among cols that hold on every
// row, as Bool terms: each equality c = Σ a_i·v_i + d is solved for the
// last column c it has with an odd coefficient (pins want the pinned
// variable, the last column, as the subject).
type EqualityFunc func(b *ir.Builder, cols []Column, rows [][]uint64) ([]ir.Term, error)

// WeakenFunc replaces a candidate a counterexample falsifies by a weaker
// one it satisfies, given the counterexample's value of terms over the
// candidate's node, or reports false (prove.HoudiniOptions.Weaken).
// consts gives the constants of at most w bits of the two programs'
// branch conditions, each with its neighbours (x > 999 bounds x by 1000),
// which a bound may move on to.
type WeakenFunc func(b *ir.Builder, cand ir.Term, value func(ir.Term) (ir.Value, bool), consts func(w uint32) []uint64) (ir.Term, bool)

// Learning is what Build and the discharge ask of invariant learning.
// Any may be nil: with no Candidates the nodes get none (the proof
// checker takes the invariants from the proof), with no Equalities the
// only pins proposed are constants and globals plus constants (pin.go),
// with no Relearn Houdini learns no equalities from its models' states,
// with no Weaken Houdini drops every candidate a counterexample falsifies.
type Learning struct {
	Candidates CandidateFunc
	Equalities EqualityFunc
	// Relearn learns the equalities of a node's table after a Houdini
	// counterexample's row joined it (refine.go); nil: no relearning.
	Relearn EqualityFunc
	Weaken  WeakenFunc
}

// rows evaluates the columns value on each sample.
func rows(samples []sample, value []func(sample) uint64) [][]uint64 {
	out := make([][]uint64, len(samples))
	for k, sm := range samples {
		vals := make([]uint64, len(value))
		for i, v := range value {
			vals[i] = v(sm)
		}
		out[k] = vals
	}
	return out
}
