package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"eqc/align/product"
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
	"eqc/ub"
	"eqc/x86"
)

// The proof checker: `eqc proof verify`. It rebuilds every obligation of a
// recorded proof from the two binaries and the proof file, and discharges
// them, without the search that found the proof:
//
//   - the binaries (and context files) must be the ones the proof names,
//     by SHA-256; the assumptions recomputed from them must be the
//     recorded ones, and satisfiable;
//   - loop-free: the engine has nothing to search, so its obligations are
//     simply rerun, and its entry-to-exit graph compared;
//   - loops: the co-executions are rerun (they are deterministic and only
//     supply the nodes' samples: stack slots, definitions, address
//     groupings — all of them obligations), the product is rebuilt from
//     the recorded alignment with no correlation search and no learned
//     candidates (the equalities that propose a loop exit's pins come,
//     if at all, from the caller: Request.PinEqualities; every pin is
//     proved before use), its nodes and edges must equal the recorded
//     ones (every target edge out of every node is the binary's, not the
//     file's), the recorded invariants are parsed over the rebuilt nodes'
//     variables, and every obligation is discharged, including that the
//     invariants hold at the entry and are preserved by every edge (which
//     the search left to Houdini).
//
// Nothing the file says is believed: a wrong alignment or invariant can
// only make an obligation fail or the rebuilt graph differ.

// Request names a proof and the binaries to check it against.
type Request struct {
	Proof            *prove.ProofFile
	SrcPath, DstPath string
	// Context are the context files, in the proof's order; nil means the
	// paths the proof records.
	Context []string
	Timeout time.Duration
	// PinEqualities, when set, is what the search proposed a loop exit's
	// affine pins with (align/product/learning.Equalities, which eqc
	// proof verify passes), so that the checker's edges are rebuilt as
	// the search's were (pins are not recorded in the proof). Each pin is
	// proved before an edge is rebuilt with it and is no part of what the
	// checker trusts; nil proposes only constants and globals plus
	// constants.
	PinEqualities product.EqualityFunc
}

// Verification is the checker's answer: the fields of
// `eqc proof verify --json`.
type Verification struct {
	Function    string  `json:"function"`
	DstFunction string  `json:"dst_function,omitempty"`
	Verified    bool    `json:"verified"`
	Reason      string  `json:"reason,omitempty"`
	Engine      string  `json:"engine"`
	Obligations int     `json:"obligations"`
	SMTQueries  int     `json:"smt_queries"`
	WallS       float64 `json:"wall_s"`
}

// verifyOutcome is what an engine's checker found.
type verifyOutcome struct {
	reason      string // empty when verified
	obligations int
	queries     int
}

// Verify checks req.Proof against the binaries. Files that cannot be read
// or lifted (or a malformed proof) are an error, for the caller to report
// as bad input; everything else, including binaries other than the proof's
// and solver failures, is a Verification with Verified false and a reason.
func Verify(ctx context.Context, req Request, s prove.Solver) (Verification, error) {
	start := time.Now()
	pf := req.Proof
	if err := pf.Validate(); err != nil {
		return Verification{}, err
	}
	if pf.Bridge != nil {
		return verifyThroughWitness(ctx, req, s)
	}
	models, err := ub.Parse(pf.UB)
	if err != nil {
		return Verification{}, fmt.Errorf("proof file: ub_model: %w", err)
	}
	v := Verification{Function: pf.Source.Function, Engine: pf.Engine}
	if pf.Target.Function != pf.Source.Function {
		v.DstFunction = pf.Target.Function
	}
	finish := func(o verifyOutcome) (Verification, error) {
		v.Verified, v.Reason = o.reason == "", o.reason
		v.Obligations, v.SMTQueries = o.obligations, o.queries
		v.WallS = time.Since(start).Seconds()
		return v, nil
	}
	contexts := req.Context
	if contexts == nil {
		for _, c := range pf.Context {
			contexts = append(contexts, c.Path)
		}
	}
	if len(contexts) != len(pf.Context) {
		return finish(verifyOutcome{reason: fmt.Sprintf("the proof uses %d context files, %d given", len(pf.Context), len(contexts))})
	}
	type named struct {
		what, path string
		ref        prove.FileRef
	}
	files := []named{{"SRC", req.SrcPath, pf.Source}, {"DST", req.DstPath, pf.Target}}
	for i, c := range contexts {
		files = append(files, named{fmt.Sprintf("context file %d", i+1), c, pf.Context[i]})
	}
	for _, f := range files {
		h, err := prove.HashFile(f.path)
		if err != nil {
			return v, err
		}
		if h != f.ref.SHA256 {
			return finish(verifyOutcome{reason: fmt.Sprintf("%s %s is not the file the proof is about (SHA-256 %s; the proof's %s, recorded as %s)", f.what, f.path, h, f.ref.SHA256, f.ref.Path)})
		}
	}
	p, err := pair.Load(req.SrcPath, pf.Source.Function, req.DstPath, pf.Target.Function, contexts...)
	if err != nil {
		return v, err
	}
	p.SetModels(models)
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	var o verifyOutcome
	switch pf.Engine {
	case prove.EngineLoopFree:
		o = verifyLoopFree(p, ctx, pf, s)
	case prove.EngineLoops:
		o = verifyLoops(p, ctx, pf, s, req.PinEqualities)
	}
	if o.reason != "" && ctx.Err() != nil {
		o.reason = "timeout (" + o.reason + ")"
	}
	return finish(o)
}

