package tracer

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"eqc/ir"
	"eqc/prove"
	"eqc/x86"
)

// Dead blocks: blocks of the CFG that no execution of the function reaches,
// proved with an SMT solver, so that block coverage need not count code the
// compiler emitted but can never run (gcc's vectorized loops, for instance,
// keep scalar epilogue blocks for a remainder count that the vector loop's
// trip count rules out).
//
// # What "dead" means
//
// A block B of a function F is dead when no execution of F that starts at
// its entry, in any machine state whatsoever (any registers, flags and
// memory, any addresses of the globals, any results and memory effects of
// the functions F calls, even different ones for equal arguments), reaches
// B's first instruction. Nothing about the caller is assumed: not the SysV
// ABI, not the DWARF types of the arguments, not the tracer's driver or
// stubs. The executions considered are those of the lifted semantics
// (package x86), whose CFG lets every call return and follows both ways of
// every branch: the claim is as good as the lifter, which the semantics
// cross-check (crosscheck.go) tests against the CPU, and the tests of this
// file check it against native runs (no block a run reaches may be
// reported dead).
//
// # How it is proved, and why that is sound
//
// The function is lifted into a TFG (x86.BuildTFG). If anything in it
// could not be lifted (an indirect jump, bad bytes, an unsupported
// instruction: Function.Unsupported or TFG.Unsupported non-empty), some
// edge stands for "the rest of the run, unknown", and nothing is proved.
// Nor is anything when a term mentions a variable other than the state
// components, the lifter's fresh values and the addresses of globals
// (foreignVar): its meaning across nodes would be unknown.
//
// Calls are over-approximated: every application of a callee's
// uninterpreted function (its result, the memory after it) is replaced by
// a variable of the edge that makes the call (abstractCalls), exactly like
// the lifter's fresh values for undefined results: a callee may return
// anything and leave any memory behind.
//
// Cut points are the targets of the TFG's retreating edges (every cycle
// has one; the entry too when an edge goes back to it). A segment is a
// path from a cut point, or from the entry at the start of the run, that
// passes through no cut point before its end, so it takes each edge at
// most once and each fresh variable names one value; the segments from one
// node to another are one composite edge, built over the DAG left when
// the retreating edges are cut (ir.TFG.Seq and Par; paths that part at a
// branch are exclusive, so the ite-merged transfer is exact).
//
// Each cut point H gets an invariant I_H: a conjunction of candidate
// facts about the state σ at H and a ghost copy G of the state at the
// entry (a constant of the run), kept by a Houdini fixpoint:
//
//   - false (H is never reached);
//   - for every state component x (GPRs, xmm, flags, memory),
//     x = T_x(G), where T_x is x's value at H after the segments from the
//     start of the run to H (none when there are none);
//   - each top-level conjunct of those segments' condition, over G.
//
// The fresh values inside T and the conditions become ghost constants too
// (a segment from the start is taken at most once per run, so each names
// one value of the run; the others are unconstrained). The candidates other
// than false hold by construction when H is first reached from the start;
// false does when the start-to-H condition is unsatisfiable. Houdini then
// drops every candidate that some segment H' → H does not preserve — the
// solver does not answer unsat to I_H'(σ) ∧ cond(σ) ∧ ¬c(transfer(σ)) —
// until every segment preserves every survivor. The survivors are then an
// inductive invariant: by induction over the cut points a run visits
// (each visit is reached by one segment from the previous visit, or from
// the start), every visit to H satisfies I_H, whatever the values of the
// ghosts the run leaves free. Dropping a candidate is always sound, which
// two shortcuts use: candidates over flags, xmm registers and memory are
// kept only while every segment preserves them syntactically (a solver
// would mostly bit-blast multipliers to refute them), and concrete samples
// (deadsample.go: the first-arrival state, through one segment) refute
// many candidates before any query. Neither ever keeps a candidate: only an
// unsat answer does.
//
// A block B is then dead when, for every segment from the start of the
// run or from a cut point H to B, the solver answers unsat to
// I_H(σ) ∧ cond(σ) (for the start: cond alone); a cut point is dead when
// false survives in its invariant. Any run reaching B has a last cut point
// visit before B (or none: then it came from the start) and followed one of
// those segments from it, in a state satisfying I_H — which the solver says
// is impossible. A timeout, a solver unknown or the query budget proves
// nothing: the block stays live.
//
// Havocking the loop heads (I_H = true) is too weak for gcc's epilogues:
// the relation between the loop's trip count and the remainder lives in
// registers the vector loop never writes (in TSVC s3251, n-1 in r8d and
// n-2 in edi), and those relations are what the x = T_x(G) candidates keep.

