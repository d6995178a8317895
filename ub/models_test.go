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
