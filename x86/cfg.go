package x86

import (
	"fmt"
	"sort"

	"golang.org/x/arch/x86/x86asm"
	"gonum.org/v1/gonum/graph/flow"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// ExitBlock is the pseudo block that returns and tail jumps lead to.
const ExitBlock = -1

// EdgeKind says why control passes along an edge.
type EdgeKind uint8

const (
	EdgeFallthrough EdgeKind = iota // into the next block, no transfer instruction
	EdgeJump                        // unconditional direct jmp
	EdgeTaken                       // conditional branch taken
	EdgeNotTaken                    // conditional branch not taken
	EdgeReturn                      // ret, to ExitBlock
	EdgeTailJump                    // direct jump (or taken branch) to another function, to ExitBlock
	EdgeCase                        // a jump table's entry (one edge per distinct target)
)

var edgeKindNames = [...]string{"fallthrough", "jump", "taken", "not-taken", "return", "tail-jump", "case"}

func (k EdgeKind) String() string {
	if int(k) < len(edgeKindNames) {
		return edgeKindNames[k]
	}
	return fmt.Sprintf("EdgeKind(%d)", uint8(k))
}

// Edge is a CFG edge between block indices; To may be ExitBlock.
type Edge struct {
	From, To int
	Kind     EdgeKind
}

// TermKind says how a block ends.
type TermKind uint8

const (
	TermFallthrough  TermKind = iota // next instruction starts another block
	TermJump                         // direct jmp inside the function
	TermBranch                       // conditional branch
	TermReturn                       // ret
	TermTailJump                     // direct jmp to another function
	TermIndirectJump                 // jmp through a register or memory: successors unknown
	TermTrap                         // ud2, hlt, int3, undecodable bytes, or a jump into an instruction
	TermFallOff                      // runs off the end of the function (after a call that does not return)
	TermJumpTable                    // jmp through a jump table (Instruction.Table): one edge per target
)

var termKindNames = [...]string{"fallthrough", "jump", "branch", "return", "tail-jump", "indirect-jump", "trap", "fall-off", "jump-table"}

func (k TermKind) String() string {
	if int(k) < len(termKindNames) {
		return termKindNames[k]
	}
	return fmt.Sprintf("TermKind(%d)", uint8(k))
}

// Block is a basic block: a maximal run of instructions entered only at its
// first and left only after its last. Calls do not end blocks: control
// returns to the next instruction.
type Block struct {
	Index      int
	Start, End uint64 // address range [Start, End)
	First, Len int    // instructions Insts[First : First+Len]
	Term       TermKind
	Succs      []Edge
	Preds      []int // predecessor block indices, ascending
}

// Loop is a natural loop: the blocks of all back edges to Head whose target
// Head dominates the source.
type Loop struct {
	Head    int
	Blocks  []int  // ascending, Head included
	Latches []Edge // the back edges into Head
	Parent  int    // index in Function.Loops of the innermost enclosing loop, -1 if none
	Depth   int    // 1 for an outermost loop
}

// CallSite is a call, or a tail jump, to another function.
type CallSite struct {
	Block int
	Inst  int // index in Function.Insts
	Addr  uint64
	// Callee names the called function when it is known: a direct call, a
	// call through the GOT slot of a symbol (-fno-plt), or a tail jump.
	Callee    Ref
	HasCallee bool
	Indirect  bool // through a register or a memory word other than a GOT slot
	Tail      bool // a tail jump: the callee returns to our caller
}

// Function is a decoded function with its control flow graph.
type Function struct {
	File string
	Name string
	Func *Func // nil when built from bare bytes

	Insts  []Instruction
	Blocks []Block
	Entry  int   // always 0, the block at the function's address
	Exits  []int // blocks with an edge to ExitBlock, ascending

	RPO       []int  // reverse postorder of the blocks reachable from Entry
	BackEdges []Edge // edges to a block on the DFS stack (retreating edges)
	Idom      []int  // immediate dominator per block; -1 for Entry and unreachable blocks
	Loops     []Loop // natural loops, one per head, inner loops after outer
	// Irreducible says some retreating edge targets a block that does not
	// dominate its source: a cycle with several entries and no natural head.
	Irreducible bool
	CyclicSCCs  int // strongly connected components that contain a cycle
	CallSites   []CallSite
	// Unsupported lists, sorted and without repeats, what no later stage can
	// lift: "bad-bytes", "indirect-jump", "jump-into-instruction",
	// "x87:<MNEMONIC>". A verdict's reason is "unsupported:" + an entry.
	Unsupported []string
}

// Analyze decodes fn and builds its CFG.
func (f *File) Analyze(fn *Func) *Function {
	insts := f.Decode(fn)
	linkTableLoads(insts)
	f.linkRelativeTables(fn, insts)
	g := BuildCFG(fn.Name, fn.Addr, insts)
	g.File, g.Func = f.Path, fn
	return g
}

// Function finds the function called name, decodes it and builds its CFG.
func (f *File) Function(name string) (*Function, error) {
	fn, err := f.Func(name)
	if err != nil {
		return nil, err
	}
	return f.Analyze(fn), nil
}

func isReturn(op x86asm.Op) bool {
	switch op {
	case x86asm.RET, x86asm.LRET, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ, x86asm.SYSRET, x86asm.SYSEXIT:
		return true
	}
	return false
}

func isTrap(in *Instruction) bool {
	if in.Bad {
		return true
	}
	switch in.Inst.Op {
	case x86asm.UD0, x86asm.UD1, x86asm.UD2, x86asm.HLT:
		return true
	case x86asm.INT: // int3 (CC) decodes as INT 3; int 0x80 returns
		return in.Inst.Args[0] == x86asm.Imm(3)
	}
	return false
}

// transfer classifies how an instruction moves control.
type transfer uint8

const (
	xNone transfer = iota
	xJump
	xBranch
	xIndirectJump
	xReturn
	xTrap
)

func classify(in *Instruction) transfer {
	if isTrap(in) {
		return xTrap
	}
	op := in.Inst.Op
	if isReturn(op) {
		return xReturn
	}
	if op == x86asm.CALL || op == x86asm.LCALL || op == x86asm.SYSCALL {
		return xNone
	}
	_, direct := relArg(in.Inst)
	if op == x86asm.JMP || op == x86asm.LJMP {
		if direct {
			return xJump
		}
		return xIndirectJump
	}
	if direct {
		return xBranch // Jcc, LOOPcc, JRCXZ, XBEGIN
	}
	return xNone
}

// BuildCFG splits insts, decoded from address start, into basic blocks and
// analyses their graph. It never fails: problems land in Unsupported.
func BuildCFG(name string, start uint64, insts []Instruction) *Function {
	fn := &Function{Name: name, Insts: insts}
	if len(insts) == 0 {
		return fn
	}
	end := insts[len(insts)-1].Addr + uint64(insts[len(insts)-1].Len)
	// at finds the instruction starting at addr; insts are in address order.
	at := func(addr uint64) (int, bool) {
		i := sort.Search(len(insts), func(i int) bool { return insts[i].Addr >= addr })
		return i, i < len(insts) && insts[i].Addr == addr
	}
	unsupported := map[string]bool{}
	// tableOK: in's jump table, if any, lands on our instructions.
	tableOK := func(in *Instruction) bool {
		for _, t := range in.Table {
			if _, ok := at(t); !ok || t < start || t >= end {
				return false
			}
		}
		return len(in.Table) > 0
	}
	internal := func(in *Instruction) (int, bool) {
		if !in.HasTarget || in.Target < start || in.Target >= end {
			return 0, false
		}
		return at(in.Target)
	}
	into := func(in *Instruction) bool { // into the middle of one of ours
		_, ok := at(in.Target)
		return in.HasTarget && in.Target >= start && in.Target < end && !ok
	}

	leader := make([]bool, len(insts))
	leader[0] = true
	for i := range insts {
		in := &insts[i]
		if u := in.Unsupported(); u != "" {
			unsupported[u] = true
		}
		switch classify(in) {
		case xJump, xBranch:
			if t, ok := internal(in); ok {
				leader[t] = true
			}
			fallthrough
		case xIndirectJump, xReturn, xTrap:
			if i+1 < len(insts) {
				leader[i+1] = true
			}
			if !tableOK(in) {
				break
			}
			for _, t := range in.Table {
				j, _ := at(t)
				leader[j] = true
			}
		}
	}
	blockOf := make([]int, len(insts))
	for i := range insts {
		if leader[i] {
			fn.Blocks = append(fn.Blocks, Block{Index: len(fn.Blocks), Start: insts[i].Addr, First: i})
		}
		b := &fn.Blocks[len(fn.Blocks)-1]
		b.Len++
		b.End = insts[i].Addr + uint64(insts[i].Len)
		blockOf[i] = b.Index
	}

	for bi := range fn.Blocks {
		b := &fn.Blocks[bi]
		last := b.First + b.Len - 1
		in := &insts[last]
		next := -1
		if last+1 < len(insts) {
			next = blockOf[last+1]
		}
		add := func(to int, k EdgeKind) { b.Succs = append(b.Succs, Edge{From: bi, To: to, Kind: k}) }
		tail := func() {
			fn.CallSites = append(fn.CallSites, callSite(bi, last, in, true))
		}
		switch classify(in) {
		case xNone:
			if next >= 0 {
				b.Term = TermFallthrough
				add(next, EdgeFallthrough)
			} else {
				b.Term = TermFallOff
			}
		case xJump:
			if t, ok := internal(in); ok {
				b.Term = TermJump
				add(blockOf[t], EdgeJump)
			} else if into(in) {
				b.Term = TermTrap
				unsupported["jump-into-instruction"] = true
			} else {
				b.Term = TermTailJump
				add(ExitBlock, EdgeTailJump)
				tail()
			}
		case xBranch:
			b.Term = TermBranch
			if t, ok := internal(in); ok {
				add(blockOf[t], EdgeTaken)
			} else if into(in) {
				unsupported["jump-into-instruction"] = true
			} else {
				add(ExitBlock, EdgeTailJump)
				tail()
			}
			if next >= 0 {
				add(next, EdgeNotTaken)
			}
		case xIndirectJump:
			if !tableOK(in) {
				b.Term = TermIndirectJump
				unsupported["indirect-jump"] = true
				break
			}
			b.Term = TermJumpTable
			seen := map[int]bool{}
			for _, t := range in.Table {
				j, _ := at(t)
				if to := blockOf[j]; !seen[to] {
					seen[to] = true
					add(to, EdgeCase)
				}
			}
		case xReturn:
			b.Term = TermReturn
			add(ExitBlock, EdgeReturn)
		case xTrap:
			b.Term = TermTrap
		}
		for i := b.First; i <= last; i++ {
			if op := insts[i].Inst.Op; (op == x86asm.CALL || op == x86asm.LCALL) && !insts[i].Bad {
				fn.CallSites = append(fn.CallSites, callSite(bi, i, &insts[i], false))
			}
		}
	}
	sort.SliceStable(fn.CallSites, func(i, j int) bool { return fn.CallSites[i].Inst < fn.CallSites[j].Inst })
	for bi := range fn.Blocks {
		exit := false
		for _, e := range fn.Blocks[bi].Succs {
			if e.To == ExitBlock {
				exit = true
			} else {
				fn.Blocks[e.To].Preds = append(fn.Blocks[e.To].Preds, bi)
			}
		}
		if exit {
			fn.Exits = append(fn.Exits, bi)
		}
	}
	for bi := range fn.Blocks {
		p := fn.Blocks[bi].Preds
		sort.Ints(p)
		fn.Blocks[bi].Preds = dedupInts(p)
	}
	for u := range unsupported {
		fn.Unsupported = append(fn.Unsupported, u)
	}
	sort.Strings(fn.Unsupported)
	fn.analyzeGraph()
	return fn
}

func dedupInts(s []int) []int {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func callSite(block, idx int, in *Instruction, tail bool) CallSite {
	cs := CallSite{Block: block, Inst: idx, Addr: in.Addr, Tail: tail}
	_, direct := relArg(in.Inst)
	for _, r := range in.Refs {
		if direct && r.Arg >= 0 {
			if _, ok := in.Inst.Args[r.Arg].(x86asm.Rel); ok {
				cs.Callee, cs.HasCallee = r, true
			}
		}
		if !direct && r.GOT && r.Arg >= 0 {
			if m, ok := in.Inst.Args[r.Arg].(x86asm.Mem); ok && m.Base == x86asm.RIP {
				cs.Callee, cs.HasCallee = r, true
			}
		}
	}
	cs.Indirect = !direct && !cs.HasCallee
	return cs
}

// analyzeGraph computes the reverse postorder, retreating edges, dominators,
// natural loops and cyclic SCCs of the blocks reachable from Entry.
func (fn *Function) analyzeGraph() {
	n := len(fn.Blocks)
	fn.Idom = make([]int, n)
	for i := range fn.Idom {
		fn.Idom[i] = -1
	}
	// Iterative DFS: gonum's traversals give no postorder or edge colouring,
	// and recursion depth would follow the (input-controlled) block count.
	const (
		white = iota
		grey
		black
	)
	colour := make([]uint8, n)
	type frame struct{ block, edge int }
	stack := []frame{{0, 0}}
	colour[0] = grey
	var post []int
	selfLoop := make([]bool, n)
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		succs := fn.Blocks[top.block].Succs
		if top.edge == len(succs) {
			colour[top.block] = black
			post = append(post, top.block)
			stack = stack[:len(stack)-1]
			continue
		}
		e := succs[top.edge]
		top.edge++
		if e.To == ExitBlock {
			continue
		}
		switch colour[e.To] {
		case white:
			colour[e.To] = grey
			stack = append(stack, frame{e.To, 0})
		case grey:
			fn.BackEdges = append(fn.BackEdges, e)
			if e.To == e.From {
				selfLoop[e.To] = true
			}
		}
	}
	fn.RPO = make([]int, len(post))
	for i, b := range post {
		fn.RPO[len(post)-1-i] = b
	}

	// gonum's simple graphs reject self edges; self loops are handled above
	// and do not change dominance.
	g := simple.NewDirectedGraph()
	for _, b := range fn.RPO {
		g.AddNode(simple.Node(b))
	}
	for _, b := range fn.RPO {
		for _, e := range fn.Blocks[b].Succs {
			if e.To != ExitBlock && e.To != e.From {
				g.SetEdge(simple.Edge{F: simple.Node(e.From), T: simple.Node(e.To)})
			}
		}
	}
	if len(fn.RPO) > 1 {
		dom := flow.Dominators(simple.Node(0), g)
		for _, b := range fn.RPO[1:] {
			if d := dom.DominatorOf(int64(b)); d != nil {
				fn.Idom[b] = int(d.ID())
			}
		}
	}
	// Without a retreating edge the reachable graph is acyclic: skip the
	// SCC pass, which most functions need not pay for.
	if len(fn.BackEdges) > 0 {
		for _, scc := range topo.TarjanSCC(g) {
			if len(scc) > 1 || selfLoop[scc[0].ID()] {
				fn.CyclicSCCs++
			}
		}
	}

	byHead := map[int]*Loop{}
	var heads []int
	for _, e := range fn.BackEdges {
		if !fn.dominates(e.To, e.From) {
			fn.Irreducible = true
			continue
		}
		l := byHead[e.To]
		if l == nil {
			l = &Loop{Head: e.To}
			byHead[e.To] = l
			heads = append(heads, e.To)
		}
		l.Latches = append(l.Latches, e)
	}
	for _, h := range heads {
		l := byHead[h]
		in := map[int]bool{h: true}
		var work []int
		for _, e := range l.Latches {
			if !in[e.From] {
				in[e.From] = true
				work = append(work, e.From)
			}
		}
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			for _, p := range fn.Blocks[b].Preds {
				if !in[p] && colour[p] != white {
					in[p] = true
					work = append(work, p)
				}
			}
		}
		for b := range in {
			l.Blocks = append(l.Blocks, b)
		}
		sort.Ints(l.Blocks)
	}
	// Outer loops first (more blocks), so a loop's parent precedes it.
	sort.Slice(heads, func(i, j int) bool {
		a, b := byHead[heads[i]], byHead[heads[j]]
		if len(a.Blocks) != len(b.Blocks) {
			return len(a.Blocks) > len(b.Blocks)
		}
		return a.Head < b.Head
	})
	for i, h := range heads {
		l := *byHead[h]
		l.Parent, l.Depth = -1, 1
		for j := i - 1; j >= 0; j-- {
			if containsSorted(fn.Loops[j].Blocks, h) {
				l.Parent, l.Depth = j, fn.Loops[j].Depth+1
				break
			}
		}
		fn.Loops = append(fn.Loops, l)
	}
}

// dominates says whether block a dominates block b (both reachable).
func (fn *Function) dominates(a, b int) bool {
	for steps := 0; b >= 0 && steps <= len(fn.Blocks); steps++ {
		if a == b {
			return true
		}
		b = fn.Idom[b]
	}
	return false
}

func containsSorted(s []int, v int) bool {
	i := sort.SearchInts(s, v)
	return i < len(s) && s[i] == v
}
