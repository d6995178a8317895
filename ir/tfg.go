package ir

import (
	"fmt"
	"sort"
)

// The transfer function graph (thesis §2.2.2): nodes are program points,
// edges say under which condition control moves from one to the next and
// what the state is afterwards, as terms over the state at the from-node.
// Composite edges (§2.2.3) are built by sequential and parallel composition;
// path sets between anchors (§2.4.1) are composite edges built by dynamic
// programming over the graph, never by enumerating paths.

// NodeID names a node of a TFG: its index in TFG.Nodes.
type NodeID int

// NoNode is the NodeID of no node.
const NoNode NodeID = -1

// NodeKind says what a program point is.
type NodeKind uint8

const (
	// NodeBlock is the head of a basic block that is nothing more.
	NodeBlock NodeKind = iota
	// NodeEntry is the function's entry.
	NodeEntry
	// NodeExit is the normal return: the state is the one the caller sees.
	NodeExit
	// NodeHalt is every abnormal end: a trap, a fault, a callee that does
	// not return, code the front end could not lift. It has no edges out.
	NodeHalt
	// NodeLoopHead is the target of a retreating edge.
	NodeLoopHead
	// NodeCallSite is a call instruction; its edges out perform the call.
	NodeCallSite
	// NodeLoopExit is a block a loop's exit edge enters, kept as an anchor
	// (MarkLoopExits) so that a loop's last pass and the code after it are
	// two steps, not one.
	NodeLoopExit
)

var nodeKindNames = [...]string{"block", "entry", "exit", "halt", "loop-head", "call-site", "loop-exit"}

func (k NodeKind) String() string {
	if int(k) < len(nodeKindNames) {
		return nodeKindNames[k]
	}
	return fmt.Sprintf("NodeKind(%d)", uint8(k))
}

// Node is a program point.
type Node struct {
	ID   NodeID
	PC   uint64 // address of the instruction about to run; 0 for exit and halt
	Kind NodeKind
}

// StateVar is one component of the program state: a register, a flag, the
// memory. Var is the free variable that stands for the component's value at
// the from-node of every edge; transfer functions and conditions are terms
// over these variables (and fresh values and uninterpreted functions).
type StateVar struct {
	Name string
	Var  Term
}

// Call is one call made along an edge. The sequence of calls is
// observable. Args (terms over the from-node state) are what the callee
// sees, its memory included; a composite edge's Guard says on which of its
// paths the call happens, so the calls made by one concrete run are the
// ones whose Guard holds, in list order.
type Call struct {
	Callee string
	Args   []Term
	Guard  Term // Bool; True on simple edges
	Tail   bool // a tail jump: the callee returns to our caller
	PC     uint64
}

// Edge is a simple or composite edge.
type Edge struct {
	ID       int // index in its TFG's Edges
	From, To NodeID
	// Cond is the Bool under which the edge is taken, over the from-node
	// state variables.
	Cond Term
	// Transfer[i] is the value of State[i] at To, over the from-node state.
	Transfer []Term
	Calls    []Call
	// Fault is the Bool under which some instruction along the edge faults
	// (division by zero, a trap): the run then ends abnormally there and
	// Transfer is meaningless. False when nothing can fault.
	Fault Term
	// UB is the part of Fault that is undefined behaviour by a C library
	// function's contract, not a trap: a memcpy whose regions overlap
	// (x86/idioms.go). Fault implies nothing about it and it implies
	// Fault; an engine may take its negation as a premise about the
	// source under a model that makes it undefined (the restrict model:
	// memcpy's parameters are restrict), and must otherwise read it as the
	// fault it is part of. False when nothing is.
	UB Term
	// Unsupported names what the front end could not lift, on the edge
	// (to NodeHalt) that stands for the rest of the run; "" otherwise.
	Unsupported string
	// Path is the series-parallel expression of the simple edges this
	// edge was composed from.
	Path *PathExpr
}