// verifyLoopFree reruns the loop-free engine, which has no search: its
// graph and assumptions must be the recorded ones and every obligation
// Unsat.
func verifyLoopFree(p *pair.Pair, ctx context.Context, pf *prove.ProofFile, s prove.Solver) verifyOutcome {
	if d := diffGraph(p.LoopFreeGraph(), pf.Product); d != "" {
		return verifyOutcome{reason: d}
	}
	out := pair.CheckLoopFree(ctx, p, s)
	// The rerun's assumptions: the precondition's, and those it met on
	// the way (escaped locals).
	assumptions := out.Assumptions
	if assumptions == nil {
		_, assumptions = p.LoopFreePrecondition()
	}
	if d := diffStrings("assumption", assumptions, pf.Assumptions); d != "" {
		return verifyOutcome{reason: d}
	}
	o := verifyOutcome{obligations: len(out.Obligations), queries: out.SMTQueries}
	if out.Verdict != pair.Equivalent {
		o.reason = "the loop-free engine does not prove it: " + out.Reason
	}
	return o
}

// verifyLoops rebuilds the loop engine's product from the recorded
// alignment and discharges every obligation, inductiveness included; pins
// proposes the affine pins (Request.PinEqualities).
func verifyLoops(p *pair.Pair, ctx context.Context, pf *prove.ProofFile, s prove.Solver, pins product.EqualityFunc) verifyOutcome {
	fail := func(format string, a ...any) verifyOutcome { return verifyOutcome{reason: fmt.Sprintf(format, a...)} }
	if reason := p.LoopGate(); reason != "" {
		return fail("the loop engine does not take this pair: %s", reason)
	}
	pre, assumptions := p.ModelPrecondition()
	// The product's own assumptions (escaped locals) follow the pair's:
	// compared once the product is rebuilt.
	if d := diffStrings("assumption", assumptions, pf.Assumptions[:min(len(assumptions), len(pf.Assumptions))]); d != "" {
		return fail("%s", d)
	}
	o := verifyOutcome{queries: 1}
	if r := p.Satisfiable(ctx, s, pre); r.Status != smtlib.Sat {
		o.reason = "inconsistent-assumptions: the precondition is not satisfiable (" + r.Status.String() + " " + r.Reason + ")"
		return o
	}
	runs := p.CoExecuteAll(ctx)
	if runs == nil {
		o.reason = "timeout"
		return o
	}
	for _, r := range pf.Runs {
		runs = append(runs, p.CoExecuteExtra(r))
	}
	a, reason := recordedAlignment(p, pf.Product, runs)
	if reason != "" {
		o.reason = reason
		return o
	}
	pr, reason := product.Build(p, a, runs, product.Learning{Equalities: pins})
	if pr == nil {
		o.reason = "the recorded alignment gives no product: " + reason
		return o
	}
	if d := diffStrings("assumption", append(assumptions, pr.Assumptions()...), pf.Assumptions); d != "" {
		o.reason = d
		return o
	}
	want := pf.Product
	want.Nodes = append([]prove.ProofNode(nil), want.Nodes...)
	for i := range want.Nodes {
		want.Nodes[i].Invariants = nil
	}
	if d := diffGraph(pr.Graph(false), want); d != "" {
		o.reason = d
		return o
	}
	if reason := setInvariants(p, pr, pf.Product); reason != "" {
		o.reason = reason
		return o
	}
	pr.ResolveInvariantReads()
	out := pr.Discharge(ctx, s, pre, true)
	o.obligations, o.queries = len(out.Obligations), o.queries+out.SMTQueries
	if out.Verdict != pair.Equivalent {
		o.reason = "obligation not discharged: " + out.Reason
	}
	return o
}

