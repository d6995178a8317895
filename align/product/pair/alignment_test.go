package pair

import (
	"testing"

	"eqc/ir"
)

// viaTFG is the shape of clang's unrolled warm-up, two passes long: from
// the entry (node 0), a test per pass either jumps to the preheader (node
// 3) or goes on; the last pass falls through to it; the preheader leads
// to the loop head (node 4, an anchor), and each pass may also leave for
// the exit (node 5). Edge IDs: 0 0→1 (misaligned), 1 0→3 (aligned), 2
// 1→2, 3 1→5, 4 2→3, 5 2→5, 6 3→4.
func viaTFG() (*ir.TFG, map[ir.NodeID]bool) {
	b := ir.NewBuilder()
	g := ir.NewTFG(b, "via", []ir.StateVar{{Name: "x", Var: b.Var("x", ir.BVSort(8))}})
	kinds := []ir.NodeKind{ir.NodeEntry, ir.NodeBlock, ir.NodeBlock, ir.NodeBlock, ir.NodeLoopHead, ir.NodeExit}
	for i, k := range kinds {
		g.AddNode(uint64(i), k)
	}
	for _, e := range [][2]ir.NodeID{{0, 1}, {0, 3}, {1, 2}, {1, 5}, {2, 3}, {2, 5}, {3, 4}} {
		g.AddEdge(&ir.Edge{From: e[0], To: e[1]})
	}
	return g, map[ir.NodeID]bool{0: true, 4: true, 5: true}
}

// Every path from the entry to the loop head must lie in one of the via
// sets for them to cover the step.
func TestViaCovers(t *testing.T) {
	g, anchors := viaTFG()
	set := func(ids ...int) map[int]bool {
		m := map[int]bool{}
		for _, id := range ids {
			m[id] = true
		}
		return m
	}
	for _, tc := range []struct {
		name string
		vias []map[int]bool
		want bool
	}{
		{"both paths, one set each", []map[int]bool{set(1, 6), set(0, 2, 4, 6)}, true},
		{"one set holding both", []map[int]bool{set(0, 1, 2, 4, 6)}, true},
		{"the long path missing", []map[int]bool{set(1, 6)}, false},
		{"each set lacks an edge of the other's path", []map[int]bool{set(1), set(0, 2, 4, 6)}, false},
		{"exit edges do not matter", []map[int]bool{set(1, 6), set(0, 2, 4, 6, 3, 5)}, true},
	} {
		if got := ViaCovers(g, 0, 4, anchors, tc.vias); got != tc.want {
			t.Errorf("%s: viaCovers = %v, want %v", tc.name, got, tc.want)
		}
	}
}
