package prove

import (
	"fmt"
	"sort"
	"strings"
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
	forms, err := parseAll(script)
	if err != nil {
		return "", nil, "script does not parse: " + err.Error()
	}
	decls = map[string]string{}
	var b strings.Builder
	var lets, asserts []string // 0-ary definitions as let bindings; assertion bodies
	for _, f := range forms {
		text := script[f.start:f.end]
		switch f.head() {
		case "set-logic":
			if len(f.list) == 2 && f.list[1].isAtom("ALL") {
				continue // Boolector rejects ALL; without set-logic it infers
			}
		case "set-option", "set-info", "check-sat", "get-model", "get-info", "get-value", "exit":
			continue
		case "declare-const":
			if len(f.list) != 3 {
				return "", nil, "malformed declare-const"
			}
			name, sort := f.list[1], f.list[2]
			decls[name.atom] = script[sort.start:sort.end]
			text = fmt.Sprintf("(declare-fun %s () %s)", name.atom, script[sort.start:sort.end])
		case "declare-fun":
			if len(f.list) != 4 || !f.list[2].isList {
				return "", nil, "malformed declare-fun"
			}
			if len(f.list[2].list) > 0 {
				return "", nil, "no uninterpreted functions (" + f.list[1].atom + ")"
			}
			decls[f.list[1].atom] = script[f.list[3].start:f.list[3].end]
		case "define-fun":
			// (define-fun NAME () SORT BODY) → (let ((NAME BODY)) …)
			if len(f.list) != 5 || !f.list[2].isList || len(f.list[2].list) > 0 || f.list[1].isList {
				return "", nil, "no define-fun with parameters"
			}
			if q := findQuantifier(f); q != "" {
				return "", nil, "no quantifiers (" + q + ")"
			}
			body := f.list[4]
			lets = append(lets, fmt.Sprintf("(let ((%s %s))", f.list[1].atom, script[body.start:body.end]))
			continue
		case "define-fun-rec", "declare-sort", "define-sort":
			return "", nil, "no " + f.head()
		case "assert":
			if q := findQuantifier(f); q != "" {
				return "", nil, "no quantifiers (" + q + ")"
			}
			if len(f.list) != 2 {
				return "", nil, "malformed assert"
			}
			asserts = append(asserts, script[f.list[1].start:f.list[1].end])
			continue
		}
		b.WriteString(text)
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

func findQuantifier(e *sexpr) string {
	if !e.isList {
		if e.atom == "forall" || e.atom == "exists" {
			return e.atom
		}
		return ""
	}
	for _, s := range e.list {
		if q := findQuantifier(s); q != "" {
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
		return Answer{Status: Unsat}
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
	return Answer{Status: Sat, Model: b.String()}
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
