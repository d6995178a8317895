package learn

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"eqc/ir"
)

// TestBoundsDirect compares the bound candidates with the extremes
// computed directly on mixed-width data.
func TestBoundsDirect(t *testing.T) {
	widths := []uint32{8, 16, 32, 64, 64, 1, 64}
	f := newFixture([]string{"b", "h", "e", "q", "neg", "flag", "z"}, widths)
	rng := rand.New(rand.NewPCG(21, 22))
	for range 100 {
		f.states = append(f.states, State{Vals: []uint64{
			uint64(3 + rng.IntN(200)),          // 8-bit, crosses 128: signed bounds differ
			uint64(rng.IntN(1000)),             // small 16-bit
			uint64(0xfffffff0 + rng.IntN(8)),   // 32-bit negatives
			rng.Uint64(),                       // anything
			uint64(int64(-50 + rng.IntN(100))), // 64-bit around zero
			uint64(rng.IntN(2)),
			uint64(rng.Uint32()), // 32-bit data zero-extended
		}})
	}
	cs := f.learn(t, Options{Kinds: Kinds(Bound)})
	f.holdsEverywhere(t, cs)
	var want []string
	for i, w := range widths {
		umin, umax := ^uint64(0), uint64(0)
		smin, smax := int64(1<<62), int64(-1<<62)
		for _, st := range f.states {
			v := st.Vals[i]
			umin, umax = min(umin, v), max(umax, v)
			s := int64(v)
			if w < 64 && v >= 1<<(w-1) {
				s -= 1 << w
			}
			smin, smax = min(smin, s), max(smax, s)
		}
		name := f.s.Vars[i].Name
		if scatteredOracle(f.states, i, w) {
			if umin > 0 {
				want = append(want, name+" ≠ 0") // data (q): no extremes
			}
			if w == 64 && umax <= 0xffffffff {
				want = append(want, name+" ≤u "+num(0xffffffff)) // but the upper half clear (z)
			}
			continue
		}
		if umin != 0 {
			want = append(want, fmt.Sprintf("%s ≥u %s", name, num(umin)))
		}
		if umin > 1 && w > 1 {
			want = append(want, name+" ≠ 0")
		}
		if w == 64 && umax != ^uint64(0) || w < 64 && umax != 1<<w-1 {
			want = append(want, fmt.Sprintf("%s ≤u %s", name, num(umax)))
		}
		if w > 1 {
			if smin != -1<<(w-1) {
				want = append(want, fmt.Sprintf("%s ≥s %s", name, sdec(smin)))
			}
			if smax != 1<<(w-1)-1 {
				want = append(want, fmt.Sprintf("%s ≤s %s", name, sdec(smax)))
			}
		}
	}
	got := descs(cs, Bound)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("bounds\n got %q\nwant %q", got, want)
	}
}

func sdec(v int64) string {
	if v < 0 {
		return "-" + num(uint64(-v))
	}
	return num(uint64(v))
}

