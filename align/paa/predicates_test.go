package paa

import (
	"strings"
	"testing"

	"eqc/align/product/pair"
	"eqc/ir"
	"eqc/x86"
)

// A predicate's value is cs·src − cd·dst ± base over the run's values:
// the target's pointer counts from a global's address, an argument or
// a register the loop does not change.
func TestPredicateValue(t *testing.T) {
	state := func(regs map[int]uint64) []ir.Value {
		st := make([]ir.Value, x86.StateGPR0+16)
		for r := 0; r < 16; r++ {
			st[x86.StateGPR0+r] = ir.BVValue(ir.NewBV(64, regs[r]))
		}
		return st
	}
	entry := state(map[int]uint64{x86.RDI: 0x5000})
	src := state(map[int]uint64{x86.RCX: 3})
	dst := state(map[int]uint64{x86.RAX: 0x1000c, x86.RDX: 0x500c, x86.RSI: 0x5000})
	cr := &pair.CoRun{Entry: entry, Globals: map[string]uint64{"&A": 0x10000}, Dst: &pair.Run{Visits: []pair.Visit{{State: dst}}}}
	for _, tc := range []struct {
		pd   predicate
		want uint64
		text string
	}{
		{predicate{src: alignVar{reg: x86.RCX}, dst: alignVar{reg: x86.RAX}, cs: 4, cd: 1, base: predicateBase{name: "&A", reg: -1, global: "&A", plus: true}}, 0, "src.4·rcx − dst.rax + &A = 0"},
		{predicate{src: alignVar{reg: x86.RCX}, dst: alignVar{reg: x86.RDX}, cs: 4, cd: 1, base: predicateBase{name: "entry.rdi", reg: x86.RDI, plus: true}}, 0, "src.4·rcx − dst.rdx + entry.rdi = 0"},
		{predicate{src: alignVar{reg: x86.RCX}, dst: alignVar{reg: x86.RAX}, cs: 1, cd: 1}, 1<<64 - 0x10009, "src.rcx − dst.rax = -65545"},
		{predicate{src: alignVar{reg: x86.RCX}, dst: alignVar{reg: x86.RDX}, cs: 4, cd: 1, base: predicateBase{name: "dst.rsi", reg: -1, dst: &alignVar{reg: x86.RSI}, plus: true}}, 0, "src.4·rcx − dst.rdx + dst.rsi = 0"},
		{predicate{src: alignVar{reg: x86.RAX}, dst: alignVar{reg: x86.RCX}, cs: 1, cd: 4, base: predicateBase{name: "&A", reg: -1, global: "&A"}}, 0, "src.rax − dst.4·rcx − &A = 0"},
	} {
		pd := tc.pd
		s, d := src, dst
		if pd.src.reg == x86.RAX { // the source holds the pointer
			s, d = dst, src
		}
		got := pd.eval(pd.src.value(s, 0), pd.dst.value(d, 0), (&search{}).baseValue(pd.base, cr, 0))
		pd.k = got
		if got != tc.want || pd.String() != tc.text {
			t.Errorf("%s: value %#x, want %#x; text %q, want %q", &pd, got, tc.want, pd.String(), tc.text)
		}
	}
}

// A step whose uses pair with one source path set keeps one spec (the
// largest mu); with two it splits by the edges each took, unless a use's
// path lies in the other's via set.
func TestSplitStep(t *testing.T) {
	ek := pair.EdgeKey{From: pair.NodeKey{Src: 0, Dst: 0}, DstTo: 4}
	one := pair.SrcSpec{To: 7, Arrivals: 1, Mu: 0}
	two := pair.SrcSpec{To: 7, Arrivals: 2, Mu: 1}
	t.Run("one spec", func(t *testing.T) {
		specs := map[pair.EdgeKey]pair.SrcSpec{}
		wide := one
		wide.Mu = 3
		if _, why := splitStep(specs, ek, []stepUse{{one, []int{1, 6}, 4}, {wide, []int{0, 2, 4, 6}, 4}}); why != "" {
			t.Fatal(why)
		}
		if len(specs) != 1 || specs[ek] != wide {
			t.Errorf("specs %v, want %v for every path", specs, wide)
		}
	})
	t.Run("two specs", func(t *testing.T) {
		specs := map[pair.EdgeKey]pair.SrcSpec{}
		if _, why := splitStep(specs, ek, []stepUse{{one, []int{1, 6}, 4}, {two, []int{0, 2, 4, 6}, 4}, {one, []int{1, 6}, 4}}); why != "" {
			t.Fatal(why)
		}
		want := map[pair.EdgeKey]pair.SrcSpec{
			{From: ek.From, DstTo: 4, Via: "1,6"}:     one,
			{From: ek.From, DstTo: 4, Via: "0,2,4,6"}: two,
		}
		if len(specs) != len(want) {
			t.Fatalf("specs %v, want %v", specs, want)
		}
		for k, sp := range want {
			if specs[k] != sp {
				t.Errorf("spec for via %q: %v, want %v", k.Via, specs[k], sp)
			}
		}
	})
	t.Run("not separable", func(t *testing.T) {
		// The first use's path lies within the second set's edges.
		_, why := splitStep(map[pair.EdgeKey]pair.SrcSpec{}, ek, []stepUse{{one, []int{6}, 4}, {two, []int{0, 2, 4, 6}, 4}})
		if !strings.Contains(why, "same target path") {
			t.Errorf("splitStep = %q, want the overfit", why)
		}
	})
}
