package x86

import (
	"debug/elf"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"eqc/ir"

	"golang.org/x/arch/x86/x86asm"
)

// CFG → TFG. Each node (block head or call instruction) is executed
// symbolically with Step from the state whose every component is its
// variable, up to the next node; the state reached becomes the transfer
// function of the edge, as terms over the variables at the from-node.

// Positions of the state components in a TFG built here (TFG.State).
const (
	StateGPR0  = 0                     // rax … r15, in GPRNames order
	StateXMM0  = StateGPR0 + 16        // xmm0 … xmm15
	StateFlag0 = StateXMM0 + 16        // cf pf af zf sf of, in Flag order
	StateMem   = StateFlag0 + NumFlags // the memory
	StateLen   = StateMem + 1          // number of components
)

// StateLayout returns the TFG state components for the variables of n:
// the 16 GPRs, xmm0–15, the six status flags and the memory. rip is left
// out: at a node it is the node's PC.
func StateLayout(b *ir.Builder, n StateNames) []ir.StateVar {
	out := make([]ir.StateVar, 0, StateLen)
	for i := range GPRNames {
		out = append(out, ir.StateVar{Name: GPRNames[i], Var: b.Var(n.GPRVar(i), ir.BVSort(64))})
	}
	for i := 0; i < 16; i++ {
		out = append(out, ir.StateVar{Name: "xmm" + strconv.Itoa(i), Var: b.Var(n.XMMVar(i), ir.BVSort(128))})
	}
	for f := Flag(0); f < numFlags; f++ {
		out = append(out, ir.StateVar{Name: flagNames[f], Var: b.Var(n.FlagVar(f), ir.BoolSort)})
	}
	return append(out, ir.StateVar{Name: "mem", Var: b.Var(n.MemVar(), ir.MemSort)})
}

// Transfer returns s as a transfer function in StateLayout order; reading
// the flags builds the lazy ones.
func (s *State) Transfer(b *ir.Builder) []ir.Term {
	out := make([]ir.Term, 0, StateLen)
	out = append(out, s.GPR[:]...)
	out = append(out, s.XMM[:]...)
	for f := Flag(0); f < numFlags; f++ {
		out = append(out, s.Flag(b, f))
	}
	return append(out, s.Mem)
}

// GlobalAddrVar is the name of the 64-bit variable standing for the
// address of symbol: shared by every binary lifted into one Builder (no
// state prefix), so that two layouts of the same globals compare.
func GlobalAddrVar(symbol string) string { return "&" + symbol }

// LiteralAddrVar names the address of a string literal by its contents.
func LiteralAddrVar(text string) string { return "&str:" + strconv.Quote(text) }

// TFGOptions configure BuildTFG.
type TFGOptions struct {
	// Names names the state variables (Prefix "src." and "dst." keep two
	// binaries in one Builder apart).
	Names StateNames
	// File, when set, is the file fn came from: it gives callees' DWARF
	// signatures and the contents of read-only constant pools.
	File *File
	// Callees, when set, gives each callee's prototype and argument
	// registers, the same for both functions of a pair (PairCallees).
	Callees *Callees
	// AnyNaN lifts SSE addition and multiplication as functions of their
	// two operands in either order, the NaN of two NaN operands included
	// (State.AnyNaN: the UB model nan).
	AnyNaN bool
}

// CalleeArgRegs are the integer argument registers of the SysV ABI.
var CalleeArgRegs = [6]int{RDI, RSI, RDX, RCX, 8, 9}

// callerSaved are the GPRs a callee may clobber (besides rax, the result).
var callerSaved = []int{RCX, RDX, RSI, RDI, 8, 9, 10, 11}

// BuildTFG lifts fn into a TFG over StateLayout(b, opts.Names). It never
// fails: what cannot be lifted becomes an edge to the halt node with
// Edge.Unsupported set, and TFG.Unsupported lists it (with the CFG's own
// entries: bad-bytes, indirect-jump, x87:…).
func BuildTFG(b *ir.Builder, fn *Function, opts TFGOptions) *ir.TFG {
	l := &lifter{b: b, fn: fn, file: opts.File, callees: opts.Callees, unsupported: map[string]bool{}}
	for _, u := range fn.Unsupported {
		l.unsupported[u] = true
	}
	l.g = ir.NewTFG(b, fn.Name, StateLayout(b, opts.Names))
	l.base = NewStateNamed(b, opts.Names)
	l.base.AnyNaN = opts.AnyNaN
	l.calls = map[int]CallSite{}
	for _, cs := range fn.CallSites {
		l.calls[cs.Inst] = cs
	}
	l.live = l.liveBlocks()
	l.addNodes()
	for _, bi := range fn.RPO {
		if !l.live[bi] {
			continue
		}
		blk := &fn.Blocks[bi]
		l.liftFrom(blk, blk.First)
		for i := blk.First + 1; i < blk.First+blk.Len; i++ {
			if _, ok := l.nodeAt[i]; ok {
				l.liftFrom(blk, i)
			}
		}
	}
	for u := range l.unsupported {
		l.g.Unsupported = append(l.g.Unsupported, u)
	}
	sort.Strings(l.g.Unsupported)
	return l.g
}

