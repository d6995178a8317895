package deadblocks

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
	"eqc/x86"
)

// Options configure Prove.
type Options struct {
	// Solver decides the queries. Nil means prove.New's default stack
	// (in-process Z3), started and closed by the call.
	Solver prove.Solver
	// QueryTimeout bounds each query (default 10s); a query that runs out
	// of time proves nothing.
	QueryTimeout time.Duration
	// MaxQueries bounds the queries of one call (default 4000); past it,
	// nothing more is proved.
	MaxQueries int
}

func (o Options) withDefaults() Options {
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = 10 * time.Second
	}
	if o.MaxQueries <= 0 {
		o.MaxQueries = 4000
	}
	return o
}

// Report is what Prove found.
type Report struct {
	// Dead are the blocks asked about that were proved dead (CFG block
	// indices), ascending.
	Dead []int
	// Reason says why the analysis proved nothing without trying
	// ("unsupported:indirect-jump"); empty when it ran.
	Reason string
	// CutPoints counts the loop heads (and the entry when it is one);
	// Invariants the candidate facts that survived there.
	CutPoints, Invariants int
	// Queries counts the solver calls, Unknown those without a definite
	// answer (timeouts, solver unknown, the query budget).
	Queries, Unknown int
}

// Undecided says why some blocks asked about may be dead without being
// proved so: Reason, or how many queries the solver left undecided; ""
// when every query was decided.
func (r *Report) Undecided() string {
	switch {
	case r.Reason != "":
		return r.Reason
	case r.Unknown > 0:
		return fmt.Sprintf("%d of %d solver queries undecided", r.Unknown, r.Queries)
	}
	return ""
}

// Prove decides, for each block of fn in blocks (CFG block indices; nil
// means every block reachable in the CFG), whether it is dead (doc.go),
// and reports those proved dead. file, when set, is the file fn came from
// (callee signatures, constant pools). The error is non-nil only when the
// context ends or no solver can be started; the report then holds what was
// proved before. A block that cannot be decided is simply not dead.
func Prove(ctx context.Context, file *x86.File, fn *x86.Function, blocks []int, opts Options) (*Report, error) {
	rep := &Report{}
	if fn == nil || len(fn.RPO) == 0 {
		return rep, nil
	}
	if blocks == nil {
		blocks = append([]int(nil), fn.RPO...)
	}
	if len(blocks) == 0 {
		return rep, nil
	}
	if len(fn.Unsupported) > 0 {
		rep.Reason = "unsupported:" + strings.Join(fn.Unsupported, ",")
		return rep, nil
	}
	opts = opts.withDefaults()
	if opts.Solver == nil {
		s, _, err := prove.New(prove.Options{})
		if err != nil {
			return rep, fmt.Errorf("deadblocks: %w", err)
		}
		defer s.Close()
		opts.Solver = s
	}
	b := ir.NewBuilder()
	g := x86.BuildTFG(b, fn, x86.TFGOptions{File: file})
	if len(g.Unsupported) > 0 {
		rep.Reason = "unsupported:" + strings.Join(g.Unsupported, ",")
		return rep, nil
	}
	a := newAnalysis(ctx, g, opts, rep)
	if v := a.foreignVar(); v != "" {
		// Only the state, fresh values and the addresses of globals are
		// understood; anything else might stand for a value that differs
		// between the nodes a segment crosses.
		rep.Reason = "unexpected-variable:" + v
		return rep, nil
	}
	if err := a.run(fn, blocks); err != nil {
		return rep, err
	}
	return rep, nil
}

// analysis is one run of Prove over one TFG.
type analysis struct {
	ctx    context.Context
	b      *ir.Builder
	g      *ir.TFG
	solver *budget
	rep    *Report

	cut  []bool      // cut points: targets of retreating edges
	topo []ir.NodeID // a topological order of the TFG without retreating edges
	pos  []int       // position in topo

	// seg[h] are the segments from cut point h (or from the start, at
	// key start) to every node they reach: reach for nodes that are not
	// cut points, arrive for cut points.
	seg map[ir.NodeID]*segments
	// inv[h] are the candidate invariants of cut point h.
	inv map[ir.NodeID]*invariant

	ghost map[ir.Term]ir.Term // state variables and fresh values → ghosts

	samples   *sampleShared       // concrete samples (sample.go)
	ghostOrig map[ir.Term]ir.Term // ghost → original
}

