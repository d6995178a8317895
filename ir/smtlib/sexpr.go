package smtlib

import (
	"fmt"
	"io"
	"strings"
)

// S-expressions: the concrete syntax of SMT-LIB2 text, and eqc's one reader
// of it. It reads solver output, proof files and eqc's own scripts, so it
// must accept anything without panicking and in time linear in the input: it
// is iterative (no recursion on nesting), bounds nesting depth by
// MaxSExprDepth, and reports every problem as a *SyntaxError carrying a
// line:column position. Every node records its byte span in the text, so a
// caller can pass solver output on verbatim (Text) instead of re-printing it.

// SExprKind is the kind of an S-expression node.
type SExprKind uint8

const (
	SList    SExprKind = iota + 1 // ( … )
	SSymbol                       // simple or |quoted| symbol; Atom is the name without bars
	SKeyword                      // :name; Atom includes the colon
	SNumeral                      // decimal digits
	SDecimal                      // digits.digits
	SHex                          // #x…; Atom holds the digits only
	SBinary                       // #b…; Atom holds the digits only
	SString                       // "…"; Atom holds the contents with "" unescaped
)

func (k SExprKind) String() string {
	switch k {
	case SList:
		return "list"
	case SSymbol:
		return "symbol"
	case SKeyword:
		return "keyword"
	case SNumeral:
		return "numeral"
	case SDecimal:
		return "decimal"
	case SHex:
		return "hexadecimal"
	case SBinary:
		return "binary"
	case SString:
		return "string"
	}
	return fmt.Sprintf("sexpr-kind%d", uint8(k))
}