// TFG lifts fn, which came from f, with the variables of names.
func (f *File) TFG(b *ir.Builder, fn *Function, names StateNames) *ir.TFG {
	return BuildTFG(b, fn, TFGOptions{Names: names, File: f})
}

type lifter struct {
	b           *ir.Builder
	fn          *Function
	file        *File
	callees     *Callees
	g           *ir.TFG
	base        *State
	nodeAt      map[int]ir.NodeID // instruction index → node starting there
	blockNode   []ir.NodeID       // block index → node at its head
	calls       map[int]CallSite  // instruction index → call site
	live        []bool            // block index → reachable (noreturn.go)
	unsupported map[string]bool
}

func (l *lifter) addNodes() {
	fn, g := l.fn, l.g
	heads := map[int]bool{}
	for _, lp := range fn.Loops {
		heads[lp.Head] = true
	}
	for _, e := range fn.BackEdges {
		heads[e.To] = true
	}
	l.nodeAt = map[int]ir.NodeID{}
	l.blockNode = make([]ir.NodeID, len(fn.Blocks))
	for i := range l.blockNode {
		l.blockNode[i] = ir.NoNode
	}
	isCall := func(i int) bool {
		cs, ok := l.calls[i]
		// An idiom's call is lifted where the path meets it (a loop with
		// its own head, or strcmp inline: a strcmp with no literal is
		// then a call with no node of its own), and so is a printf the
		// output rewrite may take (stdio.go): the path that loads the
		// format must reach it.
		return ok && !cs.Tail && l.idiom(cs) == 0 && !l.stdioCall(cs)
	}
	for _, bi := range fn.RPO {
		if !l.live[bi] {
			continue
		}
		blk := &fn.Blocks[bi]
		kind := ir.NodeBlock
		switch {
		case bi == fn.Entry:
			kind = ir.NodeEntry
		case heads[bi]:
			kind = ir.NodeLoopHead
		case isCall(blk.First):
			kind = ir.NodeCallSite
		}
		id := g.AddNode(blk.Start, kind)
		l.blockNode[bi], l.nodeAt[blk.First] = id, id
		for i := blk.First + 1; i < blk.First+blk.Len && !l.endsRun(i-1); i++ {
			if isCall(i) {
				l.nodeAt[i] = g.AddNode(fn.Insts[i].Addr, ir.NodeCallSite)
			}
		}
	}
	if len(fn.RPO) == 0 {
		// No instructions: the entry has nowhere to go but the halt node.
		g.AddNode(0, ir.NodeEntry)
	}
	g.AddNode(0, ir.NodeExit)
	g.AddNode(0, ir.NodeHalt)
	if len(fn.RPO) == 0 {
		g.AddEdge(&ir.Edge{From: g.Entry, To: g.Halt})
	}
}

// path is one symbolic execution in progress from a node.
type path struct {
	s     *State
	cond  ir.Term
	fault ir.Term
	ub    ir.Term // the part of fault that is a library contract's UB (ir.Edge.UB)
	calls []ir.Call
	// tableIndex is the index register's value at a jump table's load
	// (Instruction.TableLoad), for the jmp after it.
	tableIndex ir.Term
}

func (l *lifter) emit(from ir.NodeID, p *path, to ir.NodeID, cond ir.Term, unsupported string) {
	b := l.b
	c := p.cond
	switch {
	case cond == ir.NoTerm:
	case b.Op(c) == ir.OpTrue:
		c = cond
	default:
		c = b.And(c, cond)
	}
	e := &ir.Edge{From: from, To: to, Cond: c, Fault: p.fault, UB: p.ub, Calls: append([]ir.Call(nil), p.calls...),
		Unsupported: unsupported}
	if to != l.g.Halt || unsupported == "" {
		e.Transfer = p.s.Transfer(b)
	}
	l.g.AddEdge(e)
}

func (l *lifter) addFault(p *path, f ir.Term) {
	if f == ir.NoTerm {
		return
	}
	if p.fault == ir.NoTerm || l.b.Op(p.fault) == ir.OpFalse {
		p.fault = f
		return
	}
	p.fault = l.b.Or(p.fault, f)
}

// addUB adds f to p's fault as undefined behaviour by a library
// function's contract (ir.Edge.UB).
func (l *lifter) addUB(p *path, f ir.Term) {
	l.addFault(p, f)
	if p.ub == ir.NoTerm || l.b.Op(p.ub) == ir.OpFalse {
		p.ub = f
		return
	}
	p.ub = l.b.Or(p.ub, f)
}

// liftFrom executes blk from instruction i (a node) to the next node,
// adding the edges out of the node at i.
func (l *lifter) liftFrom(blk *Block, i int) {
	b := l.b
	l.liftPath(l.nodeAt[i], blk, i, &path{s: l.base.Clone(), cond: b.True(), fault: b.False()}, false)
}

