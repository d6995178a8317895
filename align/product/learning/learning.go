package learning

import (
	"eqc/align/product"
	"eqc/ir"
	"eqc/learn"
)

// Search is what the engines build their products with: candidate
// invariants at every node, linear pins, and bounds that Houdini's
// counterexamples weaken.
func Search() product.Learning {
	return product.Learning{Candidates: Candidates, Equalities: Equalities, Relearn: Relearn, Weaken: learn.WeakenBound}
}

// Candidates learns a product node's candidate invariants from its
// learning table (a product.CandidateFunc).
func Candidates(b *ir.Builder, cols []product.Column, rows [][]uint64) ([]product.Candidate, error) {
	cands, err := learn.Learn(b, schema(cols), states(rows), learn.Options{Kinds: learn.Kinds(learn.Equality, learn.Congruence, learn.Xor, learn.Fold, learn.HighBits, learn.Bound, learn.Order), MaxOddModulus: 5, MaxPairOddModulus: 1, MaxModLog2: 32})
	if err != nil {
		return nil, err
	}
	out := make([]product.Candidate, len(cands))
	for i, c := range cands {
		out[i] = product.Candidate{Term: c.Term, Desc: c.Desc}
	}
	return out, nil
}

// Equalities learns the affine equalities of a learning table (a
// product.EqualityFunc): learn solves each for its highest-indexed column
// with an odd coefficient.
func Equalities(b *ir.Builder, cols []product.Column, rows [][]uint64) ([]ir.Term, error) {
	return equalities(b, cols, rows, learn.Options{Kinds: learn.Kinds(learn.Equality)})
}

// Relearn learns the affine equalities of a table a Houdini
// counterexample's row has grown, with small coefficients only
// (learn.Options.SmallCoefficients): gcc's dsum, relearned without the
// rule, got its sum = 3·i + 4·lane − 3 back mixed with a relation of rsp,
// n and (n−1)/4 with coefficients like 0x62653a376f5af837 that fitted
// the model's row, and the Houdini queries that had to refute it took
// 24 s where they take 2 s without it.
func Relearn(b *ir.Builder, cols []product.Column, rows [][]uint64) ([]ir.Term, error) {
	return equalities(b, cols, rows, learn.Options{Kinds: learn.Kinds(learn.Equality), SmallCoefficients: true})
}

func equalities(b *ir.Builder, cols []product.Column, rows [][]uint64, opt learn.Options) ([]ir.Term, error) {
	cands, err := learn.Learn(b, schema(cols), states(rows), opt)
	if err != nil {
		return nil, err
	}
	out := make([]ir.Term, len(cands))
	for i, c := range cands {
		out[i] = c.Term
	}
	return out, nil
}

func schema(cols []product.Column) *learn.Schema {
	vars := make([]learn.Var, len(cols))
	for i, c := range cols {
		vars[i] = learn.Var{Name: c.Name, Term: c.Term}
	}
	return &learn.Schema{Vars: vars}
}

func states(rows [][]uint64) []learn.State {
	out := make([]learn.State, len(rows))
	for k, r := range rows {
		out[k] = learn.State{Vals: r}
	}
	return out
}