// DeadOptions configure ProveDead.
type DeadOptions struct {
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

func (o DeadOptions) withDefaults() DeadOptions {
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = 10 * time.Second
	}
	if o.MaxQueries <= 0 {
		o.MaxQueries = 4000
	}
	return o
}

// DeadReport is what ProveDead found.
type DeadReport struct {
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

// ProveDead decides, for each block of fn in blocks (CFG block indices;
// nil means every block reachable in the CFG), whether it is dead in the
// sense above, and returns those proved dead. file, when set, is the file fn
// came from (callee signatures, constant pools). The error is non-nil only
// when the context ends or no solver can be started; a block that cannot be
// decided is simply not dead.
func ProveDead(ctx context.Context, file *x86.File, fn *x86.Function, blocks []int, opts DeadOptions) (*DeadReport, error) {
	rep := &DeadReport{}
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
			return rep, fmt.Errorf("tracer: dead blocks: %w", err)
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
	a := newDeadAnalysis(ctx, g, opts, rep)
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

// deadAnalysis is one run of ProveDead over one TFG.
type deadAnalysis struct {
	ctx  context.Context
	b    *ir.Builder
	g    *ir.TFG
	opts DeadOptions
	rep  *DeadReport

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

	samples   *sampleShared       // concrete samples (deadsample.go)
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

func newDeadAnalysis(ctx context.Context, g *ir.TFG, opts DeadOptions, rep *DeadReport) *deadAnalysis {
	a := &deadAnalysis{ctx: ctx, b: g.B, g: g, opts: opts, rep: rep,
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
		panic(fmt.Sprintf("tracer: dead blocks: %s: the TFG without retreating edges has a cycle", g.Name))
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
func (a *deadAnalysis) abstractCalls() {
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
func (a *deadAnalysis) foreignVar() string {
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

func (a *deadAnalysis) identity(v ir.NodeID) *ir.Edge {
	t := make([]ir.Term, len(a.g.State))
	for i, s := range a.g.State {
		t[i] = s.Var
	}
	return &ir.Edge{ID: -1, From: v, To: v, Cond: a.b.True(), Fault: a.b.False(), Transfer: t}
}

// sweep composes the segments from v (a cut point, or the entry at the
// start of the run) in topological order.
func (a *deadAnalysis) sweep(v ir.NodeID) *segments {
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
func (a *deadAnalysis) ghostOf(ts ...ir.Term) []ir.Term {
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
func (a *deadAnalysis) candidates(h ir.NodeID, s *ir.Edge) *invariant {
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
func (a *deadAnalysis) check(asserts []ir.Term) prove.Result {
	if a.rep.Queries >= a.opts.MaxQueries {
		a.rep.Unknown++
		return prove.Result{Status: prove.Unknown, Reason: "query budget"}
	}
	for _, t := range asserts {
		if a.b.Op(t) == ir.OpFalse {
			return prove.Result{Status: prove.Unsat}
		}
	}
	a.rep.Queries++
	ctx, cancel := context.WithTimeout(a.ctx, a.opts.QueryTimeout)
	defer cancel()
	r := a.opts.Solver.Check(ctx, prove.Query{B: a.b, Assertions: asserts})
	if !r.Status.Definite() {
		a.rep.Unknown++
	}
	return r
}

func (a *deadAnalysis) run(fn *x86.Function, blocks []int) error {
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
		if s != nil && (a.reachable(s) || a.check([]ir.Term{s.Cond}).Status != prove.Unsat) {
			inv.alive[0] = false
		}
		a.inv[h] = inv
	}
	if err := a.ctx.Err(); err != nil {
		return err
	}
	// Houdini: drop what some segment between cut points does not keep;
	// first the candidates kept only syntactically, so that no query
	// carries a memory or xmm equality that a store or a vector
	// instruction is bound to break.
	for changed := true; changed; {
		changed = false
		for _, from := range heads {
			for _, to := range heads {
				if e := a.seg[from].arrive[to]; e != nil && a.dropSyntactic(a.inv[from].conj(), e, a.inv[to]) {
					changed = true
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, from := range heads {
			src := a.inv[from]
			if src.unreachable() {
				continue
			}
			premise := src.conj()
			arrive := a.seg[from].arrive
			for _, to := range heads {
				e := arrive[to]
				if e == nil {
					continue
				}
				if a.preserve(premise, a.seg[start].arrive[from], e, a.inv[to]) {
					changed = true
					if to == from {
						premise = src.conj()
					}
				}
				if err := a.ctx.Err(); err != nil {
					return err
				}
			}
		}
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
			return err
		}
	}
	sort.Ints(a.rep.Dead)
	return nil
}

// post returns the candidates c of to over the state after the segment e,
// c(transfer), simplified.
func (a *deadAnalysis) post(e *ir.Edge) func(ir.Term) ir.Term {
	m := make(map[ir.Term]ir.Term, len(a.g.State))
	for i, s := range a.g.State {
		m[s.Var] = e.Transfer[i]
	}
	sub := ir.NewSubstituter(a.b, m)
	return func(c ir.Term) ir.Term { return a.g.Simplifier.Simplify(sub.Apply(c)) }
}

// dropSyntactic drops the syntactic candidates of to that the segment e,
// from a cut point whose invariant is premise, does not keep as they stand,
// and reports whether it dropped any.
func (a *deadAnalysis) dropSyntactic(premise []ir.Term, e *ir.Edge, to *invariant) bool {
	post := a.post(e)
	inPremise := make(map[ir.Term]bool, len(premise))
	for _, p := range premise {
		inPremise[p] = true
	}
	dropped := false
	for i, c := range to.cands {
		if !to.alive[i] || !to.syntactic[i] {
			continue
		}
		if p := post(c); !inPremise[p] && a.b.Op(p) != ir.OpTrue {
			to.alive[i] = false
			dropped = true
		}
	}
	return dropped
}

// preserve drops from the candidates of to those that the segment e (from
// a cut point whose invariant is premise, and whose start segment is
// first, nil when it has none) does not keep, and reports whether it
// dropped any.
func (a *deadAnalysis) preserve(premise []ir.Term, first, e *ir.Edge, to *invariant) bool {
	b := a.b
	var idx []int
	var post []ir.Term
	postOf := a.post(e)
	inPremise := make(map[ir.Term]bool, len(premise))
	for _, p := range premise {
		inPremise[p] = true
	}
	dropped := false
	for i, c := range to.cands {
		if !to.alive[i] {
			continue
		}
		p := postOf(c)
		switch {
		case inPremise[p] || b.Op(p) == ir.OpTrue:
			// Implied as it stands.
		case to.syntactic[i]:
			to.alive[i] = false
			dropped = true
		default:
			idx = append(idx, i)
			post = append(post, p)
		}
	}
	n := len(idx)
	idx, post = a.falsify(first, e, to, idx, post)
	if len(idx) < n {
		// Some candidates fell to a sample: come back with the rest once
		// the others have been looked at (the caller goes round again).
		return true
	}
	if len(idx) == 0 {
		return dropped
	}
	base := append(append([]ir.Term(nil), premise...), e.Cond)
	r := a.check(append(base, b.Not(b.And(post...))))
	switch r.Status {
	case prove.Unsat:
		return dropped
	case prove.Sat:
		ev := ir.NewEvaluator(b, r.Model)
		n := 0
		for k, i := range idx {
			v, err := ev.Eval(post[k])
			if err != nil || !v.Bool() {
				to.alive[i] = false
				n++
			}
		}
		if n == 0 {
			// The model satisfies the negated conjunction, so some
			// candidate is false in it; an evaluator that disagrees
			// proves nothing: drop them all.
			for _, i := range idx {
				to.alive[i] = false
			}
		}
		return true
	}
	// Unknown: decide each candidate alone.
	for k, i := range idx {
		if a.check(append(base, b.Not(post[k]))).Status != prove.Unsat {
			to.alive[i] = false
			dropped = true
		}
	}
	return dropped
}

// dead reports whether node x is proved unreachable.
func (a *deadAnalysis) dead(x ir.NodeID, sources []ir.NodeID) bool {
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
		if a.check(append(asserts, e.Cond)).Status != prove.Unsat {
			return false
		}
	}
	// A block the CFG reaches but no segment does would be a lifter
	// bug, not a proof.
	return reached
}
