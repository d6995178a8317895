package ub

import "strings"

// Models are the names of the undefined-behaviour assumptions a check may
// make about the source program, as `--ub` spells them: signed integer
// overflow, type-based strict aliasing, out-of-bounds variable access, shift
// amounts, division by zero, null dereference, misaligned access. "all" and
// "none" stand for every model and for no model.
var Models = []string{"sio", "tbsa", "obva", "shift", "div", "null", "align"}

// Known reports whether name is one of Models.
func Known(name string) bool {
	for _, m := range Models {
		if m == name {
			return true
		}
	}
	return false
}

// Enabled reports whether the UB model spec ("all", "none", or a list of
// Models joined by ',' or '+') includes model name. An empty spec is
// "all", the default of eqc check.
func Enabled(spec, name string) bool {
	if spec == "" || spec == "all" {
		return true
	}
	for _, m := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == '+' }) {
		if m == name {
			return true
		}
	}
	return false
}