// liftPath executes blk from instruction i on path p, which left node
// from, to the next node; atNode says whether a node at i ends p there
// (a path going on past a library idiom's loop, idioms.go).
func (l *lifter) liftPath(from ir.NodeID, blk *Block, i int, p *path, atNode bool) {
	b, fn, g := l.b, l.fn, l.g
	last := blk.First + blk.Len - 1
	for j := i; j <= last; j++ {
		if j > i || atNode {
			if n, ok := l.nodeAt[j]; ok {
				l.emit(from, p, n, ir.NoTerm, "")
				return
			}
		}
		in := &fn.Insts[j]
		if in.Bad {
			l.unsupported["bad-bytes"] = true
			l.emit(from, p, g.Halt, ir.NoTerm, "bad-bytes")
			return
		}
		if cs, ok := l.calls[j]; ok && !cs.Tail && l.idiom(cs) == idiomCmp && l.strcmpLiteral(p, false) {
			if j == last {
				l.endBlock(from, blk, p, Effect{Kind: FlowNext})
				return
			}
			continue
		}
		if cs, ok := l.calls[j]; ok && !cs.Tail && l.idiom(cs) != 0 && l.idiom(cs) != idiomCmp {
			h, q := l.idiomLoop(from, p, in, l.idiom(cs), ir.NoTerm, false)
			l.liftAfter(h, blk, j, q)
			return
		}
		if cs, ok := l.calls[j]; ok && !cs.Tail {
			if u := l.call(p, in, cs, false); u != "" {
				l.unsupported[u] = true
				l.emit(from, p, g.Halt, ir.NoTerm, u)
				return
			}
			if l.endsRun(j) {
				// The run ends in the call (noreturn.go).
				l.emit(from, p, g.Halt, ir.NoTerm, "")
				return
			}
			if j == last {
				l.endBlock(from, blk, p, Effect{Kind: FlowNext})
			}
			continue
		}
		if mov, n, ok := isRepString(in); ok {
			if _, fixed := constOf(b, p.s.GPR[RCX]); !fixed {
				h, q := l.repLoop(from, p, in, mov, n)
				l.liftAfter(h, blk, j, q)
				return
			}
		}
		if in.Table != nil && in.Inst.Op == x86asm.MOV {
			ri, _ := GPRIndex(in.Inst.Args[1].(x86asm.Mem).Index)
			p.tableIndex = p.s.GPR[ri]
		}
		eff, err := l.step(p.s, in)
		if err != nil || eff.Kind == FlowUnsupported {
			u := eff.Unsupported
			if u == "" {
				u = in.Inst.Op.String()
			}
			l.unsupported[u] = true
			l.emit(from, p, g.Halt, ir.NoTerm, u)
			return
		}
		l.addFault(p, eff.Fault)
		if in.Table != nil && in.Inst.Op == x86asm.MOV {
			// The entry loaded is only jumped through, and the jump is
			// modelled by the index: the value itself is any (the two
			// files' tables hold different addresses).
			p.s.SetReg(b, in.Inst.Args[0].(x86asm.Reg), p.s.Fresh(b, ir.BVSort(64)))
		}
		if j == last {
			l.endBlock(from, blk, p, eff)
			return
		}
		switch eff.Kind {
		case FlowTrap:
			l.emit(from, p, g.Halt, ir.NoTerm, "")
			return
		case FlowNext:
		default:
			// The CFG ends blocks at every transfer but calls, so this is
			// an instruction the two disagree about.
			u := "flow:" + in.Inst.Op.String()
			l.unsupported[u] = true
			l.emit(from, p, g.Halt, ir.NoTerm, u)
			return
		}
	}
}

// liftAfter goes on from a loop head h that instruction j of blk became
// (idioms.go), on path q out of it, with the instructions after j.
func (l *lifter) liftAfter(h ir.NodeID, blk *Block, j int, q *path) {
	if j == blk.First+blk.Len-1 {
		l.endBlock(h, blk, q, Effect{Kind: FlowNext})
		return
	}
	l.liftPath(h, blk, j+1, q, true)
}

