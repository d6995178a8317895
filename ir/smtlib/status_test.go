package smtlib

import "testing"

func TestReadStatus(t *testing.T) {
	for _, c := range []struct {
		text string
		want Status
		ok   bool
	}{
		{"sat", Sat, true},
		{"unsat", Unsat, true},
		{"unknown", Unknown, true},
		{"|sat|", Unknown, false},
		{"(sat)", Unknown, false},
		{"success", Unknown, false},
		{`"sat"`, Unknown, false},
	} {
		sx, err := ParseSExpr(c.text)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := ReadStatus(&sx); got != c.want || ok != c.ok {
			t.Errorf("%s: got %v %v, want %v %v", c.text, got, ok, c.want, c.ok)
		}
	}
	for _, s := range []Status{Sat, Unsat, Unknown} {
		sx, _ := ParseSExpr(s.String())
		if got, ok := ReadStatus(&sx); !ok || got != s {
			t.Errorf("%v does not read back: %v", s, got)
		}
	}
	if Unknown.Definite() || !Sat.Definite() || !Unsat.Definite() {
		t.Error("Definite")
	}
	var zero Status
	if zero != Unknown {
		t.Error("the zero Status is not Unknown")
	}
}
