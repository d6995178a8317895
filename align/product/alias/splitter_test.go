package alias

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"eqc/ir"
)

// TestSplitterGuards pins the context a frame read's disjointness fact is
// guarded by: a read after a store through an argument needs the two apart
// only where its value matters to the whole term (after the conjuncts
// before it hold, the disjuncts before it fail, its ite arm is chosen).
func TestSplitterGuards(t *testing.T) {
	b := ir.NewBuilder()
	rsp := b.Var("src.rsp", ir.BVSort(64))
	x := b.Var("src.rdi", ir.BVSort(64))
	m := b.Var("mem", ir.MemSort)
	p := b.Var("p", ir.BoolSort)
	q := b.Var("q", ir.BoolSort)
	frame := b.Add(rsp, b.Const(64, ^uint64(7)))
	zero := b.Const(32, 0)
	read := b.Select(b.Store(m, x, 4, zero), frame, 4) // i after array[0] = 0
	e := b.Eq(read, b.Const(32, 5))
	cases := []struct {
		name   string
		t      ir.Term
		guards []ir.Term // of the facts recorded, NoTerm for none
	}{
		{"top level", e, []ir.Term{ir.NoTerm}},
		{"second conjunct", b.And(p, e), []ir.Term{p}},
		// Only one conjunct needs a fact: it matters where the other
		// holds, whichever comes first.
		{"first conjunct", b.And(e, p), []ir.Term{p}},
		{"first disjunct", b.Or(e, p), []ir.Term{b.Not(p)}},
		{"antecedent", b.Implies(e, p), []ir.Term{b.Not(p)}},
		{"both conjuncts", b.And(e, b.Eq(read, zero)), []ir.Term{ir.NoTerm}},
		{"second disjunct", b.Or(p, e), []ir.Term{b.Not(p)}},
		{"consequent", b.Implies(p, e), []ir.Term{p}},
		{"then arm", b.Eq(b.Ite(p, read, zero), zero), []ir.Term{p}},
		{"else arm", b.Eq(b.Ite(p, zero, read), zero), []ir.Term{b.Not(p)}},
		{"nested", b.And(p, b.Or(q, e)), []ir.Term{b.And(p, b.Not(q))}},
		// The condition always matters; the else arm's copy, guarded by
		// the rewritten condition failing, is implied by it and not made.
		{"ite condition", b.Eq(b.Ite(e, zero, read), zero), []ir.Term{ir.NoTerm}},
	}
	for _, tc := range cases {
		facts := map[Fact]bool{}
		s := NewSplitter(b, ir.NewSimplifier(b), rsp, facts, nil, false)
		r := s.Apply(tc.t)
		if slices.Contains(b.PostOrder(r), x) {
			t.Errorf("%s: the read did not pass the store: %s", tc.name, b.Short(r))
		}
		var got []ir.Term
		for f := range facts {
			if f.A1 != frame || f.A2 != x || f.N1 != 4 || f.N2 != 4 {
				t.Errorf("%s: fact %+v, want the frame slot against the argument", tc.name, f)
			}
			got = append(got, f.Guard)
		}
		slices.Sort(got)
		slices.Sort(tc.guards)
		if !slices.Equal(got, tc.guards) {
			names := func(ts []ir.Term) []string {
				var out []string
				for _, t := range ts {
					if t == ir.NoTerm {
						out = append(out, "always")
					} else {
						out = append(out, b.Short(t))
					}
				}
				return out
			}
			t.Errorf("%s: guards %q, want %q", tc.name, names(got), names(tc.guards))
		}
	}
}

