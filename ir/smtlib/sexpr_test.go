package smtlib

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSExprAtoms(t *testing.T) {
	src := `(foo |a b| :kw 42 3.25 #xDEad #b0101 "say ""hi""" ; comment
	  (nested (deeper)) x!0 _arg_1 =>)`
	s, err := ParseSExpr(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind   SExprKind
		atom   string
		quoted bool
	}{
		{SSymbol, "foo", false}, {SSymbol, "a b", true}, {SKeyword, ":kw", false},
		{SNumeral, "42", false}, {SDecimal, "3.25", false}, {SHex, "DEad", false},
		{SBinary, "0101", false}, {SString, `say "hi"`, false},
	}
	if s.Kind != SList || len(s.List) != 12 {
		t.Fatalf("got %v", s)
	}
	for i, w := range want {
		got := s.List[i]
		if got.Kind != w.kind || got.Atom != w.atom || got.Quoted != w.quoted {
			t.Errorf("element %d: got %v %q %v, want %v %q %v", i, got.Kind, got.Atom, got.Quoted, w.kind, w.atom, w.quoted)
		}
	}
	if n := s.List[8]; n.Pos != (Pos{2, 4}) || n.Head() != "nested" || n.List[1].Pos != (Pos{2, 12}) {
		t.Errorf("nested list at %v, inner at %v", n.Pos, n.List[1].Pos)
	}
	if got := s.List[11]; !got.IsSymbol("=>") {
		t.Errorf("last element %v", got)
	}
	// Printing and reading again gives the same tree.
	again, err := ParseSExpr(s.String())
	if err != nil {
		t.Fatal(err)
	}
	if !sameSExpr(s, again) {
		t.Errorf("round trip:\n%v\n%v", s, again)
	}
}

func TestSExprErrors(t *testing.T) {
	for _, c := range []struct{ src, pos, msg string }{
		{"(a b", "1:1", "unclosed"},
		{"a)", "1:2", "unexpected )"},
		{"(a\n  |unterminated", "2:3", "unterminated"},
		{"\n\n  \"open", "3:3", "unterminated string"},
		{"(#xZZ)", "1:2", "hexadecimal"},
		{"(#b012)", "1:2", "binary"},
		{"#x", "1:1", "empty"},
		{"12ab", "1:1", "numeral"},
		{"#q", "1:1", "literal"},
		{"(: a)", "1:2", "keyword"},
		{"|a\\b|", "1:1", "backslash"},
	} {
		_, err := ReadSExprs(c.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: got %v, want a SyntaxError", c.src, err)
			continue
		}
		if se.Pos.String() != c.pos || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("%q: got %v, want %s: …%s…", c.src, err, c.pos, c.msg)
		}
	}
}

func TestSExprReaderStream(t *testing.T) {
	r := NewSExprReader("sat\n(model (define-fun x () Bool true))\n; trailing\n")
	first, err := r.Next()
	if err != nil || !first.IsSymbol("sat") {
		t.Fatalf("first: %v %v", first, err)
	}
	second, err := r.Next()
	if err != nil || second.Head() != "model" {
		t.Fatalf("second: %v %v", second, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("want EOF, got %v", err)
	}
	if _, err := ParseSExpr("a b"); err == nil {
		t.Error("ParseSExpr accepted two expressions")
	}
	if _, err := ParseSExpr("  ; nothing\n"); err == nil {
		t.Error("ParseSExpr accepted no expression")
	}
}

func TestSExprDepthLimit(t *testing.T) {
	deep := strings.Repeat("(", MaxSExprDepth+1) + strings.Repeat(")", MaxSExprDepth+1)
	if _, err := ParseSExpr(deep); err == nil || !strings.Contains(err.Error(), "nesting") {
		t.Errorf("got %v, want a nesting error", err)
	}
	ok := strings.Repeat("(", 1000) + "x" + strings.Repeat(")", 1000)
	if _, err := ParseSExpr(ok); err != nil {
		t.Error(err)
	}
}

func sameSExpr(a, b SExpr) bool {
	a.Pos, b.Pos = Pos{}, Pos{}
	if a.Kind != b.Kind || a.Atom != b.Atom || len(a.List) != len(b.List) {
		return false
	}
	if a.Kind == SSymbol && a.Quoted != b.Quoted && isSimpleSymbol(a.Atom) {
		return false
	}
	for i := range a.List {
		if !sameSExpr(a.List[i], b.List[i]) {
			return false
		}
	}
	return true
}

// modelSeeds returns the saved solver outputs, for the fuzz targets.
func modelSeeds(f *testing.F) []string {
	paths, err := filepath.Glob(filepath.Join("testdata", "models", "*.txt"))
	if err != nil {
		f.Fatal(err)
	}
	var out []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, string(data))
	}
	return out
}

func FuzzSExpr(f *testing.F) {
	for _, s := range modelSeeds(f) {
		f.Add(s)
	}
	f.Add(`(a |b c| "d""e" #x0f #b1 :k 1.5 ; c` + "\n)")
	f.Fuzz(func(t *testing.T, src string) {
		sxs, err := ReadSExprs(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		// What was read prints to text that reads back the same, and so does
		// its span of the input.
		for i := range sxs {
			s := sxs[i]
			if again, err := ParseSExpr(s.Text(src)); err != nil || !reflect.DeepEqual(stripPos(s), stripPos(again)) {
				t.Fatalf("the span %q of %v reads as %v (%v)", s.Text(src), s, again, err)
			}
			again, err := ParseSExpr(s.String())
			if err != nil {
				if strings.ContainsAny(s.String(), "|\\") {
					return // a quoted symbol that cannot be printed quoted
				}
				t.Fatalf("reprinted %q does not read: %v", s.String(), err)
			}
			if !reflect.DeepEqual(stripPos(s), stripPos(again)) && !sameSExpr(s, again) {
				t.Fatalf("round trip changed %v into %v", s, again)
			}
		}
	})
}

func stripPos(s SExpr) SExpr {
	s.Pos, s.Off, s.End = Pos{}, 0, 0
	if s.Kind == SSymbol && isSimpleSymbol(s.Atom) {
		s.Quoted = false
	}
	if len(s.List) > 0 {
		l := make([]SExpr, len(s.List))
		for i := range s.List {
			l[i] = stripPos(s.List[i])
		}
		s.List = l
	}
	return s
}

// TestSExprSpans: every node knows its bytes in the text, so solver output
// can be passed on verbatim.
func TestSExprSpans(t *testing.T) {
	src := "sat ; comment\n(model (define-fun x () (_ BitVec 8) #x01)\n  |a b| \"s\"\"t\" :kw)  "
	forms, err := ReadSExprs(src)
	if err != nil || len(forms) != 2 {
		t.Fatalf("%v %v", forms, err)
	}
	m := &forms[1]
	for _, c := range []struct {
		node *SExpr
		want string
	}{
		{&forms[0], "sat"},
		{m, "(model (define-fun x () (_ BitVec 8) #x01)\n  |a b| \"s\"\"t\" :kw)"},
		{&m.List[1], "(define-fun x () (_ BitVec 8) #x01)"},
		{&m.List[1].List[3], "(_ BitVec 8)"},
		{&m.List[1].List[4], "#x01"},
		{&m.List[2], "|a b|"},
		{&m.List[3], `"s""t"`},
		{&m.List[4], ":kw"},
	} {
		if got := c.node.Text(src); got != c.want {
			t.Errorf("node %v spans %q, want %q", c.node, got, c.want)
		}
	}
}