// start keys the segments from the entry at the start of the run.
const start ir.NodeID = -2

type segments struct {
	reach, arrive map[ir.NodeID]*ir.Edge
}

type invariant struct {
	cands []ir.Term // Bool terms over the state variables and ghosts
	alive []bool    // survivors so far; cands[0] is false
	// syntactic marks the candidates kept only while every segment
	// preserves them syntactically (equalities of flags, xmm registers and
	// memory, whose refutation would dominate the queries): they are
	// dropped rather than sent to the solver. Dropping is always sound.
	syntactic []bool
}

func (v *invariant) conj() []ir.Term {
	var out []ir.Term
	for i, c := range v.cands {
		if v.alive[i] {
			out = append(out, c)
		}
	}
	return out
}

// unreachable reports whether false survived: the cut point is dead.
func (v *invariant) unreachable() bool { return v != nil && v.alive[0] }

// budget is the analysis's view of the solver: each query bounded by
// QueryTimeout, at most MaxQueries of them, counted in the report; a query
// with a false assertion is unsat without asking.
type budget struct {
	s    prove.Solver
	opts Options
	rep  *Report
}

func (s *budget) Name() string { return s.s.Name() }
func (s *budget) Close() error { return nil }

func (s *budget) Check(ctx context.Context, q prove.Query) prove.Result {
	if s.rep.Queries >= s.opts.MaxQueries {
		s.rep.Unknown++
		return prove.Result{Status: smtlib.Unknown, Reason: "query budget"}
	}
	for _, t := range q.Assertions {
		if q.B.Op(t) == ir.OpFalse {
			return prove.Result{Status: smtlib.Unsat}
		}
	}
	s.rep.Queries++
	ctx, cancel := context.WithTimeout(ctx, s.opts.QueryTimeout)
	defer cancel()
	r := s.s.Check(ctx, q)
	if !r.Status.Definite() {
		s.rep.Unknown++
	}
	return r
}

func newAnalysis(ctx context.Context, g *ir.TFG, opts Options, rep *Report) *analysis {
	a := &analysis{ctx: ctx, b: g.B, g: g, solver: &budget{s: opts.Solver, opts: opts, rep: rep}, rep: rep,
		seg: map[ir.NodeID]*segments{}, inv: map[ir.NodeID]*invariant{}, ghost: map[ir.Term]ir.Term{}}
	g.Simplifier = ir.NewSimplifier(g.B)
	a.abstractCalls()
	n := len(g.Nodes)
	a.cut = make([]bool, n)
	indeg := make([]int, n)
	for _, e := range g.Edges {
		if g.Retreating(e) {
			a.cut[e.To] = true
		} else {
			indeg[e.To]++
		}
	}
	// Kahn's algorithm over the edges that are not retreating (a DAG:
	// every cycle has a retreating edge).
	var queue []ir.NodeID
	for v := 0; v < n; v++ {
		if indeg[v] == 0 {
			queue = append(queue, ir.NodeID(v))
		}
	}
	a.pos = make([]int, n)
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		a.pos[v] = len(a.topo)
		a.topo = append(a.topo, v)
		for _, e := range g.Out(v) {
			if g.Retreating(e) {
				continue
			}
			if indeg[e.To]--; indeg[e.To] == 0 {
				queue = append(queue, e.To)
			}
		}
	}
	if len(a.topo) != n {
		panic(fmt.Sprintf("deadblocks: %s: the TFG without retreating edges has a cycle", g.Name))
	}
	for v := range a.cut {
		if a.cut[v] {
			a.rep.CutPoints++
		}
	}
	return a
}

