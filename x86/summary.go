package x86

import (
	"sort"
	"strings"

	"eqc/ir"
)

// LiftSummary is the per-function line of `eqc lift --json`.
type LiftSummary struct {
	File         string `json:"file"`
	Function     string `json:"function"`
	Instructions int    `json:"instructions"`
	Blocks       int    `json:"blocks"`
	Loops        int    `json:"loops"`
	// Unsupported is never nil, so that JSON shows [] for a fully lifted
	// function.
	Unsupported []string `json:"unsupported"`
}

// Summary reports fn for `eqc lift` from its CFG alone: what the decoder
// and the CFG could not handle, not the instruction semantics (see
// File.LiftSummary).
func (fn *Function) Summary() LiftSummary {
	u := append([]string{}, fn.Unsupported...)
	return LiftSummary{File: fn.File, Function: fn.Name, Instructions: len(fn.Insts),
		Blocks: len(fn.Blocks), Loops: len(fn.Loops), Unsupported: u}
}

// SummaryOf reports fn with the unsupported entries of its TFG g: the
// CFG's (bad-bytes, indirect-jump, x87:…) and every mnemonic the semantics
// could not lift, reduced to the mnemonic ("STOSB", not
// "STOSB:rep with a non-constant count"), sorted and without repeats.
func SummaryOf(fn *Function, g *ir.TFG) LiftSummary {
	s := fn.Summary()
	seen := map[string]bool{}
	for _, u := range s.Unsupported {
		seen[u] = true
	}
	for _, u := range g.Unsupported {
		m := UnsupportedMnemonic(u)
		if !seen[m] {
			seen[m] = true
			s.Unsupported = append(s.Unsupported, m)
		}
	}
	sort.Strings(s.Unsupported)
	return s
}

// UnsupportedMnemonic reduces an unsupported entry of a TFG to its summary
// form: "x87:<MNEMONIC>" stays whole, otherwise what precedes the first
// colon (the mnemonic of "<MNEMONIC>:<why>").
func UnsupportedMnemonic(u string) string {
	if strings.HasPrefix(u, "x87:") {
		return u
	}
	if i := strings.IndexByte(u, ':'); i > 0 {
		return u[:i]
	}
	return u
}

// LiftSummary decodes fn, builds its CFG and lifts it into a TFG, and
// reports it.
func (f *File) LiftSummary(fn *Func) LiftSummary {
	g := f.Analyze(fn)
	return SummaryOf(g, BuildTFG(ir.NewBuilder(), g, TFGOptions{File: f}))
}

// LiftSummaries lifts every harvested function of f, in address order.
func (f *File) LiftSummaries() []LiftSummary {
	out := make([]LiftSummary, 0, len(f.Functions))
	for _, fn := range f.Functions {
		out = append(out, f.LiftSummary(fn))
	}
	return out
}

// LiftFile opens path and summarizes each of its functions.
func LiftFile(path string) ([]LiftSummary, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	return f.LiftSummaries(), nil
}