// TestSplitterManyContexts: a read met under exponentially many contexts
// (a chain of choices whose arms all reach it, as the calling convention's
// conditional stores make) gets at most maxGuards guarded facts and then
// an unguarded one, which covers every other context (with
// GuardCollapsed, one more per conjunct its contexts stop sharing, which
// the bound below allows for).
func TestSplitterManyContexts(t *testing.T) {
	b := ir.NewBuilder()
	rsp := b.Var("src.rsp", ir.BVSort(64))
	x := b.Var("src.rdi", ir.BVSort(64))
	m := b.Var("mem", ir.MemSort)
	frame := b.Add(rsp, b.Const(64, ^uint64(7)))
	read := b.Select(b.Store(m, x, 4, b.Const(32, 0)), frame, 4)
	term := read
	for i := 0; i < 40; i++ {
		c := b.Var(fmt.Sprintf("c%d", i), ir.BoolSort)
		term = b.Ite(c, term, b.Add(term, b.Const(32, 1)))
	}
	facts := map[Fact]bool{}
	NewSplitter(b, ir.NewSimplifier(b), rsp, facts, nil, false).Apply(b.Eq(term, b.Const(32, 0)))
	unguarded := false
	for f := range facts {
		unguarded = unguarded || f.Guard == ir.NoTerm
	}
	if len(facts) > maxGuards+40+1 || !unguarded {
		t.Errorf("%d facts (unguarded among them: %v), want at most %d and an unguarded one", len(facts), unguarded, maxGuards+41)
	}
}

// TestSplitterSharedContexts: with GuardCollapsed, a read met under more
// than maxGuards contexts that all lie inside one loop pass (each implies the pass's
// condition p, as a conjunct or under a negated disjunction) keeps p in
// every guard: no fact claims the read's address apart from the frame in
// runs that never make the pass. The evaluator is the oracle: wherever
// the facts hold, the rewritten term has the original's value, and the
// facts hold in every state where p fails, the address then anywhere.
func TestSplitterSharedContexts(t *testing.T) {
	b := ir.NewBuilder()
	rsp := b.Var("src.rsp", ir.BVSort(64))
	x := b.Var("src.rdi", ir.BVSort(64))
	m := b.Var("mem", ir.MemSort)
	p := b.Var("p", ir.BoolSort)
	frame := b.Add(rsp, b.Const(64, ^uint64(7)))
	read := b.Select(b.Store(m, x, 4, b.Const(32, 0)), frame, 4)
	term := read
	const n = 10
	var cs []ir.Term
	for i := 0; i < n; i++ {
		c := b.Var(fmt.Sprintf("c%d", i), ir.BoolSort)
		cs = append(cs, c)
		term = b.Ite(c, term, b.Add(term, b.Const(32, 1)))
	}
	// The pass's condition guards the chain, once as the condition of
	// an ite's then arm and once as a conjunct hidden in ¬(¬p ∨ q).
	q := b.Var("q", ir.BoolSort)
	whole := b.And(
		b.Eq(b.Ite(p, term, b.Const(32, 7)), b.Const(32, 0)),
		b.Or(b.Or(b.Not(p), q), b.Eq(term, b.Const(32, 3))))
	// By default the collapsed read is guarded by nothing.
	plain := map[Fact]bool{}
	NewSplitter(b, ir.NewSimplifier(b), rsp, plain, nil, false).Apply(whole)
	if !slices.ContainsFunc(slices.Collect(maps.Keys(plain)), func(f Fact) bool { return f.Guard == ir.NoTerm }) {
		t.Errorf("no unguarded fact without GuardCollapsed")
	}
	facts := map[Fact]bool{}
	sp := NewSplitter(b, ir.NewSimplifier(b), rsp, facts, nil, false)
	sp.GuardCollapsed()
	r := sp.Apply(whole)
	if len(facts) <= maxGuards {
		t.Fatalf("%d facts: the read did not collapse", len(facts))
	}
	for f := range facts {
		if f.Guard == ir.NoTerm {
			t.Fatalf("an unguarded fact among %d: the pass's condition was lost", len(facts))
		}
	}
	held := 0
	for seed := uint64(0); seed < 400; seed++ {
		bits := seed*0x9e3779b97f4a7c15 ^ seed>>3
		vars := map[ir.Term]ir.Value{
			rsp: ir.BVValue(ir.NewBV(64, 0x7000)),
			m:   ir.MemValue(ir.NewMem(0x5a)),
			p:   ir.BoolValue(bits&1 != 0), q: ir.BoolValue(bits&2 != 0),
		}
		// The store lands on the slot in a quarter of the states.
		xv := uint64(0x1000)
		if bits&12 == 0 {
			xv = 0x7000 - 8
		}
		vars[x] = ir.BVValue(ir.NewBV(64, xv))
		for i, c := range cs {
			vars[c] = ir.BoolValue(bits>>(4+i)&1 != 0)
		}
		env := &ir.MapEnv{Vars: vars}
		ok, want, got := rewriteOnState(t, b, facts, whole, r, env)
		if !vars[p].Bool() && !ok {
			t.Errorf("state %d: p fails, yet a fact is false", seed)
		}
		if !ok {
			continue
		}
		held++
		if want != got {
			t.Errorf("state %d: rewritten %v, original %v", seed, got, want)
		}
	}
	if held < 200 {
		t.Errorf("the facts held in only %d states", held)
	}
}

