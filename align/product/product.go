package product

import (
	"fmt"
	"sort"
	"strings"

	"eqc/align/product/alias"
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/ub"
	"eqc/x86"
)

// The product program: nodes pair a source anchor with a target anchor,
// edges pair a target path set between anchors with a source path set.
//
// The state at a product node is written in the node's own variables,
// except at the entry, where both sides are the shared entry state. A
// component that every observed run shows equal to an entry value plus a
// constant (a frame pointer, a saved register, a preserved callee-saved
// register) is defined as that term instead, which keeps stack addresses
// syntactic so that the simplifier resolves stack loads; the definition is
// a proof obligation on every edge into the node.
//
// Memory at a product node is one array M, shared by both sides, overlaid
// with each side's stack slots (ranges below the entry rsp it stores to):
// src memory = M[src slots := their values], dst memory = M[dst slots :=
// theirs]. The two memories therefore agree everywhere outside the slots by
// construction, and an edge preserves that form exactly when its two
// post-memories agree outside the target node's slots, which one query with
// a fresh address decides — no quantifiers.

// Product is a product program under construction or proof.
type Product struct {
	runs       []*pair.CoRun // the co-executions the product was built from
	p          *pair.Pair
	condConsts map[uint32][]uint64 // conditionConstants, by width
	lanes      []uint32            // laneWidths, computed once
	regLanes   map[[2]int][]uint32 // xmmLanes, by side and register
	Nodes      []*PNode
	Edges      []*PEdge
	index      map[pair.NodeKey]int
	simp       *ir.Simplifier
	rsp0       ir.Term
	live       [2]map[ir.NodeID]map[int]bool // per side, per anchor
	// edgeSamples are the aligned states after which the runs took each
	// product edge (by its from-node and target anchor, via unset: the
	// edges of one step's via sets share its states, the guesses made on
	// them are proved or dropped either way).
	edgeSamples map[pair.EdgeKey][]sample
	// taint, under the OBVA model, tells the source values that may be
	// derived from the entry rsp (obva.go); nil otherwise.
	taint *ub.FrameTaint
	// tbsaParams are the pointer parameters the TBSA model keeps apart
	// (pair.TBSAParams; none without the model).
	tbsaParams []ub.TBSAParam
	// restrictParams are the pointer parameters of the restrict model
	// (pair.RestrictParams; none without the model or a restrict one).
	restrictParams []ub.RestrictParam
	// learning is what the caller learns with (learner.go).
	learning Learning
	// heights are each side's stack heights (pair.StackHeights), computed
	// when a node no run reached needs one.
	heights [2]map[ir.NodeID]int64
	// fpHeights are each side's frame-pointer heights
	// (pair.FramePointerHeights), computed once.
	fpHeights [2]map[ir.NodeID]int64
	// slotLive are each side's live slots per anchor (pair.SlotLiveAt),
	// computed when the frame taint first asks.
	slotLive [2]map[ir.NodeID][]bool
	// esc are the locals moved to blocks of their own (escapes.go; nil
	// when none escapes), with their premises and assumptions.
	esc         *pair.Escapes
	premises    []ir.Term
	assumptions []string
}

// PNode is a product node.
type PNode struct {
	ID    int
	Key   pair.NodeKey
	comps []comp
	live  [2]map[int]bool // live components of each side
	// Src and Dst are the two states at the node, one term per state
	// component.
	Src, Dst   []ir.Term
	slots      [2][]pair.Slot
	mem        ir.Term // the shared memory variable; NoTerm at the entry
	Candidates []Candidate
	Invariants []ir.Term        // the candidates Houdini kept
	samples    []sample         // the aligned states seen at the node
	varComp    map[ir.Term]comp // the node's fresh variables
	// table is the node's learning table (the affine learner's columns
	// and rows), which Houdini's counterexamples add rows to (refine.go).
	table struct {
		cols []Column
		rows [][]uint64
	}
}

// Mem is the node's shared memory variable (ir.NoTerm at the entry and
// at the ends).
func (n *PNode) Mem() ir.Term { return n.mem }

// Owns reports whether v is one of the node's own (fresh) variables.
func (n *PNode) Owns(v ir.Term) bool {
	_, ok := n.varComp[v]
	return ok
}

// comp is one component of one side's state at a product node: a register
// or flag (state >= 0) or a stack slot (state < 0).
type comp struct {
	side  int // 0 src, 1 dst
	state int
	slot  pair.Slot
	term  ir.Term // a fresh variable, or the definition
	fresh bool
	dead  bool // not live at the node: fresh, never learned about
}

