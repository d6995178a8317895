package aligntest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eqc/align/product/learning"
	"eqc/align/verify"
	"eqc/prove"
)

// NewSolver is a solver for one test, closed when it ends.
func NewSolver(t *testing.T) prove.Solver {
	t.Helper()
	s, _, err := prove.New(prove.Options{CacheSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// RoundTrip writes pf to a file and reads it back, as eqc check --proof
// and eqc proof verify do.
func RoundTrip(t *testing.T, pf *prove.ProofFile) *prove.ProofFile {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.proof.json")
	if err := prove.WriteProof(path, pf); err != nil {
		t.Fatal(err)
	}
	back, err := prove.ReadProof(path)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// Tamper is one way of breaking a proof: edit changes the proof (a deep
// copy) or returns a different target binary; want is a piece of the
// reason Verify must give.
type Tamper struct {
	Name string
	Edit func(pf *prove.ProofFile) (dst string)
	Want string
}

// CheckTampers runs Verify on each tampered proof and wants a refusal.
func CheckTampers(t *testing.T, good *prove.ProofFile, src, dst string, tampers []Tamper) {
	t.Helper()
	for _, tc := range tampers {
		t.Run(tc.Name, func(t *testing.T) {
			pf := RoundTrip(t, good) // a fresh copy
			d := tc.Edit(pf)
			if d == "" {
				d = dst
			}
			t0 := time.Now()
			v, err := verify.Verify(context.Background(), verify.Request{Proof: pf, SrcPath: src, DstPath: d, Timeout: 2 * time.Minute, PinEqualities: learning.Equalities}, NewSolver(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: verified=%v in %v: %s", tc.Name, v.Verified, time.Since(t0).Round(time.Millisecond), v.Reason)
			if v.Verified {
				t.Fatalf("UNSOUND: the tampered proof (%s) was verified", tc.Name)
			}
			if !strings.Contains(v.Reason, tc.Want) {
				t.Errorf("reason %q does not mention %q", v.Reason, tc.Want)
			}
		})
	}
}
