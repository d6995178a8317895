package ub

import "testing"

// TestModelsMatchDesign pins the --ub names of the DESIGN.md CLI contract.
func TestModelsMatchDesign(t *testing.T) {
	for _, m := range []string{"sio", "tbsa", "obva", "shift", "div", "null", "align"} {
		if !Known(m) {
			t.Errorf("%s is not known", m)
		}
	}
	for _, m := range []string{"all", "none", "", "SIO", "overflow"} {
		if Known(m) {
			t.Errorf("%q is known", m)
		}
	}
}

func TestEnabled(t *testing.T) {
	for _, c := range []struct {
		spec, name string
		want       bool
	}{
		{"all", "obva", true},
		{"", "obva", true},
		{"none", "obva", false},
		{"obva", "obva", true},
		{"sio,obva", "obva", true},
		{"sio+obva", "obva", true},
		{"sio,tbsa", "obva", false},
		{"obvax", "obva", false},
	} {
		if got := Enabled(c.spec, c.name); got != c.want {
			t.Errorf("Enabled(%q, %q) = %v, want %v", c.spec, c.name, got, c.want)
		}
	}
}
