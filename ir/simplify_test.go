package ir_test

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"eqc/ir"
	"eqc/ir/irtest"
)

// The oracle for the simplifier is the evaluator: a simplified term must
// evaluate like the original under every environment we can draw.

// checkSimplified evaluates t and r = Simplify(t) under envs drawn from rng
// and reports any difference with the environment that shows it.
func checkSimplified(tb testing.TB, rng *rand.Rand, b *ir.Builder, t, r ir.Term, envs int) {
	tb.Helper()
	if b.Sort(t) != b.Sort(r) {
		tb.Fatalf("simplify changed the sort of %s (%v) to %v: %s", b.Short(t), b.Sort(t), b.Sort(r), b.Short(r))
	}
	for range envs {
		env := irtest.RandomEnv(rng, b, t)
		vt, err := ir.Eval(b, t, env)
		if err != nil {
			tb.Fatalf("eval %s: %v", b.Short(t), err)
		}
		vr, err := ir.Eval(b, r, env)
		if err != nil {
			tb.Fatalf("eval simplified %s: %v", b.Short(r), err)
		}
		if !vt.Equal(vr) {
			tb.Fatalf("simplify changed the value\n term:       %s\n simplified: %s\n env:        %s\n term value: %v\n simplified value: %v",
				b.Short(t), b.Short(r), envString(b, env), vt, vr)
		}
	}
}