// endBlock adds the edges out of blk's end, as its CFG edges say, with the
// last instruction's effect.
func (l *lifter) endBlock(from ir.NodeID, blk *Block, p *path, eff Effect) {
	b, g := l.b, l.g
	node := func(to int) ir.NodeID {
		if to == ExitBlock {
			return g.Exit
		}
		return l.blockNode[to]
	}
	lastIdx := blk.First + blk.Len - 1
	in := &l.fn.Insts[lastIdx]
	tail := func(p *path, cond ir.Term) {
		q := &path{s: p.s.Clone(), cond: p.cond, fault: p.fault, ub: p.ub, calls: append([]ir.Call(nil), p.calls...)}
		cs, ok := l.calls[lastIdx]
		if !ok {
			cs = CallSite{Block: blk.Index, Inst: lastIdx, Addr: in.Addr, Tail: true}
		}
		if kind := l.idiom(cs); kind == idiomCmp && l.strcmpLiteral(q, true) {
			// The comparison, then the callee's ret to our caller.
			q.s.GPR[RSP] = b.Add(q.s.GPR[RSP], b.Const(64, 8))
			l.emit(from, q, g.Exit, cond, "")
			return
		}
		if kind := l.idiom(cs); kind != 0 && kind != idiomCmp {
			// The loop, then the callee's ret to our caller.
			h, out := l.idiomLoop(from, q, in, kind, cond, true)
			out.s.GPR[RSP] = b.Add(out.s.GPR[RSP], b.Const(64, 8))
			l.emit(h, out, g.Exit, ir.NoTerm, "")
			return
		}
		if u := l.call(q, in, cs, true); u != "" {
			l.unsupported[u] = true
			l.emit(from, q, g.Halt, cond, u)
			return
		}
		l.emit(from, q, g.Exit, cond, "")
	}
	switch blk.Term {
	case TermFallthrough, TermJump:
		if len(blk.Succs) == 1 {
			l.emit(from, p, node(blk.Succs[0].To), ir.NoTerm, "")
			return
		}
	case TermReturn:
		l.emit(from, p, g.Exit, ir.NoTerm, "")
		return
	case TermTailJump:
		tail(p, ir.NoTerm)
		return
	case TermBranch:
		if eff.Kind != FlowBranch || eff.Cond == ir.NoTerm {
			break
		}
		taken, notTaken := false, false
		for _, e := range blk.Succs {
			switch e.Kind {
			case EdgeTaken:
				l.emit(from, p, node(e.To), eff.Cond, "")
				taken = true
			case EdgeTailJump:
				tail(p, eff.Cond)
				taken = true
			case EdgeNotTaken:
				l.emit(from, p, node(e.To), b.Not(eff.Cond), "")
				notTaken = true
			}
		}
		if !taken {
			l.unsupported["jump-into-instruction"] = true
			l.emit(from, p, g.Halt, eff.Cond, "jump-into-instruction")
		}
		if !notTaken {
			// The branch is the function's last instruction: not taken,
			// it runs off the end.
			l.emit(from, p, g.Halt, b.Not(eff.Cond), "")
		}
		return
	case TermIndirectJump:
		l.emit(from, p, g.Halt, ir.NoTerm, "indirect-jump")
		return
	case TermJumpTable:
		l.jumpTable(from, blk, p, in, node)
		return
	case TermTrap, TermFallOff:
		// Traps carry Fault = true; running off the end follows a call
		// that does not return.
		l.emit(from, p, g.Halt, ir.NoTerm, "")
		return
	}
	u := fmt.Sprintf("cfg:%v/%v", blk.Term, eff.Kind)
	l.unsupported[u] = true
	l.emit(from, p, g.Halt, ir.NoTerm, u)
}

// jumpTable adds the edges of a jmp through a jump table (jumptable.go):
// to each target, when the index is one of its entries; an index past the
// table is a fault (C code has the bound check in front of the jmp; past
// the entries memory holds something else, which no C switch jumps to).
func (l *lifter) jumpTable(from ir.NodeID, blk *Block, p *path, in *Instruction, node func(int) ir.NodeID) {
	b := l.b
	if in.TableBase != nil {
		l.relativeJumpTable(from, blk, p, in, node)
		return
	}
	idx := p.tableIndex
	if m, ok := in.Inst.Args[0].(x86asm.Mem); ok {
		ri, _ := GPRIndex(m.Index)
		idx = p.s.GPR[ri]
	}
	if idx == ir.NoTerm {
		// The load is before this node: not the pattern.
		l.unsupported["indirect-jump"] = true
		l.emit(from, p, l.g.Halt, ir.NoTerm, "indirect-jump")
		return
	}
	l.tableEdges(from, blk, p, in, node, func(k int) ir.Term { return b.Eq(idx, b.Const(64, uint64(k))) },
		func() ir.Term { return b.Uge(idx, b.Const(64, uint64(len(in.Table)))) })
}

// tableEdges adds the edges of a jump through in's table: to each target,
// when selects holds of one of the entries that hold it; to a fault when
// past does (made after the others).
func (l *lifter) tableEdges(from ir.NodeID, blk *Block, p *path, in *Instruction, node func(int) ir.NodeID, selects func(k int) ir.Term, past func() ir.Term) {
	b := l.b
	conds := map[int]ir.Term{}
	for k, t := range in.Table {
		to := -1
		for _, e := range blk.Succs {
			if l.fn.Blocks[e.To].Start == t {
				to = e.To
			}
		}
		c := selects(k)
		if old, ok := conds[to]; ok {
			c = b.Or(old, c)
		}
		conds[to] = c
	}
	for _, e := range blk.Succs {
		l.emit(from, p, node(e.To), conds[e.To], "")
	}
	fault := &path{s: p.s, cond: p.cond, fault: p.fault, ub: p.ub, calls: p.calls}
	l.addFault(fault, b.True())
	l.emit(from, fault, l.g.Halt, past(), "")
}