// PEdge is a product edge.
type PEdge struct {
	From, To int
	DstTo    ir.NodeID
	// Via, when set, restricts the target's paths to DstTo to those that
	// take only the target edges it lists (EdgeKey).
	Via  string
	Spec pair.SrcSpec
	// except, on an infeasible edge, are the edges of the via sets that
	// split its step: it stands for the paths outside them, which the
	// target must be unable to take.
	except     []*PEdge
	Infeasible bool // no source side: the target edge must be impossible here
	dst, src   *ir.Edge
	// The edge over the from-node's state.
	condD, faultD, condS, faultS ir.Term
	postD, postS                 []ir.Term
	// condD0 is condD as the path set gives it, before any rewriting.
	condD0 ir.Term
	// facts are the assumptions the rewriting of the terms above made
	// (disjointness, canonical addresses), in two groups. condFacts, made
	// rewriting the path conditions and faults, must follow from the
	// from-node's invariants and condD0; facts, made rewriting the rest,
	// from those and both (rewritten) path conditions: every obligation
	// about the posts is about states that take the edge. disjoint and
	// disjointCond collect the disjointness ones while the edge is built.
	facts, condFacts       []ir.Term
	disjoint, disjointCond map[alias.Fact]bool
	canon, canonCond       []ir.Term // the canonical-address facts among facts and condFacts
	// obvaHyps are what the UB models say of the source along the edge:
	// OBVA of its accesses (obva.go), the others of its sanitizer checks
	// (pair.SanitizerHypotheses), TBSA of its accesses through pointer
	// parameters (tbsaHypotheses), restrict of those through a restrict
	// parameter (restrictHypotheses). Hypotheses of every obligation, never
	// obligations themselves.
	obvaHyps []ir.Term
	// lookahead says the edge's hypotheses include those of the source
	// paths after it (obva.go), added when its first obligations fail
	// without them.
	lookahead bool
	// hyps are obvaHyps as the edge's rewriting leaves them: split,
	// canonical and pinned like the path conditions, whose facts their
	// rewrites join. obvaHyps read the source's memory through every
	// store of the path set that their own premises do not place outside
	// the frame (ub.PassFrameStores); carried raw into Houdini's queries
	// they cost seconds per query where the rewritten edge costs
	// milliseconds. Wherever condFacts hold the two agree, so
	// every query after the one that proves condFacts (from obvaHyps)
	// assumes hyps instead.
	hyps []ir.Term
	// counterexamples are solver models that showed a disjointness the
	// node's states suggested false (refute.go): states like the
	// samples, which the edge's rebuilds judge guesses on too.
	counterexamples []ir.Env
	// guardCollapsed makes the edge's splitters keep the shared
	// conditions of a read met in many contexts as its facts' guard
	// (alias.Splitter.GuardCollapsed), once a model made such a fact
	// false unguarded (refute.go).
	guardCollapsed bool
	// canonReps are the representatives canonicalize chose, with their
	// values on canonSamples, for canonAddr; canonHas holds canon's facts.
	canonReps    []ir.Term
	canonVals    map[ir.Term][]uint64
	canonSamples []sample
	canonHas     map[ir.Term]bool
	// postReads are the to-node's candidate reads of its shared memory
	// (select(M, a, n), a an entry term) resolved over the edge's source
	// post-memory, passing stores that do not overlap them (the
	// disjointness is among facts). readFacts holds, per read, the
	// disjointness its resolution assumed, apart from disjoint: only the
	// reads of the candidates that survive as invariants need theirs to
	// hold (liveFacts), and a dropped candidate's read may well reach
	// outside every object (a mirror candidate of a[i-20] at i = 0).
	postReads map[ir.Term]ir.Term
	readFacts map[ir.Term]map[alias.Fact]bool
	// factSamples are the from-node's states FactTerms merges facts by.
	factSamples *alias.Samples
	// pins are the variables of the from-node replaced by the terms they
	// equal wherever the edge is taken (pin.go); set by discharge, which
	// then rebuilds the edge.
	pins []pin
	// slotPosts are the to-node's stack slots read from the edge's
	// post-memories the same way; exitObs, on an edge to the exit, the
	// observables (the return address is a read of the post-memory).
	slotPosts map[slotKey]ir.Term
	exitObs   []pair.Observable
}

// slotKey names a stack slot of one side.
type slotKey struct {
	side int
	slot pair.Slot
}

func (pr *Product) sideTFG(side int) *ir.TFG {
	if side == 0 {
		return pr.p.Src.TFG
	}
	return pr.p.Dst.TFG
}

// slotAddr is the address of a slot: the entry rsp plus its offset.
func (pr *Product) slotAddr(s pair.Slot) ir.Term {
	return pr.simp.Simplify(pr.p.B.Add(pr.rsp0, pr.p.B.Const(64, uint64(s.Off))))
}

// sample is one aligned pair of states at a product node.
type sample struct {
	cr   *pair.CoRun
	s, d []ir.Value
}

func (sm sample) state(side int) []ir.Value {
	if side == 0 {
		return sm.s
	}
	return sm.d
}

// entryValue is the value in sm's co-execution of an entry-state term: a
// src state variable or a global's address.
func (pr *Product) entryValue(sm sample, t ir.Term) uint64 {
	if i := pr.p.Src.TFG.StateIndexOf(t); i >= 0 {
		return sm.cr.Entry[i].BV().Uint64()
	}
	if b := pr.p.B; b.Op(t) == ir.OpExtract {
		hi, lo := b.Params(t)
		return pr.entryValue(sm, b.Arg(t, 0)) >> lo & (1<<(hi-lo+1) - 1)
	}
	v, _ := sm.cr.Env().VarValue(pr.p.B, t)
	return v.BV().Uint64()
}

// compValue is comp c's value in sm (slots of up to 8 bytes).
func (pr *Product) compValue(sm sample, c comp) ir.Value {
	st := sm.state(c.side)
	if c.state >= 0 {
		return st[c.state]
	}
	return ir.BVValue(ir.NewBV(uint32(8*c.slot.Size), pair.ReadSlot(st[x86.StateMem].Mem(), sm.cr.RSP0, c.slot)))
}

// entryTerms are the entry-state terms definitions and invariants may use:
// the entry rsp, the argument and callee-saved registers, the globals.
func (pr *Product) entryTerms() []ir.Term {
	p := pr.p
	out := []ir.Term{pr.rsp0}
	for _, r := range []int{x86.RDI, x86.RSI, x86.RDX, x86.RCX, 8, 9, x86.RBX, x86.RBP, 12, 13, 14, 15, x86.RAX} {
		out = append(out, p.SrcVar(x86.StateGPR0+r))
	}
	return append(out, p.GlobalVars()...)
}

// learnedEntryTerms are the entry terms invariants are learned over: the
// entry rsp, the registers that carry parameters (a float parameter's
// lane of its xmm register), the globals. Each is
// constant through a run, so the runs give as many distinct rows of them
// as there are runs; every column more than that makes room for a
// spurious relation among them, into which the learner may fold a real
// one (A = &c + 4·i came out as A = α·rdi + β·rsi + 4·i + ...). Registers
// no parameter uses, and the callee-saved ones (definitions, not learned),
// are left out.
func (pr *Product) learnedEntryTerms() []ir.Term {
	p := pr.p
	out := []ir.Term{pr.rsp0}
	bits, nparams := p.ArgBits()
	for i, r := range x86.CalleeArgRegs {
		if i < nparams {
			out = append(out, p.SrcVar(x86.StateGPR0+r))
		}
	}
	// A narrow (int, char) argument's own bits as well: the register's
	// upper part is garbage, so the -O0 frame's copy (int n spilled from
	// edi, char c from dl) equals only its low bits, which as a column of
	// their own the kernel finds from any number of rows.
	for i, r := range x86.CalleeArgRegs {
		if i < nparams && bits[i] > 0 {
			out = append(out, pr.simp.Simplify(p.B.Extract(p.SrcVar(x86.StateGPR0+r), bits[i]-1, 0)))
		}
	}
	// A float or double argument's low lane: the -O0 frame keeps a copy
	// of it (movss %xmm0,-0x1c(%rbp)) that a loop's mulss reads where the
	// optimized build keeps the register.
	out = append(out, pr.floatArgTerms()...)
	return append(out, p.GlobalVars()...)
}

