package verify_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"eqc/align"
	"eqc/align/internal/aligntest"
	"eqc/align/product/learning"
	"eqc/align/verify"
	"eqc/bench"
	"eqc/prove"
)

// The proof checker against real proofs: a pair is proved by Check, its
// proof written and read back, and Verify — with a fresh solver, so no
// answer comes from the search's cache — must accept it; then the proof
// or the binaries are tampered with, and Verify must refuse with a reason.

// compileOne compiles src with gcc-12 at each level into dir, through
// package bench so the flags are the suite's; objects by level.
func compileOne(t *testing.T, src, dir string, levels ...string) map[string]string {
	t.Helper()
	ctx := context.Background()
	cc, err := bench.LookupCompiler(ctx, "gcc-12")
	if err != nil {
		t.Fatalf("%v (run `make deps`)", err)
	}
	objs := map[string]string{}
	for _, lvl := range levels {
		opt, err := bench.ParseOpt(lvl, nil)
		if err != nil {
			t.Fatal(err)
		}
		o, err := bench.Compile(ctx, cc, opt, bench.DefaultVariant, src, filepath.Join(dir, lvl))
		if err != nil {
			t.Fatal(err)
		}
		objs[lvl] = o.Path
	}
	return objs
}

func TestProofVerifyLoopFree(t *testing.T) {
	dir := t.TempDir()
	objs := compileOne(t, "../testdata/loopfree/base.c", dir, "O0", "O3")
	// A different add3 (+ y for − y), for a target swapped under a
	// forged hash.
	mutant := filepath.Join(dir, "mutant.c")
	base, err := os.ReadFile("../testdata/loopfree/base.c")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(mutant, []byte(strings.Replace(string(base), "return (x + y) * 3 - y;", "return (x + y) * 3 + y;", 1)), 0o644)
	mobjs := compileOne(t, mutant, dir, "O3")
	s := aligntest.NewSolver(t)
	for _, fn := range []string{"add3", "bump", "square"} {
		t.Run(fn, func(t *testing.T) {
			t0 := time.Now()
			res, err := align.Check(context.Background(), align.Request{SrcPath: objs["O0"], SrcFunc: fn, DstPath: objs["O3"], DstFunc: fn, UB: "none", Timeout: time.Minute}, s)
			if err != nil {
				t.Fatal(err)
			}
			checkT := time.Since(t0)
			if res.Verdict != align.Equivalent || res.Proof == nil {
				t.Fatalf("not proved: %s %s (proof %v)", res.Verdict, res.Reason, res.Proof != nil)
			}
			pf := aligntest.RoundTrip(t, res.Proof)
			if pf.Engine != prove.EngineLoopFree || len(pf.Obligations) == 0 || len(pf.Assumptions) == 0 {
				t.Fatalf("proof lacks parts: %+v", pf)
			}
			t0 = time.Now()
			v, err := verify.Verify(context.Background(), verify.Request{Proof: pf, SrcPath: objs["O0"], DstPath: objs["O3"], PinEqualities: learning.Equalities}, aligntest.NewSolver(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: check %v, verify %v (%d obligations): verified=%v %s", fn, checkT.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond), v.Obligations, v.Verified, v.Reason)
			if !v.Verified {
				t.Fatalf("the proof was not verified: %s", v.Reason)
			}
		})
	}
	res, err := align.Check(context.Background(), align.Request{SrcPath: objs["O0"], SrcFunc: "add3", DstPath: objs["O3"], DstFunc: "add3", UB: "none"}, s)
	if err != nil || res.Proof == nil {
		t.Fatalf("add3 not proved: %v %+v", err, res)
	}
	aligntest.CheckTampers(t, res.Proof, objs["O0"], objs["O3"], []aligntest.Tamper{
		{Name: "target swapped", Edit: func(*prove.ProofFile) string { return mobjs["O3"] }, Want: "is not the file the proof is about"},
		{Name: "target swapped, hash forged", Edit: func(pf *prove.ProofFile) string {
			pf.Target.SHA256, _ = prove.HashFile(mobjs["O3"])
			return mobjs["O3"]
		}, Want: "does not prove it: counterexample"},
		{Name: "source is the target", Edit: func(pf *prove.ProofFile) string { pf.Source.SHA256 = pf.Target.SHA256; return "" }, Want: "not the file the proof is about"},
		{Name: "assumption dropped", Edit: func(pf *prove.ProofFile) string { pf.Assumptions = pf.Assumptions[1:]; return "" }, Want: "assumption 1"},
		{Name: "invariant added", Edit: func(pf *prove.ProofFile) string { pf.Product.Nodes[0].Invariants = []string{"false"}; return "" }, Want: "node n0 differs"},
		{Name: "alignment changed", Edit: func(pf *prove.ProofFile) string { pf.Product.Edges[0].SrcPath.Mu = 3; return "" }, Want: "edge 0 differs"},
		{Name: "other target function", Edit: func(pf *prove.ProofFile) string { pf.Target.Function = "absdiff"; return "" }, Want: "differs"},
	})
}

// TestProofVerifyLoops proves add of testdata/loops/base.c (gcc-12 -O0
// against -O3, vectorized), verifies the proof, and refuses it tampered.
func TestProofVerifyLoops(t *testing.T) {
	if testing.Short() {
		t.Skip("proves a loop: a minute")
	}
	dir := t.TempDir()
	objs := compileOne(t, "../testdata/loops/base.c", dir, "O0", "O3")
	base, err := os.ReadFile("../testdata/loops/base.c")
	if err != nil {
		t.Fatal(err)
	}
	mutant := filepath.Join(dir, "mutant.c") // mutants.txt's add_op
	os.WriteFile(mutant, []byte(strings.Replace(string(base), "C[i] = A[i] + B[i];", "C[i] = A[i] - B[i];", 1)), 0o644)
	mobjs := compileOne(t, mutant, dir, "O3")
	t0 := time.Now()
	res, err := align.Check(context.Background(), align.Request{SrcPath: objs["O0"], SrcFunc: "add", DstPath: objs["O3"], DstFunc: "add", UB: "none", Timeout: 4 * time.Minute}, aligntest.NewSolver(t))
	if err != nil {
		t.Fatal(err)
	}
	checkT := time.Since(t0)
	if res.Verdict != align.Equivalent || res.Proof == nil {
		t.Fatalf("add not proved: %s (%s)", res.Verdict, res.Reason)
	}
	pf := aligntest.RoundTrip(t, res.Proof)
	invs := 0
	inv := -1 // a node with invariants
	for _, n := range pf.Product.Nodes {
		invs += len(n.Invariants)
		if len(n.Invariants) > 0 && inv < 0 {
			inv = n.ID
		}
	}
	if pf.Engine != prove.EngineLoops || inv < 0 {
		t.Fatalf("proof lacks parts: engine %s, %d invariants", pf.Engine, invs)
	}
	t0 = time.Now()
	v, err := verify.Verify(context.Background(), verify.Request{Proof: pf, SrcPath: objs["O0"], DstPath: objs["O3"], PinEqualities: learning.Equalities}, aligntest.NewSolver(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("add: check %v (%d queries), verify %v (%d obligations, %d queries), %d nodes, %d edges, %d invariants: verified=%v %s",
		checkT.Round(time.Millisecond), res.SMTQueries, time.Since(t0).Round(time.Millisecond), v.Obligations, v.SMTQueries,
		len(pf.Product.Nodes), len(pf.Product.Edges), invs, v.Verified, v.Reason)
	if !v.Verified {
		t.Fatalf("the proof was not verified: %s", v.Reason)
	}
	paired := -1
	for i, e := range pf.Product.Edges {
		if !e.Infeasible && e.From == inv && *e.To == inv {
			paired = i // the loop's back edge
		}
	}
	if paired < 0 {
		t.Fatalf("no edge n%d→n%d in %+v", inv, inv, pf.Product.Edges)
	}
	aligntest.CheckTampers(t, res.Proof, objs["O0"], objs["O3"], []aligntest.Tamper{
		{Name: "invariant negated", Edit: func(pf *prove.ProofFile) string {
			n := &pf.Product.Nodes[inv]
			n.Invariants[0] = "(not " + n.Invariants[0] + ")"
			return ""
		}, Want: "obligation not discharged"},
		{Name: "invariants dropped", Edit: func(pf *prove.ProofFile) string { pf.Product.Nodes[inv].Invariants = nil; return "" }, Want: "obligation not discharged"},
		{Name: "invariant over a foreign variable", Edit: func(pf *prove.ProofFile) string {
			// The target's entry rax is a variable of the pair, but the
			// product's entry state is the source's.
			n := &pf.Product.Nodes[inv]
			n.Invariants = append(n.Invariants, "(= |dst.rax| |dst.rax|)")
			return ""
		}, Want: "neither the entry state nor a variable of the node"},
		{Name: "invariant reads the stack through the shared memory", Edit: func(pf *prove.ProofFile) string {
			n := &pf.Product.Nodes[inv]
			n.Invariants = append(n.Invariants, "(= (select n"+strconv.Itoa(inv)+".mem src.rsp) (select n"+strconv.Itoa(inv)+".mem src.rsp))")
			return ""
		}, Want: "not based on a global"},
		{Name: "invariant reads the stack at a varying address", Edit: func(pf *prove.ProofFile) string {
			n := &pf.Product.Nodes[inv]
			v := "(select n" + strconv.Itoa(inv) + ".mem (bvadd src.rsp (bvadd src.rdi #x0000000000000008)))"
			n.Invariants = append(n.Invariants, "(= "+v+" "+v+")")
			return ""
		}, Want: "not based on a global"},
		{Name: "invariant names a variable of no node", Edit: func(pf *prove.ProofFile) string {
			n := &pf.Product.Nodes[inv]
			n.Invariants = append(n.Invariants, "(= |n9.src.rax| #x0000000000000000)")
			return ""
		}, Want: "unknown symbol"},
		{Name: "alignment unrolled", Edit: func(pf *prove.ProofFile) string { pf.Product.Edges[paired].SrcPath.Arrivals *= 2; return "" }, Want: "alignment"},
		{Name: "edge dropped", Edit: func(pf *prove.ProofFile) string {
			pf.Product.Edges = append(pf.Product.Edges[:paired:paired], pf.Product.Edges[paired+1:]...)
			return ""
		}, Want: ""},
		{Name: "target swapped", Edit: func(*prove.ProofFile) string { return objs["O0"] }, Want: "is not the file the proof is about"},
		{Name: "target swapped, hash forged", Edit: func(pf *prove.ProofFile) string {
			pf.Target.SHA256, _ = prove.HashFile(mobjs["O3"])
			return mobjs["O3"]
		}, Want: ""},
	})
}