// relativeJumpTable adds the edges of a jmp through a register fed by a
// table of 4-byte offsets (jumptable.go): the register must hold the
// table's address plus the sign-extended load of an entry, and the edge to
// each target is taken when the load's offset from the table's start is
// that of one of its entries; a load from anywhere else is a fault, as
// past an absolute table. When the register holds anything else the jump
// is unsupported. The table's address is this binary's own (tableAddr),
// and the conditions do not depend on it; what the registers hold after
// the jump (the table's address, the target's address computed from
// memory the model does not fill with the table) are values of this
// binary alone, which no proof can equate with the other's.
func (l *lifter) relativeJumpTable(from ir.NodeID, blk *Block, p *path, in *Instruction, node func(int) ir.NodeID) {
	b := l.b
	ri, _ := GPRIndex(in.Inst.Args[0].(x86asm.Reg))
	base := l.tableAddr(p.s.Prefix, *in.TableBase)
	target := p.s.GPR[ri]
	if g := in.TableBaseReg; g >= 0 && l.dominates(in.TableBaseAt, blk) {
		// The lea ran on the way here and nothing wrote its register
		// since: whatever the path's term for it (a loop's variable,
		// when the lea is before the loop), its value is the table's
		// address.
		target = ir.NewSubstituter(b, map[ir.Term]ir.Term{p.s.GPR[g]: base}).Apply(target)
	}
	addr, ok := relativeTableLoad(b, target, base)
	var off ir.Term
	if ok {
		off, ok = offsetFrom(b, addr, base)
	}
	if !ok {
		l.unsupported["indirect-jump"] = true
		l.emit(from, p, l.g.Halt, ir.NoTerm, "indirect-jump")
		return
	}
	var any []ir.Term
	l.tableEdges(from, blk, p, in, node, func(k int) ir.Term {
		c := b.Eq(off, b.Const(64, 4*uint64(k)))
		any = append(any, c)
		return c
	}, func() ir.Term { return b.Not(b.Or(any...)) })
}

// dominates reports whether the instruction at addr runs before blk on
// every path from the function's entry: blk cannot be reached without
// going through the instruction's block (or is that block, the
// instruction before its end).
func (l *lifter) dominates(addr uint64, blk *Block) bool {
	in := -1
	for i := range l.fn.Blocks {
		if bb := &l.fn.Blocks[i]; bb.Start <= addr && addr < bb.End {
			in = i
		}
	}
	switch {
	case in < 0:
		return false
	case in == blk.Index:
		return addr < blk.End
	case in == 0:
		return true
	}
	seen := map[int]bool{0: true, in: true}
	work := []int{0}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		if i == blk.Index {
			return false
		}
		for _, e := range l.fn.Blocks[i].Succs {
			if e.To >= 0 && e.To < len(l.fn.Blocks) && !seen[e.To] {
				seen[e.To] = true
				work = append(work, e.To)
			}
		}
	}
	return true
}

// Calls.

// calleeName names what a call site calls: the symbol (PLT entries as the
// function itself, so objects and executables compare), "*indirect" when
// the target is computed.
func calleeName(cs CallSite) string {
	if !cs.HasCallee {
		return "*indirect"
	}
	r := cs.Callee
	name := strings.TrimSuffix(r.Symbol, "@plt")
	if r.Offset != 0 && !r.GOT {
		name += "+" + strconv.FormatInt(r.Offset, 10)
	}
	return name
}

// proto is the prototype the lift reads a call to name by: the pair's
// (Callees), else what this file's DWARF states; nil for an indirect call.
func (l *lifter) proto(name string, hasCallee bool) *FuncDebug {
	switch {
	case !hasCallee:
		return nil
	case l.callees != nil:
		return l.callees.Protos[name]
	case l.file != nil:
		p, _ := l.file.Prototype(name)
		return p
	}
	return nil
}

