package prove

import (
	"fmt"
	"strings"
)

// sexpr is a parsed S-expression with the byte span it came from, so that
// solver output can be passed on verbatim (models are sliced out of the
// solver's text, never re-printed).
type sexpr struct {
	atom       string // for atoms: the token as written (strings keep quotes)
	list       []*sexpr
	isList     bool
	start, end int // span in the source text
}

func (e *sexpr) isAtom(s string) bool { return !e.isList && e.atom == s }

// head returns the first element's atom, or "" if e is not a list starting
// with an atom.
func (e *sexpr) head() string {
	if !e.isList || len(e.list) == 0 || e.list[0].isList {
		return ""
	}
	return e.list[0].atom
}

// sexprReader reads SMT-LIB S-expressions one at a time. It understands
// comments, string literals (with "" as the escaped quote) and |quoted
// symbols|, which is all that is needed to find form boundaries in SMT-LIB
// text.
type sexprReader struct {
	src string
	pos int
}

// skip advances over whitespace and comments.
func (r *sexprReader) skip() {
	for r.pos < len(r.src) {
		c := r.src[r.pos]
		switch {
		case c == ';':
			for r.pos < len(r.src) && r.src[r.pos] != '\n' {
				r.pos++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			r.pos++
		default:
			return
		}
	}
}

// next returns the next S-expression, or nil at the end of the input.
func (r *sexprReader) next() (*sexpr, error) {
	r.skip()
	if r.pos >= len(r.src) {
		return nil, nil
	}
	start := r.pos
	switch c := r.src[r.pos]; c {
	case '(':
		r.pos++
		e := &sexpr{isList: true, start: start}
		for {
			r.skip()
			if r.pos >= len(r.src) {
				return nil, fmt.Errorf("unbalanced '(' at offset %d", start)
			}
			if r.src[r.pos] == ')' {
				r.pos++
				e.end = r.pos
				return e, nil
			}
			sub, err := r.next()
			if err != nil {
				return nil, err
			}
			e.list = append(e.list, sub)
		}
	case ')':
		return nil, fmt.Errorf("unexpected ')' at offset %d", start)
	case '"':
		r.pos++
		for {
			i := strings.IndexByte(r.src[r.pos:], '"')
			if i < 0 {
				return nil, fmt.Errorf("unterminated string at offset %d", start)
			}
			r.pos += i + 1
			if r.pos < len(r.src) && r.src[r.pos] == '"' { // "" escapes a quote
				r.pos++
				continue
			}
			return &sexpr{atom: r.src[start:r.pos], start: start, end: r.pos}, nil
		}
	case '|':
		i := strings.IndexByte(r.src[r.pos+1:], '|')
		if i < 0 {
			return nil, fmt.Errorf("unterminated |symbol| at offset %d", start)
		}
		r.pos += i + 2
		return &sexpr{atom: r.src[start:r.pos], start: start, end: r.pos}, nil
	default:
		for r.pos < len(r.src) {
			c := r.src[r.pos]
			if c == '(' || c == ')' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '"' || c == '|' {
				break
			}
			r.pos++
		}
		return &sexpr{atom: r.src[start:r.pos], start: start, end: r.pos}, nil
	}
}

// parseAll parses every S-expression in src.
func parseAll(src string) ([]*sexpr, error) {
	r := &sexprReader{src: src}
	var out []*sexpr
	for {
		e, err := r.next()
		if err != nil {
			return out, err
		}
		if e == nil {
			return out, nil
		}
		out = append(out, e)
	}
}

// unquote returns the contents of an SMT-LIB string literal, or s itself if
// it is not one (some solvers print reasons as bare symbols).
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return s
}

// modelForms recognises a model as solvers print it in answer to
// (get-model): "(model (define-fun ...) ...)" (older Z3), or
// "((define-fun ...) ...)" (SMT-LIB 2.6), possibly empty. It returns the
// define-fun forms.
func modelForms(e *sexpr) ([]*sexpr, bool) {
	if !e.isList {
		return nil, false
	}
	items := e.list
	if e.head() == "model" {
		items = items[1:]
	}
	for _, it := range items {
		switch it.head() {
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
func modelText(src string, forms []*sexpr) string {
	var b strings.Builder
	for _, f := range forms {
		b.WriteString(src[f.start:f.end])
		b.WriteByte('\n')
	}
	return b.String()
}
