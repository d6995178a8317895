package pipeline

import (
	"slices"
	"testing"

	"eqc/bench"
)

// TestPlanContext checks which objects each planned check takes as
// context: a suite's support files always, and, in a suite whose sources
// are one program's units, the other units' source-side objects (whose
// DWARF describes the globals a unit only declares), never the unit's own
// and never a target-side build.
func TestPlanContext(t *testing.T) {
	o0, o2 := bench.Opt{Level: "O0"}, bench.Opt{Level: "O2"}
	objs := map[objKey]bench.Object{}
	for _, src := range []string{"a.c", "b.c", "c.c", "glob.c"} {
		for _, o := range []bench.Opt{o0, o2} {
			objs[objKey{src, "gcc-12", o.String(), "default"}] = bench.Object{
				Path: src + "." + o.String() + ".o", Benchmark: src[:len(src)-2], Functions: []string{"f_" + src[:1]},
			}
		}
	}
	for _, program := range []bool{false, true} {
		suite := &bench.Suite{Name: "s", Sources: []string{"a.c", "b.c", "c.c"}, Support: []string{"glob.c"},
			Variants: []bench.Variant{{Name: "default"}}, Program: program}
		cfg := Config{Suite: suite, Compilers: []string{"gcc-12"}, SrcOpt: o0, DstOpts: []bench.Opt{o2}, UBModels: []string{"none"}}
		checks := plan(cfg, objs, &Summary{})
		if len(checks) != 3 {
			t.Fatalf("program %v: %d checks, want 3", program, len(checks))
		}
		for _, c := range checks {
			want := []string{"glob.c.O0.o"}
			if program {
				for _, u := range suite.Sources {
					if u[:1] != c.Function[2:] {
						want = append(want, u+".O0.o")
					}
				}
			}
			if !slices.Equal(c.Context, want) {
				t.Errorf("program %v: %s's context %q, want %q", program, c.Function, c.Context, want)
			}
		}
	}
}
