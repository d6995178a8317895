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

// foldFixture has columns i (a counter), m (the source's accumulator),
// r (random) and the 32-bit lanes of two 128-bit registers a and c.
func foldFixture(width uint32) *fixture {
	b := ir.NewBuilder()
	s := &Schema{}
	for _, n := range []string{"i", "m", "r"} {
		s.Vars = append(s.Vars, Var{Name: n, Term: b.Var(n, ir.BVSort(width))})
	}
	for _, reg := range []string{"a", "c"} {
		x := b.Var(reg, ir.BVSort(128))
		for lane := uint32(0); lane < 4; lane++ {
			s.Vars = append(s.Vars, Var{Name: fmt.Sprintf("%s[%d]", reg, lane), Term: b.Extract(x, 32*lane+31, 32*lane)})
		}
	}
	return &fixture{b: b, s: s}
}

// TestFoldRelations plants each fold at 32, 16 and 8 bits (a sum at 16
// and 8 only: over whole columns it is an affine relation): m over the
// lanes of a (a's 32-bit columns split into narrower lanes), c random,
// then two accumulators (m over a's and c's lanes together). The fold
// found is the planted one and no other of m, it holds on every row (by
// evaluation), and random columns give none.
func TestFoldRelations(t *testing.T) {
	for _, w := range []uint32{32, 16, 8} {
		for op := foldOp(0); op < numFoldOps; op++ {
			for _, both := range []bool{false, true} {
				f := foldFixture(w)
				rng := rand.New(rand.NewPCG(uint64(w), uint64(op)))
				for k := range 30 {
					// Lanes like an AND or OR reduction's (flags),
					// so that the fold of sixteen varies.
					baseA, baseC := rng.Uint64(), rng.Uint64()
					lane := func(base uint64) uint64 {
						switch op {
						case foldAnd:
							return (base | rng.Uint64()&rng.Uint64()&rng.Uint64()) & mask(uint(w))
						case foldOr:
							return rng.Uint64() & rng.Uint64() & rng.Uint64() & rng.Uint64() & mask(uint(w))
						}
						return rng.Uint64() & mask(uint(w))
					}
					var a, c [4]uint64
					var la, lc []uint64 // a's and c's lanes
					for j := range 4 {
						for lo := uint32(0); lo < 32; lo += w {
							x, y := lane(baseA), lane(baseC)
							a[j] |= x << lo
							c[j] |= y << lo
							la, lc = append(la, x), append(lc, y)
						}
					}
					ls := la
					if both {
						ls = append(la, lc...)
					}
					m := ls[0]
					for _, l := range ls[1:] {
						m = op.apply(m, l, w)
					}
					st := State{Vals: []uint64{uint64(k), m, rng.Uint64() & mask(uint(w))}}
					st.Vals = append(st.Vals, a[:]...)
					st.Vals = append(st.Vals, c[:]...)
					f.states = append(f.states, st)
				}
				cs := f.learn(t, Options{Kinds: Kinds(Fold)})
				foldHoldsEverywhere(t, f, cs)
				got := descs(cs, Fold)
				var names []string
				for _, reg := range map[bool][]string{false: {"a"}, true: {"a", "c"}}[both] {
					for lane := range 4 {
						for lo := uint32(0); lo < 32; lo += w {
							if w == 32 {
								names = append(names, fmt.Sprintf("%s[%d]", reg, lane))
							} else {
								names = append(names, fmt.Sprintf("%s[%d][%d:%d]", reg, lane, lo+w-1, lo))
							}
						}
					}
				}
				want := fmt.Sprintf("m = %s(%s)", foldNames[op], strings.Join(names, ", "))
				if op != foldAnd && op != foldOr && op != foldAdd {
					want = fmt.Sprintf("m ∈ {%s} (%s)", strings.Join(names, ", "), foldNames[op])
				}
				if op == foldAdd && w == 32 {
					// A sum of whole columns is an affine relation.
					if len(got) > 0 {
						t.Errorf("a sum of whole columns: %q", got)
					}
					continue
				}
				if !slices.Contains(got, want) {
					t.Errorf("%d bits, %s, two registers %v: got %q, want %q among them", w, foldNames[op], both, got, want)
				}
				// Other folds of the same lanes may hold on the
				// rows (the minimum of flags is often their AND).
				for _, g := range got {
					if strings.HasPrefix(g, "m ") && foldLanes(g) != strings.Join(names, ", ") {
						t.Errorf("%d bits, %s, two registers %v: also %q", w, foldNames[op], both, g)
					}
				}
			}
		}
	}
	f := foldFixture(32)
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 30 {
		st := State{Vals: []uint64{uint64(k)}}
		for range 10 {
			st.Vals = append(st.Vals, uint64(rng.Uint32()))
		}
		f.states = append(f.states, st)
	}
	if cs := f.learn(t, Options{Kinds: Kinds(Fold)}); len(cs) != 0 {
		t.Errorf("random columns: %q", descs(cs, Fold))
	}
	// c broadcasts the parameter r and a's lanes stay below it: r is
	// the max of a's and c's lanes on every row, which says no more than
	// c[0] = r and the orders.
	f = foldFixture(32)
	for k := range 30 {
		r := 1000 + uint64(rng.IntN(1000))
		st := State{Vals: []uint64{uint64(k), uint64(rng.Uint32()), r}}
		for range 4 {
			st.Vals = append(st.Vals, uint64(rng.IntN(1000)))
		}
		st.Vals = append(st.Vals, r, r, r, r)
		f.states = append(f.states, st)
	}
	if cs := f.learn(t, Options{Kinds: Kinds(Fold)}); len(cs) != 0 {
		t.Errorf("a broadcast register: %q", descs(cs, Fold))
	}
}

// foldHoldsEverywhere evaluates each candidate on each row, the registers
// bound to the 128-bit values their lane columns give.
func foldHoldsEverywhere(t *testing.T, f *fixture, cs []Candidate) {
	t.Helper()
	b := f.b
	for r, st := range f.states {
		env := &ir.MapEnv{Vars: map[ir.Term]ir.Value{}}
		regs := map[ir.Term]*big.Int{}
		for i, v := range f.s.Vars {
			if b.Op(v.Term) != ir.OpExtract {
				env.Vars[v.Term] = ir.BVValue(ir.NewBV(b.Width(v.Term), st.Vals[i]))
				continue
			}
			_, lo := b.Params(v.Term)
			x := b.Arg(v.Term, 0)
			if regs[x] == nil {
				regs[x] = new(big.Int)
			}
			regs[x].Or(regs[x], new(big.Int).Lsh(new(big.Int).SetUint64(st.Vals[i]), uint(lo)))
		}
		for x, v := range regs {
			env.Vars[x] = ir.BVValue(ir.NewBVBig(128, v))
		}
		ev := ir.NewEvaluator(b, env)
		for _, c := range cs {
			v, err := ev.Eval(c.Term)
			if err != nil {
				t.Fatalf("%s: %v", c.Desc, err)
			}
			if !v.Bool() {
				t.Fatalf("candidate %q is false on row %d: %v", c.Desc, r, st.Vals)
			}
		}
	}
}

// foldLanes is the list of lanes of a fold's description: L of "m = op(L)"
// or "m ∈ {L} (op)".
func foldLanes(desc string) string {
	if i := strings.Index(desc, "{"); i >= 0 {
		return desc[i+1 : strings.Index(desc, "}")]
	}
	return desc[strings.Index(desc, "(")+1 : len(desc)-1]
}