// newEntryNode is the product node of the two entries.
func (pr *Product) newEntryNode() *PNode {
	p := pr.p
	n := &PNode{ID: len(pr.Nodes), Key: pair.NodeKey{Src: p.Src.TFG.Entry, Dst: p.Dst.TFG.Entry}, mem: ir.NoTerm}
	for i := range p.Src.TFG.State {
		n.Src = append(n.Src, p.SrcVar(i))
		n.Dst = append(n.Dst, p.SrcVar(i))
	}
	pr.add(n)
	return n
}

func (pr *Product) add(n *PNode) {
	pr.Nodes = append(pr.Nodes, n)
	pr.index[n.Key] = n.ID
}

// newNode builds the product node key from the aligned samples at it.
func (pr *Product) newNode(key pair.NodeKey, samples []sample, slots [2][]pair.Slot) *PNode {
	p, b := pr.p, pr.p.B
	n := &PNode{ID: len(pr.Nodes), Key: key, slots: slots, live: [2]map[int]bool{pr.live[0][key.Src], pr.live[1][key.Dst]}}
	prefix := [2]string{fmt.Sprintf("n%d.src.", n.ID), fmt.Sprintf("n%d.dst.", n.ID)}
	entries := pr.entryTerms()
	for side := 0; side < 2; side++ {
		g := pr.sideTFG(side)
		for i, sv := range g.State {
			if i == x86.StateMem {
				continue
			}
			c := comp{side: side, state: i}
			if !n.live[side][i] {
				c.term, c.fresh, c.dead = b.Var(prefix[side]+sv.Name, b.Sort(sv.Var)), true, true
				n.comps = append(n.comps, c)
				continue
			}
			pr.define(&c, samples, entries, prefix[side]+sv.Name, b.Sort(sv.Var))
			if i == x86.StateGPR0+x86.RSP && c.fresh {
				// Too few runs reached the node to learn from: its stack
				// height, when the code gives one (a definition, proved
				// like any other).
				if h, ok := pr.stackHeight(side, key); ok {
					c.term, c.fresh = pr.simp.Simplify(b.Add(pr.rsp0, b.Const(64, uint64(h)))), false
				}
			}
			if i == x86.StateGPR0+x86.RBP && c.fresh {
				// The same for the frame pointer of unoptimized code
				// (rbp = rsp0−8 after the prologue): kept as a fresh
				// variable, every local's address rbp−k at the node
				// was a computed one, which the escaped locals'
				// relocation guards byte by byte and the frame taint
				// cannot place (lua's iter_aux: "argument 1 of
				// utf8_decode may point into the caller's frame").
				if h, ok := pr.framePointerHeight(side, key); ok {
					c.term, c.fresh = pr.simp.Simplify(b.Add(pr.rsp0, b.Const(64, uint64(h)))), false
				}
			}
			n.comps = append(n.comps, c)
		}
		for _, s := range slots[side] {
			c := comp{side: side, state: -1, slot: s}
			pr.define(&c, samples, entries, prefix[side]+s.String(), ir.BVSort(uint32(8*s.Size)))
			n.comps = append(n.comps, c)
		}
	}
	n.mem = b.Var(fmt.Sprintf("n%d.mem", n.ID), ir.MemSort)
	n.samples = samples
	n.varComp = map[ir.Term]comp{}
	for _, c := range n.comps {
		if c.fresh {
			n.varComp[c.term] = c
		}
	}
	pr.setStates(n)
	_ = p
	pr.add(n)
	return n
}

// setStates sets n's two states from its components: the registers and
// flags, and each side's memory, the shared memory under its slots.
func (pr *Product) setStates(n *PNode) {
	n.Src = make([]ir.Term, x86.StateLen)
	n.Dst = make([]ir.Term, x86.StateLen)
	mems := [2]ir.Term{n.mem, n.mem}
	for _, c := range n.comps {
		st := &n.Src
		if c.side == 1 {
			st = &n.Dst
		}
		if c.state >= 0 {
			(*st)[c.state] = c.term
			continue
		}
		mems[c.side] = pr.p.B.Store(mems[c.side], pr.slotAddr(c.slot), uint32(c.slot.Size), c.term)
	}
	n.Src[x86.StateMem], n.Dst[x86.StateMem] = mems[0], mems[1]
}

// slotIsLive says whether slot s of a side is live at node n's anchor on
// that side (pair.SlotLiveAt): some path from it reads the slot before
// writing it whole.
func (pr *Product) slotIsLive(side int, n *PNode, s pair.Slot) bool {
	if pr.slotLive[side] == nil {
		pr.slotLive[side] = pair.SlotLiveAt(pr.sideTFG(side), n.slots[side], pr.sideHeights(side))
	}
	anchor := n.Key.Src
	if side == 1 {
		anchor = n.Key.Dst
	}
	live, ok := pr.slotLive[side][anchor]
	if !ok {
		return true
	}
	for i, t := range n.slots[side] {
		if t == s {
			return live[i]
		}
	}
	return true
}

// sideHeights are a side's stack heights (pair.StackHeights), computed once.
func (pr *Product) sideHeights(side int) map[ir.NodeID]int64 {
	if pr.heights[side] == nil {
		pr.heights[side] = pair.StackHeights(pr.sideTFG(side))
	}
	return pr.heights[side]
}