// TFG is a transfer function graph. Build one with NewTFG, AddNode and
// AddEdge. It is not safe for concurrent use (nor is its Builder).
//
// Invariants the front end guarantees and Check verifies (all but the
// last): every edge's Cond and Fault are Bool and its Transfer has one term
// per state component, of that component's sort; the conditions of the
// edges out of a node are pairwise exclusive and together exhaustive (true
// in every state), which is what makes parallel composition by ite exact.
type TFG struct {
	B     *Builder
	Name  string
	State []StateVar
	Nodes []Node
	Edges []*Edge
	// Entry, Exit and Halt are the distinguished nodes; Halt may be
	// NoNode when no path ends abnormally.
	Entry, Exit, Halt NodeID
	// Unsupported lists, sorted and without repeats, what could not be
	// lifted; a TFG with entries must not be used for proofs.
	Unsupported []string
	// Simplifier, when set, normalizes every composed term.
	Simplifier *Simplifier
	// Base is the TFG whose simple edges the Paths of a collapsed TFG's
	// edges name; nil for a TFG built directly.
	Base *TFG

	out    [][]*Edge
	varIdx map[Term]int
	order  *dfsOrder
}

// NewTFG returns an empty TFG over state components state.
func NewTFG(b *Builder, name string, state []StateVar) *TFG {
	g := &TFG{B: b, Name: name, State: append([]StateVar(nil), state...), Entry: NoNode, Exit: NoNode, Halt: NoNode}
	g.varIdx = make(map[Term]int, len(state))
	for i, v := range state {
		if b.Op(v.Var) != OpVar {
			panic(fmt.Sprintf("ir: state component %s is %s, not a variable", v.Name, b.Short(v.Var)))
		}
		if _, dup := g.varIdx[v.Var]; dup {
			panic(fmt.Sprintf("ir: state variable %s listed twice", v.Name))
		}
		g.varIdx[v.Var] = i
	}
	return g
}

// StateIndex returns the index of the component named name, or -1.
func (g *TFG) StateIndex(name string) int {
	for i, v := range g.State {
		if v.Name == name {
			return i
		}
	}
	return -1
}

// AddNode adds a node and returns its id. Entry, exit and halt nodes are
// recorded as such (one of each).
func (g *TFG) AddNode(pc uint64, kind NodeKind) NodeID {
	id := NodeID(len(g.Nodes))
	g.Nodes = append(g.Nodes, Node{ID: id, PC: pc, Kind: kind})
	g.out = append(g.out, nil)
	switch kind {
	case NodeEntry:
		g.Entry = id
	case NodeExit:
		g.Exit = id
	case NodeHalt:
		g.Halt = id
	}
	g.order = nil
	return id
}

// AddEdge adds e, filling defaults: a NoTerm Cond is True, a NoTerm Fault
// is False, a nil Transfer is the identity, a NoTerm call Guard is True,
// and a nil Path is the edge itself. It returns e with its ID set.
func (g *TFG) AddEdge(e *Edge) *Edge {
	b := g.B
	if e.From < 0 || int(e.From) >= len(g.Nodes) || e.To < 0 || int(e.To) >= len(g.Nodes) {
		panic(fmt.Sprintf("ir: edge %d->%d between nodes of a %d-node TFG", e.From, e.To, len(g.Nodes)))
	}
	if e.Cond == NoTerm {
		e.Cond = b.True()
	}
	if e.Fault == NoTerm {
		e.Fault = b.False()
	}
	if e.UB == NoTerm {
		e.UB = b.False()
	}
	if e.Transfer == nil {
		e.Transfer = g.identityTransfer()
	}
	for i := range e.Calls {
		if e.Calls[i].Guard == NoTerm {
			e.Calls[i].Guard = b.True()
		}
	}
	e.ID = len(g.Edges)
	if e.Path == nil {
		e.Path = &PathExpr{Op: PathEdge, Edge: e.ID, count: 1}
	}
	g.Edges = append(g.Edges, e)
	g.out[e.From] = append(g.out[e.From], e)
	g.order = nil
	return e
}

func (g *TFG) identityTransfer() []Term {
	t := make([]Term, len(g.State))
	for i, v := range g.State {
		t[i] = v.Var
	}
	return t
}

// StateIndexOf returns the index of the state component whose variable is
// t, or -1.
func (g *TFG) StateIndexOf(t Term) int {
	if i, ok := g.varIdx[t]; ok {
		return i
	}
	return -1
}

