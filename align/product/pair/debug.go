package pair

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"eqc/ir"
	"eqc/ir/smtlib"
	"eqc/prove"
)

// With EQC_DEBUG_QUERIES=DIR in the environment, every query of the loop
// engine (Houdini's and the obligations) is written to DIR as SMT-LIB, to
// replay one slow query with a solver.
func init() {
	dir := os.Getenv("EQC_DEBUG_QUERIES")
	if dir == "" {
		return
	}
	n := 0
	prove.DumpQuery = func(what string, q prove.Query) {
		n++
		text, _ := smtlib.QueryString(q.B, q.Assertions, smtlib.PrintOptions{LetAbove: prove.MaxDefineFuns}) // as the solvers get it
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.smt2", what, n)), []byte(text), 0o644)
	}
}

// debug, set by EQC_DEBUG in the environment, prints the product programs
// tried and their candidates on stderr.
var Debug = os.Getenv("EQC_DEBUG") != ""

func init() {
	if Debug {
		prove.Trace = func(what string, from, to, n int, st smtlib.Status, d time.Duration) {
			fmt.Fprintf(os.Stderr, "eqc: %s n%d→n%d, %d candidates: %v in %v\n", what, from, to, n, st, d)
		}
		prove.TraceDrop = func(b *ir.Builder, site int, cand ir.Term) {
			fmt.Fprintf(os.Stderr, "eqc: houdini drops at n%d: %s\n", site, b.Short(cand))
		}
	}
}
