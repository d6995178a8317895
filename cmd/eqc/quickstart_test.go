package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickStart runs every command of the README's quick start as
// written (from the repository's root, with bin/eqc being this eqc) and
// compares its output with the output the README shows, the seconds and
// query counts aside: the README cannot drift from what eqc does.
func TestQuickStart(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "<!-- quickstart")
	if !ok {
		t.Fatal("README.md has no quick start block (<!-- quickstart ... -->)")
	}
	block, _, _ = strings.Cut(block, "<!-- end quickstart -->")
	_, block, _ = strings.Cut(block, "```console\n")
	block, _, _ = strings.Cut(block, "```")

	type step struct {
		cmd  string
		want strings.Builder
	}
	var steps []*step
	for _, line := range strings.SplitAfter(block, "\n") {
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			steps = append(steps, &step{cmd: strings.TrimSpace(cmd)})
			continue
		}
		if len(steps) > 0 {
			steps[len(steps)-1].want.WriteString(line)
		}
	}
	if len(steps) < 3 {
		t.Fatalf("the quick start shows %d commands, want at least 3", len(steps))
	}
	t.Chdir(filepath.Join("..", ".."))
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // where eqc check puts the objects it compiles
	for _, s := range steps {
		args := strings.Fields(s.cmd)
		if args[0] != "bin/eqc" {
			t.Fatalf("quick start command %q does not run bin/eqc", s.cmd)
		}
		_, out, errOut := eqc(args[1:]...)
		if got, want := normalizeCheckText(out), normalizeCheckText(s.want.String()); got != want {
			t.Errorf("$ %s\n--- got\n%s%s--- README shows\n%s", s.cmd, got, errOut, want)
		}
	}
}
