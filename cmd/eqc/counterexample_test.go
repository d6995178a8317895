package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of cmd/eqc/testdata from this run")

// functionLine matches eqc check's result line, whose seconds and query
// count vary from run to run.
var functionLine = regexp.MustCompile(`^(\S+)\s+(equivalent|not-equivalent|unknown)\s+[0-9.]+\s+[0-9]+\s*(.*)$`)

// normalizeCheckText blanks what varies in eqc check's text output.
func normalizeCheckText(out string) string {
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := functionLine.FindStringSubmatch(line); m != nil {
			line = strings.TrimRight(m[1]+" "+m[2]+" "+m[3], " ")
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// TestCounterexampleGolden checks eqc check's counterexamples, text and
// JSON, on the README's examples: a loop-free and a loop miscompile by
// hand, compiled from C by eqc check itself. Run with -update to rewrite
// testdata/counterexample/*.
func TestCounterexampleGolden(t *testing.T) {
	objDir := t.TempDir()
	for _, c := range []struct{ name, src, dst string }{
		{"poly", "poly.c", "poly_wrong.c"},
		{"sum", "sum.c", "sum_wrong.c"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"check", "--timeout", "60", "--obj-dir", objDir,
				filepath.Join("..", "..", "examples", c.src), filepath.Join("..", "..", "examples", c.dst)}
			code, out, errOut := eqc(args...)
			if code != exitNotEquivalent {
				t.Fatalf("eqc %s: exit %d, want 1\n%s%s", strings.Join(args, " "), code, out, errOut)
			}
			golden(t, filepath.Join("testdata", "counterexample", c.name+".txt"), normalizeCheckText(out))

			code, out, errOut = eqc(append([]string{"check", "--json"}, args[1:]...)...)
			if code != exitNotEquivalent {
				t.Fatalf("eqc check --json: exit %d\n%s%s", code, out, errOut)
			}
			var shown strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var r struct {
					Function       string          `json:"function"`
					Verdict        string          `json:"verdict"`
					Counterexample json.RawMessage `json:"counterexample"`
				}
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatalf("%v: %s", err, line)
				}
				if r.Counterexample == nil {
					continue
				}
				v := map[string]any{"function": r.Function, "verdict": r.Verdict, "counterexample": r.Counterexample}
				b, _ := json.MarshalIndent(v, "", "  ")
				shown.Write(append(b, '\n'))
			}
			golden(t, filepath.Join("testdata", "counterexample", c.name+".json"), shown.String())
		})
	}
}

// golden compares got with the file at path, or rewrites it with -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update to rewrite it):\n--- got\n%s--- want\n%s", path, got, want)
	}
}
