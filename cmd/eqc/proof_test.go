package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProofVerifyCommand writes a proof with eqc check --proof and
// rechecks it with eqc proof verify, through every exit status.
func TestProofVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	build := func(name, src, opt string) string {
		c := filepath.Join(dir, name+".c")
		o := filepath.Join(dir, name+"."+opt+".o")
		os.WriteFile(c, []byte(src), 0o644)
		if out, err := exec.Command("gcc-12", "-g", "-"+opt, "-fno-inline", "-fno-pie", "-fno-stack-protector", "-fcf-protection=none", "-c", c, "-o", o).CombinedOutput(); err != nil {
			t.Fatalf("gcc-12: %v\n%s", err, out)
		}
		return o
	}
	good := "int g;\nint f(int x, int y) { return (x + y) * 3 - y; }\nvoid h(int x) { g = x * 2; }\n"
	o0 := build("good", good, "O0")
	o3 := build("good", good, "O3")
	bad := build("bad", "int g;\nint f(int x, int y) { return (x + y) * 3 + y; }\nvoid h(int x) { g = x * 2; }\n", "O3")
	proofs := filepath.Join(dir, "proofs") // created by check

	code, out, errOut := eqc("check", "--json", "--proof", proofs, o0, o3)
	if code != exitEquivalent {
		t.Fatalf("check --proof: exit %d, out %s, err %s", code, out, errOut)
	}
	written := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var row struct{ Function, Verdict, Proof string }
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("not JSON Lines: %q: %v", line, err)
		}
		if row.Proof != filepath.Join(proofs, row.Function+".proof.json") {
			t.Errorf("%s: proof %q, want %s", row.Function, row.Proof, filepath.Join(proofs, row.Function+".proof.json"))
		}
		written[row.Function] = row.Proof
	}
	if len(written) != 2 {
		t.Fatalf("proofs for %v, want f and h", written)
	}
	fProof := written["f"]

	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string // in stdout
		err  string // in stderr
	}{
		{"verified", []string{fProof, o0, o3}, exitEquivalent, "f verified\n", ""},
		{"other function's proof", []string{written["h"], o0, o3}, exitEquivalent, "h verified\n", ""},
		{"target swapped", []string{fProof, o0, bad}, exitUnknown, "f not-verified: DST " + bad + " is not the file the proof is about", ""},
		{"source and target exchanged", []string{fProof, o3, o0}, exitUnknown, "f not-verified: SRC", ""},
		{"missing target", []string{fProof, o0, filepath.Join(dir, "nosuch.o")}, exitBadInput, "", "nosuch.o"},
		{"proof not JSON", []string{o0, o0, o3}, exitBadInput, "", "malformed proof file " + o0},
		{"missing proof", []string{filepath.Join(dir, "nosuch.json"), o0, o3}, exitBadInput, "", "nosuch.json"},
		{"too few arguments", []string{fProof, o0}, exitUsage, "", "want PROOF SRC DST"},
		{"unknown flag", []string{"--bogus", fProof, o0, o3}, exitUsage, "", "bogus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := eqc(append([]string{"proof", "verify"}, tc.args...)...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.err) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, out, errOut, tc.code, tc.out, tc.err)
			}
		})
	}

	code, out, _ = eqc("proof", "verify", "--json", fProof, o0, o3)
	var v struct {
		Proof, Function, Engine string
		Verified                bool
		Obligations             int
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != exitEquivalent {
		t.Fatalf("--json: exit %d, %q: %v", code, out, err)
	}
	if !v.Verified || v.Proof != fProof || v.Function != "f" || v.Engine != "loop-free" || v.Obligations == 0 {
		t.Errorf("--json: %+v", v)
	}

	for _, args := range [][]string{{"proof"}, {"proof", "frob"}} {
		if code, _, _ := eqc(args...); code != exitUsage {
			t.Errorf("eqc %v: exit %d, want 64", args, code)
		}
	}
	// A --proof directory that cannot be made is a usage error, before
	// any check.
	if code, _, errOut := eqc("check", "--proof", filepath.Join(o0, "sub"), o0, o3); code != exitUsage || !strings.Contains(errOut, "--proof") {
		t.Errorf("check --proof under a file: exit %d, %q; want 64", code, errOut)
	}
}