// recordedAlignment turns the recorded graph's paired edges back into an
// alignment and walks the co-executions under it, as the search did for
// the alignment it proved.
func recordedAlignment(p *pair.Pair, g prove.Graph, runs []*pair.CoRun) (pair.Alignment, string) {
	sg, dg := p.Src.TFG, p.Dst.TFG
	sa, da := pair.AnchorSet(sg), pair.AnchorSet(dg)
	var bad string
	look := func(tfg *ir.TFG, anchors map[ir.NodeID]bool, a prove.Anchor, what string) ir.NodeID {
		found := ir.NoNode
		for _, n := range tfg.Nodes {
			if anchors[n.ID] && uint64(a.PC) == n.PC && a.Kind == n.Kind.String() {
				if found != ir.NoNode && bad == "" {
					bad = fmt.Sprintf("%s: two anchors are %s", what, a)
				}
				found = n.ID
			}
		}
		if found == ir.NoNode && bad == "" {
			bad = fmt.Sprintf("%s: %s is not an anchor of the function", what, a)
		}
		return found
	}
	keys := make([]pair.NodeKey, len(g.Nodes))
	for i, n := range g.Nodes {
		keys[i] = pair.NodeKey{Src: look(sg, sa, n.Src, fmt.Sprintf("node n%d source", i)), Dst: look(dg, da, n.Dst, fmt.Sprintf("node n%d target", i))}
	}
	specs := map[pair.EdgeKey]pair.SrcSpec{}
	for i, e := range g.Edges {
		if e.Infeasible {
			continue
		}
		if e.SrcPath.Mu > pair.MaxUnroll || e.SrcPath.Arrivals > pair.MaxLook {
			return pair.Alignment{}, fmt.Sprintf("edge %d: a source path set (arrival %d, %d loop passes) beyond what the engine builds (%d, %d)", i, e.SrcPath.Arrivals, e.SrcPath.Mu, pair.MaxLook, pair.MaxUnroll)
		}
		ek := pair.EdgeKey{From: keys[e.From], DstTo: look(dg, da, e.DstTo, fmt.Sprintf("edge %d target", i))}
		if len(e.DstVia) > 0 {
			ids := map[int]bool{}
			for _, v := range e.DstVia {
				if v.ID >= len(dg.Edges) || dg.Nodes[dg.Edges[v.ID].From].PC != uint64(v.From) || dg.Nodes[dg.Edges[v.ID].To].PC != uint64(v.To) {
					return pair.Alignment{}, fmt.Sprintf("the proof's graph does not fit the binaries: edge %d: the target has no edge %d from %#x to %#x", i, v.ID, uint64(v.From), uint64(v.To))
				}
				ids[v.ID] = true
			}
			ek.Via = pair.ViaString(ids)
		}
		sp := pair.SrcSpec{To: look(sg, sa, e.SrcPath.To, fmt.Sprintf("edge %d source", i)), Arrivals: e.SrcPath.Arrivals, Mu: e.SrcPath.Mu}
		if bad != "" {
			return pair.Alignment{}, "the proof's graph does not fit the binaries: " + bad
		}
		if _, dup := specs[ek]; dup {
			return pair.Alignment{}, fmt.Sprintf("edge %d pairs a target edge paired before", i)
		}
		specs[ek] = sp
	}
	if bad != "" {
		return pair.Alignment{}, "the proof's graph does not fit the binaries: " + bad
	}
	a := pair.Alignment{Specs: specs}
	for k, cr := range runs {
		// Without comparing memories: that only narrows a search, and
		// the data engine's second round did not compare them.
		pairs, missing, ok := p.Walk(cr, specs, false)
		switch {
		case !ok:
			return pair.Alignment{}, fmt.Sprintf("the recorded alignment contradicts co-execution %d", k)
		case missing != nil:
			return pair.Alignment{}, fmt.Sprintf("the recorded alignment pairs nothing with the target's step from (src %#x, dst %#x) to dst %#x in co-execution %d",
				sg.Nodes[missing.Key.From.Src].PC, dg.Nodes[missing.Key.From.Dst].PC, dg.Nodes[missing.Key.DstTo].PC, k)
		}
		a.Pairs = append(a.Pairs, pairs)
	}
	return a, ""
}

