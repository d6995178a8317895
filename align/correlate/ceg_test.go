package correlate

import (
	"context"
	"math/rand/v2"
	"testing"

	"eqc/align/internal/aligntest"
	"eqc/align/product"
	"eqc/align/product/learning"
	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/prove"
)

// TestUnrelated: Figure 6's count on tables built to have, or lack, the
// relations a right or a wrong correlation gives (Counter §3.10.2: a sum
// the four lanes of a vector accumulator make together).
func TestUnrelated(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := func() uint64 { return rng.Uint64() & 0xffffffff }
	const n = 40
	for _, tc := range []struct {
		name          string
		nsrc, ndst    int
		row           func() []uint64 // source columns, then target's
		wantDst, want int             // unrelated target, source columns
	}{
		{"four lanes sum to the total", 1, 4, func() []uint64 {
			l := []uint64{r(), r(), r(), r()}
			return []uint64{(l[0] + l[1] + l[2] + l[3]) & 0xffffffff, l[0], l[1], l[2], l[3]}
		}, 0, 0},
		{"two lanes sum to the total, two are nothing's", 1, 4, func() []uint64 {
			l := []uint64{r(), r(), r(), r()}
			return []uint64{(l[0] + l[1]) & 0xffffffff, l[0], l[1], l[2], l[3]}
		}, 2, 0},
		{"a counter four times the source's, a constant", 1, 2, func() []uint64 {
			i := r()
			return []uint64{i, 4 * i & 0xffffffff, 7}
		}, 0, 0},
		{"target values equal to each other only", 1, 2, func() []uint64 {
			x := r()
			return []uint64{r(), x, x}
		}, 2, 1},
		{"an aligned pointer: low bits alone are no relation", 1, 1, func() []uint64 {
			return []uint64{r(), r() &^ 15}
		}, 1, 1},
		{"nothing but the source", 2, 0, func() []uint64 { return []uint64{r(), 3} }, 0, 1},
	} {
		rows := make([][]uint64, n)
		for i := range rows {
			rows[i] = tc.row()
		}
		dst, src := unrelated(rows, tc.nsrc, tc.ndst)
		if dst != tc.wantDst || src != tc.want {
			t.Errorf("%s: unrelated = (%d target, %d source), want (%d, %d)", tc.name, dst, src, tc.wantDst, tc.want)
		}
	}
}

// TestFrontierOrder: fewer unrelated target values first, then the
// deeper alignment, then fewer unrelated source values, then the older.
func TestFrontierOrder(t *testing.T) {
	f := frontier{
		{rank: promise{1, 0}, depth: 5, order: 0},
		{rank: promise{0, 3}, depth: 1, order: 1},
		{rank: promise{0, 2}, depth: 1, order: 2},
		{rank: promise{0, 9}, depth: 2, order: 3},
		{rank: promise{0, 2}, depth: 2, order: 4},
		{rank: promise{0, 2}, depth: 2, order: 5},
	}
	want := []int{4, 5, 3, 2, 1, 0}
	for i := 0; i < len(f); i++ {
		for j := 0; j < len(f); j++ {
			pi, pj := indexOf(want, f[i].order), indexOf(want, f[j].order)
			if got := f.Less(i, j); got != (pi < pj) {
				t.Errorf("Less(order %d, order %d) = %v, want %v", f[i].order, f[j].order, got, pi < pj)
			}
		}
	}
}

