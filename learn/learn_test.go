package learn

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"eqc/ir"
)

// fixture is a schema of plain variables (and memories) in a fresh builder.
type fixture struct {
	b      *ir.Builder
	s      *Schema
	states []State
}

func newFixture(names []string, widths []uint32) *fixture {
	b := ir.NewBuilder()
	s := &Schema{}
	for i, n := range names {
		w := uint32(64)
		if widths != nil {
			w = widths[i]
		}
		s.Vars = append(s.Vars, Var{Name: n, Term: b.Var(n, ir.BVSort(w))})
	}
	return &fixture{b: b, s: s}
}

func (f *fixture) addMem(name string) {
	f.s.Mems = append(f.s.Mems, MemPair{Name: name, M1: f.b.Var(name+"1", ir.MemSort), M2: f.b.Var(name+"2", ir.MemSort)})
}

func (f *fixture) env(st State) *ir.MapEnv {
	e := &ir.MapEnv{Vars: map[ir.Term]ir.Value{}}
	for i, v := range f.s.Vars {
		e.Vars[v.Term] = ir.BVValue(ir.NewBV(f.b.Width(v.Term), st.Vals[i]))
	}
	for k, p := range f.s.Mems {
		e.Vars[p.M1] = ir.MemValue(st.Mems[k][0])
		e.Vars[p.M2] = ir.MemValue(st.Mems[k][1])
	}
	return e
}