// StateSubst is the substitution of st[i] for each state variable i of g
// (terms over another state: a node's, or an edge's transfer).
func (g *TFG) StateSubst(st []Term) *Substituter {
	m := make(map[Term]Term, len(st))
	for i, sv := range g.State {
		if sv.Var != st[i] {
			m[sv.Var] = st[i]
		}
	}
	return NewSubstituter(g.B, m)
}

// Out returns the edges out of n, in the order they were added.
func (g *TFG) Out(n NodeID) []*Edge { return g.out[n] }

// Check verifies the sort invariants of every edge and returns the first
// violation.
func (g *TFG) Check() error {
	b := g.B
	for _, e := range g.Edges {
		where := fmt.Sprintf("%s: edge %d (%d->%d)", g.Name, e.ID, e.From, e.To)
		if s := b.Sort(e.Cond); s != BoolSort {
			return fmt.Errorf("%s: condition is %v", where, s)
		}
		if s := b.Sort(e.Fault); s != BoolSort {
			return fmt.Errorf("%s: fault is %v", where, s)
		}
		if s := b.Sort(e.UB); e.UB != NoTerm && s != BoolSort {
			return fmt.Errorf("%s: UB is %v", where, s)
		}
		if len(e.Transfer) != len(g.State) {
			return fmt.Errorf("%s: %d transfer terms for %d state components", where, len(e.Transfer), len(g.State))
		}
		for i, t := range e.Transfer {
			if want, got := b.Sort(g.State[i].Var), b.Sort(t); want != got {
				return fmt.Errorf("%s: %s becomes a %v term, want %v", where, g.State[i].Name, got, want)
			}
		}
		for j, c := range e.Calls {
			if s := b.Sort(c.Guard); s != BoolSort {
				return fmt.Errorf("%s: call %d (%s) guard is %v", where, j, c.Callee, s)
			}
		}
		if g.Nodes[e.From].Kind == NodeExit || g.Nodes[e.From].Kind == NodeHalt {
			return fmt.Errorf("%s: leaves the %v node", where, g.Nodes[e.From].Kind)
		}
	}
	return nil
}

// Composition.

// and2, or2, not1 and ite fold the constants the Builder leaves alone,
// so that composing with an always-taken edge adds nothing.
func (g *TFG) and2(x, y Term) Term {
	b := g.B
	switch {
	case b.Op(x) == OpTrue || x == y:
		return y
	case b.Op(y) == OpTrue:
		return x
	case b.Op(x) == OpFalse || b.Op(y) == OpFalse:
		return b.False()
	}
	return g.norm(b.And(x, y))
}

func (g *TFG) or2(x, y Term) Term {
	b := g.B
	switch {
	case b.Op(x) == OpFalse || x == y:
		return y
	case b.Op(y) == OpFalse:
		return x
	case b.Op(x) == OpTrue || b.Op(y) == OpTrue:
		return b.True()
	}
	return g.norm(b.Or(x, y))
}

func (g *TFG) ite(c, x, y Term) Term {
	b := g.B
	switch {
	case x == y || b.Op(c) == OpTrue:
		return x
	case b.Op(c) == OpFalse:
		return y
	}
	return g.norm(b.Ite(c, x, y))
}

func (g *TFG) norm(t Term) Term {
	if g.Simplifier != nil {
		return g.Simplifier.Simplify(t)
	}
	return t
}