// abstractCalls replaces, in every simple edge, each application of a
// callee's uninterpreted function ("call:…") by a variable of its own: the
// callee may return anything and leave any memory behind, even when called
// twice with equal arguments. The variable belongs to the edge (two call
// sites applying the same function to the same state variables make the
// same term, but not the same variable) and is shared by the uses of the
// one call the edge makes, like the lifter's fresh values; a segment takes
// an edge at most once, so within a segment it names one execution.
func (a *analysis) abstractCalls() {
	b := a.b
	for _, e := range a.g.Edges {
		m := map[ir.Term]ir.Term{}
		for _, t := range b.PostOrder(append([]ir.Term{e.Cond}, e.Transfer...)...) {
			if b.Op(t) != ir.OpApply {
				continue
			}
			if f := b.FuncOf(t); f != nil && strings.HasPrefix(f.Name, "call:") {
				m[t] = b.Var(fmt.Sprintf("dead.call.%d.%d", e.ID, t), b.Sort(t))
			}
		}
		if len(m) == 0 {
			continue
		}
		sub := ir.NewSubstituter(b, m)
		e.Cond = sub.Apply(e.Cond)
		e.Transfer = sub.ApplyAll(e.Transfer)
	}
}

// foreignVar returns the name of a variable of the TFG's terms that is
// neither a state variable, nor a fresh value (undefined, or an abstracted
// call's), nor the address of a global or literal; "" when there is none.
func (a *analysis) foreignVar() string {
	b := a.b
	state := map[ir.Term]bool{}
	for _, s := range a.g.State {
		state[s.Var] = true
	}
	var roots []ir.Term
	for _, e := range a.g.Edges {
		roots = append(append(roots, e.Cond), e.Transfer...)
	}
	for _, t := range b.PostOrder(roots...) {
		if b.Op(t) != ir.OpVar || state[t] {
			continue
		}
		name := b.VarName(t)
		if !isFreshVar(name) && !strings.HasPrefix(name, "&") {
			return name
		}
	}
	return ""
}

// isFreshVar reports whether a variable stands for a value made along one
// edge: an architecturally undefined value, or a callee's result.
func isFreshVar(name string) bool {
	return strings.HasPrefix(name, x86.UndefPrefix) || strings.HasPrefix(name, "dead.call.")
}

func (a *analysis) identity(v ir.NodeID) *ir.Edge {
	t := make([]ir.Term, len(a.g.State))
	for i, s := range a.g.State {
		t[i] = s.Var
	}
	return &ir.Edge{ID: -1, From: v, To: v, Cond: a.b.True(), Fault: a.b.False(), Transfer: t}
}

// sweep composes the segments from v (a cut point, or the entry at the
// start of the run) in topological order.
func (a *analysis) sweep(v ir.NodeID) *segments {
	g := a.g
	s := &segments{reach: map[ir.NodeID]*ir.Edge{}, arrive: map[ir.NodeID]*ir.Edge{}}
	cur := map[ir.NodeID]*ir.Edge{v: a.identity(v)}
	for _, u := range a.topo[a.pos[v]:] {
		e0 := cur[u]
		if e0 == nil {
			continue
		}
		delete(cur, u) // final: every path to u came from earlier in topo
		if u != v {
			s.reach[u] = e0
		}
		for _, e := range g.Out(u) {
			w := e.To
			if k := g.Nodes[w].Kind; k == ir.NodeExit || k == ir.NodeHalt {
				continue
			}
			dst := cur
			if a.cut[w] {
				dst = s.arrive
			}
			next := g.Seq(e0, e)
			if old := dst[w]; old != nil {
				dst[w] = g.Par(old, next)
			} else {
				dst[w] = next
			}
		}
	}
	return s
}

// ghostOf renames the state variables and the fresh values (undefined
// values, abstracted call results) of t to their ghosts.
func (a *analysis) ghostOf(ts ...ir.Term) []ir.Term {
	b := a.b
	for _, s := range a.g.State {
		if _, ok := a.ghost[s.Var]; !ok {
			a.ghost[s.Var] = b.Var("dead.g."+b.VarName(s.Var), b.Sort(s.Var))
		}
	}
	for _, t := range b.PostOrder(ts...) {
		if b.Op(t) != ir.OpVar {
			continue
		}
		if name := b.VarName(t); isFreshVar(name) {
			if _, ok := a.ghost[t]; !ok {
				a.ghost[t] = b.Var("dead.g."+b.VarName(t), b.Sort(t))
			}
		}
	}
	return ir.NewSubstituter(b, a.ghost).ApplyAll(ts)
}