func (f *fixture) learn(t testing.TB, opt Options) []Candidate {
	t.Helper()
	cs, err := Learn(f.b, f.s, f.states, opt)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// holdsEverywhere checks every candidate with the evaluator on every state.
func (f *fixture) holdsEverywhere(t *testing.T, cs []Candidate) {
	t.Helper()
	for r, st := range f.states {
		ev := ir.NewEvaluator(f.b, f.env(st))
		for _, c := range cs {
			v, err := ev.Eval(c.Term)
			if err != nil {
				t.Fatalf("%s: %v", c.Desc, err)
			}
			if !v.Bool() {
				t.Fatalf("candidate %q (%s) is false on state %d: %v", c.Desc, f.b.Short(c.Term), r, st.Vals)
			}
		}
	}
}

func descs(cs []Candidate, k Kind) []string {
	var out []string
	for _, c := range cs {
		if c.Kind == k {
			out = append(out, c.Desc)
		}
	}
	return out
}

// relVector turns a learned relation back into a kernel vector mod 2^64.
func relVector(r linRel, n int) []uint64 {
	v := make([]uint64, n+1)
	s := 64 - r.mod
	for i, c := range r.coef {
		v[i] = c << s
	}
	v[r.subj] = ^uint64(0) << s
	v[n] = r.c0 << s
	return v
}

// plantedStates: x0..x5 random, except
//
//	x3 = 4·x1 + x2 − 7, x4 = 8·x0 + 2·x2 (even coefficients only),
//	x0 = 2·x5 (x0 even; x5 = x0/2 + a random top bit),
//	x6 = x2 + 16 (pre-pass), x7 = 42 (constant);
//
// and 32 more random columns, so that 25 rows do not pin the kernel down.
func plantedStates(rng *rand.Rand, rows int) [][]uint64 {
	out := make([][]uint64, rows)
	for r := range out {
		x := make([]uint64, 40)
		for k := 8; k < 40; k++ {
			x[k] = rng.Uint64()
		}
		h := rng.Uint64()
		x[5] = h>>1 | rng.Uint64()<<63
		x[0] = 2 * x[5]
		x[1], x[2] = rng.Uint64(), rng.Uint64()
		x[3] = 4*x[1] + x[2] - 7
		x[4] = 8*x[0] + 2*x[2]
		x[6] = x[2] + 16
		x[7] = 42
		out[r] = x
	}
	return out
}

func TestEqualitiesPlanted(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	f := newFixture(plantedNames(), nil)
	for _, x := range plantedStates(rng, 200) {
		f.states = append(f.states, State{Vals: x})
	}
	cs := f.learn(t, Options{Kinds: Kinds(Equality, Congruence)})
	f.holdsEverywhere(t, cs)
	got := descs(cs, Equality)
	want := []string{"x7 = 42", "x0 = 2·x5", "x3 = 4·x1 + x2 - 7", "x4 = 8·x0 + 2·x2", "x6 = x2 + 16"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("equalities %q, want %q", got, want)
	}

	// The learned relations span exactly the planted ones.
	tab, _ := buildTable(f.b, f.s, f.states)
	e := learnEqualities(tab, Options{}.withDefaults())
	var vecs [][]uint64
	for _, r := range e.rels {
		vecs = append(vecs, relVector(r, 40))
	}
	h := Howell(vecs, 64)
	m1 := ^uint64(0)
	planted := [][]uint64{
		{0, 4, 1, m1, 0, 0, 0, 0, m1 - 6},
		{8, 0, 2, 0, m1, 0, 0, 0, 0},
		{m1, 0, 0, 0, 0, 2, 0, 0, 0},
		{0, 0, 1, 0, 0, 0, m1, 0, 16},
		{0, 0, 0, 0, 0, 0, 0, 1, m1 - 41},
	}
	for k, v := range planted { // widen to 40 variables
		planted[k] = append(append(v[:8:8], make([]uint64, 32)...), v[8])
	}
	for _, v := range planted {
		if !InSpan(h, v, 64) {
			t.Errorf("planted relation %v not in the learned span", v)
		}
	}
	if want := Howell(planted, 64); !equalRows(h, want) {
		t.Errorf("learned span %v\nplanted span %v", h, want)
	}
	if e.rounds < 2 {
		t.Errorf("%d rounds: expected the 25-row sample to need resampling", e.rounds)
	}
}

func plantedNames() []string {
	names := make([]string, 40)
	for i := range names {
		names[i] = fmt.Sprintf("x%d", i)
	}
	return names
}

// TestEqualitiesBrokenLate: a relation that fails on one late row is not
// reported, whether or not that row was sampled.
func TestEqualitiesBrokenLate(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		f := newFixture([]string{"a", "b", "c"}, nil)
		for r := 0; r < 200; r++ {
			a, b := rng.Uint64(), rng.Uint64()
			c := a + b
			if r == 180 {
				c++
			}
			f.states = append(f.states, State{Vals: []uint64{a, b, c}})
		}
		cs := f.learn(t, Options{Seed: seed})
		if eqs := descs(cs, Equality); len(eqs) != 0 {
			t.Fatalf("seed %d: broken relation reported: %q", seed, eqs)
		}
		f.holdsEverywhere(t, cs)
	}
}

// TestEqualitiesCanonical: the equalities do not depend on the order of
// the states or on the sampling seed.
func TestEqualitiesCanonical(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	rows := plantedStates(rng, 120)
	var first []string
	for seed := uint64(0); seed < 5; seed++ {
		f := newFixture(plantedNames(), nil)
		perm := rng.Perm(len(rows))
		for _, p := range perm {
			f.states = append(f.states, State{Vals: rows[p]})
		}
		got := descs(f.learn(t, Options{Seed: seed, Kinds: Kinds(Equality)}), Equality)
		if first == nil {
			first = got
		} else if !slices.Equal(got, first) {
			t.Fatalf("seed %d: %q, first run %q", seed, got, first)
		}
	}
}