// call applies the model of DESIGN "Calls" to p at the call (or tail jump)
// in: the callee is an uninterpreted function of its arguments (callees.go),
// its stack pointer and the whole memory; its results and the memory after
// it are applications of it (CallFunc names them); caller-saved registers
// and the flags become fresh values. This is all a callee can see; the C
// calling convention's narrower view, which lets two stack layouts
// compare, is CallConvention's rewrite. A tail jump then returns to our
// caller. It returns what could not be lifted, or "".
func (l *lifter) call(p *path, in *Instruction, cs CallSite, tail bool) string {
	b, s := l.b, p.s
	name := calleeName(cs)
	sig := l.proto(name, cs.HasCallee)
	ca := l.callArgs(s, name, sig)
	rewritten := false
	if l.callees != nil && l.callees.Stdio && cs.HasCallee {
		if canon, regs, ok := stdioRewrite(b, s, name); ok && l.proto(canon, true) != nil {
			at := s.Clone()
			for r, v := range regs {
				at.GPR[r] = v
			}
			name, sig, rewritten = canon, l.proto(canon, true), true
			ca = l.callArgs(at, name, sig)
		}
	}
	args := ca.Values
	if !cs.HasCallee {
		// The target is an argument of the indirect call: compute it as
		// the semantics do, on a scratch copy of the state.
		scratch := s.Clone()
		eff, err := l.step(scratch, in)
		if err != nil || eff.Target == ir.NoTerm {
			return "call:indirect-target"
		}
		args = append(args, eff.Target)
	}
	fn := CallFunc{Callee: name, N: len(args), Complete: ca.Complete}
	args = append(args, s.GPR[RSP], s.Mem)
	sorts := make([]ir.Sort, len(args))
	for i, a := range args {
		sorts[i] = b.Sort(a)
	}
	uf := func(what string, result ir.Sort) ir.Term {
		fn.Result = what
		fname := fn.String()
		f, err := b.TryDeclareFunc(fname, sorts, result)
		if err != nil {
			// Another binary in this Builder saw another signature:
			// keep them apart rather than fail.
			f = b.DeclareFunc(fmt.Sprintf("%s#%v", fname, sorts), sorts, result)
		}
		f.Callee = true
		return b.Apply(f, args...)
	}
	ret := KindUnknown
	retSize := int64(8)
	if sig != nil {
		ret, retSize = sig.Return.Kind, sig.Return.Size
	}
	p.calls = append(p.calls, ir.Call{Callee: name, Args: args, Tail: tail, PC: in.Addr})
	newMem := uf("mem", ir.MemSort)
	for _, r := range callerSaved {
		s.GPR[r] = s.Fresh(b, ir.BVSort(64))
	}
	for i := range s.XMM {
		s.XMM[i] = s.Fresh(b, ir.BVSort(128))
	}
	switch ret {
	case KindVoid:
		s.GPR[RAX] = s.Fresh(b, ir.BVSort(64))
	case KindFloat:
		s.GPR[RAX] = s.Fresh(b, ir.BVSort(64))
		s.XMM[0] = uf("xmm0", ir.BVSort(128))
	case KindBool:
		// The SysV ABI returns _Bool as 0 or 1 in al (callers test the
		// byte as they like: al ^ 1, test al); the bits above it are the
		// callee's own.
		r := uf("rax", ir.BVSort(64))
		s.GPR[RAX] = b.Concat(b.Extract(r, 63, 8), b.ZeroExtTo(b.Extract(r, 0, 0), 8))
	case KindUnknown:
		s.GPR[RAX] = uf("rax", ir.BVSort(64))
		s.XMM[0] = uf("xmm0", ir.BVSort(128))
	case KindStruct, KindUnion, KindComplex:
		l.aggregateResult(s, sig.Return, args, uf)
	default:
		s.GPR[RAX] = uf("rax", ir.BVSort(64))
		if retSize > 8 {
			s.GPR[RDX] = uf("rdx", ir.BVSort(64))
		}
	}
	if rewritten {
		// printf's result is not puts's (stdio.go).
		s.GPR[RAX] = s.Fresh(b, ir.BVSort(64))
	}
	for f := Flag(0); f < numFlags; f++ {
		s.SetFlag(f, s.Fresh(b, ir.BoolSort))
	}
	if tail {
		// The callee's ret pops our return address.
		s.GPR[RSP] = b.Add(s.GPR[RSP], b.Const(64, 8))
	}
	s.Mem = newMem
	return ""
}

// aggregateResult sets the registers a callee returning a struct, union
// or complex number of type t leaves its result in: one returned in
// memory leaves in rax the address the caller passed (args[0], the hidden
// argument; the bytes are in the call's memory result), one of at most 16
// bytes its eightbytes in rax and rdx (INTEGER) or xmm0 and xmm1 (SSE),
// in order. A type whose class is not known makes every one of them a
// result.
func (l *lifter) aggregateResult(s *State, t Type, args []ir.Term, uf func(string, ir.Sort) ir.Term) {
	switch t.ReturnClass() {
	case ReturnInMemory:
		if len(args) > 0 {
			s.GPR[RAX] = args[0]
			return
		}
	case ReturnInRegisters:
		if e, ok := t.Eightbytes(); ok {
			gprs, xmms := []string{"rax", "rdx"}, []string{"xmm0", "xmm1"}
			for i := range e.N {
				if e.SSE[i] {
					s.XMM[e.Reg(i)] = uf(xmms[e.Reg(i)], ir.BVSort(128))
				} else {
					s.GPR[[]int{RAX, RDX}[e.Reg(i)]] = uf(gprs[e.Reg(i)], ir.BVSort(64))
				}
			}
			return
		}
	}
	s.GPR[RAX] = uf("rax", ir.BVSort(64))
	s.GPR[RDX] = uf("rdx", ir.BVSort(64))
	s.XMM[0] = uf("xmm0", ir.BVSort(128))
	s.XMM[1] = uf("xmm1", ir.BVSort(128))
}

// Symbolic addresses.

// symAddr is the address term of what ref names: a variable per symbol
// (or per string literal) plus the offset.
func (l *lifter) symAddr(ref Ref) ir.Term {
	b := l.b
	if ref.HasLiteral && !ref.GOT {
		return b.Var(LiteralAddrVar(ref.Literal), ir.BVSort(64))
	}
	name := ref.Symbol
	if ref.GOT {
		name += "@GOT"
	}
	a := b.Var(GlobalAddrVar(name), ir.BVSort(64))
	if ref.Offset != 0 && !ref.GOT {
		a = b.Add(a, b.Const(64, uint64(ref.Offset)))
	}
	return a
}

// tableAddr is the address term of a relative jump table (jumptable.go): a
// variable of this binary's own (prefix), undefined like a clobbered
// register, not the global &symbol both binaries share. The table's
// address and contents are this binary's: the other's table of the same
// switch holds other offsets, and lies wherever its layout puts it. The
// edges of the jump are stated on the offset from it alone, so nothing
// about its value is assumed.
func (l *lifter) tableAddr(prefix string, ref Ref) ir.Term {
	return l.b.Var(fmt.Sprintf("%s%sjumptable:%s%+d", prefix, UndefPrefix, ref.Symbol, ref.Offset), ir.BVSort(64))
}