// stackHeight is the stack height of a side's node of key (StackHeights).
func (pr *Product) stackHeight(side int, key pair.NodeKey) (int64, bool) {
	h, ok := pr.sideHeights(side)[sideNode(side, key)]
	return h, ok
}

// framePointerHeight is the frame-pointer height of a side's node of key
// (pair.FramePointerHeights).
func (pr *Product) framePointerHeight(side int, key pair.NodeKey) (int64, bool) {
	if pr.fpHeights[side] == nil {
		pr.fpHeights[side] = pair.FramePointerHeights(pr.sideTFG(side), pr.sideHeights(side))
	}
	h, ok := pr.fpHeights[side][sideNode(side, key)]
	return h, ok
}

// sideNode is a side's node of key.
func sideNode(side int, key pair.NodeKey) ir.NodeID {
	if side == 1 {
		return key.Dst
	}
	return key.Src
}

// define makes c a definition over the entry state when every sample
// agrees with one (a constant; the same component at the entry; an entry
// term plus a constant), and a fresh variable otherwise.
func (pr *Product) define(c *comp, samples []sample, entries []ir.Term, name string, so ir.Sort) {
	b := pr.p.B
	c.fresh = true
	c.term = b.Var(name, so)
	if len(samples) == 0 || (c.state < 0 && c.slot.Size > 8) {
		return
	}
	vals := make([]ir.Value, len(samples))
	for k, sm := range samples {
		vals[k] = pr.compValue(sm, *c)
	}
	if c.state >= 0 {
		// The same component as at the entry.
		same := true
		for k, sm := range samples {
			if !vals[k].Equal(sm.cr.Entry[c.state]) {
				same = false
				break
			}
		}
		if same {
			c.term, c.fresh = pr.p.SrcVar(c.state), false
			return
		}
	}
	if !so.IsBV() || so.Width > 128 {
		return // a flag
	}
	if t := pr.floatArgDefinition(vals, samples); t != ir.NoTerm && b.Sort(t) == so {
		c.term, c.fresh = t, false
		return
	}
	if !so.IsBV() || so.Width > 64 {
		return
	}
	w := so.Width
	first := vals[0].BV().Uint64()
	constant := true
	for _, v := range vals {
		if v.BV().Uint64() != first {
			constant = false
			break
		}
	}
	if constant && runsOf(samples) > 1 {
		c.term, c.fresh = b.Const(w, first), false
		return
	}
	if w != 64 {
		return
	}
	if runsOf(samples) < 2 {
		// One run fits any entry term at some distance, and small
		// values many at none; but a slot that holds a callee-saved
		// register's entry value (a word of the run's own making) saved
		// it: the -O0 frame's rbp at a node only the long run reaches
		// (a fixed-length loop's exit, when it is a loop-exit anchor),
		// which the exit's "rbp at return" needs.
		for _, r := range []int{x86.RBX, x86.RBP, 12, 13, 14, 15} {
			e := pr.p.SrcVar(x86.StateGPR0 + r)
			same := true
			for k, sm := range samples {
				same = same && vals[k].BV().Uint64() == pr.entryValue(sm, e)
			}
			if same {
				c.term, c.fresh = e, false
				return
			}
		}
		return
	}
	// Of the entry terms that fit, the nearest: where the runs that
	// reach the node put two pointer arguments at one distance (string
	// parameters were, before placeString varied it), the slot that holds
	// b also fits a + that distance, which no other input keeps (gcc's
	// cmpn(a, b, n) failed on its definitions).
	best, bestDist := ir.NoTerm, uint64(0)
	for _, e := range entries {
		if pr.narrowUnseen(e, samples) {
			continue
		}
		d := vals[0].BV().Uint64() - pr.entryValue(samples[0], e)
		ok := true
		for k, sm := range samples {
			if vals[k].BV().Uint64()-pr.entryValue(sm, e) != d {
				ok = false
				break
			}
		}
		dist := d
		if int64(d) < 0 {
			dist = -d
		}
		if ok && (best == ir.NoTerm || dist < bestDist) {
			best, bestDist = pr.simp.Simplify(b.Add(e, b.Const(64, d))), dist
		}
	}
	if best != ir.NoTerm {
		c.term, c.fresh = best, false
	}
}

// floatArgTerms are the low lanes of the xmm registers that carry float
// and double parameters (learnedEntryTerms has them too).
func (pr *Product) floatArgTerms() []ir.Term {
	p := pr.p
	var out []ir.Term
	for i, size := range p.FloatArgBytes() {
		if size > 0 && i < 16 {
			out = append(out, pr.simp.Simplify(p.B.Extract(p.SrcVar(x86.StateXMM0+i), uint32(8*size-1), 0)))
		}
	}
	return out
}

// floatArgDefinition is the definition of a component whose value is, in
// every sample of at least two runs, a float parameter (the -O0 frame's
// copy of k) or that parameter in every lane of an xmm register (k
// broadcast for a vector loop); NoTerm if there is none. As a definition
// rather than a learned equality, the two sides' products with k are one
// term: under the model nan a multiplication is a function of its
// operands' minimum and maximum, which the solver matches slowly unless
// the operands are the same terms.
func (pr *Product) floatArgDefinition(vals []ir.Value, samples []sample) ir.Term {
	args := pr.floatArgTerms()
	if len(args) == 0 || runsOf(samples) < 2 {
		return ir.NoTerm
	}
	b := pr.p.B
	w := vals[0].BV().Width()
	// The argument equal to bits [lo, lo+aw) of the value in every sample.
	laneArg := func(lo, aw uint32) ir.Term {
		for _, a := range args {
			if b.Width(a) != aw {
				continue
			}
			all := true
			for k, sm := range samples {
				if vals[k].BV().Extract(lo+aw-1, lo).Uint64() != pr.entryValue(sm, a) {
					all = false
					break
				}
			}
			if all {
				return a
			}
		}
		return ir.NoTerm
	}
	for _, aw := range []uint32{32, 64} {
		if w%aw != 0 || w > 128 {
			continue
		}
		var lanes []ir.Term // the highest first, as Concat takes them
		for lo := w; lo > 0; lo -= aw {
			a := laneArg(lo-aw, aw)
			if a == ir.NoTerm {
				lanes = nil
				break
			}
			lanes = append(lanes, a)
		}
		if lanes == nil {
			continue
		}
		t := lanes[0]
		for _, l := range lanes[1:] {
			t = b.Concat(t, l)
		}
		return pr.simp.Simplify(t)
	}
	return ir.NoTerm
}