// TestEqualitiesNarrow: values are zero-extended; simple equalities keep
// the variables' own width, others are over 64 bits.
func TestEqualitiesNarrow(t *testing.T) {
	f := newFixture([]string{"eax", "ecx", "al", "edx"}, []uint32{32, 32, 8, 32})
	rng := rand.New(rand.NewPCG(15, 16))
	for range 50 {
		a := rng.Uint64() & 0x7fffffff
		f.states = append(f.states, State{Vals: []uint64{a, a, 7, a + 0x80000000}})
	}
	cs := f.learn(t, Options{Kinds: Kinds(Equality)})
	f.holdsEverywhere(t, cs)
	b := f.b
	want := map[string]ir.Term{
		"ecx = eax":              b.Eq(f.s.Vars[1].Term, f.s.Vars[0].Term),
		"al = 7":                 b.Eq(f.s.Vars[2].Term, b.Const(8, 7)),
		"edx = eax + 0x80000000": b.Eq(b.ZeroExt(f.s.Vars[3].Term, 32), b.Add(b.ZeroExt(f.s.Vars[0].Term, 32), b.Const(64, 0x80000000))),
	}
	if len(cs) != len(want) {
		t.Fatalf("got %d candidates %q, want %d", len(cs), descs(cs, Equality), len(want))
	}
	for _, c := range cs {
		if w, ok := want[c.Desc]; !ok || w != c.Term {
			t.Errorf("candidate %q = %s, want %v", c.Desc, b.Short(c.Term), ok)
		}
	}
}

// TestEqualitiesWrapNarrow: a 32-bit accumulator that equals the sum of
// four 32-bit lanes on rows where nothing wraps gets a congruence mod 2^32
// in place of the 64-bit equality (sumOfNarrow), the form that survives a
// wrap, for equalities alone too; and one whose 64-bit form has a
// coefficient only the high bits need (2^63·i, i even) loses it mod 2^32.
func TestEqualitiesWrapNarrow(t *testing.T) {
	f := newFixture([]string{"x0", "x1", "x2", "x3", "s"}, []uint32{32, 32, 32, 32, 32})
	rng := rand.New(rand.NewPCG(17, 18))
	for range 40 {
		var x [4]uint64
		for k := range x {
			x[k] = rng.Uint64() & 0x0fffffff
		}
		f.states = append(f.states, State{Vals: []uint64{x[0], x[1], x[2], x[3], x[0] + x[1] + x[2] + x[3]}})
	}
	cs := f.learn(t, Options{Kinds: Kinds(Equality, Congruence)})
	f.holdsEverywhere(t, cs)
	b := f.b
	v := func(i int) ir.Term { return f.s.Vars[i].Term }
	want := b.Eq(v(4), b.Add(b.Add(b.Add(v(0), v(1)), v(2)), v(3)))
	found := false
	for _, c := range cs {
		if c.Term == want {
			found = true
		}
	}
	if !found {
		t.Errorf("no s ≡ x0 + x1 + x2 + x3 (mod 2^32) among %q", descs(cs, Congruence))
	}
	if eqs := descs(cs, Equality); len(eqs) != 0 {
		t.Errorf("64-bit equalities %q of 32-bit lanes and their sum", eqs)
	}
	eqs := f.learn(t, Options{Kinds: Kinds(Equality)})
	if len(eqs) != 1 || eqs[0].Term != want {
		t.Errorf("equalities alone: %q, want the sum mod 2^32 alone", descs(eqs, Congruence))
	}

	r := linRel{subj: 1, coef: []uint64{1 << 63, 0, 2}, c0: 1 << 63, mod: 64}
	n, ok := r.narrowed(32)
	if !ok || n.mod != 32 || n.coef[0] != 0 || n.coef[2] != 2 || n.c0 != 0 {
		t.Errorf("narrowed(%+v) = %+v, %v; want x1 ≡ 2·x2 (mod 2^32)", r, n, ok)
	}
	if _, ok := (linRel{subj: 0, coef: []uint64{0, 1}, c0: 5, mod: 64}).narrowed(32); ok {
		t.Error("x0 = x1 + 5 narrowed; the 64-bit form already says it")
	}
}

