package ir_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"eqc/ir"
)

// TestLoopExits builds small graphs from one-line descriptions and checks
// which blocks LoopExits returns. A description lists edges "a>b"; node
// names say what a node is: E the entry, X the exit, H* a loop head, C*
// a call site, anything else a plain block. An edge's marks after its
// target: ! stores to memory, ? loads at an address computed from a
// register other than the toy's stack pointer (i), ^ loads at one
// computed from i (a pop), = loads at a constant (a global's element).
func TestLoopExits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edges string
		want  string // the loop exits, sorted by name
	}{
		// A vector loop and its scalar tail, which loads and stores:
		// the tail's first block is the exit. A direct way to the exit
		// adds nothing.
		{"tail copies", "E>H1 H1>b b>H1! b>t t>u? u>X! t>X", "t"},
		{"load and store on one edge", "E>H1 H1>b b>H1! b>t t>X!?", "t"},
		// A reduction's tail stores its result and loads nothing.
		{"tail stores only", "E>H1 H1>b b>H1!? b>t t>X!", ""},
		{"tail loads only", "E>H1 H1>b b>H1!? b>t t>X?", ""},
		{"a pop is no load", "E>H1 H1>b b>H1!? b>t t>X!^", ""},
		{"fixed addresses", "E>H1 H1>b b>H1!? b>t t>u= u>X!", ""},
		// The return block after the loop does neither.
		{"return block", "E>H1 H1>b b>H1! b>r r>X", ""},
		// A store only past another anchor does not count.
		{"store past an anchor", "E>H1 H1>b b>H1! b>r r>H2? H2>H2! H2>X", ""},
		// An inner loop's exit inside the outer loop is left alone; the
		// outer loop's is kept.
		{"nested", "E>H1 H1>H2 H2>i i>H2!? i>o o>H1! H1>t t>X!?", "t"},
		// A loop that exits to a call site: already an anchor.
		{"exit to a call", "E>H1 H1>b b>H1! b>C1 C1>X!?", ""},
		// Two exits of one loop, both followed by copies.
		{"two exits", "E>H1 H1>b b>H1! H1>s b>t s>X!? t>X?!", "s t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, names, sp := graphOf(t, tc.edges)
			var got []string
			for _, v := range g.LoopExits(sp) {
				got = append(got, names[v])
			}
			slices.Sort(got)
			if s := strings.Join(got, " "); s != tc.want {
				t.Fatalf("loop exits %q, want %q", s, tc.want)
			}
			// Marking makes them anchors, and nothing else changes.
			before := g.Anchors()
			g.MarkLoopExits(sp)
			after := g.Anchors()
			for _, v := range after {
				if !slices.Contains(before, v) && g.Nodes[v].Kind != ir.NodeLoopExit {
					t.Fatalf("%s became an anchor as %s", names[v], g.Nodes[v].Kind)
				}
			}
			if len(after) != len(before)+len(got) {
				t.Fatalf("anchors %d after marking, want %d", len(after), len(before)+len(got))
			}
			if len(g.LoopExits(sp)) != 0 {
				t.Fatalf("loop exits left after marking")
			}
		})
	}
}

// graphOf builds the toy TFG edges describes (TestLoopExits's notation),
// with exclusive conditions on the edges out of each node, and returns it
// with its nodes' names and the variable that stands for the stack
// pointer.
func graphOf(t *testing.T, edges string) (*ir.TFG, map[ir.NodeID]string, ir.Term) {
	t.Helper()
	tt := newToy()
	b, g := tt.b, tt.g
	ids := map[string]ir.NodeID{}
	names := map[ir.NodeID]string{}
	node := func(name string) ir.NodeID {
		if id, ok := ids[name]; ok {
			return id
		}
		kind := ir.NodeBlock
		switch name[0] {
		case 'E':
			kind = ir.NodeEntry
		case 'X':
			kind = ir.NodeExit
		case 'H':
			kind = ir.NodeLoopHead
		case 'C':
			kind = ir.NodeCallSite
		}
		id := g.AddNode(uint64(len(ids)+1), kind)
		ids[name], names[id] = id, name
		return id
	}
	type arc struct {
		from, to ir.NodeID
		marks    string
	}
	var arcs []arc
	out := map[ir.NodeID]int{}
	for _, f := range strings.Fields(edges) {
		from, to, ok := strings.Cut(f, ">")
		if !ok {
			t.Fatalf("bad edge %q", f)
		}
		name := strings.TrimRight(to, "!?^=")
		a := arc{node(from), node(name), to[len(name):]}
		arcs = append(arcs, a)
		out[a.from]++
	}
	seen := map[ir.NodeID]int{}
	for _, a := range arcs {
		// The k-th edge out of a node of n is taken when i = k (the
		// last: i ≥ k), so the conditions are exclusive and exhaustive.
		k := seen[a.from]
		seen[a.from]++
		cond := b.Eq(tt.i, tt.c32(uint64(k)))
		if k == out[a.from]-1 {
			cond = b.Not(b.Ult(tt.i, tt.c32(uint64(k))))
		}
		set := map[ir.Term]ir.Term{}
		if strings.Contains(a.marks, "!") {
			set[tt.mem] = b.Store(tt.mem, b.ZeroExt(tt.n, 32), 4, tt.s)
		}
		if strings.Contains(a.marks, "?") {
			set[tt.s] = b.Select(tt.mem, b.ZeroExt(tt.n, 32), 4)
		}
		if strings.Contains(a.marks, "^") {
			set[tt.s] = b.Select(tt.mem, b.ZeroExt(tt.i, 32), 4)
		}
		if strings.Contains(a.marks, "=") {
			set[tt.s] = b.Select(tt.mem, b.Const(64, 0x1000), 4)
		}
		tt.edge(a.from, a.to, cond, set)
	}
	if err := g.Check(); err != nil {
		t.Fatal(fmt.Errorf("%s: %w", edges, err))
	}
	return g, names, tt.i
}