// Seq is the sequential composition of e1 (u→v) and e2 (v→w): the edge
// u→w taken when e1's condition holds and then e2's, whose transfer is e2's
// after e1's. e2's terms, over the state at v, are rewritten over the state
// at u by substituting e1's transfer for the state variables. The result
// is not added to the TFG.
func (g *TFG) Seq(e1, e2 *Edge) *Edge {
	if e1.To != e2.From {
		panic(fmt.Sprintf("ir: sequential composition of %d->%d and %d->%d", e1.From, e1.To, e2.From, e2.To))
	}
	m := make(map[Term]Term, len(g.State))
	for i, v := range g.State {
		if e1.Transfer[i] != v.Var {
			m[v.Var] = e1.Transfer[i]
		}
	}
	sub := NewSubstituter(g.B, m)
	apply := func(t Term) Term {
		if len(m) == 0 {
			return t
		}
		return g.norm(sub.Apply(t))
	}
	e := &Edge{From: e1.From, To: e2.To, ID: -1,
		Cond:  g.and2(e1.Cond, apply(e2.Cond)),
		Fault: g.or2(e1.Fault, apply(e2.Fault)),
		UB:    g.or2(g.ub(e1), apply(g.ub(e2))),
		Path:  seqPath(e1.Path, e2.Path),
	}
	e.Transfer = make([]Term, len(g.State))
	for i, t := range e2.Transfer {
		e.Transfer[i] = apply(t)
	}
	e.Calls = append(make([]Call, 0, len(e1.Calls)+len(e2.Calls)), e1.Calls...)
	for _, c := range e2.Calls {
		c.Args = append([]Term(nil), c.Args...)
		for j, a := range c.Args {
			c.Args[j] = apply(a)
		}
		c.Guard = apply(c.Guard)
		e.Calls = append(e.Calls, c)
	}
	e.Unsupported = e2.Unsupported
	if e.Unsupported == "" {
		e.Unsupported = e1.Unsupported
	}
	return e
}

// Par is the parallel composition of e1 and e2 between the same nodes: the
// edge taken when either is, whose transfer is ite(c1, T1, T2). It is exact
// only when c1 ∧ c2 is unsatisfiable, which holds for any two different
// paths from one node of a TFG whose out-edges are exclusive (they part at
// some branch); PathSet and Collapse only merge such paths. Calls keep their
// order within each side and are guarded by their side's condition.
func (g *TFG) Par(e1, e2 *Edge) *Edge {
	if e1.From != e2.From || e1.To != e2.To {
		panic(fmt.Sprintf("ir: parallel composition of %d->%d and %d->%d", e1.From, e1.To, e2.From, e2.To))
	}
	c1, c2 := e1.Cond, e2.Cond
	shared, own1, own2 := g.splitShared(c1, c2)
	e := &Edge{From: e1.From, To: e1.To, ID: -1,
		Cond:  g.and2(shared, g.or2(own1, own2)),
		Fault: g.ite(own1, e1.Fault, e2.Fault),
		UB:    g.ite(own1, g.ub(e1), g.ub(e2)),
		Path:  parPath(e1.Path, e2.Path),
	}
	e.Transfer = make([]Term, len(g.State))
	for i := range e.Transfer {
		e.Transfer[i] = g.ite(own1, e1.Transfer[i], e2.Transfer[i])
	}
	for _, c := range e1.Calls {
		c.Guard = g.and2(c1, c.Guard)
		e.Calls = append(e.Calls, c)
	}
	for _, c := range e2.Calls {
		c.Guard = g.and2(c2, c.Guard)
		e.Calls = append(e.Calls, c)
	}
	e.Unsupported = e1.Unsupported
	if e.Unsupported == "" {
		e.Unsupported = e2.Unsupported
	}
	return e
}

// splitShared factors c1 = p ∧ x and c2 = p ∧ y into the conjuncts both
// share (p) and what each adds (x, y). The parallel composition selects its
// transfer and fault with ite(x, ·, ·) rather than ite(c1, ·, ·): the two
// agree whenever c1 ∨ c2 holds, the only states in which a composite edge's
// transfer and fault mean anything (TFG.Step evaluates them after the
// condition; the checkers assume the path condition). Paths that part at a
// branch share everything before it, so the merged states of an unrolled
// loop body test the branch alone and not the loop bounds of every earlier
// iteration again, which the solver would have to see through.
func (g *TFG) splitShared(c1, c2 Term) (shared, own1, own2 Term) {
	b := g.B
	var conj func(t Term, out []Term) []Term
	conj = func(t Term, out []Term) []Term {
		if b.Op(t) == OpAnd {
			return conj(b.Arg(t, 1), conj(b.Arg(t, 0), out))
		}
		return append(out, t)
	}
	conj2 := conj(c2, nil)
	in2 := map[Term]bool{}
	for _, t := range conj2 {
		in2[t] = true
	}
	shared, own1, own2 = b.True(), b.True(), b.True()
	common := map[Term]bool{}
	for _, t := range conj(c1, nil) {
		if in2[t] {
			common[t] = true
			shared = g.and2(shared, t)
		} else {
			own1 = g.and2(own1, t)
		}
	}
	if len(common) == 0 {
		return b.True(), c1, c2
	}
	for _, t := range conj2 {
		if !common[t] {
			own2 = g.and2(own2, t)
		}
	}
	return shared, own1, own2
}

