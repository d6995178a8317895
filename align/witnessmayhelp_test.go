package align

import "testing"

// The reasons a proof through the witness is tried after: only those the
// witness's premises could answer.
func TestWitnessMayHelp(t *testing.T) {
	for _, c := range []struct {
		reason string
		want   bool
	}{
		{"invariants-too-weak: n1→n1 (dst 0x40, src 0x60×1): invariants of the target node are inductive", true},
		{"counterexample: return value; not confirmed by real runs: both binaries showed the same observables", true},
		{"no-correlation: no alignment of the co-executions fits", true},
		{"solver-unknown: same-termination: canceled", true},
		{"timeout", false},
		{"unsupported:calls (an address in the frame may be stored outside it, where a callee could use it)", false},
		{"unsupported:indirect-jump", false},
		{"read-only-data: .rodata may hold different constants in the two files", false},
	} {
		if got := witnessMayHelp(c.reason); got != c.want {
			t.Errorf("witnessMayHelp(%q) = %v, want %v", c.reason, got, c.want)
		}
	}
}
