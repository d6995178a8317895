package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProofShowGolden prints a real loop proof (testdata/proof) as text
// and as DOT, compares both with their golden files, and renders the DOT
// with Graphviz when it is installed.
func TestProofShowGolden(t *testing.T) {
	proof := filepath.Join("testdata", "proof", "sum.proof.json")
	for _, format := range []string{"text", "dot"} {
		code, out, errOut := eqc("proof", "show", "--format", format, proof)
		if code != 0 {
			t.Fatalf("eqc proof show --format %s: exit %d: %s", format, code, errOut)
		}
		ext := map[string]string{"text": ".txt", "dot": ".dot"}[format]
		golden(t, filepath.Join("testdata", "proof", "sum"+ext), out)
		if format == "text" {
			for _, want := range []string{"loop-head", "invariants", "n1 → n1", "obva:"} {
				if !strings.Contains(out, want) {
					t.Errorf("text lacks %q", want)
				}
			}
		}
		if format == "dot" {
			if dot, err := exec.LookPath("dot"); err == nil {
				cmd := exec.Command(dot, "-Tsvg")
				cmd.Stdin = strings.NewReader(out)
				if svg, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(svg), "<svg") {
					t.Errorf("dot -Tsvg: %v\n%s", err, svg)
				}
			}
		}
	}
	if code, _, errOut := eqc("proof", "show", "--format", "html", proof); code != exitUsage || !strings.Contains(errOut, "html") {
		t.Errorf("--format html: exit %d, %q", code, errOut)
	}
	if code, _, _ := eqc("proof", "show", filepath.Join("testdata", "nosuch.json")); code != exitBadInput {
		t.Errorf("a missing proof: exit %d, want 65", code)
	}
}