// constBytes returns the n bytes ref names when they lie in a read-only
// section and no relocation patches them: constant pools and string
// literals (mergeable sections, which carry no relocations), and the
// constants gcc puts in .rodata at -O0 (a float's bits beside a jump
// table, whose relocated entries stay reads of memory). A load from there
// is the constant itself whatever the layout.
func (l *lifter) constBytes(ref Ref, n uint32) ([]byte, bool) {
	if l.file == nil || !ref.resolved || ref.GOT {
		return nil, false
	}
	sec := l.file.section(ref.section)
	if sec == nil || sec.data == nil || sec.flags&elf.SHF_ALLOC == 0 || sec.flags&(elf.SHF_WRITE|elf.SHF_EXECINSTR) != 0 {
		return nil, false
	}
	off := ref.target - sec.addr
	if off > uint64(len(sec.data)) || uint64(n) > uint64(len(sec.data))-off {
		return nil, false
	}
	if sec.flags&elf.SHF_MERGE == 0 && !l.file.unrelocated(ref.section, off, uint64(n)) {
		return nil, false
	}
	return sec.data[off : off+uint64(n)], true
}

// symRewrite is one operand rewritten to go through a scratch register.
type symRewrite struct {
	reg   int     // GPR number of the scratch register
	value ir.Term // its value during the instruction
	ref   Ref
	mem   bool // a memory operand (else an immediate)
	fixed bool // a memory operand whose address is the symbol plus a constant
}

// step lifts in with Step, first making every operand that a Ref names
// symbolic: the semantics compute addresses from the decoded
// displacement, so a memory operand (or immediate) that names a symbol is
// rewritten to read a scratch register among r8–r15 that the instruction
// does not mention (none of them is ever an implicit operand), holding
// &symbol+offset for the instruction's duration. Loads from read-only
// constant pools are then replaced by the constants. When the rewritten
// form is not liftable the original is lifted, with its numeric address.
func (l *lifter) step(s *State, in *Instruction) (Effect, error) {
	inst, rw := l.rewrite(s, in)
	saved := *s
	if len(rw) > 0 {
		for _, r := range rw {
			s.GPR[r.reg] = r.value
		}
		mark := l.b.Len()
		eff, err := stepRecover(l.b, s, inst, in.Addr)
		if err == nil && eff.Kind != FlowUnsupported {
			for _, r := range rw {
				s.GPR[r.reg] = saved.GPR[r.reg]
			}
			l.foldConstLoads(s, &eff, rw, mark, saved.Mem)
			return eff, nil
		}
		*s = saved
	}
	eff, err := stepRecover(l.b, s, in.Inst, in.Addr)
	if err != nil {
		*s = saved
	}
	return eff, err
}

// stepRecover is Step turning a panic into an unsupported effect: Step
// promises not to panic, but one lifting bug must not take down the lift
// of a whole file (the panic is reported as "<MNEMONIC>:panic").
func stepRecover(b *ir.Builder, s *State, inst x86asm.Inst, pc uint64) (eff Effect, err error) {
	defer func() {
		if r := recover(); r != nil {
			u := inst.Op.String() + ":panic"
			eff = Effect{Kind: FlowUnsupported, Next: pc + uint64(inst.Len), Unsupported: u}
			err = &UnsupportedError{Mnemonic: u, Detail: fmt.Sprint(r)}
		}
	}()
	return Step(b, s, inst, pc)
}

func (l *lifter) rewrite(s *State, in *Instruction) (x86asm.Inst, []symRewrite) {
	inst := in.Inst
	var rw []symRewrite
	used := uint16(0)
	mention := func(r x86asm.Reg) {
		if ri := lookupReg(r); ri.kind == regGPR {
			used |= 1 << ri.index
		}
	}
	for _, a := range inst.Args {
		switch a := a.(type) {
		case x86asm.Reg:
			mention(a)
		case x86asm.Mem:
			mention(a.Base)
			mention(a.Index)
		}
	}
	scratch := func() int {
		for r := 8; r < 16; r++ {
			if used&(1<<r) == 0 {
				used |= 1 << r
				return r
			}
		}
		return -1
	}
	for _, ref := range in.Refs {
		if ref.Arg < 0 || ref.Arg >= len(inst.Args) || inst.Args[ref.Arg] == nil {
			continue
		}
		switch a := inst.Args[ref.Arg].(type) {
		case x86asm.Mem:
			if a.Segment != 0 {
				continue
			}
			if ref.GOT && inst.Op == x86asm.MOV && ref.Arg == 1 {
				// mov r64, [sym@GOTPCREL]: the slot holds &sym.
				if dst, ok := inst.Args[0].(x86asm.Reg); ok && RegWidth(dst) == 64 {
					r := scratch()
					if r < 0 {
						continue
					}
					gref := ref
					gref.GOT = false
					rw = append(rw, symRewrite{reg: r, value: l.symAddr(gref), ref: gref})
					inst.Args[1] = x86asm.R8 + x86asm.Reg(r-8)
					continue
				}
			}
			r := scratch()
			if r < 0 {
				continue
			}
			v := l.symAddr(ref)
			if in.TableLea && inst.Op == x86asm.LEA {
				v = l.tableAddr(s.Prefix, ref)
			}
			m := x86asm.Mem{Base: x86asm.R8 + x86asm.Reg(r-8), Index: a.Index, Scale: a.Scale}
			if a.Base != 0 && a.Base != x86asm.RIP && a.Base != x86asm.EIP {
				if ri := lookupReg(a.Base); ri.kind != regGPR || ri.width != 64 {
					continue
				}
				v = l.b.Add(v, s.Reg(l.b, a.Base))
			}
			if m.Index == 0 {
				m.Scale = 0
			}
			// Only an address that is the symbol plus a constant (no
			// base or index register) reads known bytes of a constant pool.
			fixed := (a.Base == 0 || a.Base == x86asm.RIP || a.Base == x86asm.EIP) && a.Index == 0
			rw = append(rw, symRewrite{reg: r, value: v, ref: ref, mem: true, fixed: fixed})
			inst.Args[ref.Arg] = m
		case x86asm.Imm:
			if ref.GOT {
				continue
			}
			w := uint32(64)
			if ref.Arg > 0 {
				switch a0 := inst.Args[0].(type) {
				case x86asm.Reg:
					w = RegWidth(a0)
				case x86asm.Mem:
					w = uint32(inst.MemBytes) * 8
					if w == 0 {
						w = uint32(inst.DataSize)
					}
				default:
					continue
				}
			}
			r := scratch()
			if r < 0 {
				continue
			}
			var reg x86asm.Reg
			switch w {
			case 64:
				reg = x86asm.R8 + x86asm.Reg(r-8)
			case 32:
				reg = x86asm.R8L + x86asm.Reg(r-8)
			case 16:
				reg = x86asm.R8W + x86asm.Reg(r-8)
			default:
				continue
			}
			rw = append(rw, symRewrite{reg: r, value: l.symAddr(ref), ref: ref})
			inst.Args[ref.Arg] = reg
		}
	}
	return inst, rw
}

