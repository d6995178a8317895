package x86_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"eqc/bench"
	"eqc/ir"
	"eqc/x86"
)

// The census lifts every function of the measurement corpus (bench.Corpus:
// TSVC both variants, csmith programs and the small corpus programs, gcc-12
// and clang-16 at O0..O3) into TFGs, reports how many lift completely and
// what remains, and checks the TFG invariants on each.

// censusDir caches the corpus objects between runs.
func censusDir() string { return bench.CacheDir() }

func censusObjects(t testing.TB) []bench.Object {
	t.Helper()
	if testing.Short() {
		t.Skip("the census builds the corpus (cached after the first run)")
	}
	objs, err := bench.Corpus(context.Background(), censusDir())
	var missing *bench.MissingToolError
	if errors.As(err, &missing) {
		t.Fatalf("%v (run `make deps`)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// randomEnv gives every free variable and uninterpreted function that is not
// a state component a deterministic pseudo-random value: fresh values,
// global addresses, call results. Call results that are memories are the
// memory passed in, as the tracer's stubs leave memory alone.
type randomEnv struct{ seed uint64 }

func (e *randomEnv) hash(s string, extra ...uint64) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", e.seed, s)
	for _, x := range extra {
		fmt.Fprintf(h, "/%d", x)
	}
	return h.Sum64()
}

func (e *randomEnv) VarValue(b *ir.Builder, t ir.Term) (ir.Value, bool) {
	return ir.ValueFromHash(b.Sort(t), e.hash(b.VarName(t))), true
}

func (e *randomEnv) ApplyFunc(f *ir.Func, args []ir.Value) (ir.Value, bool) {
	if f.Result.Kind == ir.KindMem {
		return args[len(args)-1], true
	}
	var xs []uint64
	for _, a := range args {
		if a.Sort().Kind == ir.KindBV && a.Sort().Width <= 64 {
			xs = append(xs, a.BV().Uint64())
		}
	}
	return ir.ValueFromHash(f.Result, e.hash(f.Name, xs...)), true
}

func randomState(g *ir.TFG, seed uint64) []ir.Value {
	env := &randomEnv{seed: seed}
	st := make([]ir.Value, len(g.State))
	for i, v := range g.State {
		st[i] = ir.ValueFromHash(g.B.Sort(v.Var), env.hash("state:"+v.Name))
	}
	return st
}

// checkTFGInvariants checks the sort invariants of every edge, that every
// node but the exit and halt nodes has edges out, and, on a few random
// states per node, that exactly one edge out of it is taken.
func checkTFGInvariants(t testing.TB, g *ir.TFG, samples int) error {
	if err := g.Check(); err != nil {
		return err
	}
	for _, n := range g.Nodes {
		out := g.Out(n.ID)
		if n.Kind == ir.NodeExit || n.Kind == ir.NodeHalt {
			if len(out) > 0 {
				return fmt.Errorf("%s: %v node has %d edges out", g.Name, n.Kind, len(out))
			}
			continue
		}
		if len(out) == 0 {
			return fmt.Errorf("%s: node %d (%v at %#x) has no edges out", g.Name, n.ID, n.Kind, n.PC)
		}
		for s := 0; s < samples; s++ {
			st := randomState(g, uint64(s)*7919+uint64(n.ID))
			if _, err := g.EvalStep(n.ID, st, &randomEnv{seed: uint64(s)}); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestCensus(t *testing.T) {
	objs := censusObjects(t)
	var (
		funcs, full, x87, insts int
		remain                  = map[string]int{}
		detail                  = map[string]int{}
		examples                = map[string]string{}
		invariantFailures       int
		composite               int
	)
	for oi, o := range objs {
		f, err := x86.Open(o.Path)
		if err != nil {
			t.Fatalf("%s: %v", o.Path, err)
		}
		for _, hf := range f.Functions {
			fn := f.Analyze(hf)
			b := ir.NewBuilder()
			g := f.TFG(b, fn, x86.StateNames{})
			funcs++
			insts += len(fn.Insts)
			isX87 := false
			for _, u := range g.Unsupported {
				if strings.HasPrefix(u, "x87:") {
					isX87 = true
				}
			}
			switch {
			case isX87:
				x87++
			case len(g.Unsupported) == 0:
				full++
			default:
				seen := map[string]bool{}
				for _, u := range g.Unsupported {
					detail[u]++
					if m := x86.UnsupportedMnemonic(u); !seen[m] {
						seen[m] = true
						remain[m]++
						if _, ok := examples[m]; !ok {
							examples[m] = fmt.Sprintf("%s %s %s/%s", filepath.Base(o.Source), hf.Name, o.Compiler, o.Opt)
						}
					}
				}
			}
			// Random-state exhaustiveness on a sample: every function
			// of every fourth object, two states per node.
			samples := 0
			if oi%4 == 0 && len(g.Unsupported) == 0 {
				samples = 2
			}
			if err := checkTFGInvariants(t, g, samples); err != nil {
				invariantFailures++
				if invariantFailures <= 5 {
					t.Errorf("%s %s: %v", o.Path, hf.Name, err)
				}
			}
			// The collapsed TFG (anchors only, composite edges) keeps the
			// invariants: its out-edges partition the states too.
			if samples > 0 {
				c := g.Collapse(nil)
				composite += len(c.Edges)
				if err := checkTFGInvariants(t, c, samples); err != nil {
					invariantFailures++
					if invariantFailures <= 5 {
						t.Errorf("%s %s collapsed: %v", o.Path, hf.Name, err)
					}
				}
			}
		}
	}
	lifted := funcs - x87
	frac := float64(full) / float64(max(lifted, 1))
	t.Logf("census: %d composite edges in the sampled collapsed TFGs", composite)
	t.Logf("census: %d objects, %d functions, %d instructions; %d x87 (excluded); %d of %d fully lifted (%.2f%%)",
		len(objs), funcs, insts, x87, full, lifted, 100*frac)
	keys := make([]string, 0, len(remain))
	for k := range remain {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return remain[keys[i]] > remain[keys[j]] || remain[keys[i]] == remain[keys[j]] && keys[i] < keys[j]
	})
	for _, k := range keys {
		t.Logf("  %-24s %4d functions  (e.g. %s)", k, remain[k], examples[k])
	}
	dkeys := make([]string, 0, len(detail))
	for k := range detail {
		dkeys = append(dkeys, k)
	}
	sort.Strings(dkeys)
	for _, k := range dkeys {
		t.Logf("    detail %-40s %d", k, detail[k])
	}
	if frac < 0.99 {
		t.Errorf("only %.2f%% of non-x87 functions lift completely, want ≥ 99%%", 100*frac)
	}
	if invariantFailures > 0 {
		t.Errorf("%d functions break TFG invariants", invariantFailures)
	}
}
