package product

import "eqc/ir"

// Counterexamples as data (Counter §3.5). A Houdini model that drops
// candidates at a node is a state there the runs did not show: its values
// of the node's learning columns join the node's table as one more row, and
// the affine equalities of the grown table are the node's new candidates
// (prove.HoudiniOptions.Refine). Few runs reach some nodes (a remainder
// loop entered from a vector loop's exit or directly); over their few
// states the entry's columns (the stack pointer, the globals' addresses)
// look affinely related, and the learner's equalities mix those
// coincidences into the true relations — a relation of the remainder's
// index to the source's counter that also names &a and rsp, which the
// first model breaks. The model's row leaves the coincidences out of the
// span, and what is relearned holds the true relation alone. The row also
// puts into the span the relation it breaks plus a relation of the entry's
// columns that vanishes on the runs and makes up the error on the row;
// such a candidate has coefficients that look random and costs Houdini
// seconds of bit-blasted multiplication, so Learning.Relearn keeps small
// coefficients only (learning.Relearn).

// refine adds the state value describes to n's table and returns the
// table's affine equalities that mention n's own variables; nil when the
// Learning has no Relearn, n has no table, or a column has no value in
// the model.
func (pr *Product) refine(n *PNode, value func(ir.Term) (ir.Value, bool)) []ir.Term {
	if pr.learning.Relearn == nil || len(n.table.cols) == 0 {
		return nil
	}
	row := make([]uint64, len(n.table.cols))
	for i, c := range n.table.cols {
		v, ok := value(c.Term)
		if !ok || !v.Sort().IsBV() {
			return nil
		}
		row[i] = v.BV().Uint64()
	}
	n.table.rows = append(n.table.rows, row)
	eqs, err := pr.learning.Relearn(pr.p.B, n.table.cols, n.table.rows)
	if err != nil {
		return nil
	}
	var out []ir.Term
	for _, t := range eqs {
		if n.mentionsOwn(pr.p.B, t) {
			out = append(out, t)
		}
	}
	return out
}

// mentionsOwn says whether t mentions one of n's own variables (its fresh
// components or its memory): a fact about the entry state alone is not
// the node's business.
func (n *PNode) mentionsOwn(b *ir.Builder, t ir.Term) bool {
	for _, u := range b.PostOrder(t) {
		if _, own := n.varComp[u]; own || u == n.mem {
			return true
		}
	}
	return false
}