// TestOrdersDirect compares pairwise orders with a brute-force check of
// every ordered pair, signed and unsigned.
func TestOrdersDirect(t *testing.T) {
	widths := []uint32{64, 64, 64, 32, 8, 64, 64}
	names := []string{"i", "n", "p", "k", "c", "q", "s"}
	f := newFixture(names, widths)
	rng := rand.New(rand.NewPCG(23, 24))
	for range 80 {
		i := uint64(rng.IntN(50))
		n := i + uint64(rng.IntN(10))
		// q an address beside i (an array's pointer), s a sum of
		// elements that may go negative.
		f.states = append(f.states, State{Vals: []uint64{
			i, n, rng.Uint64() | 1<<63, uint64(rng.IntN(1 << 31)), uint64(rng.IntN(256)),
			0x6000_0000_0000 + 4*i, uint64(int64(rng.IntN(1<<34)) - 1<<33),
		}})
	}
	cs := f.learn(t, Options{Kinds: Kinds(Order), MaxOrders: 1000})
	f.holdsEverywhere(t, cs)
	var want []string
	for a := range names {
		for b := range names {
			if a == b {
				continue
			}
			if scatteredOracle(f.states, a, widths[a]) != scatteredOracle(f.states, b, widths[b]) {
				continue // data beside a narrow column (p, k): no candidate
			}
			if apartOracle(f.states, a, b, widths) {
				continue // a count or a sum beside an address: no candidate
			}
			for _, signed := range []bool{false, true} {
				if outsideNarrowOracle(f.states, a, b, widths, signed) {
					continue // an order for want of bits: no candidate
				}
				le, lt := true, true
				for _, st := range f.states {
					x, y := st.Vals[a], st.Vals[b]
					var less, eq bool
					if signed {
						sx, sy := sext64(x, widths[a]), sext64(y, widths[b])
						less, eq = sx < sy, sx == sy
					} else {
						less, eq = x < y, x == y
					}
					le = le && (less || eq)
					lt = lt && less
				}
				sign := map[bool]string{false: "u", true: "s"}[signed]
				switch {
				case lt:
					want = append(want, fmt.Sprintf("%s <%s %s", names[a], sign, names[b]))
					ne := fmt.Sprintf("%s ≠ %s", names[min(a, b)], names[max(a, b)])
					if !slices.Contains(want, ne) {
						want = append(want, ne)
					}
				case le:
					want = append(want, fmt.Sprintf("%s ≤%s %s", names[a], sign, names[b]))
				}
			}
		}
	}
	got := descs(cs, Order)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("orders\n got %q\nwant %q", got, want)
	}
	// The tightest relation, i ≤ n (slack 0), comes first.
	if len(cs) == 0 || cs[0].Desc != "i ≤u n" {
		t.Errorf("first order %v", cs)
	}
}

// scatteredOracle: column i has 32 bits or more, and its values spread
// over at least a quarter of them, read unsigned and read signed.
func scatteredOracle(states []State, i int, w uint32) bool {
	if w < 32 || len(states) < 4 {
		return false
	}
	if w == 64 && !slices.ContainsFunc(states, func(st State) bool { return st.Vals[i] > 0xffffffff }) {
		w = 32 // zero-extended 32-bit values are judged as such
	}
	spread := func(signed bool) bool {
		lo, hi := new(big.Int), new(big.Int)
		for k, st := range states {
			v := new(big.Int).SetUint64(st.Vals[i])
			if signed && st.Vals[i]>>(w-1)&1 == 1 {
				v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(w)))
			}
			if k == 0 || v.Cmp(lo) < 0 {
				lo.Set(v)
			}
			if k == 0 || v.Cmp(hi) > 0 {
				hi.Set(v)
			}
		}
		return hi.Sub(hi, lo).Cmp(new(big.Int).Lsh(big.NewInt(1), uint(w-2))) >= 0
	}
	return spread(false) && spread(true)
}

// apartOracle: columns a and b are both at least 48 bits wide and, read
// as signed numbers, one lies within ±2^39 on every row and the other
// beyond ±2^40 on every row.
func apartOracle(states []State, a, b int, widths []uint32) bool {
	if widths[a] < 48 || widths[b] < 48 {
		return false
	}
	within := func(c int, lim float64, in bool) bool {
		for _, st := range states {
			v := float64(sext64(st.Vals[c], widths[c]))
			if (v < lim && v >= -lim) != in {
				return false
			}
		}
		return true
	}
	return within(a, 1<<39, true) && within(b, 1<<40, false) || within(b, 1<<39, true) && within(a, 1<<40, false)
}

