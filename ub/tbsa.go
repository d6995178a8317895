package ub

import (
	"eqc/ir"
)

// The TBSA hypotheses (type-based strict aliasing, HVC 2017 §2: pointers
// of different types shall not alias, char aside). At the machine level
// an access has a width and no type; the C type comes from the source's
// DWARF, through the pointer parameter the access is made with. The rule
// the model states, for pointer parameters p and q whose pointees are
// scalars of different sizes, neither a character type: an access the
// source makes through p at p's pointee size and one through q at q's
// never overlap. Different sizes make the two lvalue types incompatible
// whatever a cast did to them (a cast to another type of the same size
// still has that size); a character access has width 1, which no pointee
// of the rule has. Scalars of one size that C also keeps apart (int and
// float, long and double) are left out: a cast between two types of one
// size keeps the width and changes what aliases what. So is a struct of
// that size, which may hold the other type; a source that casts a scalar
// pointer parameter to one is outside what the model can see.
//
// "Through p": the address is p's value plus integer offsets (constants,
// values scaled by a constant, values narrower than a pointer, extended),
// p read from the register it came in or reloaded from the frame slot the
// source spilled it to (the -O0 code's way). The hypotheses are stated
// like OBVA's, per prefix of each source path: when the run gets to a
// block without a fault, each access the block makes through one such
// parameter misses each access through the other made so far on the path,
// the block's own included. Every run without undefined behaviour under
// the model satisfies them; accesses on different product edges are not
// related (a loop's passes on one edge are).

// TBSAParam is a pointer parameter the model speaks of: the variable
// holding it at the entry and its pointee's size.
type TBSAParam struct {
	Var   ir.Term
	Size  uint32 // the pointee's size in bytes, above 1
	Label string // for the assumption's line: "d (*long)"
}

// TBSAApart reports whether the model keeps accesses through pointers to
// pointees of sizes m and n apart.
func TBSAApart(m, n uint32) bool { return m > 1 && n > 1 && m != n }

// maxTBSAHypotheses bounds the hypotheses of one path set: each pair of
// accesses is one, and a long unrolled path has many.
const maxTBSAHypotheses = 256

// TBSAInput is one path set of the source to state hypotheses for.
type TBSAInput struct {
	OBVAInput
	Params []TBSAParam
	// OBVA says the OBVA model holds too: a pointer reloaded from its
	// frame slot passes the stores whose address is not derived from rsp
	// (Taint); without it only the stores to other slots.
	OBVA bool
}

// TBSAHypotheses returns in's hypotheses; none when the path set has more
// than MaxOBVAPaths paths or no two parameters the model keeps apart.
func TBSAHypotheses(in TBSAInput) []ir.Term {
	apart := false
	vars := make([]ir.Term, len(in.Params))
	for i, p := range in.Params {
		vars[i] = p.Var
		for _, q := range in.Params[i+1:] {
			apart = apart || TBSAApart(p.Size, q.Size)
		}
	}
	if !apart {
		return nil
	}
	f := paramFinder{in: in.OBVAInput, vars: vars, obva: in.OBVA}
	// Accesses at their pointee's width, each address once (a read and a
	// write of it are one access to the model).
	accesses := func(from, at *ir.Substituter, next *ir.Edge) []paramAccess {
		var out []paramAccess
		seen := map[ir.Term]bool{}
		for _, x := range f.accesses(from, at, next, false) {
			if in.Params[x.param].Size == x.n && !seen[x.addr] {
				seen[x.addr] = true
				out = append(out, x)
			}
		}
		return out
	}
	return pairHypotheses(in.OBVAInput, accesses, func(x, y paramAccess) bool {
		return TBSAApart(in.Params[x.param].Size, in.Params[y.param].Size)
	}, maxTBSAHypotheses)
}
