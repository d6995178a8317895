package prove

import (
	"strings"

	"eqc/ir/smtlib"
)

// Solver output is read with package smtlib's S-expression reader; these
// helpers pick out what the backends pass on. Models are sliced out of the
// solver's text by the nodes' byte spans, never re-printed.

// modelForms recognises a model as solvers print it in answer to
// (get-model): "(model (define-fun ...) ...)" (older Z3), or
// "((define-fun ...) ...)" (SMT-LIB 2.6), possibly empty. It returns the
// define-fun forms.
func modelForms(e *smtlib.SExpr) ([]smtlib.SExpr, bool) {
	if !e.IsList() {
		return nil, false
	}
	items := e.List
	if e.Head() == "model" {
		items = items[1:]
	}
	for i := range items {
		switch items[i].Head() {
		case "define-fun", "define-fun-rec", "define-funs-rec", "declare-fun", "declare-sort", "define-sort", "forall":
			// declare-fun and forall appear in Z3 models with
			// uninterpreted sorts (cardinality constraints).
		default:
			return nil, false
		}
	}
	return items, true
}

// modelText renders model forms as one per line, verbatim from src.
func modelText(src string, forms []smtlib.SExpr) string {
	var b strings.Builder
	for i := range forms {
		b.WriteString(forms[i].Text(src))
		b.WriteByte('\n')
	}
	return b.String()
}

// errorText is the message of an (error "...") response; some solvers
// print it as a bare symbol.
func errorText(f *smtlib.SExpr) string {
	if len(f.List) > 1 && !f.List[1].IsList() {
		return f.List[1].Atom
	}
	return "(no message)"
}