// candidates builds the candidate invariant of cut point h from the
// segments from the start to h (s, nil when there are none).
func (a *analysis) candidates(h ir.NodeID, s *ir.Edge) *invariant {
	b := a.b
	v := &invariant{cands: []ir.Term{b.False()}, syntactic: []bool{false}}
	if s != nil {
		gt := a.ghostOf(append([]ir.Term{s.Cond}, s.Transfer...)...)
		for i, st := range a.g.State {
			c := a.g.Simplifier.Simplify(b.Eq(st.Var, gt[1+i]))
			if b.Op(c) != ir.OpTrue {
				v.cands = append(v.cands, c)
				so := b.Sort(st.Var)
				v.syntactic = append(v.syntactic, so != ir.BVSort(64))
			}
		}
		var conj func(t ir.Term)
		conj = func(t ir.Term) {
			switch b.Op(t) {
			case ir.OpAnd:
				for _, x := range b.Args(t) {
					conj(x)
				}
			case ir.OpTrue:
			default:
				v.cands = append(v.cands, a.g.Simplifier.Simplify(t))
				v.syntactic = append(v.syntactic, false)
			}
		}
		conj(gt[0])
	}
	v.alive = make([]bool, len(v.cands))
	for i := range v.alive {
		v.alive[i] = true
	}
	return v
}

// check asks the solver whether the conjunction of asserts is satisfiable.
func (a *analysis) check(asserts []ir.Term) prove.Result {
	return a.solver.Check(a.ctx, prove.Query{B: a.b, Assertions: asserts})
}

func (a *analysis) run(fn *x86.Function, blocks []int) error {
	g := a.g
	// Segments from the start of the run, and from every cut point.
	if a.cut[g.Entry] {
		a.seg[start] = &segments{reach: map[ir.NodeID]*ir.Edge{}, arrive: map[ir.NodeID]*ir.Edge{g.Entry: a.identity(g.Entry)}}
	} else {
		a.seg[start] = a.sweep(g.Entry)
	}
	var heads []ir.NodeID
	for v := range a.cut {
		if a.cut[v] {
			heads = append(heads, ir.NodeID(v))
			a.seg[ir.NodeID(v)] = a.sweep(ir.NodeID(v))
		}
	}
	// Candidates, and the initiation of false.
	for _, h := range heads {
		s := a.seg[start].arrive[h]
		inv := a.candidates(h, s)
		if s != nil && (a.reachable(s) || a.check([]ir.Term{s.Cond}).Status != smtlib.Unsat) {
			inv.alive[0] = false
		}
		a.inv[h] = inv
	}
	if err := a.ctx.Err(); err != nil {
		return err
	}
	if err := a.houdini(heads); err != nil {
		return err
	}
	for _, h := range heads {
		a.rep.Invariants += len(a.inv[h].conj())
	}
	// Deadness of the blocks asked about.
	nodeOf := map[uint64]ir.NodeID{}
	for _, nd := range g.Nodes {
		if nd.Kind == ir.NodeExit || nd.Kind == ir.NodeHalt {
			continue
		}
		if _, ok := nodeOf[nd.PC]; !ok {
			nodeOf[nd.PC] = nd.ID
		}
	}
	sources := append([]ir.NodeID{start}, heads...)
	for _, bi := range blocks {
		if bi < 0 || bi >= len(fn.Blocks) {
			continue
		}
		x, ok := nodeOf[fn.Blocks[bi].Start]
		if !ok || x == g.Entry {
			continue
		}
		if a.dead(x, sources) {
			a.rep.Dead = append(a.rep.Dead, bi)
		}
		if err := a.ctx.Err(); err != nil {
			sort.Ints(a.rep.Dead)
			return err
		}
	}
	sort.Ints(a.rep.Dead)
	return nil
}