// Stay is the empty path at n: condition true, no fault, every state
// component unchanged. A product edge on which one side does not move
// takes it (the data-driven engine pairs a target step with it).
func (g *TFG) Stay(n NodeID) *Edge { return g.identity(n) }

// identity is the empty path at n.
func (g *TFG) identity(n NodeID) *Edge {
	return &Edge{ID: -1, From: n, To: n, Cond: g.B.True(), Fault: g.B.False(), UB: g.B.False(), Transfer: g.identityTransfer()}
}

// ub is e's UB, False for an edge made without one.
func (g *TFG) ub(e *Edge) Term {
	if e.UB == NoTerm {
		return g.B.False()
	}
	return e.UB
}

// Path expressions.

// PathOp is the kind of a PathExpr.
type PathOp uint8

const (
	PathEdge PathOp = iota // one simple edge
	PathSeq                // X then Y
	PathPar                // X or Y
)

// PathExpr is the series-parallel expression of the set of paths a
// composite edge stands for. Subexpressions are shared, so its size stays
// linear in the work that built it even when the paths are exponentially
// many.
type PathExpr struct {
	Op    PathOp
	Edge  int // PathEdge: the simple edge's ID in its TFG (TFG.Base for collapsed ones)
	X, Y  *PathExpr
	count uint64 // number of paths, saturated at maxPathCount
}

const maxPathCount = 1 << 62

func seqPath(x, y *PathExpr) *PathExpr {
	if x == nil {
		return y
	}
	if y == nil {
		return x
	}
	return &PathExpr{Op: PathSeq, X: x, Y: y, count: min(maxPathCount, satMul(x.count, y.count))}
}

func parPath(x, y *PathExpr) *PathExpr {
	if x == nil {
		return y
	}
	if y == nil {
		return x
	}
	return &PathExpr{Op: PathPar, X: x, Y: y, count: min(maxPathCount, x.count+y.count)}
}

func satMul(x, y uint64) uint64 {
	if x != 0 && y > maxPathCount/x {
		return maxPathCount
	}
	return x * y
}

// Count is the number of paths p stands for (saturating at 2^62).
func (p *PathExpr) Count() uint64 {
	if p == nil {
		return 1
	}
	return p.count
}

// Paths lists at most limit of p's paths as sequences of simple edge IDs.
func (p *PathExpr) Paths(limit int) [][]int {
	if p == nil {
		return [][]int{nil}
	}
	switch p.Op {
	case PathEdge:
		return [][]int{{p.Edge}}
	case PathPar:
		out := p.X.Paths(limit)
		if len(out) < limit {
			out = append(out, p.Y.Paths(limit-len(out))...)
		}
		return out
	}
	var out [][]int
	for _, x := range p.X.Paths(limit) {
		for _, y := range p.Y.Paths(limit - len(out)) {
			out = append(out, append(append([]int(nil), x...), y...))
			if len(out) >= limit {
				return out
			}
		}
	}
	return out
}

