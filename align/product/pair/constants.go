package pair

import (
	"eqc/ir"
)

// The code's constants (constants.go), for the differential test's
// dictionary inputs (inputs/dict.go): the values a function compares
// with and adds to its data, from the lifted code of both sides, so that
// a mutated constant is found on either side.

// maxCodeConstants bounds the dictionary: each constant costs the
// differential test three inputs. A function with loops gets fewer: its
// test runs before every proof search, and each run is longer (twelve
// made make test's align package a minute slower).
const (
	maxCodeConstants      = 12
	maxCodeConstantsLoops = 4
)

// codeConstantBound leaves out constants of larger magnitude: masks,
// addresses and magic multipliers, which are no input a program is given.
const codeConstantBound = 1 << 20

// CodeConstants lists the constants of both functions' code that inputs
// may sit next to, most telling first: the operands of the branch
// conditions' comparisons, additions and subtractions, then those of the
// values computed (a `c - '0'` behind an isdigit test). Additions to a
// 64-bit register or address (a field offset, a frame slot) are left
// out, and so are 0, 1 and -1, which the plan's inputs give anyway. At
// most maxCodeConstants (maxCodeConstantsLoops for a function with
// loops), each once.
func (p *Pair) CodeConstants() []int64 {
	b := p.B
	limit := maxCodeConstants
	if p.HasLoops() {
		limit = maxCodeConstantsLoops
	}
	seen := map[int64]bool{}
	var out []int64
	collect := func(roots []ir.Term) {
		for _, t := range b.PostOrder(roots...) {
			if len(out) == limit {
				return
			}
			switch b.Op(t) {
			case ir.OpUlt, ir.OpUle, ir.OpSlt, ir.OpSle, ir.OpEq, ir.OpAdd, ir.OpSub:
			default:
				continue
			}
			args := b.Args(t)
			for i, a := range args {
				if b.Op(a) != ir.OpConst || !b.Sort(a).IsBV() || b.Sort(a).Width > 64 {
					continue
				}
				if op := b.Op(t); (op == ir.OpAdd || op == ir.OpSub) && len(args) == 2 && addressLike(b, args[1-i]) {
					continue
				}
				sv := b.ConstValue(a).Signed()
				if !sv.IsInt64() {
					continue
				}
				v := sv.Int64()
				if v >= -1 && v <= 1 || v > codeConstantBound || v < -codeConstantBound || seen[v] {
					continue
				}
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	var conds, values []ir.Term
	for _, g := range []*ir.TFG{p.Src.TFG, p.Dst.TFG} {
		if g.Base != nil {
			g = g.Base // simple edges: small terms, the same constants
		}
		for _, e := range g.Edges {
			conds = append(conds, e.Cond)
			values = append(values, e.Transfer...)
		}
	}
	collect(conds)
	collect(values)
	return out
}

// addressLike says t is a 64-bit register or a 64-bit sum: what an
// offset is added to when it addresses memory.
func addressLike(b *ir.Builder, t ir.Term) bool {
	if s := b.Sort(t); !s.IsBV() || s.Width != 64 {
		return false
	}
	op := b.Op(t)
	return op == ir.OpVar || op == ir.OpAdd || op == ir.OpSub
}