func envString(b *ir.Builder, env *ir.MapEnv) string {
	var parts []string
	for t, v := range env.Vars {
		s := v.String()
		if len(s) > 300 { // memories print every byte written
			s = s[:300] + "…"
		}
		parts = append(parts, fmt.Sprintf("%s=%s", b.VarName(t), s))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// dagSize is the number of distinct subterms of t.
func dagSize(b *ir.Builder, t ir.Term) int { return len(b.PostOrder(t)) }

// growthBudget bounds how many nodes simplification may add to t. Most
// rules shrink terms or keep their size; the exceptions add a constant
// number of nodes per occurrence of some op: x − c becomes x + (−c) and
// x + c1 = c2 becomes x = c2 − c1 (a new constant each, when the old one is
// shared), ite(c, x, x + y) becomes x + ite(c, 0, y) (a new zero), an
// extract of a select becomes a narrower select at a + k (an
// address and its constant), and a read split around a partial overlap
// becomes at most three pieces with addresses and a concat.
func growthBudget(b *ir.Builder, t ir.Term) int {
	n := 2
	for _, u := range b.PostOrder(t) {
		switch b.Op(u) {
		case ir.OpSub, ir.OpEq, ir.OpIte:
			n++
		case ir.OpExtract:
			n += 2
		case ir.OpSelect:
			n += 12
		}
	}
	return n
}

func TestSimplifyPreservesValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	terms := 20000
	if testing.Short() {
		terms = 2000
	}
	fired := make(map[string]int)
	var b *ir.Builder
	var s *ir.Simplifier
	for i := range terms {
		if i%500 == 0 { // fresh builders keep memory flat and vary term ids
			if s != nil {
				for k, v := range s.Fired() {
					fired[k] += v
				}
			}
			b = ir.NewBuilder()
			s = ir.NewSimplifier(b)
		}
		sortOf := irtest.RandomSort(rng)
		term := irtest.RandomTerm(rng, b, sortOf, 1+rng.IntN(5))
		r := s.Simplify(term)
		checkSimplified(t, rng, b, term, r, 3)

		// Idempotent: a normal form is its own normal form, for this
		// simplifier and a fresh one.
		if r2 := s.Simplify(r); r2 != r {
			t.Fatalf("simplify not idempotent on %s:\n once:  %s\n twice: %s", b.Short(term), b.Short(r), b.Short(r2))
		}
		if r3 := ir.Simplify(b, r); r3 != r {
			t.Fatalf("fresh simplifier changes the normal form of %s:\n %s\n %s", b.Short(term), b.Short(r), b.Short(r3))
		}
		if grow := dagSize(b, r) - dagSize(b, term); grow > growthBudget(b, term) {
			t.Fatalf("simplify grew %s by %d nodes to %s", b.Short(term), grow, b.Short(r))
		}
	}
	for k, v := range s.Fired() {
		fired[k] += v
	}
	var never []string
	for _, name := range ir.RuleNames() {
		if fired[name] == 0 {
			never = append(never, name)
		}
	}
	t.Logf("rules fired over %d terms: %d of %d; never: %v", terms, len(ir.RuleNames())-len(never), len(ir.RuleNames()), never)
	if !testing.Short() && len(never) > len(ir.RuleNames())/10 {
		t.Errorf("too many rules never fired on random terms: %v", never)
	}
}

// memFixture is a memory, a base address and a value to store, for the
// select/store rules.
type memFixture struct {
	b     *ir.Builder
	s     *ir.Simplifier
	m     ir.Term
	base  ir.Term
	fired []string
}

func newMemFixture() *memFixture {
	f := &memFixture{b: ir.NewBuilder()}
	f.s = ir.NewSimplifier(f.b)
	f.s.OnFire = func(rule string, _, _ ir.Term) { f.fired = append(f.fired, rule) }
	f.m = f.b.Var("m", ir.MemSort)
	f.base = f.b.Var("base", ir.BVSort(64))
	return f
}

func (f *memFixture) at(off uint64) ir.Term { return f.b.Add(f.base, f.b.Const(64, off)) }

func (f *memFixture) val(n uint32) ir.Term {
	return f.b.Var(fmt.Sprintf("v%d", n), ir.BVSort(8*n))
}

func (f *memFixture) firedRule(name string) bool {
	for _, r := range f.fired {
		if r == name {
			return true
		}
	}
	return false
}

func TestSimplifySelectStore(t *testing.T) {
	type tc struct {
		name    string
		wa      func(f *memFixture) ir.Term // write address
		wn      uint32
		ra      func(f *memFixture) ir.Term // read address
		rn      uint32
		rule    string                                 // must fire
		want    func(f *memFixture, v ir.Term) ir.Term // expected result, if exact
		notRule string                                 // must not fire
	}
	off := func(k uint64) func(f *memFixture) ir.Term { return func(f *memFixture) ir.Term { return f.at(k) } }
	abs := func(k uint64) func(f *memFixture) ir.Term {
		return func(f *memFixture) ir.Term { return f.b.Const(64, k) }
	}
	base := func(f *memFixture) ir.Term { return f.base }
	cases := []tc{
		{name: "same", wa: off(8), wn: 8, ra: off(8), rn: 8, rule: "select/store-same",
			want: func(f *memFixture, v ir.Term) ir.Term { return v }},
		{name: "same via sub", wa: off(minus(8)), wn: 4,
			ra: func(f *memFixture) ir.Term { return f.b.Sub(f.base, f.b.Const(64, 8)) }, rn: 4,
			rule: "select/store-same", want: func(f *memFixture, v ir.Term) ir.Term { return v }},
		{name: "disjoint after", wa: base, wn: 8, ra: off(8), rn: 4, rule: "select/store-disjoint",
			want: func(f *memFixture, _ ir.Term) ir.Term { return f.b.Select(f.m, f.at(8), 4) }},
		{name: "disjoint before", wa: base, wn: 8, ra: off(minus(4)), rn: 4, rule: "select/store-disjoint",
			want: func(f *memFixture, _ ir.Term) ir.Term { return f.b.Select(f.m, f.at(minus(4)), 4) }},
		{name: "disjoint constants", wa: abs(0x1000), wn: 4, ra: abs(0x1004), rn: 4, rule: "select/store-disjoint",
			want: func(f *memFixture, _ ir.Term) ir.Term { return f.b.Select(f.m, f.b.Const(64, 0x1004), 4) }},
		{name: "within", wa: base, wn: 8, ra: off(2), rn: 2, rule: "select/store-within",
			want: func(f *memFixture, v ir.Term) ir.Term { return f.b.Extract(v, 31, 16) }},
		{name: "partial", wa: base, wn: 4, ra: off(2), rn: 4, rule: "select/store-partial",
			want: func(f *memFixture, v ir.Term) ir.Term {
				return f.b.Concat(f.b.Select(f.m, f.at(4), 2), f.b.Extract(v, 31, 16))
			}},
		{name: "read covers write", wa: off(2), wn: 2, ra: base, rn: 8, rule: "select/store-partial"},
		// Wraparound: a write of 2 bytes at base−1 covers base−1 and base,
		// so a read at base overlaps it although base > base−1 "as integers".
		{name: "wrap overlaps", wa: off(^uint64(0)), wn: 2, ra: base, rn: 1, rule: "select/store-within",
			notRule: "select/store-disjoint",
			want:    func(f *memFixture, v ir.Term) ir.Term { return f.b.Extract(v, 15, 8) }},
		{name: "wrap overlaps wider", wa: off(^uint64(0)), wn: 8, ra: base, rn: 8, rule: "select/store-partial",
			notRule: "select/store-disjoint"},
		{name: "wrap constants overlap", wa: abs(^uint64(0)), wn: 4, ra: abs(2), rn: 1, rule: "select/store-within",
			notRule: "select/store-disjoint"},
		{name: "wrap constants disjoint", wa: abs(^uint64(0)), wn: 4, ra: abs(3), rn: 1, rule: "select/store-disjoint"},
		{name: "wrap read reaches write", wa: abs(0), wn: 4, ra: abs(^uint64(1)), rn: 4, rule: "select/store-partial",
			notRule: "select/store-disjoint"},
		{name: "write at base−1 one byte", wa: off(^uint64(0)), wn: 1, ra: base, rn: 1, rule: "select/store-disjoint"},
		{name: "unrelated bases", wa: base, wn: 8,
			ra: func(f *memFixture) ir.Term { return f.b.Var("other", ir.BVSort(64)) }, rn: 8,
			notRule: "select/store-disjoint"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newMemFixture()
			b := f.b
			v := f.val(c.wn)
			term := b.Select(b.Store(f.m, c.wa(f), c.wn, v), c.ra(f), c.rn)
			r := f.s.Simplify(term)
			if c.rule != "" && !f.firedRule(c.rule) {
				t.Errorf("%s did not fire on %s (fired %v, got %s)", c.rule, b.Short(term), f.fired, b.Short(r))
			}
			if c.notRule != "" && f.firedRule(c.notRule) {
				t.Errorf("%s fired on %s (got %s)", c.notRule, b.Short(term), b.Short(r))
			}
			if c.want != nil {
				if want := f.s.Simplify(c.want(f, v)); r != want {
					t.Errorf("simplify %s = %s, want %s", b.Short(term), b.Short(r), b.Short(want))
				}
			}
			checkSimplified(t, rand.New(rand.NewPCG(7, uint64(len(c.name)))), b, term, r, 50)
			if f.s.Fired()[c.rule] == 0 && c.rule != "" {
				t.Errorf("fire count of %s is 0", c.rule)
			}
		})
	}
}