// narrowUnseen reports whether e is the register of a narrow parameter
// (an int in rsi) whose bits above the parameter are zero in every
// sample: there, a copy of the full register and a zero-extended copy of
// the parameter (clang's mov %esi,%edx) look alike, and only the runs
// that fill those bits with garbage tell them apart. Such a value is left
// to the learner, whose columns hold both.
func (pr *Product) narrowUnseen(e ir.Term, samples []sample) bool {
	bits, nparams := pr.p.ArgBits()
	for i, r := range x86.CalleeArgRegs {
		if i >= nparams || bits[i] == 0 || bits[i] >= 64 || e != pr.p.SrcVar(x86.StateGPR0+r) {
			continue
		}
		for _, sm := range samples {
			if pr.entryValue(sm, e)>>bits[i] != 0 {
				return false
			}
		}
		return true
	}
	return false
}

// runsOf counts the co-executions samples come from.
func runsOf(samples []sample) int {
	seen := map[*pair.CoRun]bool{}
	for _, s := range samples {
		seen[s.cr] = true
	}
	return len(seen)
}

// entryColumns are the learner's columns besides the node's own
// variables: the entry terms, the values the entry path computed (where
// every sample evaluates them), and scalar globals as node n's memory
// holds them.
func (pr *Product) entryColumns(n *PNode, samples []sample) ([]Column, []func(sample) uint64) {
	b := pr.p.B
	var vars []Column
	var value []func(sample) uint64
	for _, e := range pr.learnedEntryTerms() {
		e := e
		vars = append(vars, Column{Name: b.Short(e), Term: e})
		value = append(value, func(sm sample) uint64 { return pr.entryValue(sm, e) })
	}
	// Values the entry path computed (entryterms.go), where every sample
	// evaluates them.
	for _, t := range pr.entryPathTerms(n) {
		vals := make(map[*pair.CoRun]uint64)
		ok := true
		for _, sm := range samples {
			if _, done := vals[sm.cr]; done {
				continue
			}
			v, err := ir.NewEvaluator(b, &sampleEnv{pr: pr, n: n, sm: sm}).Eval(t)
			if err != nil {
				ok = false
				break
			}
			vals[sm.cr] = v.BV().Uint64()
		}
		if !ok {
			continue
		}
		vars = append(vars, Column{Name: b.Short(t), Term: t})
		value = append(value, func(sm sample) uint64 { return vals[sm.cr] })
	}
	// Values hoisted out of the loop (entryterms.go), over the node's
	// memory, where every sample evaluates them.
	for _, t := range pr.hoistedTerms(n) {
		if !pr.evaluatesOnAll(n, samples, t) {
			continue
		}
		vars = append(vars, Column{Name: b.Short(t), Term: t})
		value = append(value, func(sm sample) uint64 {
			v, _ := pr.evalOnSample(n, sm, t)
			return v
		})
	}
	// Scalar globals as they are in the node's shared memory (a loop may
	// keep one in a register: s000's val, broadcast into xmm1).
	for _, g := range pr.p.GlobalVars() {
		size := pr.p.GlobalSize(b.VarName(g))
		if size == 0 || size > 8 || size&(size-1) != 0 {
			continue
		}
		g := g
		vars = append(vars, Column{Name: "*" + b.VarName(g), Term: b.Select(n.mem, g, uint32(size))})
		value = append(value, func(sm sample) uint64 {
			a := pr.entryValue(sm, g)
			var v uint64
			for i, x := range sm.s[x86.StateMem].Mem().Read(a, int(size)) {
				v |= uint64(x) << (8 * i)
			}
			return v
		})
	}
	return vars, value
}

// learnCandidates learns candidate invariants of node n from its samples
// with the caller's learner (pr.learning.Candidates, which Build requires):
// columns are the entry terms and the node's fresh variables (xmm
// registers by lanes, lanes.go), the target's last. The mirror and based
// searches add what an affine learner cannot find.
func (pr *Product) learnCandidates(n *PNode, samples []sample) error {
	b := pr.p.B
	vars, value := pr.entryColumns(n, samples)
	for _, col := range pr.exitBlockTerms(n, samples) {
		t := col.Term
		vars = append(vars, col)
		value = append(value, func(sm sample) uint64 {
			v, err := ir.NewEvaluator(b, &sampleEnv{pr: pr, n: n, sm: sm}).Eval(t)
			if err != nil {
				return 0 // not reached: exitBlockTerms evaluated t on every sample
			}
			return v.BV().Uint64()
		})
	}
	for side := 0; side < 2; side++ {
		for _, c := range n.comps {
			if c.side != side || !c.fresh || c.dead {
				continue
			}
			c := c
			so := b.Sort(c.term)
			switch {
			case !so.IsBV():
			case so.Width <= 64:
				vars = append(vars, Column{Name: b.VarName(c.term), Term: c.term})
				value = append(value, func(sm sample) uint64 { return pr.compValue(sm, c).BV().Uint64() })
			case so.Width == 128 && c.state >= x86.StateXMM0 && c.state < x86.StateXMM0+16:
				for _, w := range pr.xmmLanes(side, c.state-x86.StateXMM0) {
					for lane := uint32(0); lane < 128/w; lane++ {
						lo, hi := w*lane, w*lane+w-1
						name := fmt.Sprintf("%s[%d]", b.VarName(c.term), lane)
						if w != 32 {
							name = fmt.Sprintf("%s[%d:%d]", b.VarName(c.term), hi, lo)
						}
						vars = append(vars, Column{Name: name, Term: b.Extract(c.term, hi, lo)})
						value = append(value, func(sm sample) uint64 {
							return pr.compValue(sm, c).BV().Extract(hi, lo).Uint64()
						})
					}
				}
			}
		}
	}
	n.table.cols, n.table.rows = vars, rows(samples, value)
	cands, err := pr.learning.Candidates(b, vars, n.table.rows)
	if err != nil {
		return err
	}
	cands = append(cands, pr.mirrorCandidates(n, thin(samples, maxMirrorSamples))...)
	cands = append(cands, pr.basedCandidates(n, thin(samples, maxMirrorSamples))...)
	for _, c := range cands {
		// Facts about the entry state alone are not the node's business.
		if n.mentionsOwn(b, c.Term) {
			n.Candidates = append(n.Candidates, c)
		}
	}
	// Except the guards of the way the node is first reached, which
	// hold at the node only (entryterms.go).
	for _, t := range pr.entryPathGuards(n, samples) {
		n.Candidates = append(n.Candidates, Candidate{Term: t, Desc: "entry guard " + b.Short(t)})
	}
	for _, t := range pr.arrivalGuards(n, thin(samples, maxMirrorSamples)) {
		n.Candidates = append(n.Candidates, Candidate{Term: t, Desc: "arrival guard " + b.Short(t)})
	}
	return nil
}

