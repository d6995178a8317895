package ub

import (
	"errors"
	"strings"
	"testing"
)

// TestModelsMatchDesign pins the --ub names of the docs/design.md CLI contract.
func TestModelsMatchDesign(t *testing.T) {
	for i, name := range []string{"sio", "tbsa", "obva", "shift", "div", "null", "align", "nan", "restrict"} {
		s, err := Parse(name)
		if err != nil || s != 1<<i || Model(i).String() != name {
			t.Errorf("Parse(%q) = %v, %v; Model(%d) is %s", name, s, err, i, Model(i))
		}
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		spec string
		obva bool
		text string // String of the set
	}{
		{"all", true, "all"},
		{"none", false, "none"},
		{"obva", true, "obva"},
		{"sio,obva", true, "sio,obva"},
		{"obva,sio", true, "sio,obva"},
		{"sio,tbsa", false, "sio,tbsa"},
		{"sio,tbsa,obva,shift,div,null,align,nan,restrict", true, "all"},
		{"sio,tbsa,obva,shift,div,null,align,nan", true, "sio,tbsa,obva,shift,div,null,align,nan"},
		{"sio,tbsa,obva,shift,div,null,align", true, "sio,tbsa,obva,shift,div,null,align"},
		{"all,-sio", true, "tbsa,obva,shift,div,null,align,nan,restrict"},
		{"all,-obva", false, "sio,tbsa,shift,div,null,align,nan,restrict"},
		{"all,-nan", true, "sio,tbsa,obva,shift,div,null,align,restrict"},
		{"all,-restrict", true, "sio,tbsa,obva,shift,div,null,align,nan"},
		{"all,-sio,-tbsa,-obva,-shift,-div,-null,-align,-nan,-restrict", false, "none"},
	} {
		s, err := Parse(c.spec)
		if err != nil || s.Has(OBVA) != c.obva || s.String() != c.text || s.None() != (c.text == "none") {
			t.Errorf("Parse(%q) = %v (%q), %v; want obva %v, %q", c.spec, s, s.String(), err, c.obva, c.text)
		}
	}
	for _, c := range []struct{ spec, model string }{
		{"", ""},
		{"SIO", "SIO"},
		{"overflow", "overflow"},
		{"obvax", "obvax"},
		{"sio+obva", "sio+obva"},
		{"all,sio", "sio"},
		{"sio,none", "none"},
		{"sio,", ""},
		{" sio", " sio"},
		{"all,-", "-"},
		{"all,sio,-tbsa", "sio"},
		{"all,-nosuch", "-nosuch"},
		{"sio,-tbsa", "-tbsa"},
	} {
		_, err := Parse(c.spec)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Spec != c.spec || pe.Model != c.model {
			t.Errorf("Parse(%q): %v, want a *ParseError naming %q", c.spec, err, c.model)
			continue
		}
		if !strings.Contains(err.Error(), "sio, tbsa, obva, shift, div, null, align") {
			t.Errorf("Parse(%q): %q does not name the valid models", c.spec, err)
		}
	}
}