// foldConstLoads replaces, in the terms the instruction made, every load
// of a rewritten memory operand at a fixed address (symbol plus constant)
// that lies in a read-only constant pool by the constant: the memory term
// it reads is irrelevant, since nothing can write there; and the alignment
// its 16-byte access checks by the offset's, when the pool is 16-byte
// aligned. A register-indexed load reads memory like any other. The loads
// are the selects at the operand's address made from mark on, and those
// of mem (the memory before the instruction) that the builder already
// had: terms are shared, so a second addsd of one constant between the
// same stores makes no new select, and a scan from mark alone left it a
// read of memory (and the pool a global both files must agree on).
func (l *lifter) foldConstLoads(s *State, eff *Effect, rw []symRewrite, mark int, mem ir.Term) {
	b := l.b
	m := map[ir.Term]ir.Term{}
	for _, r := range rw {
		if !r.mem || !r.fixed {
			continue
		}
		var loads []ir.Term
		for t := ir.Term(mark); int(t) < b.Len(); t++ {
			if b.Op(t) == ir.OpSelect && b.Arg(t, 1) == r.value {
				loads = append(loads, t)
			}
		}
		for _, n := range []uint32{1, 2, 4, 8, 16, 32} {
			if t, ok := b.LookupSelect(mem, r.value, n); ok && int(t) < mark {
				loads = append(loads, t)
			}
		}
		for _, t := range loads {
			n, _ := b.Params(t)
			data, ok := l.constBytes(r.ref, n)
			if !ok {
				continue
			}
			m[t] = b.ConstBV(bytesToBV(data))
			// The load's alignment check (memAccess) too: every link
			// places the pool at a multiple of its alignment, so the
			// address's low bits are the offset's.
			if sec := l.file.section(r.ref.section); sec.align >= 16 {
				m[b.Extract(r.value, 3, 0)] = b.Const(4, (r.ref.target-sec.addr)&15)
			}
		}
	}
	if len(m) == 0 {
		return
	}
	sub := ir.NewSubstituter(b, m)
	s.substitute(sub)
	for _, t := range []*ir.Term{&eff.Cond, &eff.Target, &eff.Fault} {
		if *t != ir.NoTerm {
			*t = sub.Apply(*t)
		}
	}
}

// substitute applies sub to every term of s, the lazy flags' operands
// included.
func (s *State) substitute(sub *ir.Substituter) {
	apply := func(t *ir.Term) {
		if *t != ir.NoTerm {
			*t = sub.Apply(*t)
		}
	}
	for i := range s.GPR {
		apply(&s.GPR[i])
	}
	for i := range s.XMM {
		apply(&s.XMM[i])
	}
	apply(&s.RIP)
	apply(&s.Mem)
	fl := &s.flags
	apply(&fl.a)
	apply(&fl.b)
	apply(&fl.res)
	apply(&fl.cin)
	for i := range fl.val {
		apply(&fl.val[i])
	}
}

// bytesToBV reads data little-endian.
func bytesToBV(data []byte) ir.BV {
	if len(data) <= 8 {
		var v uint64
		for i, c := range data {
			v |= uint64(c) << (8 * i)
		}
		return ir.NewBV(uint32(8*len(data)), v)
	}
	be := make([]byte, len(data))
	for i, c := range data {
		be[len(data)-1-i] = c
	}
	x := new(big.Int).SetBytes(be)
	return ir.NewBVBig(uint32(8*len(data)), x)
}