// buildEdge computes e's two path sets over the from-node's state.
func (pr *Product) buildEdge(e *PEdge) {
	p := pr.p
	from := pr.Nodes[e.From]
	dg, sg := p.Dst.TFG, p.Src.TFG
	pr.pathSets(e)
	subD := pr.stateSubst(dg, from.Dst)
	e.condD = pr.simp.Simplify(subD.Apply(e.dst.Cond))
	e.faultD = pr.simp.Simplify(subD.Apply(e.dst.Fault))
	e.postD = pr.simp.SimplifyAll(subD.ApplyAll(e.dst.Transfer))
	e.condD, e.faultD, e.postD = pr.esc.Rewrite(1, e.condD), pr.esc.Rewrite(1, e.faultD), pr.relocatePost(1, e.postD)
	// Calls in the calling convention's model (calls.go), on both sides
	// with one memo: equal arguments and views become one application.
	var cc *x86.CallConvention
	if pair.HasCalls(e.dst, e.src) {
		cc = pr.callConvention(from)
		e.condD, e.faultD = pr.esc.Settle(cc.Rewrite(e.condD)), pr.esc.Settle(cc.Rewrite(e.faultD))
		e.postD = pr.esc.SettleAll(cc.RewriteAll(e.postD))
	}
	e.condD0 = e.condD
	e.disjoint, e.disjointCond = map[alias.Fact]bool{}, map[alias.Fact]bool{}
	e.canon, e.canonCond, e.canonHas = nil, nil, nil
	e.canonReps, e.canonVals, e.canonSamples = nil, nil, nil
	samples := pr.newAddrSamples(e)
	if e.Infeasible {
		pr.split(e, samples, true)
		pr.setFacts(e, samples)
		return
	}
	subS := pr.stateSubst(sg, from.Src)
	if e.obvaHyps == nil {
		// The UB models' hypotheses: OBVA's, and the source's sanitizer
		// checks of the models never reached.
		if pr.taint != nil {
			e.obvaHyps = pr.obvaHypotheses(e)
		}
		e.obvaHyps = append(e.obvaHyps, p.SanitizerHypotheses(pr.simp, subS, e.src.Path)...)
		e.obvaHyps = append(e.obvaHyps, pr.tbsaHypotheses(e)...)
		e.obvaHyps = append(e.obvaHyps, pr.restrictHypotheses(e)...)
		e.obvaHyps = append(e.obvaHyps, pr.nullHypotheses(e)...)
		if p.LibraryUBIsUndefined() {
			// The source's library calls keep their contracts
			// (ir.Edge.UB): no memcpy of overlapping regions.
			e.obvaHyps = append(e.obvaHyps, pr.simp.Simplify(p.B.Not(p.B.And(subS.Apply(e.src.Cond), subS.Apply(e.src.UB)))))
		}
		e.obvaHyps = pr.esc.RewriteAll(0, e.obvaHyps) // the source's terms
		if cc != nil {
			e.obvaHyps = pr.esc.SettleAll(cc.RewriteAll(e.obvaHyps))
		}
		if pr.taint != nil && e.lookahead {
			// The next source paths' (obva.go), whose calls may be
			// the edge's only ones: rewritten on their own, and left
			// out when that fails.
			la := pr.esc.RewriteAll(0, pr.lookaheadHypotheses(e, subS.ApplyAll(e.src.Transfer)))
			lcc := cc
			if lcc == nil {
				lcc = pr.callConvention(from)
			}
			if la = pr.esc.SettleAll(lcc.RewriteAll(la)); lcc.Err == nil {
				e.obvaHyps = append(e.obvaHyps, la...)
			}
		}
		e.obvaHyps = ub.PassFrameStores(p.B, pr.simp, e.obvaHyps, pr.rsp0)
	}
	e.hyps = append([]ir.Term(nil), e.obvaHyps...)
	e.condS = pr.simp.Simplify(subS.Apply(e.src.Cond))
	e.faultS = pr.simp.Simplify(subS.Apply(e.src.Fault))
	e.postS = pr.simp.SimplifyAll(subS.ApplyAll(e.src.Transfer))
	e.condS, e.faultS, e.postS = pr.esc.Rewrite(0, e.condS), pr.esc.Rewrite(0, e.faultS), pr.relocatePost(0, e.postS)
	if cc != nil {
		e.condS, e.faultS = pr.esc.Settle(cc.Rewrite(e.condS)), pr.esc.Settle(cc.Rewrite(e.faultS))
		e.postS = pr.esc.SettleAll(cc.RewriteAll(e.postS))
	}
	pr.applyPins(e)
	// Stack splitting first, then canonical addresses (which turn the
	// stack facts' addresses canonical too), then splitting again, now
	// also guided by the node's states: disjointness between different
	// canonical bases is judged on canonical addresses, so that one base's
	// ranges fold to constants.
	pr.split(e, samples, false)
	pr.canonicalize(e)
	pr.split(e, samples, true)
	// Canonical addresses are the node's own address shapes, which may be
	// pinned variables again (rax where the pin said rax = end − 16).
	pr.applyPinSubst(e)
	pr.resolvePostReads(e, samples)
	pr.setFacts(e, samples)
}

