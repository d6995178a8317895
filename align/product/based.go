package product

import (
	"fmt"

	"eqc/ir"
)

// Based candidates: a 64-bit variable that is a global's address plus a
// scaled index, p = G + c·ext(x) + d with c a power of two up to 16 and x
// a narrower variable (zero- or sign-extended) or another 64-bit one. The
// affine learner should find these, but its rows differ only between runs
// for values fixed through a run (s162's a + 4·k, computed once before the
// loop, against the parameter k), and with more such columns than runs the
// kernel holds spurious relations the real one gets folded into. Three
// columns at a time, checked on every state, cannot overfit that way.

// maxBasedCandidates bounds the candidates of one node.
const maxBasedCandidates = 32

// basedCandidates returns the candidates p = G + c·ext(x) + d that hold on
// every one of n's samples and whose x varies.
func (pr *Product) basedCandidates(n *PNode, samples []sample) []Candidate {
	b := pr.p.B
	if len(samples) < 4 {
		return nil
	}
	type column struct {
		term  ir.Term
		value func(sample) uint64
	}
	var ptrs, idx []column
	for _, c := range n.comps {
		if !c.fresh || c.dead {
			continue
		}
		c := c
		so := b.Sort(c.term)
		if !so.IsBV() || so.Width > 64 {
			continue
		}
		val := func(sm sample) uint64 { return pr.compValue(sm, c).BV().Uint64() }
		switch so.Width {
		case 64:
			ptrs = append(ptrs, column{c.term, val})
			idx = append(idx, column{c.term, val})
		case 32:
			w := so.Width
			idx = append(idx,
				column{b.ZeroExt(c.term, 64-w), val},
				column{b.SignExt(c.term, 64-w), func(sm sample) uint64 { return uint64(int64(int32(val(sm)))) }})
		}
	}
	if len(ptrs) == 0 {
		return nil
	}
	bases := append([]ir.Term{ir.NoTerm}, pr.p.GlobalVars()...)
	baseVal := func(g ir.Term, sm sample) uint64 {
		if g == ir.NoTerm {
			return 0
		}
		return pr.entryValue(sm, g)
	}
	var out []Candidate
	for _, p := range ptrs {
		for _, g := range bases {
			for _, x := range idx {
				if x.term == p.term {
					continue
				}
				for _, scale := range []uint64{1, 2, 4, 8, 16} {
					d := p.value(samples[0]) - baseVal(g, samples[0]) - scale*x.value(samples[0])
					holds, varies := true, false
					for _, sm := range samples[1:] {
						xv := x.value(sm)
						if p.value(sm)-baseVal(g, sm)-scale*xv != d {
							holds = false
							break
						}
						varies = varies || xv != x.value(samples[0])
					}
					if !holds || !varies {
						continue
					}
					rhs := b.Add(b.Mul(b.Const(64, scale), x.term), b.Const(64, d))
					if g != ir.NoTerm {
						rhs = b.Add(g, rhs)
					}
					t := b.Eq(p.term, pr.simp.Simplify(rhs))
					out = append(out, Candidate{Term: t, Desc: fmt.Sprintf("%s = %s", b.Short(p.term), b.Short(rhs))})
					if len(out) >= maxBasedCandidates {
						return out
					}
					break // a larger scale cannot hold too (x varies)
				}
			}
		}
	}
	return out
}
