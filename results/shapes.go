package results

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Shape is what a checked pair of functions looks like to the engines:
// whether the source has a loop (loops_src) and whether either side calls
// (calls_src, calls_dst; a loop one compiler turned into a memset call
// counts as a call). The thesis splits its tables by loops; calls are the
// other thing that decides which engine parts a check needs.
type Shape int

const (
	LoopFree      Shape = iota // no loop, no call
	LoopFreeCalls              // calls, no loop
	Loops                      // loops, no call
	LoopsCalls                 // loops and calls
	numShapes
)

var shapeNames = [numShapes]string{"loop-free", "loop-free+calls", "loops", "loops+calls"}

func (s Shape) String() string { return shapeNames[s] }

// ShapeOf is the row's shape.
func ShapeOf(r *Row) Shape {
	s := LoopFree
	if r.LoopsSrc > 0 {
		s = Loops
	}
	if r.CallsSrc > 0 || r.CallsDst > 0 {
		s++
	}
	return s
}

// ShapeLine is one line of the shape table: a GroupKey's checks counted
// per shape, and the most frequent unknown reasons of its checks with
// calls.
type ShapeLine struct {
	GroupKey
	Proved, Total [numShapes]int
	CallUnknown   []ReasonCount // TopReasons kinds, most frequent first
}

// Shapes splits rows by GroupKey and Shape, in key order. It is nil when no
// row records a call (files before schema 7 record none), since then the
// split would say nothing.
func Shapes(rows []Row) []ShapeLine {
	if !slices.ContainsFunc(rows, func(r Row) bool { return r.CallsSrc > 0 || r.CallsDst > 0 }) {
		return nil
	}
	lines := map[GroupKey]*ShapeLine{}
	reasons := map[GroupKey]map[string]int{}
	for i := range rows {
		r := &rows[i]
		k := GroupKey{r.Suite, r.CompilerLabel(), r.SrcOpt, r.DstOpt, r.UBModel, r.EngineLabel()}
		l := lines[k]
		if l == nil {
			l = &ShapeLine{GroupKey: k}
			lines[k], reasons[k] = l, map[string]int{}
		}
		s := ShapeOf(r)
		l.Total[s]++
		if r.Verdict == Equivalent {
			l.Proved[s]++
		} else if r.Verdict == Unknown && (s == LoopFreeCalls || s == LoopsCalls) {
			reasons[k][ReasonKind(r.Reason)]++
		}
	}
	out := make([]ShapeLine, 0, len(lines))
	for k, l := range lines {
		for reason, n := range reasons[k] {
			l.CallUnknown = append(l.CallUnknown, ReasonCount{reason, n})
		}
		slices.SortFunc(l.CallUnknown, func(a, b ReasonCount) int {
			return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Reason, b.Reason))
		})
		if len(l.CallUnknown) > TopReasons {
			l.CallUnknown = l.CallUnknown[:TopReasons]
		}
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b ShapeLine) int { return compareGroupKeys(a.GroupKey, b.GroupKey) })
	return out
}

// ShapeTable is the table of Shapes' lines: "proved/total" per shape ("–"
// for none) and the top unknown reasons of the checks with calls.
func ShapeTable(lines []ShapeLine) *Table {
	t := &Table{
		Title:  "By shape: proved/total of functions without and with loops and calls",
		Header: []string{"suite", "compiler", "opt", "ub", "engine"},
		Key:    5,
		Right:  []bool{false, false, false, false, false},
	}
	for s := range numShapes {
		t.Header = append(t.Header, s.String())
		t.Right = append(t.Right, true)
	}
	t.Header = append(t.Header, "top unknown reasons with calls")
	t.Right = append(t.Right, false)
	for _, l := range lines {
		cells := []string{l.Suite, l.Compiler, optLabel(l.SrcOpt, l.DstOpt), dash(l.UBModel), l.Engine}
		for s := range numShapes {
			if l.Total[s] == 0 {
				cells = append(cells, "–")
				continue
			}
			cells = append(cells, fmt.Sprintf("%d/%d", l.Proved[s], l.Total[s]))
		}
		var rs []string
		for _, rc := range l.CallUnknown {
			rs = append(rs, fmt.Sprintf("%s ×%d", rc.Reason, rc.Count))
		}
		t.Rows = append(t.Rows, append(cells, strings.Join(rs, ", ")))
	}
	t.Notes = []string{"loops: the source function (its -O0 build) has a loop; calls: either side has a call site (tail calls included), so a loop the compiler turned into a memset call counts."}
	return t
}
