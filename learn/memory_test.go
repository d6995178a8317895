package learn

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"eqc/ir"
)

// stackSamples builds memory pairs whose differences are two stack slots
// relative to a varying rsp, [rsp−48, rsp−40) and [rsp−16, rsp−8), and in
// every third sample a global at 0x601040..0x601048.
func stackSamples(rng *rand.Rand, n int) []MemSample {
	var out []MemSample
	for s := 0; s < n; s++ {
		rsp := 0x7ffe0000 - uint64(rng.IntN(1000))*16
		common := ir.NewMem(0).With(rsp-64, make([]byte, 64)).With(0x601000, []byte{1, 2, 3})
		m1, m2 := common, common
		slot := func(a uint64) {
			b1, b2 := make([]byte, 8), make([]byte, 8)
			for k := range b1 {
				b1[k], b2[k] = byte(rng.Uint32()), byte(rng.Uint32())
			}
			b2[0] = b1[0] + 1 // the first byte always differs
			b2[7] = b1[7] + 1 // and so does the last
			m1, m2 = m1.With(a, b1), m2.With(a, b2)
		}
		slot(rsp - 48)
		slot(rsp - 16)
		if s%3 == 0 {
			slot(0x601040)
		}
		out = append(out, MemSample{M1: m1, M2: m2, Bases: []uint64{rsp, rsp + 8}})
	}
	return out
}

func TestRegionsStackAndGlobal(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	samples := stackSamples(rng, 30)
	got, err := Regions(samples, 16)
	if err != nil {
		t.Fatal(err)
	}
	want := []Region{{0, -48, -40}, {0, -16, -8}, {-1, 0x601040, 0x601048}}
	if !slices.Equal(got, want) {
		t.Fatalf("regions %v, want %v", got, want)
	}
	// A larger gap merges the two stack slots (24 equal bytes apart).
	got, _ = Regions(samples, 24)
	want = []Region{{0, -48, -8}, {-1, 0x601040, 0x601048}}
	if !slices.Equal(got, want) {
		t.Fatalf("gap 24: regions %v, want %v", got, want)
	}
	checkMinimal(t, samples, got)
}

// checkMinimal: every differing byte is covered, and dropping any region
// or shaving a byte off either end of one uncovers some differing byte.
func checkMinimal(t *testing.T, samples []MemSample, regions []Region) {
	t.Helper()
	covered := func(rs []Region) bool {
		for _, sm := range samples {
			for _, a := range mergeSorted(sm.M1.Written(), sm.M2.Written()) {
				if sm.M1.Load(a) == sm.M2.Load(a) {
					continue
				}
				in := false
				for _, r := range rs {
					base := uint64(0)
					if r.Base >= 0 {
						base = sm.Bases[r.Base]
					}
					if a-base-uint64(r.Lo) < r.Size() {
						in = true
					}
				}
				if !in {
					return false
				}
			}
		}
		return true
	}
	if !covered(regions) {
		t.Fatalf("%v does not cover every difference", regions)
	}
	for i := range regions {
		if covered(slices.Delete(slices.Clone(regions), i, i+1)) {
			t.Errorf("region %v is not needed", regions[i])
		}
		for _, shave := range []Region{{regions[i].Base, regions[i].Lo + 1, regions[i].Hi}, {regions[i].Base, regions[i].Lo, regions[i].Hi - 1}} {
			rs := slices.Clone(regions)
			rs[i] = shave
			if covered(rs) {
				t.Errorf("region %v can shrink to %v", regions[i], shave)
			}
		}
	}
}

func TestRegionsFixedBasePrefersNamed(t *testing.T) {
	// With the same rsp in every sample absolute and rsp-relative regions
	// cover the same bytes; the named base wins.
	m := ir.NewMem(0)
	var samples []MemSample
	for s := 0; s < 3; s++ {
		samples = append(samples, MemSample{M1: m.With(0x1000-8, []byte{byte(s)}), M2: m.With(0x1000-8, []byte{9}), Bases: []uint64{0x1000}})
	}
	got, err := Regions(samples, 16)
	if err != nil || !slices.Equal(got, []Region{{0, -8, -7}}) {
		t.Fatalf("regions %v, %v", got, err)
	}
}

func TestRegionsEdgeCases(t *testing.T) {
	m := ir.NewMem(0)
	if got, err := Regions([]MemSample{{M1: m, M2: m.With(5, []byte{0})}}, 16); err != nil || len(got) != 0 {
		t.Errorf("equal memories: %v, %v", got, err)
	}
	if _, err := Regions([]MemSample{{M1: m, M2: ir.NewMem(1)}}, 16); !errors.Is(err, ErrMemUnbounded) {
		t.Errorf("different defaults: %v", err)
	}
	// Differences scattered everywhere: too many regions.
	var scattered []MemSample
	for s := 0; s < 100; s++ {
		scattered = append(scattered, MemSample{M1: m, M2: m.With(uint64(s)<<20, []byte{1})})
	}
	if _, err := Regions(scattered, 16); !errors.Is(err, ErrMemUnbounded) {
		t.Errorf("scattered: %v", err)
	}
}

// TestMemoryCandidate learns through Learn and checks the term with the
// evaluator: true on every state, false once a byte just outside a region
// differs.
func TestMemoryCandidate(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	f := newFixture([]string{"rsp", "rbp"}, nil)
	f.addMem("mem")
	f.s.Bases = []int{0, 1}
	for _, sm := range stackSamples(rng, 20) {
		f.states = append(f.states, State{Vals: sm.Bases, Mems: [][2]*ir.Mem{{sm.M1, sm.M2}}})
	}
	cs := f.learn(t, Options{Kinds: Kinds(Memory)})
	f.holdsEverywhere(t, cs)
	if len(cs) != 1 || cs[0].Desc != "mem₁ = mem₂ outside [rsp-48, rsp-40), [rsp-16, rsp-8), [0x601040, 0x601048)" {
		t.Fatalf("memory candidates %v", cs)
	}
	st := f.states[0]
	rsp := st.Vals[0]
	for _, a := range []uint64{rsp - 49, rsp - 40, rsp - 17, rsp - 8, 0x60103f, 0x601048} {
		m2 := st.Mems[0][1].With(a, []byte{st.Mems[0][1].Load(a) + 1})
		bad := State{Vals: st.Vals, Mems: [][2]*ir.Mem{{st.Mems[0][0], m2}}}
		v, err := ir.Eval(f.b, cs[0].Term, f.env(bad))
		if err != nil {
			t.Fatal(err)
		}
		if v.Bool() {
			t.Errorf("a difference at %#x (rsp%+d) is accepted", a, int64(a-rsp))
		}
	}
	// Too large a region: no candidate.
	if cs := f.learn(t, Options{Kinds: Kinds(Memory), MaxRegionBytes: 4}); len(cs) != 0 {
		t.Errorf("MaxRegionBytes 4: %v", cs)
	}
}