// TestSplitterKeepsOverlappingStores: a read through a computed address
// keeps a store through another pointer that it may overlap (s[0] after
// d[0] = v, the two arrays perhaps one) but still passes the frame slot
// stored below it (the -O0 counter), with a fact. The oracle is the
// evaluator: wherever the recorded facts hold, the rewritten read has the
// original's value, the two pointers overlapping or not.
func TestSplitterKeepsOverlappingStores(t *testing.T) {
	b := ir.NewBuilder()
	rsp := b.Var("src.rsp", ir.BVSort(64))
	d := b.Var("src.rdi", ir.BVSort(64))
	s := b.Var("src.rsi", ir.BVSort(64))
	m := b.Var("mem", ir.MemSort)
	slotVal := b.Var("i", ir.BVSort(32))
	v := b.Var("v", ir.BVSort(32))
	slot := b.Add(rsp, b.Const(64, ^uint64(7)))
	mem := b.Store(b.Store(m, slot, 4, slotVal), d, 4, v)
	read := b.Select(mem, s, 4)
	facts := map[Fact]bool{}
	sp := NewSplitter(b, ir.NewSimplifier(b), rsp, facts, nil, false)
	r := sp.Apply(read)
	if slices.Contains(b.PostOrder(r), slotVal) {
		t.Fatalf("the read did not pass the frame slot: %s", b.Short(r))
	}
	if !slices.Contains(b.PostOrder(r), v) {
		t.Fatalf("the read passed the store it may overlap: %s", b.Short(r))
	}
	if len(facts) != 1 {
		t.Fatalf("facts %v, want the slot against s", facts)
	}
	held := 0
	for _, rspV := range []uint64{0x7000, 0x7010} {
		for _, dV := range []uint64{0x1000, 0x1002, 0x6ff8} {
			for _, sV := range []uint64{0x1000, 0x1002, 0x1004, 0x6ff6, 0x6ffa, 0x6ffc} {
				env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
					rsp: ir.BVValue(ir.NewBV(64, rspV)), d: ir.BVValue(ir.NewBV(64, dV)), s: ir.BVValue(ir.NewBV(64, sV)),
					m:       ir.MemValue(ir.NewMem(0x5a).With(0x1000, []byte{1, 2, 3, 4, 5, 6, 7, 8})),
					slotVal: ir.BVValue(ir.NewBV(32, 0x11223344)), v: ir.BVValue(ir.NewBV(32, 0xaabbccdd)),
				}}
				ok, want, got := rewriteOnState(t, b, facts, read, r, env)
				if !ok {
					continue
				}
				held++
				if want != got {
					t.Errorf("rsp %#x d %#x s %#x: rewritten read %v, original %v", rspV, dV, sV, got, want)
				}
			}
		}
	}
	if held < 20 {
		t.Errorf("the facts held in only %d states", held)
	}
}

// rewriteOnState evaluates on env whether every fact holds, and the
// original term and its rewriting (as text).
func rewriteOnState(t *testing.T, b *ir.Builder, facts map[Fact]bool, orig, rewritten ir.Term, env ir.Env) (held bool, want, got string) {
	t.Helper()
	held = true
	for f := range facts {
		fv, err := ir.Eval(b, f.Term(b), env)
		if err != nil {
			t.Fatal(err)
		}
		held = held && fv.Bool()
	}
	w, err1 := ir.Eval(b, orig, env)
	g, err2 := ir.Eval(b, rewritten, env)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return held, w.String(), g.String()
}
