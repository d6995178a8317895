package pair

import "testing"

// TestTakesNewTargetPath: a co-execution is new when its target takes,
// from some anchor, a path (edge IDs) no run took from there; the same
// path from another anchor, or a path seen, is not.
func TestTakesNewTargetPath(t *testing.T) {
	run := func(visits ...Visit) *CoRun { return &CoRun{Src: &Run{}, Dst: &Run{Visits: visits}} }
	seen := []*CoRun{
		run(Visit{Node: 0}, Visit{Node: 4, Path: []int{1, 2, 6}}, Visit{Node: 5, Path: []int{7}}),
		run(Visit{Node: 0}, Visit{Node: 5, Path: []int{0, 3}}),
	}
	for _, tc := range []struct {
		name string
		cr   *CoRun
		want bool
	}{
		{"paths seen", run(Visit{Node: 0}, Visit{Node: 4, Path: []int{1, 2, 6}}, Visit{Node: 5, Path: []int{7}}), false},
		{"a prefix of a run", run(Visit{Node: 0}, Visit{Node: 4, Path: []int{1, 2, 6}}), false},
		{"the other way to the same anchor", run(Visit{Node: 0}, Visit{Node: 4, Path: []int{1, 4, 6}}), true},
		{"a seen path from another anchor", run(Visit{Node: 0}, Visit{Node: 4, Path: []int{1, 2, 6}}, Visit{Node: 5, Path: []int{0, 3}}), true},
		{"the entry alone", run(Visit{Node: 0}), false},
	} {
		if got := TakesNewTargetPath(seen, tc.cr); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