func TestSimplifyStoreRules(t *testing.T) {
	f := newMemFixture()
	b := f.b
	v4, v8 := f.val(4), f.val(8)
	w4 := b.Var("w4", ir.BVSort(32))

	same := b.Store(b.Store(f.m, f.at(4), 4, v4), f.at(4), 4, w4)
	if got, want := f.s.Simplify(same), b.Store(f.m, f.at(4), 4, w4); got != want {
		t.Errorf("store over the same store: %s", b.Short(got))
	}
	cover := b.Store(b.Store(f.m, f.at(2), 4, v4), f.base, 8, v8)
	if got, want := f.s.Simplify(cover), b.Store(f.m, f.base, 8, v8); got != want {
		t.Errorf("store covering a store: %s", b.Short(got))
	}
	notCover := b.Store(b.Store(f.m, f.at(6), 4, v4), f.base, 8, v8)
	if got := f.s.Simplify(notCover); got != notCover {
		t.Errorf("store not covering a store was simplified to %s", b.Short(got))
	}
	// An 8-byte write at base−1 covers base−1 … base+6 mod 2^64.
	wrapCover := b.Store(b.Store(f.m, f.at(2), 4, v4), f.at(^uint64(0)), 8, v8)
	if got := f.s.Simplify(wrapCover); got != b.Store(f.m, f.at(^uint64(0)), 8, v8) {
		t.Errorf("wrapping cover: %s", b.Short(got))
	}
	writeBack := b.Store(f.m, f.at(3), 4, b.Select(f.m, f.at(3), 4))
	if got := f.s.Simplify(writeBack); got != f.m {
		t.Errorf("write-back: %s", b.Short(got))
	}
	for _, name := range []string{"store/store-cover", "store/write-back"} {
		if f.s.Fired()[name] == 0 {
			t.Errorf("%s never fired", name)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, term := range []ir.Term{same, cover, notCover, wrapCover, writeBack} {
		probe := b.Select(term, f.at(uint64(rng.IntN(12))-2), 8)
		checkSimplified(t, rng, b, probe, f.s.Simplify(probe), 50)
	}
}

// TestSimplifyDeepStoreChain short-circuits a read through 100k stores
// that it does not overlap, iteratively.
func TestSimplifyDeepStoreChain(t *testing.T) {
	f := newMemFixture()
	f.s.OnFire = nil
	b := f.b
	const n = 100_000
	cur := f.m
	for i := uint64(0); i < n; i++ {
		cur = b.Store(cur, f.at(8*i), 8, b.Const(64, i))
	}
	below := b.Select(cur, b.Sub(f.base, b.Const(64, 8)), 8)
	if got, want := f.s.Simplify(below), b.Select(f.m, f.at(minus(8)), 8); got != want {
		t.Errorf("select below the chain = %s, want %s", b.Short(got), b.Short(want))
	}
	mid := b.Select(cur, f.at(8*(n/2)+4), 2)
	if got, want := f.s.Simplify(mid), b.Const(16, (n/2)>>32); got != want {
		t.Errorf("select inside the chain = %s, want %s", b.Short(got), b.Short(want))
	}
	if got := f.s.Fired()["select/store-disjoint"]; got < n {
		t.Errorf("store-disjoint fired %d times, want ≥ %d", got, n)
	}
}

func TestSimplifyRuleExamples(t *testing.T) {
	b := ir.NewBuilder()
	x8 := b.Var("x", ir.BVSort(8))
	y8 := b.Var("y", ir.BVSort(8))
	x128 := b.Var("X", ir.BVSort(128))
	p := b.Var("p", ir.BoolSort)
	c := func(w uint32, v uint64) ir.Term { return b.Const(w, v) }
	cases := []struct{ in, want ir.Term }{
		{b.Add(x8, c(8, 0)), x8},
		{b.Add(c(8, 3), x8), b.Add(x8, c(8, 3))},
		{b.Add(b.Add(x8, c(8, 200)), c(8, 56)), x8},
		{b.Sub(x8, c(8, 1)), b.Add(x8, c(8, 0xff))},
		{b.Sub(x8, x8), c(8, 0)},
		{b.Mul(x128, c(128, 1)), x128},
		{b.Mul(x8, c(8, 0)), c(8, 0)},
		{b.BVAnd(x128, b.ConstBV(ir.OnesBV(128))), x128},
		{b.BVAnd(x8, c(8, 0)), c(8, 0)},
		{b.BVOr(x8, c(8, 0)), x8},
		{b.BVXor(x8, x8), c(8, 0)},
		{b.BVXor(x8, c(8, 0xff)), b.BVNot(x8)},
		{b.Neg(b.Neg(x8)), x8},
		{b.BVNot(b.BVNot(x128)), x128},
		{b.Not(b.Not(p)), p},
		{b.And(p, b.True()), p},
		{b.And(p, b.False()), b.False()},
		{b.Or(b.True(), p), b.True()},
		{b.Or(p, b.Not(p)), b.True()},
		{b.Ite(b.True(), x8, y8), x8},
		{b.Ite(p, x8, x8), x8},
		{b.Ite(b.Not(p), x8, y8), b.Ite(p, y8, x8)},
		{b.Eq(x128, x128), b.True()},
		{b.Eq(b.Add(x8, c(8, 1)), c(8, 5)), b.Eq(x8, c(8, 4))},
		{b.Extract(b.Extract(x128, 100, 20), 10, 3), b.Extract(x128, 30, 23)},
		{b.Extract(b.Concat(x8, y8), 7, 0), y8},
		{b.Extract(b.Concat(x8, y8), 14, 9), b.Extract(x8, 6, 1)},
		{b.Extract(b.ZeroExt(x8, 100), 7, 2), b.Extract(x8, 7, 2)},
		{b.Extract(b.ZeroExt(x8, 100), 100, 8), b.ConstBV(ir.ZeroBV(93))},
		{b.Extract(b.ZeroExt(x8, 100), 63, 0), b.ZeroExt(x8, 56)},
		{b.SignExt(b.Mul(b.SignExt(x8, 8), b.SignExt(x8, 8)), 16), b.ZeroExt(b.Mul(b.SignExt(x8, 8), b.SignExt(x8, 8)), 16)},
		{b.SignExt(b.Mul(b.SignExt(x8, 8), b.SignExt(y8, 8)), 16), b.SignExt(b.Mul(b.SignExt(x8, 8), b.SignExt(y8, 8)), 16)},
		{b.SignExt(b.LShr(x8, c(8, 1)), 8), b.ZeroExt(b.LShr(x8, c(8, 1)), 8)},
		{b.SignExt(b.Mul(b.ZeroExt(b.Extract(x8, 2, 0), 5), b.BVAnd(y8, c(8, 15))), 8), b.ZeroExt(b.Mul(b.ZeroExt(b.Extract(x8, 2, 0), 5), b.BVAnd(y8, c(8, 15))), 8)},
		{b.Extract(b.SignExt(x8, 100), 6, 0), b.Extract(x8, 6, 0)},
		{b.Extract(x128, 127, 0), x128},
		{b.ZeroExt(b.ZeroExt(x8, 3), 5), b.ZeroExt(x8, 8)},
		{b.Concat(b.Extract(x128, 99, 64), b.Extract(x128, 63, 10)), b.Extract(x128, 99, 10)},
		{b.Ult(x8, x8), b.False()},
		{b.Ule(c(8, 0), x8), b.True()},
		{b.Slt(c(8, 0x80), c(8, 0x7f)), b.True()},
		{b.UDiv(x8, c(8, 0)), c(8, 0xff)},
		{b.URem(x8, c(8, 0)), x8},
		{b.Shl(x8, c(8, 9)), c(8, 0)},
		{b.Rotl(x8, c(8, 16)), x8},
		{b.Add(c(128, 5), b.ConstBV(ir.OnesBV(128))), c(128, 4)},
		{b.Add(y8, x8), b.Add(x8, y8)}, // commute by term id
		// An address's constant offset ends outermost, scaled out of an
		// index: a + 2·(i + 3) + 2 and a + 2·i + 8 meet.
		{b.Add(x8, b.Add(y8, c(8, 3))), b.Add(b.Add(x8, y8), c(8, 3))},
		{b.Add(b.Add(x8, b.Shl(b.Add(y8, c(8, 3)), c(8, 1))), c(8, 2)), b.Add(b.Add(x8, b.Shl(y8, c(8, 1))), c(8, 8))},
		{b.Shl(b.Add(y8, c(8, 3)), c(8, 8)), c(8, 0)},
		// A conditional increment is an increment by a choice.
		{b.Ite(p, x8, b.Add(x8, y8)), b.Add(x8, b.Ite(p, c(8, 0), y8))},
		{b.Ite(p, b.Add(y8, x8), x8), b.Add(x8, b.Ite(p, y8, c(8, 0)))},
		// A lane mask is a choice.
		{b.BVAnd(x8, b.Ite(p, c(8, 0xff), c(8, 0))), b.Ite(p, x8, c(8, 0))},
		{b.BVAnd(b.Ite(p, c(8, 0), c(8, 0xff)), y8), b.Ite(p, c(8, 0), y8)},
		{b.BVAnd(x8, b.Ite(p, c(8, 0x0f), c(8, 0))), b.BVAnd(x8, b.Ite(p, c(8, 0x0f), c(8, 0)))},
		// A lane of a bitwise op over lanes is the op on the lane.
		{b.Extract(b.BVAnd(x128, b.Concat(b.ZeroExt(x8, 56), b.Concat(b.ZeroExt(y8, 48), b.Const(8, 1)))), 71, 64), b.BVAnd(b.Extract(x128, 71, 64), x8)},
		{b.Extract(b.BVXor(x128, c(128, 0xf0)), 7, 4), b.BVNot(b.Extract(x128, 7, 4))},
		// The low bits of a sum or product are those of the operands'
		// low bits; a sign extension cut past the sign is a shorter one.
		{b.Extract(b.SignExt(x8, 100), 15, 0), b.SignExt(x8, 8)},
		{b.Extract(b.Mul(b.SignExt(x8, 56), b.SignExt(y8, 56)), 15, 0), b.Mul(b.SignExt(x8, 8), b.SignExt(y8, 8))},
		{b.Extract(b.Add(b.ZeroExt(x8, 8), c(16, 0x1ff)), 7, 0), b.Add(x8, c(8, 0xff))},
		{b.Extract(b.Sub(b.Extract(x128, 31, 0), b.ZeroExt(y8, 24)), 7, 0), b.Sub(b.Extract(x128, 7, 0), y8)},
		{b.Extract(b.Mul(x128, c(128, 3)), 7, 0), b.Extract(b.Mul(x128, c(128, 3)), 7, 0)}, // x128 does not narrow
		// SSE2's blend (m & a) | (~m & b) of a compare's lane masks is a choice.
		{b.BVNot(b.Concat(x8, b.Ite(p, c(8, 0xff), c(8, 0)))), b.Concat(b.BVNot(x8), b.Ite(p, c(8, 0), c(8, 0xff)))},
		{b.BVOr(b.BVAnd(b.Ite(p, c(8, 0xff), c(8, 0)), x8), b.BVAnd(b.BVNot(b.Ite(p, c(8, 0xff), c(8, 0))), y8)), b.Ite(p, x8, y8)},
		{b.Extract(b.BVOr(b.BVAnd(x128, b.Concat(b.Ite(p, c(64, 0), b.ConstBV(ir.OnesBV(64))), c(64, 0))), b.BVAnd(b.BVNot(b.Concat(b.Ite(p, c(64, 0), b.ConstBV(ir.OnesBV(64))), c(64, 0))), b.ZeroExt(y8, 120))), 127, 64), b.Ite(p, c(64, 0), b.Extract(x128, 127, 64))},
		{b.BVXor(b.Ite(p, x8, c(8, 1)), b.Ite(p, y8, c(8, 1))), b.Ite(p, b.BVXor(x8, y8), c(8, 0))},
		// pmulhw's high half and pmullw's low half are the whole product.
		{b.Concat(b.Extract(b.Mul(b.SignExt(x8, 8), b.SignExt(y8, 8)), 15, 8), b.Mul(x8, y8)), b.Mul(b.SignExt(x8, 8), b.SignExt(y8, 8))},
	}
	mk := func(op ir.Op, p0 uint32, args ...ir.Term) ir.Term {
		t, err := b.Make(op, args, p0, 0)
		if err != nil {
			panic(err)
		}
		return t
	}
	// Extensions by 0 bits, which only Make builds.
	cases = append(cases,
		struct{ in, want ir.Term }{mk(ir.OpZeroExt, 0, x8), x8},
		struct{ in, want ir.Term }{mk(ir.OpSignExt, 3, mk(ir.OpZeroExt, 0, x8)), b.SignExt(x8, 3)},
	)
	s := ir.NewSimplifier(b)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range cases {
		got := s.Simplify(c.in)
		if want := s.Simplify(c.want); got != want {
			t.Errorf("simplify %s = %s, want %s", b.Short(c.in), b.Short(got), b.Short(want))
		}
		checkSimplified(t, rng, b, c.in, got, 20)
	}
}

// TestApplyMinMaxExhaustive: a function of an operand pair's minimum and
// maximum takes them in one form whichever operand comes first, and the
// rewritten term agrees with the original on every pair of 4-bit values
// (equal ones included) under a function that tells its arguments' order.
func TestApplyMinMaxExhaustive(t *testing.T) {
	b := ir.NewBuilder()
	x, y := b.Var("x", ir.BVSort(4)), b.Var("y", ir.BVSort(4))
	f := b.DeclareFunc("f", []ir.Sort{ir.BVSort(4), ir.BVSort(4)}, ir.BVSort(8))
	s := ir.NewSimplifier(b)
	minmax := func(p, q ir.Term) ir.Term {
		c := b.Ult(p, q)
		return b.Apply(f, b.Ite(c, p, q), b.Ite(c, q, p))
	}
	xy, yx := s.Simplify(minmax(x, y)), s.Simplify(minmax(y, x))
	if xy != yx {
		t.Fatalf("f of the minimum and maximum: %s and %s, want one term", b.Short(xy), b.Short(yx))
	}
	// Not for a pair that is not one comparison's minimum and maximum.
	other := b.Apply(f, b.Ite(b.Ult(y, x), y, x), b.Ite(b.Ult(y, x), y, x))
	if got := s.Simplify(other); got != other {
		t.Errorf("simplify %s = %s, want it unchanged", b.Short(other), b.Short(got))
	}
	fn := func(args []ir.Value) ir.Value {
		return ir.BVValue(ir.NewBV(8, args[0].BV().Uint64()<<4|args[1].BV().Uint64()))
	}
	for vx := range uint64(16) {
		for vy := range uint64(16) {
			env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{x: ir.BVValue(ir.NewBV(4, vx)), y: ir.BVValue(ir.NewBV(4, vy))}, Funcs: map[string]func([]ir.Value) ir.Value{"f": fn}}
			for _, in := range []ir.Term{minmax(x, y), minmax(y, x)} {
				want, err1 := ir.Eval(b, in, env)
				have, err2 := ir.Eval(b, xy, env)
				if err1 != nil || err2 != nil || !want.Equal(have) {
					t.Fatalf("%s against %s: %v and %v at x=%d y=%d (%v %v)", b.Short(in), b.Short(xy), want, have, vx, vy, err1, err2)
				}
			}
		}
	}
}

// TestNarrowDivision checks the division rules of zero-extended operands
// exhaustively at 8 bits widened to 16, division by zero included.
func TestNarrowDivision(t *testing.T) {
	b := ir.NewBuilder()
	x, y := b.Var("x", ir.BVSort(8)), b.Var("y", ir.BVSort(8))
	simp := ir.NewSimplifier(b)
	for _, mk := range []func(a, c ir.Term) ir.Term{b.UDiv, b.URem} {
		term := mk(b.ZeroExt(x, 8), b.ZeroExt(y, 8))
		r := simp.Simplify(term)
		if r == term {
			t.Fatalf("%s not rewritten", b.Short(term))
		}
		for xv := range 256 {
			for yv := range 256 {
				env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{x: ir.BVValue(ir.NewBV(8, uint64(xv))), y: ir.BVValue(ir.NewBV(8, uint64(yv)))}}
				vt, err1 := ir.Eval(b, term, env)
				vr, err2 := ir.Eval(b, r, env)
				if err1 != nil || err2 != nil || !vt.Equal(vr) {
					t.Fatalf("%s vs %s at x=%d y=%d: %v %v (%v %v)", b.Short(term), b.Short(r), xv, yv, vt, vr, err1, err2)
				}
			}
		}
	}
}

