package smtlib

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"eqc/ir"
)

// TestVocabularyOneMeaning applies every symbol of the vocabulary to
// literals of assorted sorts, in as many arities and with as many indices
// as make sense, and checks that the term parser and the model interpreter
// agree: both reject the application or neither does (but the interpreter
// evaluates ite, and and or lazily, so it may accept what the parser
// rejects), and then the parsed term evaluates (ir's evaluator) to the
// interpreter's value.
func TestVocabularyOneMeaning(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lit := func(s ir.Sort) string {
		if s == ir.BoolSort {
			return []string{"true", "false"}[rng.IntN(2)]
		}
		x := ir.NewBV(s.Width, rng.Uint64())
		switch rng.IntN(4) {
		case 0:
			x = ir.NewBV(s.Width, 0)
		case 1:
			x = ir.NewBV(s.Width, uint64(1)<<(s.Width-1)) // the sign bit
		}
		return x.String()
	}
	sorts := []ir.Sort{ir.BoolSort, ir.BVSort(1), ir.BVSort(4), ir.BVSort(8), ir.BVSort(64)}
	names := make([]string, 0, len(termSymbols))
	for name := range termSymbols {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(valueSymbols) != len(termSymbols) {
		t.Fatalf("%d symbols over values, %d over terms", len(valueSymbols), len(termSymbols))
	}
	accepted := make(map[string]int)
	for _, name := range names {
		f := termSymbols[name]
		head := name
		switch f.nidx {
		case 1:
			head = fmt.Sprintf("(_ %s %d)", name, 1+rng.IntN(5))
		case 2:
			head = fmt.Sprintf("(_ %s 3 1)", name)
		}
		for n := 0; n <= 4; n++ {
			for round := 0; round < 40; round++ {
				text := head
				if n > 0 || f.nargs != 0 {
					args := []string{head}
					s := sorts[rng.IntN(len(sorts))]
					for i := 0; i < n; i++ {
						if rng.IntN(8) == 0 {
							s = sorts[rng.IntN(len(sorts))] // now and then, mixed sorts
						}
						args = append(args, lit(s))
					}
					text = "(" + strings.Join(args, " ") + ")"
				}
				b := ir.NewBuilder()
				term, perr := ParseTermString(b, text, nil)
				sx, err := ParseSExpr(text)
				if err != nil {
					t.Fatal(err)
				}
				in := &interp{mc: &modelCtx{defs: map[string]*SExpr{}, cache: map[string]sval{}, busy: map[string]bool{}}}
				v, ierr := in.eval(&sx, nil, 0)
				if perr != nil && ierr == nil && (f.op == ir.OpIte || f.op == ir.OpAnd || f.op == ir.OpOr) {
					continue // evaluated lazily: an argument not reached is not checked
				}
				if (perr == nil) != (ierr == nil) {
					t.Fatalf("%s: the parser says %v, the model interpreter %v", text, perr, ierr)
				}
				if perr != nil {
					continue
				}
				accepted[name]++
				want, err := ir.Eval(b, term, &ir.MapEnv{})
				if err != nil {
					t.Fatalf("%s: eval of %s: %v", text, b.Short(term), err)
				}
				if got := v.value(); !got.Equal(want) {
					t.Fatalf("%s: the model interpreter says %v, the parsed term %s is %v", text, got, b.Short(term), want)
				}
			}
		}
	}
	t.Logf("applications accepted, by symbol: %v", accepted)
	for _, name := range names {
		if accepted[name] == 0 && name != "select" && name != "store" { // memories are not literals
			t.Errorf("%s was never accepted: the test applies it wrongly", name)
		}
	}
}

// TestComparisons: the symbols a memory's breakpoints come from are the
// vocabulary's comparisons of two addresses.
func TestComparisons(t *testing.T) {
	var got []string
	for name := range comparisons {
		got = append(got, name)
	}
	sort.Strings(got)
	want := "= bvsge bvsgt bvsle bvslt bvuge bvugt bvule bvult distinct"
	if strings.Join(got, " ") != want {
		t.Errorf("comparisons %v, want %s", got, want)
	}
}
