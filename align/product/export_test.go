package product

import (
	"eqc/ir"
	"eqc/ub"
)

// Hooks for the external tests (obva_test.go), which build products from
// the static engine's alignments and look at what the OBVA model adds.

// OBVAHyps are e's hypotheses under the OBVA model.
func OBVAHyps(e *PEdge) []ir.Term { return e.obvaHyps }

// RewrittenHyps are e's hypotheses as the queries after its facts take
// them.
func RewrittenHyps(e *PEdge) []ir.Term { return e.hyps }

// Rsp0 is the entry rsp the product's frame offsets are taken from.
func Rsp0(pr *Product) ir.Term { return pr.rsp0 }

// Taint is pr's frame taint analysis; nil without the OBVA model.
func Taint(pr *Product) *ub.FrameTaint { return pr.taint }

// SlotVar is one source stack slot of a product node: its offset from the
// entry rsp and its term at the node.
type SlotVar struct {
	Off  int64
	Term ir.Term
}

// SrcSlotVars lists the source side's stack slots of n.
func SrcSlotVars(n *PNode) []SlotVar {
	var out []SlotVar
	for _, c := range n.comps {
		if c.side == 0 && c.state < 0 {
			out = append(out, SlotVar{c.slot.Off, c.term})
		}
	}
	return out
}

// WidenSource widens e's source path set for model m (widen.go).
func WidenSource(pr *Product, e *PEdge, m ir.Env) bool { return pr.widenSource(e, m) }

// SrcCond is e's source path-set condition over its from-node's state.
func SrcCond(e *PEdge) ir.Term { return e.condS }

// XmmLanes are the lane widths side's xmm register reg is learned by.
func XmmLanes(pr *Product, side, reg int) []uint32 { return pr.xmmLanes(side, reg) }

// LaneWidths are the pair's lane widths, for registers no operation
// tells of.
func LaneWidths(pr *Product) []uint32 { return pr.laneWidths() }

// InvariantPins are the pins n's invariants define (invpins.go), as
// variable and term.
func InvariantPins(pr *Product, n *PNode) [][2]ir.Term {
	var out [][2]ir.Term
	for _, p := range pr.invariantPins(n, nil) {
		out = append(out, [2]ir.Term{p.v, p.t})
	}
	return out
}

// FreshVars are n's fresh live variables and their sides (0 source, 1
// target).
func FreshVars(n *PNode) map[ir.Term]int {
	out := map[ir.Term]int{}
	for _, c := range n.comps {
		if c.fresh && !c.dead {
			out[c.term] = c.side
		}
	}
	return out
}
