package ub

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
