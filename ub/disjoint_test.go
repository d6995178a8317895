package ub

import (
	"math/rand"
	"testing"

	"eqc/ir"
)

// TestDisjoint checks Disjoint against the definition — the ranges
// [a, a+n) and [c, c+m) modulo 2^64 share no byte — in states where a − c
// sits on and next to each end of the disjoint range, with bases that
// differ and a base shared by both addresses, and offsets that make the
// range wrap around.
func TestDisjoint(t *testing.T) {
	b := ir.NewBuilder()
	simp := ir.NewSimplifier(b)
	x := b.Var("x", ir.BVSort(64))
	y := b.Var("y", ir.BVSort(64))
	offsets := []uint64{0, 1, 8, 0x34, 1 << 63, ^uint64(0), ^uint64(0x33), ^uint64(StackLimit - 1), (1 << 63) + 5}
	sizes := []uint32{1, 4, 8, 16, StackLimit + 8, 1<<32 - 1}
	rng := rand.New(rand.NewSource(1))
	addr := func(base ir.Term, off uint64) ir.Term {
		if off == 0 {
			return base
		}
		return b.Add(base, b.Const(64, off))
	}
	checked := 0
	for _, oa := range offsets {
		for _, oc := range offsets {
			for _, n := range sizes {
				for _, m := range sizes {
					for _, sameBase := range []bool{false, true} {
						cb := y
						if sameBase {
							cb = x
						}
						a, c := addr(x, oa), addr(cb, oc)
						raw := Disjoint(b, a, n, c, m)
						if rng.Intn(2) == 0 {
							raw = Disjoint(b, c, m, a, n) // the same fact, asked the other way round
						}
						simplified := simp.Simplify(raw)
						for _, diff := range []uint64{0, uint64(m) - 1, uint64(m), uint64(m) + 1, -uint64(n) - 1, -uint64(n), -uint64(n) + 1, rng.Uint64()} {
							xv := rng.Uint64()
							yv := xv + oa - oc - diff // a − c = diff
							if sameBase {
								yv, diff = xv, oa-oc
							}
							av, cv := xv+oa, yv+oc
							want := !(av-cv < uint64(m) || cv-av < uint64(n))
							env := &testEnv{vars: map[string]ir.Value{"x": bv(xv), "y": bv(yv)}}
							if got := evalBool(t, b, env, raw); got != want {
								t.Fatalf("a=x+%#x n=%d c=%s+%#x m=%d, a−c=%#x: Disjoint says %v, want %v", oa, n, b.VarName(cb), oc, m, diff, got, want)
							}
							if got := evalBool(t, b, env, simplified); got != want {
								t.Fatalf("a=x+%#x n=%d c=%s+%#x m=%d, a−c=%#x: simplified Disjoint says %v, want %v", oa, n, b.VarName(cb), oc, m, diff, got, want)
							}
							checked++
						}
					}
				}
			}
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d states checked", checked)
	}
}