// pathSets computes e's two path sets, once: they do not depend on the
// pins a rebuild adds. A source side that has no path makes e infeasible.
func (pr *Product) pathSets(e *PEdge) {
	if e.dst != nil {
		return
	}
	from := pr.Nodes[e.From]
	dg, sg := pr.p.Dst.TFG, pr.p.Src.TFG
	da := pair.AnchorSet(dg)
	o := ir.PathOptions{Mu: 1, Through: func(v ir.NodeID) bool { return !da[v] }}
	if e.Via != "" {
		via := pair.ViaIDs(e.Via)
		o.Edge = func(de *ir.Edge) bool { return via[de.ID] }
	}
	e.dst = dg.PathSet(from.Key.Dst, e.DstTo, o)
	switch {
	case e.Infeasible:
	case e.Spec.Stays():
		// The source does not move while the target takes its step; a
		// spec that says so names the from-node's own source anchor.
		if e.Spec.To == from.Key.Src && e.Spec.Mu == 0 {
			e.src = sg.Stay(from.Key.Src)
		}
		e.Infeasible = e.src == nil
	default:
		e.src = sg.PathSet(from.Key.Src, e.Spec.To, ir.PathOptions{Mu: e.Spec.Mu, Arrivals: e.Spec.Arrivals})
		e.Infeasible = e.src == nil
	}
}

// setFacts turns e's recorded disjointness and canonical addresses into
// its two groups of facts.
func (pr *Product) setFacts(e *PEdge, samples *alias.Samples) {
	b := pr.p.B
	e.factSamples = samples
	e.facts = pr.factsWith(e, func(ir.Term) bool { return true })
	e.condFacts = append(alias.FactTerms(b, pr.simp, e.disjointCond, samples), e.canonCond...)
}

// factsWith is e's facts group with the facts of the candidate reads
// keep accepts.
func (pr *Product) factsWith(e *PEdge, keep func(read ir.Term) bool) []ir.Term {
	all := e.disjoint
	if len(e.readFacts) > 0 {
		all = make(map[alias.Fact]bool, len(e.disjoint))
		for f := range e.disjoint {
			all[f] = true
		}
		for r, fs := range e.readFacts {
			if keep(r) {
				for f := range fs {
					all[f] = true
				}
			}
		}
	}
	return append(alias.FactTerms(pr.p.B, pr.simp, all, e.factSamples), e.canon...)
}

// liveFacts narrows e's facts to those its to-node's Invariants need:
// the facts of the reads of candidates Houdini dropped are no obligation.
// (Merged by base, a dropped read's fact would also widen a live one's
// range: alias.FactTerms joins the facts between two bases into one.)
func (pr *Product) liveFacts(e *PEdge) {
	if len(e.readFacts) == 0 {
		return
	}
	b := pr.p.B
	to := pr.Nodes[e.To]
	live := map[ir.Term]bool{}
	for _, t := range b.PostOrder(to.Invariants...) {
		if b.Op(t) == ir.OpSelect && b.Arg(t, 0) == to.mem {
			live[t] = true
		}
	}
	e.facts = pr.factsWith(e, func(r ir.Term) bool { return live[r] })
}

// ResolveInvariantReads does for the nodes' Invariants what buildEdge did
// for their candidates: the proof checker sets invariants after building
// the edges, and its inductiveness queries would otherwise read globals
// through every store of the edge. Each edge's facts grow by what the new
// rewrites assume, before any obligation is checked.
func (pr *Product) ResolveInvariantReads() {
	for _, n := range pr.Nodes {
		n.Candidates = n.Candidates[:0]
		for _, t := range n.Invariants {
			n.Candidates = append(n.Candidates, Candidate{Term: t})
		}
	}
	for _, e := range pr.Edges {
		if e.Infeasible || e.disjoint == nil {
			continue
		}
		samples := pr.newAddrSamples(e)
		pr.resolvePostReads(e, samples)
		pr.setFacts(e, samples)
	}
}

// resolvePostReads passes the to-node's stack slots and its candidate
// reads of its memory (a scalar global, say) over the edge's stores, so
// that the definitions and Houdini's queries need not prove again and
// again that the loop's array stores miss them.
func (pr *Product) resolvePostReads(e *PEdge, samples *alias.Samples) {
	b := pr.p.B
	to := pr.Nodes[e.To]
	sp := alias.NewSplitter(b, pr.simp, pr.rsp0, e.disjoint, samples, true)
	if e.guardCollapsed {
		sp.GuardCollapsed()
	}
	e.exitObs = nil
	if pr.p.Dst.TFG.Nodes[to.Key.Dst].Kind == ir.NodeExit {
		for _, o := range pr.p.Observables(e.postS, e.postD) {
			o.Src, o.Dst = sp.Apply(pr.simp.Simplify(o.Src)), sp.Apply(pr.simp.Simplify(o.Dst))
			e.exitObs = append(e.exitObs, o)
		}
	}
	if to.mem == ir.NoTerm {
		return
	}
	e.slotPosts = map[slotKey]ir.Term{}
	for _, c := range to.comps {
		if c.state >= 0 || (c.side == 0 && e.Infeasible) {
			continue
		}
		post := e.postS
		if c.side == 1 {
			post = e.postD
		}
		e.slotPosts[slotKey{c.side, c.slot}] = sp.Apply(b.Select(post[x86.StateMem], pr.slotAddr(c.slot), uint32(c.slot.Size)))
	}
	if !e.Infeasible {
		var roots []ir.Term
		for _, c := range to.Candidates {
			roots = append(roots, c.Term)
		}
		e.postReads = map[ir.Term]ir.Term{}
		e.readFacts = map[ir.Term]map[alias.Fact]bool{}
		var vars *ir.Substituter // the to-node's variables after the edge
		for _, t := range b.PostOrder(roots...) {
			if b.Op(t) != ir.OpSelect || b.Arg(t, 0) != to.mem {
				continue
			}
			n, _ := b.Params(t)
			a := b.Arg(t, 1)
			if mentionsAny(b, a, to.varComp) {
				// An address over the node's own variables (a mirror
				// candidate's): the post-state's address, in the edge's
				// canonical form so that it meets the edge's stores.
				if vars == nil {
					m := map[ir.Term]ir.Term{}
					for _, c := range to.comps {
						if c.fresh {
							m[c.term] = pr.postValue(e, c)
						}
					}
					vars = ir.NewSubstituter(b, m)
				}
				a = pr.canonAddr(e, pr.simp.Simplify(vars.Apply(a)))
			}
			// Each read's facts on their own (readFacts); the splitter's
			// memo still shares the rewriting, and emit, started afresh,
			// collects a shared term's facts into every read under it.
			facts := map[alias.Fact]bool{}
			sp.RecordIn(facts)
			e.postReads[t] = sp.Apply(b.Select(e.postS[x86.StateMem], a, n))
			if len(facts) > 0 {
				e.readFacts[t] = facts
			}
		}
	}
}

