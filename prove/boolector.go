package prove

import (
	"fmt"
	"sort"
	"strings"

	"eqc/ir/smtlib"
)

// Boolector 1.5.118 (Debian's) speaks an older SMT-LIB2 subset: no
// declare-const, no define-fun, no uninterpreted functions of arity > 0, no
// quantifiers, no (set-logic ALL), no get-model. boolectorInput rewrites
// what has an equivalent and refuses the rest up front, so that the refusal
// reads "unsupported: ..." rather than as a parse error. Definitions without
// parameters (how the ir printer names shared subterms) become nested lets
// around one assert of the conjunction of all assertions. Its -m model
// output ("x 0101", "m[0001] 0110") is translated back to define-funs using
// the declared sorts.

// boolectorInput returns the script to send, the declared constants' sorts
// (name -> sort text), or a reason the script cannot be sent.
func boolectorInput(script string) (input string, decls map[string]string, unsupported string) {
	forms, err := smtlib.ReadSExprs(script)
	if err != nil {
		return "", nil, "script does not parse: " + err.Error()
	}
	decls = map[string]string{}
	var b strings.Builder
	var lets, asserts []string // 0-ary definitions as let bindings; assertion bodies
	text := func(e *smtlib.SExpr) string { return e.Text(script) }
	for i := range forms {
		f := &forms[i]
		l := f.List
		form := text(f)
		switch f.Head() {
		case "set-logic":
			if len(l) == 2 && l[1].IsWord("ALL") {
				continue // Boolector rejects ALL; without set-logic it infers
			}
		case "set-option", "set-info", "check-sat", "get-model", "get-info", "get-value", "exit":
			continue
		case "declare-const":
			if len(l) != 3 {
				return "", nil, "malformed declare-const"
			}
			name, sort := text(&l[1]), text(&l[2])
			decls[name] = sort
			form = fmt.Sprintf("(declare-fun %s () %s)", name, sort)
		case "declare-fun":
			if len(l) != 4 || !l[2].IsList() {
				return "", nil, "malformed declare-fun"
			}
			if len(l[2].List) > 0 {
				return "", nil, "no uninterpreted functions (" + text(&l[1]) + ")"
			}
			decls[text(&l[1])] = text(&l[3])
		case "define-fun":
			// (define-fun NAME () SORT BODY) → (let ((NAME BODY)) …)
			if len(l) != 5 || !l[2].IsList() || len(l[2].List) > 0 || l[1].IsList() {
				return "", nil, "no define-fun with parameters"
			}
			if q := findQuantifier(f); q != "" {
				return "", nil, "no quantifiers (" + q + ")"
			}
			lets = append(lets, fmt.Sprintf("(let ((%s %s))", text(&l[1]), text(&l[4])))
			continue
		case "define-fun-rec", "declare-sort", "define-sort":
			return "", nil, "no " + f.Head()
		case "assert":
			if q := findQuantifier(f); q != "" {
				return "", nil, "no quantifiers (" + q + ")"
			}
			if len(l) != 2 {
				return "", nil, "malformed assert"
			}
			asserts = append(asserts, text(&l[1]))
			continue
		}
		b.WriteString(form)
		b.WriteByte('\n')
	}
	if len(asserts) > 0 {
		body := asserts[0]
		if len(asserts) > 1 {
			body = "(and " + strings.Join(asserts, " ") + ")"
		}
		fmt.Fprintf(&b, "(assert %s %s%s)\n", strings.Join(lets, "\n "), body, strings.Repeat(")", len(lets)))
	}
	b.WriteString("(check-sat)\n(exit)\n")
	return b.String(), decls, ""
}

func findQuantifier(e *smtlib.SExpr) string {
	if !e.IsList() {
		if e.IsWord("forall") || e.IsWord("exists") {
			return e.Atom
		}
		return ""
	}
	for i := range e.List {
		if q := findQuantifier(&e.List[i]); q != "" {
			return q
		}
	}
	return ""
}

// parseBoolectorOutput reads "sat"/"unsat"/"unknown" and, after sat, the -m
// model lines. Errors are printed on stdout as "<stdin>:LINE: message".
func parseBoolectorOutput(out string, decls map[string]string) Answer {
	lines := strings.Split(out, "\n")
	i := 0
	next := func() (string, bool) {
		for i < len(lines) {
			l := strings.TrimSpace(lines[i])
			i++
			if l != "" && !strings.HasPrefix(l, "[btor") { // [btorsmt2] WARNING ...
				return l, true
			}
		}
		return "", false
	}
	first, ok := next()
	if !ok {
		return Answer{}
	}
	switch first {
	case "unsat":
		return Answer{Status: smtlib.Unsat}
	case "unknown":
		return Answer{Reason: ReasonUnknown + ": boolector"}
	case "sat":
	default:
		if strings.HasPrefix(first, "<stdin>:") || strings.HasPrefix(first, "boolector:") {
			return Answer{Reason: ReasonError + ": boolector: " + first}
		}
		return Answer{Reason: fmt.Sprintf("%s: boolector printed %q", ReasonGarbage, snippet([]byte(first)))}
	}

	scalars := map[string]string{}
	arrays := map[string][][2]string{}
	for {
		l, ok := next()
		if !ok {
			break
		}
		name, val, ok := strings.Cut(l, " ")
		if !ok {
			return Answer{Reason: fmt.Sprintf("%s: boolector model line %q", ReasonGarbage, snippet([]byte(l)))}
		}
		if base, idx, isArr := strings.Cut(name, "["); isArr && strings.HasSuffix(idx, "]") {
			arrays[base] = append(arrays[base], [2]string{strings.TrimSuffix(idx, "]"), val})
		} else {
			scalars[name] = val
		}
	}

	var b strings.Builder
	for _, name := range sortedKeys(scalars) {
		srt, declared := decls[name]
		if !declared {
			continue // an internal symbol, not ours
		}
		fmt.Fprintf(&b, "(define-fun %s () %s %s)\n", name, srt, btorValue(srt, scalars[name]))
	}
	for _, name := range sortedKeys(arrays) {
		srt, declared := decls[name]
		if !declared {
			continue
		}
		// Entries Boolector does not list are unconstrained; zero is as
		// good a default as any.
		entries := arrays[name]
		term := fmt.Sprintf("((as const %s) #b%s)", srt, strings.Repeat("0", len(entries[0][1])))
		for _, e := range entries {
			term = fmt.Sprintf("(store %s #b%s #b%s)", term, btorBits(e[0]), btorBits(e[1]))
		}
		fmt.Fprintf(&b, "(define-fun %s () %s %s)\n", name, srt, term)
	}
	return Answer{Status: smtlib.Sat, Model: b.String()}
}

// btorBits turns Boolector's binary digits, where 'x' marks a don't-care
// bit, into a valid SMT-LIB binary literal body.
func btorBits(s string) string { return strings.ReplaceAll(s, "x", "0") }

func btorValue(sort, bits string) string {
	if sort == "Bool" {
		if btorBits(bits) == "1" {
			return "true"
		}
		return "false"
	}
	return "#b" + btorBits(bits)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