// Pos is a position in a text: 1-based line and 1-based column in bytes.
type Pos struct {
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// SExpr is one node of an S-expression tree.
type SExpr struct {
	Kind   SExprKind
	Quoted bool    // a symbol written |like this|
	Atom   string  // the text of an atom (see SExprKind); empty for lists
	List   []SExpr // the elements of a list
	Pos    Pos     // where the node starts
	// Off and End delimit the node in the text it was read from:
	// text[Off:End], as written (quotes, bars and comments inside a list
	// included). Both are 0 for a node made by hand.
	Off, End int
}

// Text returns the node as written in src, the text it was read from.
func (s *SExpr) Text(src string) string { return src[s.Off:s.End] }

// MaxSExprDepth bounds the nesting of lists the reader accepts, so that the
// recursive consumers of its trees (term parser, model interpreter) cannot
// exhaust the stack on hostile input.
const MaxSExprDepth = 50000

// SyntaxError is a malformed S-expression or an S-expression that does not
// have the shape a parser expects.
type SyntaxError struct {
	Pos Pos
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%v: %s", e.Pos, e.Msg) }

func errAt(p Pos, format string, args ...any) error {
	return &SyntaxError{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// IsSymbol reports whether s is the symbol name (quoted or not).
func (s *SExpr) IsSymbol(name string) bool { return s.Kind == SSymbol && s.Atom == name }

// IsWord reports whether s is the plain symbol name, written without bars:
// a keyword of SMT-LIB's grammar or a solver's answer (sat, success, …),
// which a |quoted| symbol never is.
func (s *SExpr) IsWord(name string) bool { return s.Kind == SSymbol && !s.Quoted && s.Atom == name }

// IsList reports whether s is a list.
func (s *SExpr) IsList() bool { return s.Kind == SList }

// Head returns the symbol at the start of the list s, or "" when s is not a
// list or does not start with a symbol.
func (s *SExpr) Head() string {
	if s.Kind != SList || len(s.List) == 0 || s.List[0].Kind != SSymbol {
		return ""
	}
	return s.List[0].Atom
}

// String prints s in SMT-LIB syntax (quoting symbols that need it).
func (s SExpr) String() string {
	var sb strings.Builder
	s.write(&sb, 0)
	return sb.String()
}

func (s *SExpr) write(sb *strings.Builder, depth int) {
	switch s.Kind {
	case SList:
		if depth > MaxSExprDepth {
			sb.WriteString("(…)")
			return
		}
		sb.WriteByte('(')
		for i := range s.List {
			if i > 0 {
				sb.WriteByte(' ')
			}
			s.List[i].write(sb, depth+1)
		}
		sb.WriteByte(')')
	case SSymbol:
		if s.Quoted || !isSimpleSymbol(s.Atom) {
			sb.WriteString("|" + s.Atom + "|")
		} else {
			sb.WriteString(s.Atom)
		}
	case SHex:
		sb.WriteString("#x" + s.Atom)
	case SBinary:
		sb.WriteString("#b" + s.Atom)
	case SString:
		sb.WriteString(`"` + strings.ReplaceAll(s.Atom, `"`, `""`) + `"`)
	default:
		sb.WriteString(s.Atom)
	}
}

// SExprReader reads S-expressions one at a time from a text.
type SExprReader struct {
	src       string
	off       int
	line, col int
}

// NewSExprReader returns a reader of the S-expressions in src.
func NewSExprReader(src string) *SExprReader {
	return &SExprReader{src: src, line: 1, col: 1}
}

// ReadSExprs reads every S-expression of src.
func ReadSExprs(src string) ([]SExpr, error) {
	r := NewSExprReader(src)
	var out []SExpr
	for {
		s, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
}

// ParseSExpr reads exactly one S-expression from src.
func ParseSExpr(src string) (SExpr, error) {
	r := NewSExprReader(src)
	s, err := r.Next()
	if err == io.EOF {
		return SExpr{}, errAt(r.pos(), "no S-expression")
	}
	if err != nil {
		return SExpr{}, err
	}
	if _, err := r.Next(); err != io.EOF {
		if err != nil {
			return SExpr{}, err
		}
		return SExpr{}, errAt(s.Pos, "more than one S-expression")
	}
	return s, nil
}

// Pos is the reader's current position.
func (r *SExprReader) pos() Pos { return Pos{r.line, r.col} }

// Pos returns the position of the next unread byte.
func (r *SExprReader) Pos() Pos { return r.pos() }

// Rest returns the text not read yet.
func (r *SExprReader) Rest() string { return r.src[r.off:] }

func (r *SExprReader) advance(n int) {
	for i := 0; i < n; i++ {
		if r.src[r.off] == '\n' {
			r.line++
			r.col = 1
		} else {
			r.col++
		}
		r.off++
	}
}

// skipSpace skips white space and comments.
func (r *SExprReader) skipSpace() {
	for r.off < len(r.src) {
		c := r.src[r.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			r.advance(1)
		case c == ';':
			for r.off < len(r.src) && r.src[r.off] != '\n' {
				r.advance(1)
			}
		default:
			return
		}
	}
}

// Next returns the next S-expression, or io.EOF when only white space and
// comments remain.
func (r *SExprReader) Next() (SExpr, error) {
	type frame struct {
		pos   Pos
		off   int
		items []SExpr
	}
	var stack []frame
	for {
		r.skipSpace()
		if r.off >= len(r.src) {
			if len(stack) > 0 {
				return SExpr{}, errAt(stack[len(stack)-1].pos, "unclosed (")
			}
			return SExpr{}, io.EOF
		}
		var node SExpr
		switch c := r.src[r.off]; c {
		case '(':
			if len(stack) >= MaxSExprDepth {
				return SExpr{}, errAt(r.pos(), "nesting deeper than %d", MaxSExprDepth)
			}
			stack = append(stack, frame{pos: r.pos(), off: r.off})
			r.advance(1)
			continue
		case ')':
			if len(stack) == 0 {
				return SExpr{}, errAt(r.pos(), "unexpected )")
			}
			r.advance(1)
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			node = SExpr{Kind: SList, List: top.items, Pos: top.pos, Off: top.off, End: r.off}
		default:
			off := r.off
			var err error
			if node, err = r.atom(); err != nil {
				return SExpr{}, err
			}
			node.Off, node.End = off, r.off
		}
		if len(stack) == 0 {
			return node, nil
		}
		top := &stack[len(stack)-1]
		top.items = append(top.items, node)
	}
}

// isDelim reports the bytes that end an unquoted atom.
func isDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '(', ')', ';', '"', '|':
		return true
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// atom reads one atom at the current position.
func (r *SExprReader) atom() (SExpr, error) {
	start := r.pos()
	c := r.src[r.off]
	switch c {
	case '|':
		end := strings.IndexByte(r.src[r.off+1:], '|')
		if end < 0 {
			return SExpr{}, errAt(start, "unterminated |quoted symbol|")
		}
		name := r.src[r.off+1 : r.off+1+end]
		if strings.IndexByte(name, '\\') >= 0 {
			return SExpr{}, errAt(start, `backslash in a |quoted symbol|`)
		}
		r.advance(end + 2)
		return SExpr{Kind: SSymbol, Atom: name, Quoted: true, Pos: start}, nil
	case '"':
		var sb strings.Builder
		i := r.off + 1
		for {
			if i >= len(r.src) {
				return SExpr{}, errAt(start, "unterminated string")
			}
			if r.src[i] == '"' {
				if i+1 < len(r.src) && r.src[i+1] == '"' {
					sb.WriteByte('"')
					i += 2
					continue
				}
				break
			}
			sb.WriteByte(r.src[i])
			i++
		}
		r.advance(i + 1 - r.off)
		return SExpr{Kind: SString, Atom: sb.String(), Pos: start}, nil
	}
	end := r.off
	for end < len(r.src) && !isDelim(r.src[end]) {
		end++
	}
	text := r.src[r.off:end]
	r.advance(end - r.off)
	switch {
	case strings.HasPrefix(text, "#x"):
		d := text[2:]
		if d == "" {
			return SExpr{}, errAt(start, "empty #x literal")
		}
		for i := 0; i < len(d); i++ {
			if !isHexDigit(d[i]) {
				return SExpr{}, errAt(start, "bad hexadecimal literal %q", text)
			}
		}
		return SExpr{Kind: SHex, Atom: d, Pos: start}, nil
	case strings.HasPrefix(text, "#b"):
		d := text[2:]
		if d == "" {
			return SExpr{}, errAt(start, "empty #b literal")
		}
		for i := 0; i < len(d); i++ {
			if d[i] != '0' && d[i] != '1' {
				return SExpr{}, errAt(start, "bad binary literal %q", text)
			}
		}
		return SExpr{Kind: SBinary, Atom: d, Pos: start}, nil
	case text[0] == '#':
		return SExpr{}, errAt(start, "bad literal %q", text)
	case text[0] == ':':
		if len(text) == 1 {
			return SExpr{}, errAt(start, "empty keyword")
		}
		return SExpr{Kind: SKeyword, Atom: text, Pos: start}, nil
	case isDigit(text[0]):
		dot := false
		for i := 0; i < len(text); i++ {
			switch {
			case isDigit(text[i]):
			case text[i] == '.' && !dot && i > 0 && i+1 < len(text):
				dot = true
			default:
				return SExpr{}, errAt(start, "bad numeral %q", text)
			}
		}
		if dot {
			return SExpr{Kind: SDecimal, Atom: text, Pos: start}, nil
		}
		return SExpr{Kind: SNumeral, Atom: text, Pos: start}, nil
	}
	return SExpr{Kind: SSymbol, Atom: text, Pos: start}, nil
}