// mentionsAny reports whether t has a subterm among vars' keys.
func mentionsAny(b *ir.Builder, t ir.Term, vars map[ir.Term]comp) bool {
	for _, u := range b.PostOrder(t) {
		if _, ok := vars[u]; ok {
			return true
		}
	}
	return false
}

// split passes stack-slot reads over stores through computed addresses in
// all of e's terms (guided: and reads and stores the from-node's states
// show apart), recording in e.disjoint the facts that makes the edge
// depend on.
func (pr *Product) split(e *PEdge, samples *alias.Samples, guided bool) {
	sc := alias.NewSplitter(pr.p.B, pr.simp, pr.rsp0, e.disjointCond, samples, guided)
	if e.guardCollapsed {
		sc.GuardCollapsed()
	}
	e.condD, e.faultD = sc.Apply(e.condD), sc.Apply(e.faultD)
	if !e.Infeasible {
		e.condS, e.faultS = sc.Apply(e.condS), sc.Apply(e.faultS)
		for i := range e.hyps {
			e.hyps[i] = sc.Apply(e.hyps[i])
		}
	}
	sp := alias.NewSplitter(pr.p.B, pr.simp, pr.rsp0, e.disjoint, samples, guided)
	if e.guardCollapsed {
		sp.GuardCollapsed()
	}
	for i := range e.postD {
		e.postD[i] = sp.Apply(e.postD[i])
	}
	if !e.Infeasible {
		for i := range e.postS {
			e.postS[i] = sp.Apply(e.postS[i])
		}
	}
}

// stateSubst replaces g's state variables by a node's state terms.
func (pr *Product) stateSubst(g *ir.TFG, st []ir.Term) *ir.Substituter {
	return g.StateSubst(st)
}

// postValue is what comp c of the edge's target node holds after e.
func (pr *Product) postValue(e *PEdge, c comp) ir.Term {
	post := e.postS
	if c.side == 1 {
		post = e.postD
	}
	if c.state >= 0 {
		return post[c.state]
	}
	if t, ok := e.slotPosts[slotKey{c.side, c.slot}]; ok {
		return t
	}
	return pr.simp.Simplify(pr.p.B.Select(post[x86.StateMem], pr.slotAddr(c.slot), uint32(c.slot.Size)))
}

// postSubst maps the target node's fresh variables to their values after e.
func (pr *Product) postSubst(e *PEdge) *ir.Substituter {
	to := pr.Nodes[e.To]
	m := map[ir.Term]ir.Term{}
	for _, c := range to.comps {
		if c.fresh {
			m[c.term] = pr.postValue(e, c)
		}
	}
	if to.mem != ir.NoTerm {
		// Candidates read the shared memory only outside the stack
		// (globals), where it is the source's memory after the edge.
		m[to.mem] = e.postS[x86.StateMem]
		for r, v := range e.postReads {
			m[r] = v
		}
	}
	return ir.NewSubstituter(pr.p.B, m)
}

// String prints the product program, for proofs and debugging.
func (pr *Product) String() string {
	var sb strings.Builder
	sg, dg := pr.p.Src.TFG, pr.p.Dst.TFG
	for _, n := range pr.Nodes {
		fmt.Fprintf(&sb, "node n%d: src %#x %s, dst %#x %s\n", n.ID, sg.Nodes[n.Key.Src].PC, sg.Nodes[n.Key.Src].Kind, dg.Nodes[n.Key.Dst].PC, dg.Nodes[n.Key.Dst].Kind)
		var defs []string
		for _, c := range n.comps {
			if !c.fresh && c.term != ir.NoTerm && n.mem != ir.NoTerm {
				name := ""
				if c.state >= 0 {
					name = pr.sideTFG(c.side).State[c.state].Name
				} else {
					name = c.slot.String()
				}
				defs = append(defs, fmt.Sprintf("%s.%s = %s", [2]string{"src", "dst"}[c.side], name, pr.p.B.Short(c.term)))
			}
		}
		sort.Strings(defs)
		for _, d := range defs {
			fmt.Fprintf(&sb, "  def %s\n", d)
		}
		for _, inv := range n.Invariants {
			fmt.Fprintf(&sb, "  inv %s\n", pr.p.B.Short(inv))
		}
	}
	for _, e := range pr.Edges {
		dst := fmt.Sprintf("%#x", dg.Nodes[e.DstTo].PC)
		if e.Via != "" {
			dst += " via edges " + e.Via
		}
		if e.Infeasible {
			fmt.Fprintf(&sb, "edge n%d → dst %s: infeasible\n", e.From, dst)
			continue
		}
		if e.Spec.Stays() {
			fmt.Fprintf(&sb, "edge n%d → n%d: dst to %s; src stays\n", e.From, e.To, dst)
			continue
		}
		fmt.Fprintf(&sb, "edge n%d → n%d: dst to %s; src to %#x, arrival %d, ≤%d loop passes\n", e.From, e.To, dst, sg.Nodes[e.Spec.To].PC, e.Spec.Arrivals, e.Spec.Mu)
	}
	return sb.String()
}