func TestRuleNamesUnique(t *testing.T) {
	seen := make(map[string]bool)
	for _, n := range ir.RuleNames() {
		if seen[n] {
			t.Errorf("rule %s listed twice", n)
		}
		seen[n] = true
	}
	if !seen["select/store-disjoint"] || !seen["add/fold"] {
		t.Errorf("missing rules: %v", ir.RuleNames())
	}
}

// fuzzTerm derives a generator seed from arbitrary bytes.
func fuzzRand(data []byte) *rand.Rand {
	h := fnv.New64a()
	h.Write(data)
	var k [8]byte
	copy(k[:], data)
	return rand.New(rand.NewPCG(h.Sum64(), binary.LittleEndian.Uint64(k[:])))
}

func FuzzSimplify(f *testing.F) {
	for _, seed := range []string{"", "a", "select", "store-store", "\x00\x01\x02", "width-128"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rng := fuzzRand(data)
		b := ir.NewBuilder()
		term := irtest.RandomTerm(rng, b, irtest.RandomSort(rng), 1+rng.IntN(6))
		r := ir.Simplify(b, term)
		checkSimplified(t, rng, b, term, r, 4)
		if r2 := ir.Simplify(b, r); r2 != r {
			t.Fatalf("simplify not idempotent on %s: %s then %s", b.Short(term), b.Short(r), b.Short(r2))
		}
	})
}