func indexOf(xs []int, x int) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// TestBestFirstUnrollFactor pins Counter's ranking on gcc-12's -O3 sum
// (a vector loop of four ints a pass, the four partial sums in one xmm
// register) with runs from inputs as counterexamples give them: the first
// has n = 9, so its trip counts suggest another unroll factor, and the
// backtracking correlator's first alignment pairs a pass with two source
// iterations, which no run contradicts (the loop stores nothing) and the
// solver refutes. Walking the runs under each candidate for the pass
// (propagating them across the new product edge), only four source
// iterations leave no lane of the accumulator unrelated to the source's
// sum; the best-first correlator's first alignment is that one, and the
// solver proves it.
func TestBestFirstUnrollFactor(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with gcc-12 and proves")
	}
	src := "int sum(const int *a, int n)\n{\n\tint s = 0;\n\tfor (int i = 0; i < n; i++)\n\t\ts += a[i];\n\treturn s;\n}\n"
	objs := aligntest.CompileC(t, "gcc-12", "sum", src, "O0", "O3")
	p, err := pair.Load(objs["O0"], "sum", objs["O3"], "sum")
	if err != nil {
		t.Fatal(err)
	}
	p.OBVA = true // the array is not the -O0 frame, as under --ub all
	// First the counterexamples' runs, then the seeded ones.
	var runs []*pair.CoRun
	for i, n := range []prove.Addr{9, 100, 37, 64, 13} {
		runs = append(runs, p.CoExecuteExtra(prove.ExtraRun{Seed: pair.ExtraRunSeed(i), Args: []prove.Addr{0, n}}))
	}
	runs = append(runs, p.CoExecuteAll(context.Background())...)
	// passSpec is what an alignment pairs a pass around the target's loop with.
	passSpec := func(a pair.Alignment) (pair.EdgeKey, pair.SrcSpec) {
		for k, sp := range a.Specs {
			if k.From.Dst == k.DstTo {
				return k, sp
			}
		}
		t.Fatalf("alignment %s pairs no pass around the target's loop", pair.SpecsKey(a.Specs))
		return pair.EdgeKey{}, pair.SrcSpec{}
	}
	first := func(c string) pair.Alignment {
		s := Engine{Correlator: c}.Alignments(context.Background(), p, runs, 1)
		if len(s.Alignments) == 0 {
			t.Fatalf("%s: no alignment", c)
		}
		return s.Alignments[0]
	}
	bt, ceg := first(Backtracking), first(BestFirst)
	if _, sp := passSpec(bt); sp.Arrivals == 4 {
		t.Fatalf("the backtracking correlator now pairs the pass with 4 iterations first: the test's premise is gone (%s)", pair.SpecsKey(bt.Specs))
	}
	key, sp := passSpec(ceg)
	if sp.Arrivals != 4 {
		t.Errorf("best-first: the pass is paired with %d source iterations, want 4 (%s)", sp.Arrivals, pair.SpecsKey(ceg.Specs))
	}
	// The ranking: with the entry step as ceg chose it, each candidate for
	// the pass, by the target's unrelated values over the runs' walks.
	r := newRanker(p, runs)
	for _, arrivals := range []int{1, 2, 3, 4} {
		specs := map[pair.EdgeKey]pair.SrcSpec{}
		for k, v := range ceg.Specs {
			if k.From.Dst != k.DstTo && k.From == (pair.NodeKey{Src: p.Src.TFG.Entry, Dst: p.Dst.TFG.Entry}) {
				specs[k] = v
			}
		}
		specs[key] = pair.SrcSpec{To: sp.To, Arrivals: arrivals, Mu: arrivals}
		var pairs [][]pair.VisitPair
		for _, cr := range runs {
			ps, _, ok := p.WalkPrefix(cr, specs, true)
			if !ok {
				t.Fatalf("%d iterations a pass: a run contradicts it", arrivals)
			}
			pairs = append(pairs, ps)
		}
		got := r.rank(pairs)
		if (got.unrelatedDst == 0) != (arrivals == 4) {
			t.Errorf("%d iterations a pass: %d target values unrelated; want none exactly at 4", arrivals, got.unrelatedDst)
		}
	}
	// The solver refutes the backtracking correlator's first and proves
	// the best-first one's.
	s := aligntest.NewSolver(t)
	pre, _ := p.ModelPrecondition()
	for _, tc := range []struct {
		name string
		a    pair.Alignment
		want string
	}{{"backtracking", bt, "unknown"}, {"best-first", ceg, "equivalent"}} {
		pr, reason := product.Build(p, tc.a, runs, learning.Search())
		if pr == nil {
			t.Fatalf("%s: no product: %s", tc.name, reason)
		}
		if o := pr.Prove(context.Background(), s, pre); o.Verdict != tc.want {
			t.Errorf("%s's first alignment %s: %s (%s), want %s", tc.name, pair.SpecsKey(tc.a.Specs), o.Verdict, o.Reason, tc.want)
		}
	}
}

// clang-16 -O3 runs the scalar remainder of diff two elements a pass,
// after peeling one when the count is odd: from the entry, the target's
// step to that loop's head pairs with one source iteration on the peeling
// path and with none on the other. No one source path set fits both, so
// the best-first correlator must split the step by path (a via set each),
// with runs of both parities (the counts 1 to 4 skip the vector loop).
func TestBestFirstSplitsPeeledEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with clang-16")
	}
	src := "void diff(int *d, const int *s, int n)\n{\n\tfor (int i = 1; i < n; i++)\n\t\td[i - 1] = s[i] - s[i - 1];\n}\n"
	objs := aligntest.CompileC(t, "clang-16", "diff", src, "O0", "O3")
	p, err := pair.Load(objs["O0"], "diff", objs["O3"], "diff")
	if err != nil {
		t.Fatal(err)
	}
	p.OBVA = true
	var runs []*pair.CoRun
	for i, n := range []prove.Addr{2, 3, 4, 5, 40, 41} {
		runs = append(runs, p.CoExecuteExtra(prove.ExtraRun{Seed: pair.ExtraRunSeed(i), Args: []prove.Addr{0, 0, n}}))
	}
	s := Engine{Correlator: BestFirst}.Alignments(context.Background(), p, runs, 1)
	if len(s.Alignments) == 0 {
		t.Fatalf("no alignment: %s", s.Reason)
	}
	a := s.Alignments[0]
	entry := pair.NodeKey{Src: p.Src.TFG.Entry, Dst: p.Dst.TFG.Entry}
	arrivals := map[ir.NodeID]map[int]bool{} // per target node, over the entry's split steps
	for k, sp := range a.Specs {
		if k.From == entry && k.Via != "" {
			if arrivals[k.DstTo] == nil {
				arrivals[k.DstTo] = map[int]bool{}
			}
			arrivals[k.DstTo][sp.Arrivals] = true
		}
	}
	split := false
	for _, as := range arrivals {
		split = split || len(as) > 1
	}
	if !split {
		t.Errorf("no step from the entry is split into paths with different source path sets: %s", pair.SpecsKey(a.Specs))
	}
	for _, cr := range runs {
		if _, missing, ok := p.Walk(cr, a.Specs, true); !ok || missing != nil {
			t.Errorf("a run does not walk under the alignment %s", pair.SpecsKey(a.Specs))
		}
	}
}