// setInvariants parses the recorded invariants over the rebuilt nodes.
// An invariant of a node may name only the entry state (constant through
// a run) and that node's own variables, and read the node's shared memory
// only at addresses based on a global: a global plus a constant (a scalar
// or an array element), or a global plus terms over the node's variables
// (what a mirror invariant reads, such as b[i−1] kept in a register); or
// at addresses computed from values none of which is a stack pointer (a
// pointer parameter's array: the character a string loop carries).
//
// Why a read of the shared memory at any such address means one thing on
// both ends of an edge: every obligation about the to-node is taken with
// its memory bound to the source's memory after the edge (postSubst), and
// its variables to their values after the edge. The induction therefore
// always uses that one valuation, whatever bytes the address names; the
// target's memory is tied to it by the memory obligations. Requiring a
// global base keeps invariants about arrays, where the source and the
// target agree, and refuses ones about the stack, whose bytes each side
// keeps in its own slots.
func setInvariants(p *pair.Pair, pr *product.Product, g prove.Graph) string {
	b := p.B
	entry := map[ir.Term]bool{}
	for _, sv := range p.Src.TFG.State {
		entry[sv.Var] = true
	}
	globals := map[ir.Term]uint64{}
	for _, gv := range p.GlobalVars() {
		size := p.GlobalSize(b.VarName(gv))
		if size == 0 {
			size = pair.UnknownGlobalSize // as the precondition assumes
		}
		globals[gv] = size
		entry[gv] = true
	}
	// globalBased reports whether address a is a global plus a constant
	// that keeps the n bytes inside it, or a sum with exactly one global
	// among its terms and something else besides constants.
	globalBased := func(a ir.Term, n uint32) bool {
		if size, ok := globals[a]; ok {
			return uint64(n) <= size
		}
		if b.Op(a) != ir.OpAdd {
			return false
		}
		var base []ir.Term
		off, varying := uint64(0), false
		for _, x := range b.Addends(a) {
			switch {
			case globals[x] != 0:
				base = append(base, x)
			case b.Op(x) == ir.OpConst:
				off += b.ConstValue(x).Uint64()
			default:
				varying = true
			}
		}
		if len(base) != 1 {
			return false
		}
		size := globals[base[0]]
		return varying || (off < size && uint64(n) <= size-off)
	}
	// pointerBased reports whether address a is computed from values
	// none of which is a stack pointer: the entry rsp, or a node's rsp or
	// rbp (what a byte mirror reads, such as the character a string
	// loop's pointer parameter points to, kept in a register).
	rsp0 := p.SrcVar(x86.StateGPR0 + x86.RSP)
	pointerBased := func(a ir.Term) bool {
		if b.IsConst(a) {
			return false
		}
		for _, u := range b.PostOrder(a) {
			if u == rsp0 {
				return false
			}
			if b.Op(u) == ir.OpVar && (strings.HasSuffix(b.VarName(u), ".rsp") || strings.HasSuffix(b.VarName(u), ".rbp")) {
				return false
			}
		}
		return true
	}
	for i, rn := range g.Nodes {
		n := pr.Nodes[i]
		n.Invariants = nil
		for _, text := range rn.Invariants {
			t, err := smtlib.ParseTermString(b, text, &smtlib.Scope{UseBuilder: true})
			if err != nil {
				return fmt.Sprintf("node n%d: invariant %s: %v", i, text, err)
			}
			if b.Sort(t) != ir.BoolSort {
				return fmt.Sprintf("node n%d: invariant %s is not a formula", i, text)
			}
			for _, u := range b.PostOrder(t) {
				if b.Op(u) == ir.OpApply && !constCallResult(b, u) {
					return fmt.Sprintf("node n%d: invariant %s applies a function (invariants are over state values)", i, text)
				}
				if b.Op(u) == ir.OpVar && !entry[u] && u != n.Mem() && b.VarName(u) != x86.ConstView {
					if !n.Owns(u) {
						return fmt.Sprintf("node n%d: invariant %s names %s, neither the entry state nor a variable of the node", i, text, b.VarName(u))
					}
				}
				for k, arg := range b.Args(u) {
					if arg != n.Mem() || n.Mem() == ir.NoTerm {
						continue
					}
					if sz, _ := b.Params(u); b.Op(u) != ir.OpSelect || k != 0 || !globalBased(b.Arg(u, 1), sz) && !pointerBased(b.Arg(u, 1)) {
						return fmt.Sprintf("node n%d: invariant %s reads the node's memory at an address not based on a global or a pointer", i, text)
					}
				}
			}
			n.Invariants = append(n.Invariants, t)
		}
	}
	return ""
}