// arithDAG builds a 10k-node arithmetic DAG over three 64-bit variables in
// which every node reuses earlier ones, like the transfer function of a long
// straight-line block.
func arithDAG(b *ir.Builder, nodes int) ir.Term {
	rng := rand.New(rand.NewPCG(42, 42))
	ts := []ir.Term{b.Var("x", ir.BVSort(64)), b.Var("y", ir.BVSort(64)), b.Var("z", ir.BVSort(64))}
	for len(ts) < nodes {
		x := ts[len(ts)-1]
		y := ts[rng.IntN(len(ts))]
		var t ir.Term
		switch rng.IntN(8) {
		case 0:
			t = b.Add(x, y)
		case 1:
			t = b.Sub(x, b.Const(64, uint64(rng.IntN(16))))
		case 2:
			t = b.Mul(x, b.Const(64, uint64(rng.IntN(4))))
		case 3:
			t = b.BVXor(x, y)
		case 4:
			t = b.BVAnd(x, b.Const(64, ^uint64(0)>>rng.IntN(3)))
		case 5:
			t = b.Add(b.Add(x, b.Const(64, 3)), b.Const(64, 5))
		case 6:
			t = b.Ite(b.Ult(x, y), x, y)
		default:
			t = b.ZeroExt(b.Extract(x, 31, 0), 32)
		}
		ts = append(ts, t)
	}
	return ts[len(ts)-1]
}