// Steps calls visit once for each place in p's paths: an edge next of
// them after the prefix that leads to it (nil: next starts the paths),
// every prefix that leads to the same place merged into one composite
// edge (Par), so a set of exponentially many paths costs visits linear in
// p's size, not one per path. It stops after limit visits and then
// returns false. A prefix's condition holds exactly when a run takes one
// of the merged paths, and its transfer and fault are that path's there
// (the conditions of paths that part at a branch exclude each other), so
// whatever holds of a run that takes a path up to next holds of one the
// merged prefix describes.
func (g *TFG) Steps(p *PathExpr, limit int, visit func(prefix, next *Edge)) bool {
	visits := 0
	// PathSet builds its expressions forward, each Par of paths that
	// share a prefix expression (Par(Seq(P, a), Seq(P, b))): a place is
	// a subexpression with the prefix it is walked after, walked once.
	type place struct {
		p      *PathExpr
		prefix *Edge
	}
	done := map[place]*Edge{}
	var walk, walkOnce func(p *PathExpr, prefix *Edge) (*Edge, bool)
	walk = func(p *PathExpr, prefix *Edge) (*Edge, bool) {
		if e, ok := done[place{p, prefix}]; ok {
			return e, true
		}
		e, ok := walkOnce(p, prefix)
		if ok {
			done[place{p, prefix}] = e
		}
		return e, ok
	}
	walkOnce = func(p *PathExpr, prefix *Edge) (*Edge, bool) {
		switch p.Op {
		case PathEdge:
			if visits >= limit {
				return nil, false
			}
			visits++
			next := g.Edges[p.Edge]
			visit(prefix, next)
			if prefix == nil {
				return next, true
			}
			return g.Seq(prefix, next), true
		case PathSeq:
			mid, ok := walk(p.X, prefix)
			if !ok {
				return nil, false
			}
			return walk(p.Y, mid)
		}
		x, ok := walk(p.X, prefix)
		if !ok {
			return nil, false
		}
		y, ok := walk(p.Y, prefix)
		if !ok {
			return nil, false
		}
		return g.Par(x, y), true
	}
	if p == nil {
		return true
	}
	_, ok := walk(p, nil)
	return ok
}

// String prints p, eliding below a depth so that shared DAGs print small.
func (p *PathExpr) String() string { return p.str(6) }

func (p *PathExpr) str(depth int) string {
	if p == nil {
		return "ε"
	}
	if p.Op == PathEdge {
		return fmt.Sprintf("e%d", p.Edge)
	}
	if depth == 0 {
		return fmt.Sprintf("…%d paths…", p.count)
	}
	sep := ";"
	if p.Op == PathPar {
		sep = "|"
	}
	return "(" + p.X.str(depth-1) + sep + p.Y.str(depth-1) + ")"
}

// Graph order and anchors.

// dfsOrder is a reverse postorder of every node (DFS from the entry first,
// then from the nodes it missed) and each node's position in it; an edge is
// retreating iff it does not go strictly forward in that order.
type dfsOrder struct {
	rpo []NodeID
	pos []int
}

func (g *TFG) dfs() *dfsOrder {
	if g.order != nil {
		return g.order
	}
	n := len(g.Nodes)
	seen := make([]bool, n)
	var post []NodeID
	type frame struct {
		v NodeID
		i int
	}
	visit := func(root NodeID) {
		seen[root] = true
		stack := []frame{{v: root}}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.i < len(g.out[f.v]) {
				w := g.out[f.v][f.i].To
				f.i++
				if !seen[w] {
					seen[w] = true
					stack = append(stack, frame{v: w})
				}
				continue
			}
			post = append(post, f.v)
			stack = stack[:len(stack)-1]
		}
	}
	if g.Entry != NoNode {
		visit(g.Entry)
	}
	for v := range g.Nodes {
		if !seen[v] {
			visit(NodeID(v))
		}
	}
	o := &dfsOrder{rpo: make([]NodeID, n), pos: make([]int, n)}
	for i, v := range post {
		o.rpo[n-1-i] = v
		o.pos[v] = n - 1 - i
	}
	g.order = o
	return o
}

// Retreating reports whether e goes back (or stays) in the DFS order:
// every cycle has such an edge, and its target is a loop head.
func (g *TFG) Retreating(e *Edge) bool {
	o := g.dfs()
	return o.pos[e.To] <= o.pos[e.From]
}

// Anchors returns, sorted, the nodes a collapsed TFG keeps (thesis
// §2.4.1): the entry, the exit and halt nodes, every target of a
// retreating edge (so every cycle has one), every call site (where
// observable events happen) and the loop exits MarkLoopExits marked.
func (g *TFG) Anchors() []NodeID {
	is := make([]bool, len(g.Nodes))
	for _, nd := range g.Nodes {
		switch nd.Kind {
		case NodeEntry, NodeExit, NodeHalt, NodeLoopHead, NodeCallSite, NodeLoopExit:
			is[nd.ID] = true
		}
	}
	for _, e := range g.Edges {
		if g.Retreating(e) {
			is[e.To] = true
		}
	}
	var out []NodeID
	for v, a := range is {
		if a {
			out = append(out, NodeID(v))
		}
	}
	return out
}