func TestLearnInputErrors(t *testing.T) {
	f := newFixture([]string{"a"}, []uint32{8})
	for _, st := range []State{{Vals: []uint64{1, 2}}, {Vals: []uint64{256}}, {Vals: []uint64{1}, Mems: [][2]*ir.Mem{{nil, nil}}}} {
		if _, err := Learn(f.b, f.s, []State{st}, Options{}); err == nil {
			t.Errorf("state %v: no error", st)
		} else if _, ok := err.(*InputError); !ok {
			t.Errorf("state %v: error %T", st, err)
		}
	}
	cs, err := Learn(f.b, f.s, nil, Options{})
	if err != nil || cs != nil {
		t.Errorf("no states: %v, %v", cs, err)
	}
}

// TestLearnDeterministic runs the whole learner twice.
func TestLearnDeterministic(t *testing.T) {
	run := func() []string {
		f := benchFixture(20, 80)
		var out []string
		for _, c := range f.learn(t, Options{}) {
			out = append(out, fmt.Sprintf("%v %s %s", c.Kind, c.Desc, f.b.Short(c.Term)))
		}
		return out
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Fatal("two runs differ")
	}
	if len(a) == 0 {
		t.Fatal("nothing learned")
	}
}

// benchFixture: n variables over rows states, like registers of two
// programs at a loop head: counters, pointers stepping by 4 and 8, copies,
// constants, an 8-byte-aligned pointer, and a stack memory pair.
func benchFixture(n, rows int) *fixture {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("v%d", i)
	}
	f := newFixture(names, nil)
	f.addMem("mem")
	f.s.Bases = []int{0}
	rng := rand.New(rand.NewPCG(17, 18))
	for r := 0; r < rows; r++ {
		x := make([]uint64, n)
		i := uint64(rng.IntN(100))
		limit := uint64(100 + rng.IntN(50))
		base := 0x5555_0000_0000 + uint64(rng.IntN(1<<32))&^7 // a user-space address
		rsp := 0x7ffe0000 - uint64(rng.IntN(64))*16
		for k := range x {
			switch k % 10 {
			case 0:
				x[k] = rsp
			case 1:
				x[k] = i
			case 2:
				x[k] = base + 4*i
			case 3:
				x[k] = base + 8*i + uint64(k)
			case 4:
				x[k] = limit
			case 5:
				x[k] = 0x601040
			case 6:
				x[k] = limit - i
			case 7:
				x[k] = base
			default:
				x[k] = rng.Uint64()
			}
		}
		mem := ir.NewMem(0)
		mem = mem.With(rsp-32, []byte{1, 2, 3, 4, 5, 6, 7, 8})
		m2 := mem.With(rsp-24, []byte{byte(i), 9})
		f.states = append(f.states, State{Vals: x, Mems: [][2]*ir.Mem{{mem, m2}}})
	}
	return f
}

func TestLearnAllKinds(t *testing.T) {
	f := benchFixture(20, 120)
	cs := f.learn(t, Options{})
	f.holdsEverywhere(t, cs)
	kinds := map[Kind]int{}
	seen := map[ir.Term]bool{}
	for _, c := range cs {
		kinds[c.Kind]++
		if seen[c.Term] {
			t.Errorf("duplicate term %s", c.Desc)
		}
		seen[c.Term] = true
	}
	for _, k := range []Kind{Equality, Congruence, Bound, Order, Memory} {
		if kinds[k] == 0 {
			t.Errorf("no %v candidates", k)
		}
	}
	mem := descs(cs, Memory)
	if len(mem) != 1 || mem[0] != "mem₁ = mem₂ outside [v0-24, v0-22)" {
		t.Errorf("memory candidates %q", mem)
	}
	if testing.Verbose() {
		for _, c := range cs {
			t.Logf("%-10v %s", c.Kind, c.Desc)
		}
	}
	eqs := strings.Join(descs(cs, Equality), "; ")
	for _, want := range []string{"v7 = v2 - 4·v1", "v6 = v4 - v1", "v3 = 4·v1 + v2 + 3", "v5 = 0x601040", "v10 = v0"} {
		if !strings.Contains(eqs, want) {
			t.Errorf("missing %q in %s", want, eqs)
		}
	}
}