const dagNodes = 10_000

func BenchmarkBuildDAG(bb *testing.B) {
	for bb.Loop() {
		arithDAG(ir.NewBuilder(), dagNodes)
	}
}

func BenchmarkSimplifyDAG(bb *testing.B) {
	b := ir.NewBuilder()
	root := arithDAG(b, dagNodes)
	for bb.Loop() {
		ir.NewSimplifier(b).Simplify(root)
	}
	bb.ReportMetric(float64(dagSize(b, root)), "nodes")
}

func BenchmarkEvalDAG(bb *testing.B) {
	b := ir.NewBuilder()
	root := arithDAG(b, dagNodes)
	env := irtest.RandomEnv(rand.New(rand.NewPCG(1, 1)), b, root)
	for bb.Loop() {
		if _, err := ir.NewEvaluator(b, env).Eval(root); err != nil {
			bb.Fatal(err)
		}
	}
}

func BenchmarkSimplifyStoreChain(bb *testing.B) {
	f := newMemFixture()
	f.s.OnFire = nil
	b := f.b
	cur := f.m
	for i := uint64(0); i < 10_000; i++ {
		cur = b.Store(cur, f.at(8*i), 8, b.Const(64, i))
	}
	below := b.Select(cur, f.at(minus(8)), 8)
	for bb.Loop() {
		ir.NewSimplifier(b).Simplify(below)
	}
}