// CompositeEdges counts the composite edges of g in the thesis's sense
// (§2.5.1, Figure 2.15): the cut points are the entry, the loop heads
// (NodeLoopHead nodes and the targets of retreating edges) and the exit,
// and there is one composite edge from a cut point u to a cut point v when
// some path goes from u to v through no other cut point. Call sites are
// not cut points, and paths that end abnormally (at the halt node or a
// node without edges out) are no edge. An acyclic function that returns
// has one; one with n loops at most (n+1)². Only the graph is walked: no
// term is composed.
func (g *TFG) CompositeEdges() int {
	cut := make([]bool, len(g.Nodes))
	for _, nd := range g.Nodes {
		if nd.Kind == NodeEntry || nd.Kind == NodeLoopHead || nd.Kind == NodeExit {
			cut[nd.ID] = true
		}
	}
	for _, e := range g.Edges {
		if g.Retreating(e) {
			cut[e.To] = true
		}
	}
	count := 0
	seen := make([]int, len(g.Nodes)) // the cut point whose walk saw a node last, plus one
	for u := range g.Nodes {
		if !cut[u] || NodeID(u) == g.Exit {
			continue
		}
		stack := []NodeID{NodeID(u)}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, e := range g.out[v] {
				w := e.To
				if seen[w] == u+1 {
					continue
				}
				seen[w] = u + 1
				if cut[w] {
					count++
					continue
				}
				stack = append(stack, w)
			}
		}
	}
	return count
}

// PathOptions bound a path set.
type PathOptions struct {
	// Mu is the unroll bound μ: a path takes at most Mu retreating edges
	// (each pass around a loop takes one, its last edge included).
	Mu int
	// Arrivals is how many times a path reaches its target: it ends at its
	// Arrivals-th arrival (default 1: the first). Arrivals > 1 unrolls
	// the cycles through the target.
	Arrivals int
	// Through, when set, restricts the nodes a path may pass through (its
	// start and end need not satisfy it).
	Through func(NodeID) bool
	// Edge, when set, restricts the edges a path may take.
	Edge func(*Edge) bool
}

// PathSet returns the composite edge of every path from from to to within
// o's bounds, as one edge built by series-parallel dynamic programming over
// the graph unrolled by retreating-edge count (so a loop body with k
// branches unrolled μ times costs O(μ·edges) compositions, not k^μ paths),
// or nil when there is no such path. Paths with the same number of arrivals
// at to are pairwise exclusive, so the parallel compositions are exact.
func (g *TFG) PathSet(from, to NodeID, o PathOptions) *Edge {
	e, _ := g.PathSetWithin(from, to, o, 0)
	return e
}

// PathSetWithin is PathSet giving up, with ok false, once composing has
// built more than maxTerms terms (0: no bound): the paths of a long
// branchy function can make terms that grow past any memory.
func (g *TFG) PathSetWithin(from, to NodeID, o PathOptions, maxTerms int) (e *Edge, ok bool) {
	if o.Arrivals <= 0 {
		o.Arrivals = 1
	}
	r, ok := g.sweep(from, o.Mu, o.Arrivals, func(v NodeID) bool { return v == to }, o.Through, o.Edge, maxTerms)
	if !ok {
		return nil, false
	}
	return r[to], true
}

