package results

import (
	"slices"
	"strings"

	"eqc/ub"
)

// UBNeed is one check that a UB model made provable: proved under With,
// not under Without, whose models are a subset of With's (the functions
// where the compiler used undefined behaviour, thesis §2.3 and Figure 2.11;
// seed 003 §6). Needs are the models With has and Without lacks.
type UBNeed struct {
	Suite, Benchmark, Function, Compiler, SrcOpt, DstOpt, Engine string
	With, Without                                                string
	Needs                                                        string
	Reason                                                       string // Without's
}

// UBNeeds lists, for every check run under several UB models, each pair of
// models where the larger proves it and the smaller does not (the
// smallest larger model per smaller one), unless a run under a model
// between them does not prove it either (that pair says more precisely
// what is needed). Pass Latest(rows).
func UBNeeds(rows []Row) []UBNeed {
	type run struct {
		spec   string
		models ub.Set
		row    *Row
	}
	// A check's key without its UB model names the runs to compare.
	byKey := map[checkKey][]run{}
	var order []checkKey
	for i := range rows {
		r := &rows[i]
		m, err := ub.Parse(strings.ReplaceAll(r.UBModel, "+", ","))
		if err != nil {
			continue
		}
		k := keyOf(r)
		k.ubModel = ""
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], run{r.UBModel, m, r})
	}
	var out []UBNeed
	for _, k := range order {
		runs := byKey[k]
		for _, lo := range runs {
			if lo.row.Verdict == Equivalent {
				continue
			}
			// The proved run with the fewest models that has all of lo's.
			var best *run
			for i := range runs {
				hi := &runs[i]
				if hi.row.Verdict != Equivalent || hi.models&lo.models != lo.models || hi.models == lo.models {
					continue
				}
				if best == nil || popcount(hi.models) < popcount(best.models) {
					best = hi
				}
			}
			if best == nil {
				continue
			}
			// A run between the two that does not prove either explains
			// more precisely what the larger one needs: keep only that.
			between := false
			for i := range runs {
				mid := &runs[i]
				if mid.row.Verdict != Equivalent && mid.models&lo.models == lo.models && mid.models != lo.models &&
					best.models&mid.models == mid.models && best.models != mid.models {
					between = true
				}
			}
			if between {
				continue
			}
			out = append(out, UBNeed{Suite: k.suite, Benchmark: k.benchmark, Function: k.function, Compiler: k.compiler,
				SrcOpt: k.srcOpt, DstOpt: k.dstOpt, Engine: k.engine, With: best.spec, Without: lo.spec,
				Needs: (best.models &^ lo.models).String(), Reason: lo.row.Reason})
		}
	}
	slices.SortStableFunc(out, func(a, b UBNeed) int {
		return strings.Compare(a.Suite+"\x00"+a.Benchmark+"\x00"+a.Function+"\x00"+a.Compiler+"\x00"+a.DstOpt+"\x00"+a.Without,
			b.Suite+"\x00"+b.Benchmark+"\x00"+b.Function+"\x00"+b.Compiler+"\x00"+b.DstOpt+"\x00"+b.Without)
	})
	return out
}

func popcount(s ub.Set) int {
	n := 0
	for ; s != 0; s &= s - 1 {
		n++
	}
	return n
}

// UBNeedsTable is the list of UBNeeds: the checks only a UB model proves.
func UBNeedsTable(needs []UBNeed) *Table {
	t := &Table{
		Title:  "Proved only with a UB model (the compiler used undefined behaviour)",
		Header: []string{"suite", "benchmark", "function", "compiler", "opt", "proved with", "not with", "needs", "reason without"},
		Right:  make([]bool, 9),
	}
	for _, n := range needs {
		t.Rows = append(t.Rows, []string{n.Suite, n.Benchmark, n.Function, n.Compiler, optLabel(n.SrcOpt, n.DstOpt), n.With, n.Without, n.Needs, n.Reason})
	}
	return t
}