// houdini keeps the largest subset of the cut points' candidates (those
// still alive) that the segments between cut points preserve, with
// prove.HoudiniWith (one site per cut point, one edge per segment between
// two of them, in the order of heads, each with its settle), and records
// the survivors in a.inv.
func (a *analysis) houdini(heads []ir.NodeID) error {
	site := make(map[ir.NodeID]int, len(heads))
	cands := make([][]ir.Term, len(heads))
	orig := make([][]int, len(heads)) // Houdini's candidate → index in a.inv
	for n, h := range heads {
		site[h] = n
		inv := a.inv[h]
		for i, c := range inv.cands {
			if inv.alive[i] {
				cands[n] = append(cands[n], c)
				orig[n] = append(orig[n], i)
			}
		}
	}
	var edges []prove.HoudiniEdge
	for _, from := range heads {
		for _, to := range heads {
			e := a.seg[from].arrive[to]
			if e == nil || len(cands[site[to]]) == 0 {
				continue
			}
			edges = append(edges, prove.HoudiniEdge{From: site[from], To: site[to], Pre: []ir.Term{e.Cond}, Post: a.post(e),
				Settle: a.settle(a.seg[start].arrive[from], e, a.inv[to], orig[site[to]])})
		}
	}
	r := prove.HoudiniWith(a.ctx, a.solver, a.b, cands, edges, prove.HoudiniOptions{Split: true})
	if err := a.ctx.Err(); err != nil {
		return err
	}
	if r.Unknown != "" {
		// Split gives up only when the context ends; should it give up
		// otherwise, what Kept holds is not inductive: keep nothing.
		r.Kept = make([][]bool, len(heads))
		for n := range r.Kept {
			r.Kept[n] = make([]bool, len(cands[n]))
		}
	}
	for n, h := range heads {
		inv := a.inv[h]
		for k, i := range orig[n] {
			inv.alive[i] = r.Kept[n][k]
		}
	}
	return nil
}

// post returns the candidates c of to over the state after the segment e,
// c(transfer), simplified.
func (a *analysis) post(e *ir.Edge) func(ir.Term) ir.Term {
	m := make(map[ir.Term]ir.Term, len(a.g.State))
	for i, s := range a.g.State {
		m[s.Var] = e.Transfer[i]
	}
	sub := ir.NewSubstituter(a.b, m)
	return func(c ir.Term) ir.Term { return a.g.Simplifier.Simplify(sub.Apply(c)) }
}

// settle is the Settle of the segment e into cut point to (prove.HoudiniEdge),
// from a cut point whose start segment is first (nil when it has none);
// orig maps Houdini's candidate indices to to's. A candidate whose post is
// true or one of the premise's conjuncts as it stands is implied; a
// syntactic candidate not implied so is broken, and so is one a concrete
// sample falsifies (sample.go); the others are left to the solver (which,
// when the premise holds false, answers unsat without a query: budget).
func (a *analysis) settle(first, e *ir.Edge, to *invariant, orig []int) func([]ir.Term, []int, []ir.Term) []prove.HoudiniVerdict {
	return func(premise []ir.Term, idx []int, posts []ir.Term) []prove.HoudiniVerdict {
		b := a.b
		vs := make([]prove.HoudiniVerdict, len(idx))
		inPremise := make(map[ir.Term]bool, len(premise))
		for _, p := range premise {
			inPremise[p] = true
		}
		var ask []int // positions in idx left to the solver so far
		for j, p := range posts {
			switch {
			case inPremise[p] || b.Op(p) == ir.OpTrue:
				vs[j] = prove.HoudiniImplied
			case to.syntactic[orig[idx[j]]]:
				vs[j] = prove.HoudiniBroken
			default:
				ask = append(ask, j)
			}
		}
		for _, j := range a.falsify(first, e, ask, posts) {
			vs[j] = prove.HoudiniBroken
		}
		return vs
	}
}

// dead reports whether node x is proved unreachable.
func (a *analysis) dead(x ir.NodeID, sources []ir.NodeID) bool {
	if a.cut[x] {
		return a.inv[x].unreachable()
	}
	reached := false
	for _, h := range sources {
		e := a.seg[h].reach[x]
		if e == nil {
			continue
		}
		reached = true
		var asserts []ir.Term
		if h != start {
			inv := a.inv[h]
			if inv.unreachable() {
				continue
			}
			asserts = inv.conj()
		}
		if a.check(append(asserts, e.Cond)).Status != smtlib.Unsat {
			return false
		}
	}
	// A block the CFG reaches but no segment does would be a lifter
	// bug, not a proof.
	return reached
}