// minus is −k mod 2^64, an offset below a base.
func minus(k uint64) uint64 { return -k }

// TestSignExtOfClearExhaustive: sext(x) becomes zext(x) only where x's
// sign bit is clear for every value of its variables. Each shape, over
// 4-bit x and y, is checked on every assignment against the evaluator,
// and the rule must fire on the shapes whose sign is always clear.
func TestSignExtOfClearExhaustive(t *testing.T) {
	b := ir.NewBuilder()
	x, y := b.Var("x", ir.BVSort(4)), b.Var("y", ir.BVSort(4))
	p := b.Var("p", ir.BoolSort)
	c8 := func(v uint64) ir.Term { return b.Const(8, v) }
	sx, sy := b.SignExt(x, 4), b.SignExt(y, 4)
	zx, zy := b.ZeroExt(x, 4), b.ZeroExt(y, 4)
	cases := []struct {
		name  string
		inner ir.Term // 8 bits; the term checked is sext(inner) to 16 bits
		clear bool
	}{
		{"square of a narrow signed value", b.Mul(sx, sx), true},
		{"product of two narrow signed values", b.Mul(sx, sy), false},
		{"product of two narrow unsigned values", b.Mul(b.ZeroExt(b.Extract(x, 2, 0), 5), zy), true},
		{"product of two unsigned values up to the width", b.Mul(zx, zy), false},
		{"product that may wrap", b.Mul(b.ZeroExt(b.Concat(x, y), 0), zy), false},
		{"shifted right", b.LShr(b.Concat(x, y), c8(1)), true},
		{"shifted right by nothing", b.LShr(b.Concat(x, y), c8(0)), false},
		{"shifted past the width", b.LShr(b.Concat(x, y), c8(9)), true},
		{"masked", b.BVAnd(b.Concat(x, y), c8(0x7f)), true},
		{"masked with the sign", b.BVAnd(b.Concat(x, y), c8(0x80)), false},
		{"either of two clear values", b.Ite(p, zx, b.LShr(sy, c8(2))), true},
		{"either, one signed", b.Ite(p, zx, sy), false},
		{"low bits of a clear value", b.Extract(b.ZeroExt(b.BVAnd(zx, zy), 8), 7, 0), true},
	}
	s := ir.NewSimplifier(b)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			term := b.SignExt(c.inner, 8)
			r := s.Simplify(term)
			fired := b.Op(r) == ir.OpZeroExt || b.IsConst(r)
			if c.clear && !fired {
				t.Errorf("sext not made zext: %s → %s", b.Short(term), b.Short(r))
			}
			for xv := range uint64(16) {
				for yv := range uint64(16) {
					for _, pv := range []bool{false, true} {
						env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{
							x: ir.BVValue(ir.NewBV(4, xv)), y: ir.BVValue(ir.NewBV(4, yv)), p: ir.BoolValue(pv)}}
						vt, err1 := ir.Eval(b, term, env)
						vr, err2 := ir.Eval(b, r, env)
						if err1 != nil || err2 != nil || !vt.Equal(vr) {
							t.Fatalf("x=%d y=%d p=%v: %s = %v, simplified %s = %v (%v %v)", xv, yv, pv, b.Short(term), vt, b.Short(r), vr, err1, err2)
						}
					}
				}
			}
		})
	}
}
