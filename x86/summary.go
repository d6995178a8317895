package x86

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

// Summary reports fn for `eqc lift`.
func (fn *Function) Summary() LiftSummary {
	u := append([]string{}, fn.Unsupported...)
	return LiftSummary{File: fn.File, Function: fn.Name, Instructions: len(fn.Insts),
		Blocks: len(fn.Blocks), Loops: len(fn.Loops), Unsupported: u}
}

// LiftSummaries analyses every harvested function of f, in address order.
func (f *File) LiftSummaries() []LiftSummary {
	out := make([]LiftSummary, 0, len(f.Functions))
	for _, fn := range f.Functions {
		out = append(out, f.Analyze(fn).Summary())
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
