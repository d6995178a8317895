package pair

import (
	"fmt"

	"eqc/ir"
	"eqc/ub"
	"eqc/x86"

	"golang.org/x/arch/x86/x86asm"
)

// Sanitizer checks as UB premises (sanitizer.go)
//
// A source built with clang's -fsanitize=signed-integer-overflow,shift,
// integer-divide-by-zero -fsanitize-trap=... carries the C-level undefined
// behaviour of those operations as explicit checks: each branches to a ud1
// whose displacement names the check, exactly when the operation would be
// undefined. Under the model of a check, an input that reaches it has
// undefined behaviour, so "the run does not reach the check" is a premise
// of every obligation, as OBVA's hypotheses are; it is the one way eqc
// learns which -O0 arithmetic is signed in C (the machine code does not
// say). gcc's -fsanitize-undefined-trap-on-error traps with ud2, naming no
// check, and gives no premise.

// SanitizerTrap is one sanitizer check of the source: the TFG edge into
// halt from the block of the trap, and the model of its check.
type SanitizerTrap struct {
	Edge  *ir.Edge
	Model ub.Model
	Kind  uint8
	Addr  uint64 // of the ud1, from the function's start
}

// SanitizerTraps lists the source's sanitizer checks.
func (p *Pair) SanitizerTraps() []SanitizerTrap {
	fn, g := p.Src.Fn, p.Src.TFG
	var out []SanitizerTrap
	for _, e := range g.Edges {
		if e.To != g.Halt || e.From == ir.NoNode {
			continue
		}
		pc := g.Nodes[e.From].PC
		for _, blk := range fn.Blocks {
			if pc < blk.Start || pc >= blk.End || blk.Term != x86.TermTrap || blk.Len == 0 {
				continue
			}
			last := fn.Insts[blk.First+blk.Len-1]
			if last.Bad || last.Inst.Op != x86asm.UD1 {
				continue
			}
			mem, ok := last.Inst.Args[1].(x86asm.Mem)
			if !ok || mem.Disp < 0 || mem.Disp > 0xff {
				continue
			}
			if m, ok := ub.SanitizerCheck(uint8(mem.Disp)); ok {
				out = append(out, SanitizerTrap{Edge: e, Model: m, Kind: uint8(mem.Disp), Addr: last.Addr - fn.Func.Addr})
			}
		}
	}
	return out
}

// LoopFreePrecondition is ModelPrecondition with the sanitizer premises
// of the pair's models (over the entry state) and their lines: what the
// loop-free engine assumes before OBVA's hypotheses, which depend on its
// paths.
func (p *Pair) LoopFreePrecondition() (ir.Term, []string) {
	pre, assumptions := p.ModelPrecondition()
	if premises := p.sanitizerPremises(); len(premises) > 0 {
		pre = p.B.And(append([]ir.Term{pre}, premises...)...)
	}
	return pre, assumptions
}

// sanitizerAssumptions are the premises' lines in a proof, for the traps
// of the pair's models.
func (p *Pair) sanitizerAssumptions() []string {
	var out []string
	for _, t := range p.SanitizerTraps() {
		if p.Models.Has(t.Model) {
			out = append(out, fmt.Sprintf("%s: the source's sanitizer check at %s+%#x (ud1, kind %#x) is never reached (undefined behaviour otherwise)", t.Model, p.Src.Fn.Name, t.Addr, t.Kind))
		}
	}
	return out
}

// sanitizerPremises are the premises over the entry state: for each trap
// of the pair's models, the run does not get from the entry to the trap
// without faulting on the way. Only a loop-free source has them here (its
// path sets from the entry are finite).
func (p *Pair) sanitizerPremises() []ir.Term {
	b, g := p.B, p.Src.TFG
	var out []ir.Term
	for _, t := range p.SanitizerTraps() {
		if !p.Models.Has(t.Model) {
			continue
		}
		reach := t.Edge.Cond
		if t.Edge.From != g.Entry {
			to := g.PathSet(g.Entry, t.Edge.From, ir.PathOptions{})
			if to == nil {
				continue // unreachable: nothing to assume
			}
			reach = b.And(to.Cond, b.Not(to.Fault), g.Seq(to, t.Edge).Cond)
		}
		out = append(out, b.Not(reach))
	}
	return out
}

// SanitizerHypotheses are the premises of the pair's models along the
// source's path set paths (a product edge's), over the state from gives
// the paths' start (the edge's from-node): for each prefix of each path
// and each edge out of the node it ends at into one of the checks, the
// run that takes the prefix without a fault does not go on into the
// check. A run without undefined behaviour under the model never does,
// whatever the path's other conditions, so each holds in every such run
// that gets to the from-node with that state. The prefixes are OBVA's
// (ub.EachPrefix: past ub.MaxOBVAPaths paths, merged by places).
func (p *Pair) SanitizerHypotheses(simp *ir.Simplifier, from *ir.Substituter, paths *ir.PathExpr) []ir.Term {
	b, g := p.B, p.Src.TFG
	// By node: the edges from it into a check's block, each with the
	// check's edge into halt.
	into := map[ir.NodeID][][2]*ir.Edge{}
	for _, t := range p.SanitizerTraps() {
		if !p.Models.Has(t.Model) {
			continue
		}
		for _, e := range g.Edges {
			if e.To == t.Edge.From {
				into[e.From] = append(into[e.From], [2]*ir.Edge{e, t.Edge})
			}
		}
	}
	if len(into) == 0 || paths == nil {
		return nil
	}
	// The run gets into the check's block from prefix (nil: the paths'
	// start) without a fault and takes the check (which faults).
	notInto := func(prefix *ir.Edge, c [2]*ir.Edge) ir.Term {
		to := c[0]
		if prefix != nil {
			to = g.Seq(prefix, c[0])
		}
		reach := b.And(to.Cond, b.Not(to.Fault), g.Seq(to, c[1]).Cond)
		return simp.Simplify(from.Apply(b.Not(reach)))
	}
	var out []ir.Term
	seen := map[ir.Term]bool{} // the places after one prefix share its checks
	ub.EachPrefix(g, paths, func(prefix, next *ir.Edge, _ bool) {
		for _, c := range into[next.From] {
			if h := notInto(prefix, c); !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	})
	return out
}