// outsideNarrowOracle: columns a and b differ in width and every value of
// the wider lies outside the narrower width's range (as the signedness
// reads it).
func outsideNarrowOracle(states []State, a, b int, widths []uint32, signed bool) bool {
	if widths[a] == widths[b] {
		return false
	}
	wide, narrow := a, b
	if widths[b] > widths[a] {
		wide, narrow = b, a
	}
	wn := widths[narrow]
	above, below := true, true
	for _, st := range states {
		v := st.Vals[wide]
		if signed {
			s := sext64(v, widths[wide])
			above = above && s >= 1<<(wn-1)
			below = below && s < -(1<<(wn-1))
		} else {
			above = above && v >= 1<<wn
			below = false
		}
	}
	return above || below
}

func TestOrdersBudget(t *testing.T) {
	f := benchFixture(60, 200)
	all := len(f.learn(t, Options{Kinds: Kinds(Order), MaxOrders: 1 << 20}))
	if all < 21 {
		t.Fatalf("only %d orders in all", all)
	}
	for _, budget := range []int{-1, 5, 20} {
		cs := f.learn(t, Options{Kinds: Kinds(Order), MaxOrders: budget})
		if want := max(0, budget); len(cs) != want {
			t.Errorf("MaxOrders %d: %d candidates", budget, len(cs))
		}
	}
}

