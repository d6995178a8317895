package results

import (
	"cmp"
	"slices"
	"sort"
	"strings"
)

// checkKey identifies one check: two rows with the same key are the same
// check run twice (a resumed or repeated sweep).
type checkKey struct {
	suite, benchmark, function, dstFunction, compiler, srcOpt, dstOpt, cflags, ubModel, engine string
}

func keyOf(r *Row) checkKey {
	return checkKey{r.Suite, r.Benchmark, r.Function, r.DstFunction, r.CompilerLabel(), r.SrcOpt, r.DstOpt, r.CFlags, r.UBModel, r.EngineLabel()}
}

// Latest keeps one row per check — suite, benchmark, function,
// dst_function, compiler, src_opt, dst_opt, cflags, ub_model and engine —
// the one with the latest started_at (the later in rows on a tie). The rows
// kept stay in their input order. The summaries count checks, so a report
// runs them on Latest(rows).
func Latest(rows []Row) []Row {
	best := map[checkKey]int{}
	for i := range rows {
		k := keyOf(&rows[i])
		if j, ok := best[k]; !ok || !rows[i].StartedAt.Before(rows[j].StartedAt) {
			best[k] = i
		}
	}
	keep := make([]int, 0, len(best))
	for _, i := range best {
		keep = append(keep, i)
	}
	sort.Ints(keep)
	out := make([]Row, len(keep))
	for n, i := range keep {
		out[n] = rows[i]
	}
	return out
}

// GroupKey is one line of the summary: a suite under one compiler
// configuration, UB model and engine.
type GroupKey struct {
	Suite, Compiler, SrcOpt, DstOpt, UBModel, Engine string
}

func compareGroupKeys(a, b GroupKey) int {
	return cmp.Or(cmp.Compare(a.Suite, b.Suite), cmp.Compare(a.Compiler, b.Compiler),
		cmp.Compare(a.SrcOpt, b.SrcOpt), cmp.Compare(a.DstOpt, b.DstOpt),
		cmp.Compare(a.UBModel, b.UBModel), cmp.Compare(a.Engine, b.Engine))
}

// ReasonCount is how many unknown verdicts gave one reason.
type ReasonCount struct {
	Reason string
	Count  int
}

// ReasonKind is what an unknown reason is, without its details: the
// reason up to its first blank or ';', less a trailing ':'. Reasons name
// addresses, callees and obligations ("invariants-too-weak: n0→dst 0x3b0:
// …", "unsupported:calls (argument 1 of snprintf …)"), so no two of a
// sweep would group; their kinds ("invariants-too-weak",
// "unsupported:calls") do.
func ReasonKind(reason string) string {
	if i := strings.IndexAny(reason, " ;"); i >= 0 {
		reason = reason[:i]
	}
	return strings.TrimSuffix(reason, ":")
}

// TopReasons is how many unknown reasons a Group keeps.
const TopReasons = 3

// Group summarizes the checks of one GroupKey.
type Group struct {
	GroupKey
	Total         int
	Proved        int // equivalent
	Verified      int // equivalent, with the proof rechecked by eqc proof verify
	NotEquivalent int
	Unknown       int
	MedianWallS   float64 // over every check of the group, whatever its verdict
	MeanWallS     float64
	TopUnknown    []ReasonCount // the TopReasons most frequent kinds of unknown reason (ReasonKind), most frequent first (ties by name)
}

// Summarize groups rows by GroupKey, in key order.
func Summarize(rows []Row) []Group {
	byKey := map[GroupKey][]*Row{}
	for i := range rows {
		r := &rows[i]
		k := GroupKey{r.Suite, r.CompilerLabel(), r.SrcOpt, r.DstOpt, r.UBModel, r.EngineLabel()}
		byKey[k] = append(byKey[k], r)
	}
	groups := make([]Group, 0, len(byKey))
	for k, rs := range byKey {
		groups = append(groups, summarize(k, rs))
	}
	slices.SortFunc(groups, func(a, b Group) int { return compareGroupKeys(a.GroupKey, b.GroupKey) })
	return groups
}

