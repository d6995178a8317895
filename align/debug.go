package align

import (
	"fmt"
	"os"
	"path/filepath"

	"eqc/ir"
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
		text, _ := ir.QueryString(q.B, q.Assertions, ir.PrintOptions{})
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.smt2", what, n)), []byte(text), 0o644)
	}
}