// diffGraph says where a rebuilt graph differs from the recorded one ("" if
// nowhere).
func diffGraph(rebuilt, recorded prove.Graph) string {
	js := func(v any) string {
		data, _ := json.Marshal(v)
		return string(data)
	}
	if len(rebuilt.Nodes) != len(recorded.Nodes) {
		return fmt.Sprintf("the rebuilt product has %d nodes, the proof %d", len(rebuilt.Nodes), len(recorded.Nodes))
	}
	for i := range rebuilt.Nodes {
		if !reflect.DeepEqual(rebuilt.Nodes[i], recorded.Nodes[i]) {
			return fmt.Sprintf("node n%d differs: rebuilt %s, in the proof %s", i, js(rebuilt.Nodes[i]), js(recorded.Nodes[i]))
		}
	}
	if len(rebuilt.Edges) != len(recorded.Edges) {
		return fmt.Sprintf("the rebuilt product has %d edges, the proof %d", len(rebuilt.Edges), len(recorded.Edges))
	}
	for i := range rebuilt.Edges {
		if !reflect.DeepEqual(rebuilt.Edges[i], recorded.Edges[i]) {
			return fmt.Sprintf("edge %d differs: rebuilt %s, in the proof %s", i, js(rebuilt.Edges[i]), js(recorded.Edges[i]))
		}
	}
	return ""
}

// diffStrings says where two lists differ ("" if nowhere).
func diffStrings(what string, rebuilt, recorded []string) string {
	for i := 0; i < len(rebuilt) || i < len(recorded); i++ {
		switch {
		case i >= len(recorded):
			return fmt.Sprintf("the proof lacks the %s %q", what, rebuilt[i])
		case i >= len(rebuilt):
			return fmt.Sprintf("the proof lists an %s the binaries do not give: %q", what, recorded[i])
		case rebuilt[i] != recorded[i]:
			return fmt.Sprintf("%s %d is %q, the proof says %q", what, i+1, rebuilt[i], recorded[i])
		}
	}
	return ""
}

// constCallResult reports whether u applies the calling convention's
// result function of a const library callee (x86.ConstCallees, "callc:"
// form): a value that depends on the call's arguments alone, the same at
// every call with them, such as *__ctype_b_loc()'s location, which an
// invariant may name like a global's address (a loop keeps the table it
// locates in a register). The function is the edges' own (one builder),
// and uninterpreted, so an invariant over it holds whatever it returns.
func constCallResult(b *ir.Builder, u ir.Term) bool {
	fn, ok := x86.ParseCallFunc(b.FuncOf(u).Name)
	return ok && fn.Convention && x86.ConstCallees[fn.Callee]
}