func summarize(k GroupKey, rs []*Row) Group {
	g := Group{GroupKey: k, Total: len(rs)}
	walls := make([]float64, len(rs))
	reasons := map[string]int{}
	for i, r := range rs {
		walls[i] = r.WallS
		switch r.Verdict {
		case Equivalent:
			g.Proved++
			if r.ProofVerified {
				g.Verified++
			}
		case NotEquivalent:
			g.NotEquivalent++
		default:
			g.Unknown++
			reasons[ReasonKind(r.Reason)]++
		}
	}
	g.MedianWallS, g.MeanWallS = median(walls), mean(walls)
	for reason, n := range reasons {
		g.TopUnknown = append(g.TopUnknown, ReasonCount{reason, n})
	}
	slices.SortFunc(g.TopUnknown, func(a, b ReasonCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Reason, b.Reason))
	})
	if len(g.TopUnknown) > TopReasons {
		g.TopUnknown = g.TopUnknown[:TopReasons]
	}
	return g
}

// median of xs (0 for none); xs is reordered.
func median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	slices.Sort(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// AblationKey is one line of the UB-ablation table: a GroupKey without the
// UB model.
type AblationKey struct {
	Suite, Compiler, SrcOpt, DstOpt, Engine string
}

// Ablation puts the groups that differ only in UB model side by side.
type Ablation struct {
	Models []string      // the UB models present, sorted; one column each
	Lines  []AblationRow // in key order
}

// AblationRow is one line of an Ablation: Cells[i] is the group for
// Models[i], nil when that model was not run for this key.
type AblationRow struct {
	AblationKey
	Cells []*Group
}

// Ablations builds the UB-ablation table from Summarize's groups (sorted by
// key): the lines whose suite, compiler, optimization levels and engine ran
// under two UB models or more. It is nil when there is no such line.
func Ablations(groups []Group) *Ablation {
	models := map[string]bool{}
	for _, g := range groups {
		models[g.UBModel] = true
	}
	if len(models) < 2 {
		return nil
	}
	a := &Ablation{}
	for m := range models {
		a.Models = append(a.Models, m)
	}
	slices.Sort(a.Models)
	col := map[string]int{}
	for i, m := range a.Models {
		col[m] = i
	}
	line := map[AblationKey]int{}
	for i := range groups {
		g := &groups[i]
		k := AblationKey{g.Suite, g.Compiler, g.SrcOpt, g.DstOpt, g.Engine}
		j, ok := line[k]
		if !ok {
			j = len(a.Lines)
			line[k] = j
			a.Lines = append(a.Lines, AblationRow{AblationKey: k, Cells: make([]*Group, len(a.Models))})
		}
		a.Lines[j].Cells[col[g.UBModel]] = g
	}
	// groups are sorted by GroupKey, whose order without UBModel is the
	// AblationKey order, so Lines are sorted already. Keep the lines that
	// ran under two models or more: the others compare nothing.
	a.Lines = slices.DeleteFunc(a.Lines, func(l AblationRow) bool {
		n := 0
		for _, c := range l.Cells {
			if c != nil {
				n++
			}
		}
		return n < 2
	})
	if len(a.Lines) == 0 {
		return nil
	}
	// Drop the models no kept line ran under.
	for m := len(a.Models) - 1; m >= 0; m-- {
		used := false
		for _, l := range a.Lines {
			used = used || l.Cells[m] != nil
		}
		if !used {
			a.Models = slices.Delete(a.Models, m, m+1)
			for i := range a.Lines {
				a.Lines[i].Cells = slices.Delete(a.Lines[i].Cells, m, m+1)
			}
		}
	}
	return a
}

// KernelColumn is one compiler configuration of the per-kernel table.
type KernelColumn struct {
	Compiler, SrcOpt, DstOpt, UBModel, Engine string
}

// SourceColumn is one source-side configuration of the per-kernel table
// (the source LOC column of PLDI'19 Figure 10).
type SourceColumn struct {
	Compiler, SrcOpt string
}

// KernelCell is one check in the per-kernel table.
type KernelCell struct {
	Verdict string
	Reason  string
	WallS   float64
	ALOCDst int64
}

// KernelRow is one benchmark function of the per-kernel table.
type KernelRow struct {
	Benchmark, Function string
	Variant             string        // the source variant, when the suite has several
	ALOCSrc             []int64       // per KernelTable.Sources; 0 when unknown
	Cells               []*KernelCell // per KernelTable.Columns; nil when not checked
}

// KernelTable is the per-kernel table of one suite, in the shape of PLDI'19
// Figure 10: one row per benchmark function; the source's assembly LOC per
// source configuration; then per compiler configuration the target's LOC,
// the verdict and the seconds.
type KernelTable struct {
	Suite   string
	Sources []SourceColumn
	Columns []KernelColumn
	Rows    []KernelRow
	// Short shows only the kind of each unknown reason (ReasonKind), for
	// a table that must fit a terminal.
	Short bool
}

// Kernels builds one KernelTable per suite, in suite order; columns and
// rows are sorted. If rows hold one check twice, the last one wins: pass
// Latest(rows).
func Kernels(rows []Row) []KernelTable {
	bySuite := map[string][]*Row{}
	for i := range rows {
		bySuite[rows[i].Suite] = append(bySuite[rows[i].Suite], &rows[i])
	}
	suites := make([]string, 0, len(bySuite))
	for s := range bySuite {
		suites = append(suites, s)
	}
	slices.Sort(suites)
	tables := make([]KernelTable, 0, len(suites))
	for _, s := range suites {
		tables = append(tables, kernelTable(s, bySuite[s]))
	}
	return tables
}

func kernelTable(suite string, rs []*Row) KernelTable {
	t := KernelTable{Suite: suite}
	type rowKey struct{ benchmark, function, variant string }
	colIdx, srcIdx, rowIdx := map[KernelColumn]int{}, map[SourceColumn]int{}, map[rowKey]int{}
	var rowKeys []rowKey
	for _, r := range rs {
		c := KernelColumn{r.CompilerLabel(), r.SrcOpt, r.DstOpt, r.UBModel, r.EngineLabel()}
		if _, ok := colIdx[c]; !ok {
			colIdx[c] = 0
			t.Columns = append(t.Columns, c)
		}
		s := SourceColumn{r.CompilerLabel(), r.SrcOpt}
		if _, ok := srcIdx[s]; !ok {
			srcIdx[s] = 0
			t.Sources = append(t.Sources, s)
		}
		k := rowKey{r.Benchmark, r.Function, r.Variant}
		if _, ok := rowIdx[k]; !ok {
			rowIdx[k] = 0
			rowKeys = append(rowKeys, k)
		}
	}
	slices.SortFunc(t.Columns, func(a, b KernelColumn) int {
		return cmp.Or(cmp.Compare(a.Compiler, b.Compiler), cmp.Compare(a.SrcOpt, b.SrcOpt),
			cmp.Compare(a.DstOpt, b.DstOpt), cmp.Compare(a.UBModel, b.UBModel), cmp.Compare(a.Engine, b.Engine))
	})
	slices.SortFunc(t.Sources, func(a, b SourceColumn) int {
		return cmp.Or(cmp.Compare(a.Compiler, b.Compiler), cmp.Compare(a.SrcOpt, b.SrcOpt))
	})
	slices.SortFunc(rowKeys, func(a, b rowKey) int {
		return cmp.Or(cmp.Compare(a.benchmark, b.benchmark), cmp.Compare(a.function, b.function), cmp.Compare(a.variant, b.variant))
	})
	for i, c := range t.Columns {
		colIdx[c] = i
	}
	for i, s := range t.Sources {
		srcIdx[s] = i
	}
	t.Rows = make([]KernelRow, len(rowKeys))
	for i, k := range rowKeys {
		rowIdx[k] = i
		t.Rows[i] = KernelRow{Benchmark: k.benchmark, Function: k.function, Variant: k.variant,
			ALOCSrc: make([]int64, len(t.Sources)), Cells: make([]*KernelCell, len(t.Columns))}
	}
	for _, r := range rs {
		kr := &t.Rows[rowIdx[rowKey{r.Benchmark, r.Function, r.Variant}]]
		kr.Cells[colIdx[KernelColumn{r.CompilerLabel(), r.SrcOpt, r.DstOpt, r.UBModel, r.EngineLabel()}]] =
			&KernelCell{Verdict: r.Verdict, Reason: r.Reason, WallS: r.WallS, ALOCDst: r.ALOCDst}
		if s := srcIdx[SourceColumn{r.CompilerLabel(), r.SrcOpt}]; kr.ALOCSrc[s] == 0 {
			kr.ALOCSrc[s] = r.ALOCSrc
		}
	}
	return t
}