// TestWeakenBound: each bound kind moved to a value outside it, left
// alone for a value inside it or further than its own size (or maxSnap),
// and terms that are not bounds refused;
// the moved bound admits the value (checked by evaluation).
func TestWeakenBound(t *testing.T) {
	b := ir.NewBuilder()
	x := b.Var("x", ir.BVSort(8))
	y := b.Var("y", ir.BVSort(8))
	c := func(v uint64) ir.Term { return b.Const(8, v) }
	for _, tc := range []struct {
		bound ir.Term
		x     uint64
		want  ir.Term // NoTerm: not weakened
	}{
		{b.Ule(c(11), x), 10, b.Ule(c(10), x)},
		{b.Ule(c(11), x), 12, ir.NoTerm},
		{b.Ule(x, c(40)), 41, b.Ule(x, c(41))},
		{b.Ule(x, c(40)), 80, b.Ule(x, c(80))}, // moved by its own size
		{b.Ule(x, c(40)), 81, ir.NoTerm},       // further: a coincidence
		{b.Ule(x, c(4)), 20, b.Ule(x, c(20))},  // by maxSnap, however small
		{b.Ule(x, c(4)), 21, ir.NoTerm},
		{b.Ule(x, c(0x80)), 0xff, ir.NoTerm}, // x ≤u 255 says nothing
		{b.Ule(c(11), x), 0, ir.NoTerm},
		{b.Sle(c(0xfe), x), 0x80, ir.NoTerm},
		{b.Sle(c(0xfe), x), 0xf0, b.Sle(c(0xf0), x)}, // -2 to -16
		{b.Sle(c(0xfe), x), 0x05, ir.NoTerm},
		{b.Sle(x, c(3)), 0x80, ir.NoTerm}, // -128 ≤ 3
		{b.Sle(x, c(3)), 0x13, b.Sle(x, c(0x13))},
		{b.Sle(x, c(3)), 0x7e, ir.NoTerm},
		{b.Sle(x, c(0x40)), 0x7e, b.Sle(x, c(0x7e))},
		{b.Sle(x, c(3)), 0x7f, ir.NoTerm},
		{b.Ule(x, y), 0x7f, ir.NoTerm},
		{b.Eq(x, c(3)), 4, ir.NoTerm},
	} {
		value := func(t ir.Term) (ir.Value, bool) {
			if t != x {
				return ir.Value{}, false
			}
			return ir.BVValue(ir.NewBV(8, tc.x)), true
		}
		got, ok := WeakenBound(b, tc.bound, value, nil)
		if tc.want == ir.NoTerm {
			if ok {
				t.Errorf("WeakenBound(%s, x = %#x) = %s, want no change", b.Short(tc.bound), tc.x, b.Short(got))
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("WeakenBound(%s, x = %#x) = %s, %v; want %s", b.Short(tc.bound), tc.x, b.Short(got), ok, b.Short(tc.want))
			continue
		}
		v, err := ir.NewEvaluator(b, &ir.MapEnv{Vars: map[ir.Term]ir.Value{x: ir.BVValue(ir.NewBV(8, tc.x))}}).Eval(got)
		if err != nil || !v.Bool() {
			t.Errorf("WeakenBound(%s) = %s does not admit x = %#x", b.Short(tc.bound), b.Short(got), tc.x)
		}
	}
}

// TestWeakenStrict: a strict order between two terms the model
// falsifies with them equal becomes the non-strict one; falsified with
// them apart (the order is wrong, not too tight), or against a constant,
// it is not weakened.
func TestWeakenStrict(t *testing.T) {
	b := ir.NewBuilder()
	x := b.Var("x", ir.BVSort(8))
	y := b.Var("y", ir.BVSort(8))
	for _, tc := range []struct {
		bound  ir.Term
		xv, yv uint64
		want   ir.Term // NoTerm: not weakened
	}{
		{b.Ult(x, y), 7, 7, b.Ule(x, y)},
		{b.Slt(x, y), 0x80, 0x80, b.Sle(x, y)},
		{b.Ult(x, y), 8, 7, ir.NoTerm},
		{b.Slt(x, y), 0x7f, 0x80, ir.NoTerm},
		{b.Ult(x, b.Const(8, 7)), 7, 7, ir.NoTerm},
		{b.Ult(b.ZeroExt(x, 56), b.ZeroExt(y, 56)), 7, 7, ir.NoTerm}, // 64 bits: an address's
	} {
		env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{x: ir.BVValue(ir.NewBV(8, tc.xv)), y: ir.BVValue(ir.NewBV(8, tc.yv))}}
		value := func(t ir.Term) (ir.Value, bool) { return env.VarValue(b, t) }
		got, ok := WeakenBound(b, tc.bound, value, nil)
		if tc.want == ir.NoTerm {
			if ok {
				t.Errorf("WeakenBound(%s, x = %#x, y = %#x) = %s, want no change", b.Short(tc.bound), tc.xv, tc.yv, b.Short(got))
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("WeakenBound(%s, x = %#x, y = %#x) = %s, %v; want %s", b.Short(tc.bound), tc.xv, tc.yv, b.Short(got), ok, b.Short(tc.want))
			continue
		}
		if v, err := ir.NewEvaluator(b, env).Eval(got); err != nil || !v.Bool() {
			t.Errorf("WeakenBound(%s) = %s does not admit x = y = %#x", b.Short(tc.bound), b.Short(got), tc.xv)
		}
	}
}

// TestWeakenBoundSnaps: a weakened bound moves on to the nearest
// condition constant past the counterexample's value, in the bound's own
// order at every width, at most maxSnap past it and never to the width's
// extreme: gcc's digits (x ≥ 1000 from x > 999, the counterexample 1007)
// and atoi_dec (x ≥ 48 must not become x ≥ 2).
func TestWeakenBoundSnaps(t *testing.T) {
	b := ir.NewBuilder()
	x := b.Var("x", ir.BVSort(32))
	c := func(v int64) ir.Term { return b.Const(32, uint64(v)&0xffffffff) }
	for _, tc := range []struct {
		name   string
		consts []int64
		in     ir.Term
		x      int64 // the counterexample's value
		want   ir.Term
	}{
		{"lower", []int64{998, 999, 1000, 2000}, b.Ule(c(1008), x), 1007, b.Ule(c(1000), x)},
		{"lower-high-half", []int64{0x7fffffff, 0x80000000, 0x80000001}, b.Ule(c(0x80000020), x), 0x80000010, b.Ule(c(0x80000001), x)},
		{"upper", []int64{9, 15, 16, 17}, b.Ule(x, c(10)), 12, b.Ule(x, c(15))},
		{"signed-lower", []int64{-11, -10, -9, 5}, b.Sle(c(0), x), -3, b.Sle(c(-9), x)},
		{"signed-upper", []int64{-11, 5, 7}, b.Sle(x, c(-5)), -3, b.Sle(x, c(5))},
		{"none-beyond", []int64{2000}, b.Ule(c(1008), x), 1007, b.Ule(c(1007), x)},
		{"too-far", []int64{2, 900}, b.Ule(c(50), x), 48, b.Ule(c(48), x)},
		{"a-constant-stays", []int64{47, 48, 49}, b.Ule(c(50), x), 48, b.Ule(c(48), x)},
		{"extreme", []int64{0}, b.Ule(c(1008), x), 1007, b.Ule(c(1007), x)},
		{"other-side", []int64{0x7ffffff8}, b.Sle(c(-0x7ffffff0), x), -0x7ffffff8, b.Sle(c(-0x7ffffff8), x)},
	} {
		consts := func(w uint32) []uint64 {
			if w != 32 {
				t.Fatalf("%s: constants of %d bits asked for", tc.name, w)
			}
			var out []uint64
			for _, v := range tc.consts {
				out = append(out, uint64(v)&0xffffffff)
			}
			return out
		}
		value := func(t ir.Term) (ir.Value, bool) { return ir.BVValue(ir.NewBV(32, uint64(tc.x)&0xffffffff)), t == x }
		if got, ok := WeakenBound(b, tc.in, value, consts); !ok || got != tc.want {
			t.Errorf("%s: %s (%v), want %s", tc.name, b.Short(got), ok, b.Short(tc.want))
		}
	}
}

// TestVectorLanesNoOrders: the lanes of a vector register (extracts of a
// 128-bit term) get no orders, while the scalar columns beside them do.
// The rows are a vectorized count's: a's four lanes of counts, each at
// most the counter i, summing to m, and c an induction vector (i, i+1,
// i+2, i+3). The counts get no bounds either (their extremes on the runs
// are coincidences) but still sum to the accumulator; the induction
// vector's lanes, tied to i by offsets, get theirs.
func TestVectorLanesNoOrders(t *testing.T) {
	f := foldFixture(32)
	rng := rand.New(rand.NewPCG(41, 42))
	var a [4]uint64
	for k := range 30 {
		if k > 0 {
			for j := range a {
				a[j] += rng.Uint64() % 2
			}
		}
		i := uint64(4*k + 1)
		st := State{Vals: []uint64{i, a[0] + a[1] + a[2] + a[3], rng.Uint64() % 100}}
		st.Vals = append(st.Vals, a[:]...)
		for j := range uint64(4) {
			st.Vals = append(st.Vals, i+j)
		}
		f.states = append(f.states, st)
	}
	cs := f.learn(t, Options{Kinds: Kinds(Equality, Congruence, Bound, Order)})
	orders, inductionBounds, sum := 0, 0, false
	for _, c := range cs {
		lane := strings.Contains(c.Desc, "[")
		switch {
		case c.Kind == Order && lane:
			t.Errorf("a vector lane's order: %s", c.Desc)
		case c.Kind == Order:
			orders++
		case c.Kind == Bound && strings.Contains(c.Desc, "a["):
			t.Errorf("a count lane's bound: %s", c.Desc)
		case c.Kind == Bound && strings.Contains(c.Desc, "c["):
			inductionBounds++
		case c.Kind == Congruence:
			sum = sum || c.Desc == "a[3] ≡ m - a[0] - a[1] - a[2] (mod 2^32)"
		}
	}
	if orders == 0 {
		t.Error("no orders of the scalar columns")
	}
	if inductionBounds == 0 {
		t.Errorf("no bounds of the induction vector's lanes among %q", descs(cs, Bound))
	}
	if !sum {
		t.Errorf("no sum of a's lanes among %q", descs(cs, Congruence))
	}
}