// sweep is the dynamic program behind PathSet and Collapse: from from, it
// extends paths edge by edge in (retreating edges taken, reverse postorder)
// order — an order in which every extension goes strictly later, so each
// state is final before it is extended — merging paths that meet in the
// same state by parallel composition. Arriving at a node where end holds
// counts an arrival; at the arrivals-th the path ends there. Edges that
// edge (when set) refuses are not taken. It returns the composite edge to
// each end node reached.
func (g *TFG) sweep(from NodeID, mu, arrivals int, end, through func(NodeID) bool, edge func(*Edge) bool, maxTerms int) (map[NodeID]*Edge, bool) {
	o := g.dfs()
	limit := g.B.Len() + maxTerms
	type key struct {
		v    NodeID
		k, a int
	}
	reach := map[key]*Edge{{from, 0, 0}: g.identity(from)}
	results := map[NodeID]*Edge{}
	merge := func(m map[key]*Edge, k key, e *Edge) {
		if old := m[k]; old != nil {
			m[k] = g.Par(old, e)
		} else {
			m[k] = e
		}
	}
	for k := 0; k <= mu; k++ {
		for _, v := range o.rpo {
			for a := 0; a < arrivals; a++ {
				cur := reach[key{v, k, a}]
				if cur == nil {
					continue
				}
				delete(reach, key{v, k, a}) // final: every contribution came earlier
				start := v == from && k == 0 && a == 0
				if !start && !end(v) && through != nil && !through(v) {
					continue
				}
				for _, e := range g.out[v] {
					if edge != nil && !edge(e) {
						continue
					}
					k2 := k
					if o.pos[e.To] <= o.pos[v] {
						k2++
					}
					if k2 > mu {
						continue
					}
					a2 := a
					if end(e.To) {
						a2++
					}
					next := g.Seq(cur, e)
					if maxTerms > 0 && g.B.Len() > limit {
						return nil, false
					}
					if a2 == arrivals {
						if old := results[e.To]; old != nil {
							results[e.To] = g.Par(old, next)
						} else {
							results[e.To] = next
						}
						continue
					}
					merge(reach, key{e.To, k2, a2}, next)
				}
			}
		}
	}
	return results, true
}

// Collapse returns the TFG whose nodes are anchors (plus the entry, every
// retreating edge's target, so that no path between anchors can cycle, and
// every node without edges out) and whose edges
// are the composite edges of all paths between consecutive anchors: one
// edge per pair of anchors that some path connects (thesis §2.4.1). Nil
// anchors means Anchors(). Node IDs are renumbered; Base is g.
func (g *TFG) Collapse(anchors []NodeID) *TFG {
	if anchors == nil {
		anchors = g.Anchors()
	}
	is := make([]bool, len(g.Nodes))
	for _, a := range anchors {
		is[a] = true
	}
	// Paths must not cycle between anchors, must start at the entry and
	// must not be lost at a node with no way out.
	for _, e := range g.Edges {
		if g.Retreating(e) {
			is[e.To] = true
		}
	}
	for v := range g.Nodes {
		if len(g.out[v]) == 0 {
			is[v] = true
		}
	}
	if g.Entry != NoNode {
		is[g.Entry] = true
	}
	c := NewTFG(g.B, g.Name, g.State)
	c.Unsupported = append([]string(nil), g.Unsupported...)
	c.Simplifier = g.Simplifier
	c.Base = g
	newID := make([]NodeID, len(g.Nodes))
	for v := range g.Nodes {
		newID[v] = NoNode
		if is[v] {
			newID[v] = c.AddNode(g.Nodes[v].PC, g.Nodes[v].Kind)
		}
	}
	isAnchor := func(v NodeID) bool { return is[v] }
	notAnchor := func(v NodeID) bool { return !is[v] }
	for v := range g.Nodes {
		if !is[v] {
			continue
		}
		// mu = 1: every retreating edge enters an anchor, where the path
		// ends, so no path between anchors takes more than one.
		res, _ := g.sweep(NodeID(v), 1, 1, isAnchor, notAnchor, nil, 0)
		tos := make([]NodeID, 0, len(res))
		for w := range res {
			tos = append(tos, w)
		}
		sort.Slice(tos, func(i, j int) bool { return tos[i] < tos[j] })
		for _, w := range tos {
			e := res[w]
			e.From, e.To = newID[v], newID[w]
			c.AddEdge(e)
		}
	}
	return c
}

// Stats counts what a TFG holds, for logs and results.
func (g *TFG) Stats() string {
	return fmt.Sprintf("%d nodes, %d edges, %d anchors", len(g.Nodes), len(g.Edges), len(g.Anchors()))
}
