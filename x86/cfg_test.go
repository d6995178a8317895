package x86

import (
	"encoding/json"
	"strings"
	"testing"
)

// Loop structure known from the C source holds at every optimization level:
// the test functions walk lists, which no compiler vectorizes or removes.
func TestLoops(t *testing.T) {
	forEachObject(t, func(t *testing.T, cc, opt, path string) {
		f := mustOpen(t, path)
		for name, want := range map[string]int{"add3": 0, "use_globals": 0, "calls": 0, "list_sum": 1, "nested_calls": 2} {
			fn := mustFunction(t, f, name)
			if len(fn.Loops) != want {
				t.Errorf("%s: %d loops, want %d (blocks %d, back edges %v)", name, len(fn.Loops), want, len(fn.Blocks), fn.BackEdges)
			}
			if fn.CyclicSCCs != min(want, 1) {
				t.Errorf("%s: %d cyclic SCCs", name, fn.CyclicSCCs)
			}
			if fn.Irreducible {
				t.Errorf("%s: irreducible", name)
			}
		}
		// clang -O3 rotates the list-of-lists nest so that the outer cycle
		// is entered both at its head and inside the inner loop: then no
		// block dominates the outer cycle and it must be reported
		// irreducible rather than counted as a loop.
		lists := mustFunction(t, f, "nested_sum")
		if lists.CyclicSCCs < 1 || (len(lists.Loops) < 2 && !lists.Irreducible) {
			t.Errorf("nested_sum: %d loops, %d cyclic SCCs, irreducible %v", len(lists.Loops), lists.CyclicSCCs, lists.Irreducible)
		}
		if cc == "gcc" && (len(lists.Loops) != 2 || lists.Irreducible || lists.CyclicSCCs != 1) {
			t.Errorf("nested_sum: gcc keeps the nest, got %d loops", len(lists.Loops))
		}
		nested := mustFunction(t, f, "nested_calls")
		if len(nested.Loops) == 2 {
			outer, inner := nested.Loops[0], nested.Loops[1]
			if outer.Parent != -1 || outer.Depth != 1 || inner.Parent != 0 || inner.Depth != 2 {
				t.Errorf("nesting: outer %+v inner %+v", outer, inner)
			}
			if !containsSorted(outer.Blocks, inner.Head) || containsSorted(inner.Blocks, outer.Head) {
				t.Errorf("inner loop not inside outer: %+v %+v", outer, inner)
			}
		}
	})
}

// Unsupported features are reported exactly when objdump shows them.
func TestUnsupportedMatchesObjdump(t *testing.T) {
	forEachObject(t, func(t *testing.T, cc, opt, path string) {
		f := mustOpen(t, path)
		od := objdump(t, path)
		sawIndirect, sawX87 := false, false
		for _, fn := range f.Functions {
			g := f.Analyze(fn)
			indirect, x87 := 0, false
			for addr, o := range od[fn.Section] {
				if addr < fn.Addr || addr >= fn.Addr+fn.Size {
					continue
				}
				if o.mnemonic == "jmp" && strings.Contains(o.text, "*") {
					indirect++
				}
				if strings.HasPrefix(o.mnemonic, "f") && !strings.HasPrefix(o.mnemonic, "fx") {
					x87 = true
				}
			}
			sawIndirect = sawIndirect || indirect > 0
			sawX87 = sawX87 || x87
			gotIndirect, gotX87 := false, false
			for _, u := range g.Unsupported {
				gotIndirect = gotIndirect || u == "indirect-jump"
				gotX87 = gotX87 || strings.HasPrefix(u, "x87:")
			}
			// Every indirect jmp ends a block: a jump table's, or one
			// the lift does not support.
			tables, others := 0, 0
			for _, blk := range g.Blocks {
				switch blk.Term {
				case TermJumpTable:
					tables++
				case TermIndirectJump:
					others++
				}
			}
			if tables+others != indirect || gotIndirect != (others > 0) || gotX87 != x87 {
				t.Errorf("%s: unsupported %v, %d jump tables; objdump shows %d indirect jumps, x87 %v", fn.Name, g.Unsupported, tables, indirect, x87)
			}
		}
		if !sawX87 {
			t.Errorf("lmul should use x87")
		}
		if cc == "gcc" && !sawIndirect {
			t.Logf("no jump table in this build")
		}
	})
}

// Structural invariants of every CFG built from real code.
func TestCFGInvariants(t *testing.T) {
	forEachObject(t, func(t *testing.T, cc, opt, path string) {
		f := mustOpen(t, path)
		for _, fn := range f.Functions {
			checkCFG(t, f.Analyze(fn))
		}
	})
}

func checkCFG(t testing.TB, fn *Function) {
	t.Helper()
	next := 0
	for bi, b := range fn.Blocks {
		if b.Index != bi || b.First != next || b.Len <= 0 {
			t.Fatalf("%s: block %d covers [%d,+%d), expected start %d", fn.Name, bi, b.First, b.Len, next)
		}
		next += b.Len
		for _, e := range b.Succs {
			if e.From != bi || e.To < ExitBlock || e.To >= len(fn.Blocks) {
				t.Fatalf("%s: bad edge %+v", fn.Name, e)
			}
		}
	}
	if next != len(fn.Insts) {
		t.Fatalf("%s: blocks cover %d of %d instructions", fn.Name, next, len(fn.Insts))
	}
	if len(fn.Blocks) > 0 && (len(fn.RPO) == 0 || fn.RPO[0] != fn.Entry) {
		t.Fatalf("%s: RPO %v does not start at entry", fn.Name, fn.RPO)
	}
	pos := map[int]int{}
	for i, b := range fn.RPO {
		if _, dup := pos[b]; dup {
			t.Fatalf("%s: block %d twice in RPO", fn.Name, b)
		}
		pos[b] = i
	}
	// In reverse postorder every non-retreating edge goes forward.
	back := map[Edge]bool{}
	for _, e := range fn.BackEdges {
		back[e] = true
	}
	for _, b := range fn.RPO {
		for _, e := range fn.Blocks[b].Succs {
			if e.To != ExitBlock && !back[e] && pos[e.To] <= pos[b] {
				t.Fatalf("%s: forward edge %+v goes backward in RPO", fn.Name, e)
			}
		}
		if b != fn.Entry && !fn.dominates(fn.Entry, b) {
			t.Fatalf("%s: entry does not dominate %d", fn.Name, b)
		}
	}
	for _, l := range fn.Loops {
		for _, b := range l.Blocks {
			if !fn.dominates(l.Head, b) {
				t.Fatalf("%s: loop head %d does not dominate member %d", fn.Name, l.Head, b)
			}
		}
	}
}

func TestLiftSummaryJSON(t *testing.T) {
	path := compileObject(t, "gcc", "-O3", "sample.c")
	sums, err := LiftFile(path)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]LiftSummary{}
	for _, s := range sums {
		byName[s.Function] = s
	}
	b, err := json.Marshal(byName["add3"])
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"file", "function", "instructions", "blocks", "loops", "unsupported"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("JSON %s lacks %q", b, k)
		}
	}
	if len(keys) != 6 || !strings.Contains(string(b), `"unsupported":[]`) {
		t.Errorf("JSON %s", b)
	}
	if s := byName["lmul"]; len(s.Unsupported) == 0 || !strings.HasPrefix(s.Unsupported[0], "x87:") {
		t.Errorf("lmul: %+v", s)
	}
	if s := byName["nested_calls"]; s.Loops != 2 || s.File != path {
		t.Errorf("nested_sum: %+v", s)
	}
}
