package ub

import (
	"fmt"
	"strings"
)

// Model is one undefined-behaviour assumption a check may make about the
// source program.
type Model uint8

// The models, in the order --ub lists them: signed integer overflow,
// type-based strict aliasing, out-of-bounds variable access, shift
// amounts, division by zero, null dereference, misaligned access, NaN
// payloads, and restrict-qualified pointer parameters. NaN is no undefined
// behaviour but an unspecified value: which NaN an addition or
// multiplication of two NaNs returns (C leaves a NaN's payload
// unspecified; SSE returns the first operand's, so a compiler that
// commutes the operands, as gcc and clang do, changes it). Under it the
// lifter makes those operations commutative functions of their operands
// (x86.TFGOptions.AnyNaN). Restrict (C11 6.7.3.1) came last, so the
// numbering of the others stayed as it was: an object a restrict pointer
// parameter reaches and that is modified is reached through no other
// pointer (restrict.go).
const (
	SIO Model = iota
	TBSA
	OBVA
	Shift
	Div
	Null
	Align
	NaN
	Restrict
	numModels
)

// names are the models as --ub spells them, by Model.
var names = [numModels]string{"sio", "tbsa", "obva", "shift", "div", "null", "align", "nan", "restrict"}

// String is the model as --ub spells it.
func (m Model) String() string {
	if m < numModels {
		return names[m]
	}
	return fmt.Sprintf("Model(%d)", uint8(m))
}

// Set is a set of models: what a check may assume.
type Set uint16

// All is every model: the default of eqc check.
const All Set = 1<<numModels - 1

// StackLimit is the size of the region below the entry stack pointer that
// counts as the called function's frame (its own and its callees'): the
// region OBVA says no pointer from outside reaches, and the one whose
// contents are dead after the return.
const StackLimit = 1 << 20

// Has reports whether s includes model m.
func (s Set) Has(m Model) bool { return s&(1<<m) != 0 }

// None reports whether s is empty: no undefined behaviour is assumed.
func (s Set) None() bool { return s == 0 }

// String is s as Parse reads it: "all", "none", or its models in --ub
// order, comma-separated.
func (s Set) String() string {
	switch s {
	case All:
		return "all"
	case 0:
		return "none"
	}
	var out []string
	for m := Model(0); m < numModels; m++ {
		if s.Has(m) {
			out = append(out, m.String())
		}
	}
	return strings.Join(out, ",")
}

// Parse reads a model spec, as --ub takes it: "all", "none", a
// comma-separated list of models ("sio,obva"), or "all" followed by models
// to leave out ("all,-sio,-tbsa", the ablation's form). Anything else is a
// *ParseError.
func Parse(spec string) (Set, error) {
	switch spec {
	case "all":
		return All, nil
	case "none":
		return 0, nil
	}
	parts := strings.Split(spec, ",")
	if parts[0] == "all" && len(parts) > 1 {
		s := All
		for _, p := range parts[1:] {
			name, minus := strings.CutPrefix(p, "-")
			m, ok := lookup(name)
			if !minus || !ok {
				return 0, &ParseError{Spec: spec, Model: p}
			}
			s &^= 1 << m
		}
		return s, nil
	}
	var s Set
	for _, name := range parts {
		m, ok := lookup(name)
		if !ok {
			return 0, &ParseError{Spec: spec, Model: name}
		}
		s |= 1 << m
	}
	return s, nil
}

func lookup(name string) (Model, bool) {
	for m, n := range names {
		if n == name {
			return Model(m), true
		}
	}
	return 0, false
}

// ParseError is a model spec Parse refuses: Model is the part of Spec
// that names no model.
type ParseError struct {
	Spec, Model string
}

func (e *ParseError) Error() string {
	what := fmt.Sprintf("unknown UB model %q", e.Model)
	if e.Model == "" {
		what = "empty UB model"
	}
	return fmt.Sprintf("%s in %q (want all, none, a comma-separated list of %s, or all followed by models to leave out: all,-sio)", what, e.Spec, strings.Join(names[:], ", "))
}

// SanitizerCheck is the model whose undefined behaviour a check of clang's
// -fsanitize-trap catches, by the check kind the trap's ud1 carries in its
// displacement (clang's handler numbering: 0 add, 0x15 sub, 0xc mul and
// 0xd negate overflow, 0x14 shift out of bounds, 3 division or remainder
// overflow, by zero included). Other kinds name no model here.
func SanitizerCheck(kind uint8) (Model, bool) {
	switch kind {
	case 0x00, 0x15, 0x0c, 0x0d:
		return SIO, true
	case 0x14:
		return Shift, true
	case 0x03:
		return Div, true
	}
	return 0, false
}