func BenchmarkLearn60x200(b *testing.B) {
	f := benchFixture(60, 200)
	b.ReportAllocs()
	for b.Loop() {
		// A fresh builder per run would measure term interning too; the
		// terms are hash-consed, so reusing one is the realistic case.
		if _, err := Learn(f.b, f.s, f.states, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLearn60x200Independent is the equality learner's worst case:
// 60 columns with no copies for the pre-pass to remove, so the 25-row
// sample's kernel is large and needs several rounds of resampling.
func BenchmarkLearn60x200Independent(b *testing.B) {
	rng := rand.New(rand.NewPCG(19, 20))
	names := make([]string, 60)
	for i := range names {
		names[i] = fmt.Sprintf("v%d", i)
	}
	f := newFixture(names, nil)
	for range 200 {
		x := make([]uint64, 60)
		for k := range x {
			x[k] = rng.Uint64() >> uint(rng.IntN(40))
		}
		x[59] = 4*x[3] + x[7] - 7
		x[58] = 2 * x[5]
		f.states = append(f.states, State{Vals: x})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Learn(f.b, f.s, f.states, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEqualitiesCoincidental: a loop node's rows come from five runs, each
// visiting it many times. Six entry columns are constant within a run
// (registers the runs left unset), so through their five distinct points
// many affine relations pass, with coefficients that look random: none of
// them may be reported. The loop's own relations (p = base + 4·i, a
// per-run constant scaled by 2) still are, and so is a relation with a
// large coefficient that many rows show (k = 0x9e3779b9·i: a multiplication
// strength-reduced to an induction variable).
func TestEqualitiesCoincidental(t *testing.T) {
	names := []string{"e0", "e1", "e2", "e3", "e4", "e5", "base", "twice", "i", "p", "k"}
	for seed := uint64(0); seed < 10; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		f := newFixture(names, nil)
		for run := 0; run < 5; run++ {
			var e [6]uint64
			for j := range e {
				e[j] = rng.Uint64()
			}
			base := rng.Uint64() &^ 3
			for i := uint64(0); i < 1+uint64(run)*3; i++ {
				f.states = append(f.states, State{Vals: []uint64{e[0], e[1], e[2], e[3], e[4], e[5], base, 2 * e[3], i, base + 4*i, 0x9e3779b9 * i}})
			}
		}
		cs := f.learn(t, Options{Seed: seed, Kinds: Kinds(Equality)})
		f.holdsEverywhere(t, cs)
		eqs := descs(cs, Equality)
		for _, want := range []string{"p = base + 4·i", "twice = 2·e3", "k = 0x9e3779b9·i"} {
			if !slices.Contains(eqs, want) {
				t.Fatalf("seed %d: %q missing from %q", seed, want, eqs)
			}
		}
		for _, d := range eqs {
			if strings.Count(d, "·")+strings.Count(d, "+")+strings.Count(d, "−") > 2 {
				t.Fatalf("seed %d: coincidental relation %q among %q", seed, d, eqs)
			}
		}
	}
}

// TestEqualitiesSmallCoefficients plants what a Houdini counterexample
// adds to a loop node's table (Options.SmallCoefficients): runs whose entry
// columns are constant within a run, a loop relation s = 3·i + 4·l − 3,
// and one row, the model's, where the entry columns take new values and
// s is off by 5. The grown table's kernel holds s = 3·i + 4·l + w(e) for
// a w that vanishes on the runs and is 2 on the model's row; with the
// option it must not be proposed, while the small relations that hold on
// every row (p = 4·i + base, base the same in every run) still are.
func TestEqualitiesSmallCoefficients(t *testing.T) {
	names := []string{"e0", "e1", "e2", "e3", "base", "i", "l", "p", "s"}
	for seed := uint64(0); seed < 10; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		f := newFixture(names, nil)
		base := rng.Uint64() &^ 3
		for run := 0; run < 3; run++ {
			var e [4]uint64
			for j := range e {
				e[j] = rng.Uint64()
			}
			for i := uint64(0); i < 4+uint64(run)*3; i++ {
				l := rng.Uint64() & 0xffff
				f.states = append(f.states, State{Vals: []uint64{e[0], e[1], e[2], e[3], base, i, l, base + 4*i, 3*i + 4*l - 3}})
			}
		}
		i, l := uint64(17), uint64(5)
		f.states = append(f.states, State{Vals: []uint64{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64(), base, i, l, base + 4*i, 3*i + 4*l - 3 + 5}})
		mixed := func(eqs []string) bool {
			for _, d := range eqs {
				words := strings.FieldsFunc(d, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
				if slices.Contains(words, "s") && slices.ContainsFunc(words, func(w string) bool { return len(w) == 2 && w[0] == 'e' }) {
					return true
				}
			}
			return false
		}
		plain := descs(f.learn(t, Options{Seed: seed, Kinds: Kinds(Equality)}), Equality)
		if !mixed(plain) {
			t.Fatalf("seed %d: without the option no relation mixes s with the entry columns (%q): the test plants nothing", seed, plain)
		}
		cs := f.learn(t, Options{Seed: seed, Kinds: Kinds(Equality), SmallCoefficients: true})
		f.holdsEverywhere(t, cs)
		eqs := descs(cs, Equality)
		if mixed(eqs) {
			t.Fatalf("seed %d: a relation of s fitted to the model's row: %q", seed, eqs)
		}
		if !slices.ContainsFunc(eqs, func(d string) bool { return strings.HasPrefix(d, "p = 4·i ") }) {
			t.Fatalf("seed %d: p = 4·i + base missing from %q", seed, eqs)
		}
	}
}

// TestNarrowSolved: a 64-bit pointer s that is a base p plus a 32-bit
// count n (s = p + n on rows where nothing wraps) gets, beside the 64-bit
// equality solved for s, a relation of n, s and p that still holds once
// n wraps (n ≡ s − p mod 2^32, the inductive form); and so does a count
// with coefficient −1 (s = p − n, a walk down).
func TestNarrowSolved(t *testing.T) {
	for _, down := range []bool{false, true} {
		f := newFixture([]string{"p", "n", "s"}, []uint32{64, 32, 64})
		rng := rand.New(rand.NewPCG(19, 20))
		row := func(total uint64) State {
			p := rng.Uint64()&(1<<47-1) | 1<<40
			s := p + total
			if down {
				s = p - total
			}
			return State{Vals: []uint64{p, total & 0xffff_ffff, s}}
		}
		for range 30 {
			f.states = append(f.states, row(rng.Uint64N(1<<20)))
		}
		cs := f.learn(t, Options{Kinds: Kinds(Equality, Congruence)})
		f.holdsEverywhere(t, cs)
		// Rows past a wrap of n: the 64-bit equalities fail there.
		var wrapped []State
		for range 30 {
			wrapped = append(wrapped, row(1<<32+rng.Uint64N(1<<20)))
		}
		found := false
		for _, c := range cs {
			if c.Kind != Congruence || !mentions(f.b, c.Term, f.s.Vars[1].Term) || !mentions(f.b, c.Term, f.s.Vars[2].Term) {
				continue
			}
			holds := true
			for _, st := range wrapped {
				v, err := ir.NewEvaluator(f.b, f.env(st)).Eval(c.Term)
				holds = holds && err == nil && v.Bool()
			}
			found = found || holds
		}
		if !found {
			t.Errorf("down %v: no congruence of n, s and p that survives n's wrap among %q", down, descs(cs, Congruence))
		}
	}
}

// mentions reports whether t reads variable x.
func mentions(b *ir.Builder, t, x ir.Term) bool {
	for _, u := range b.PostOrder(t) {
		if u == x {
			return true
		}
	}
	return false
}
