package smtlib

// Status is a solver's answer to (check-sat): SMT-LIB's check_sat_response.
// It is declared once, here, for every backend: the solver processes and
// the libz3 binding (package prove/z3) both answer in it, and package prove
// passes it on in its Answer and Result.
type Status int

// Unknown is the zero value, so an answer that was never filled in is never
// mistaken for a definite one.
const (
	Unknown Status = iota
	Sat
	Unsat
)

// String is the response as SMT-LIB writes it: sat, unsat or unknown.
func (s Status) String() string {
	switch s {
	case Sat:
		return "sat"
	case Unsat:
		return "unsat"
	default:
		return "unknown"
	}
}

// Definite reports whether s is Sat or Unsat.
func (s Status) Definite() bool { return s == Sat || s == Unsat }

// ReadStatus reads a check-sat response: the plain symbol sat, unsat or
// unknown. It reports false for anything else.
func ReadStatus(sx *SExpr) (Status, bool) {
	if sx.Kind != SSymbol || sx.Quoted {
		return Unknown, false
	}
	for _, s := range []Status{Sat, Unsat, Unknown} {
		if sx.Atom == s.String() {
			return s, true
		}
	}
	return Unknown, false
}
