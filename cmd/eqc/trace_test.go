package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildEqc builds the command into a temporary directory.
func buildEqc(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "eqc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runBin runs the built command and returns its exit status and output.
func runBin(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	}
	t.Fatal(err)
	return 0, "", ""
}

const traceSrc = `
int clamp(int x, int lo, int hi) { if (x < lo) return lo; if (x > hi) return hi; return x; }
long total(const long *p, int n) { long s = 0; for (int i = 0; i < n; i++) s += p[i] > 0 ? p[i] : -p[i]; return s; }
`

func compileObj(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	c, o := filepath.Join(dir, "t.c"), filepath.Join(dir, "t.o")
	os.WriteFile(c, []byte(src), 0o644)
	if out, err := exec.Command("gcc", "-g", "-O2", "-fno-pie", "-c", c, "-o", o).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return o
}

func TestTraceCommand(t *testing.T) {
	bin := buildEqc(t)
	obj := compileObj(t, traceSrc)

	// JSON Lines, one function, with the semantics check.
	code, out, errOut := runBin(t, bin, "trace", "--json", "--vectors", "8", "--check-semantics", obj, "--func", "total")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr not quiet in a pipe: %q", errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one line, got %q", out)
	}
	var row map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &row); err != nil {
		t.Fatalf("not JSON: %q: %v", lines[0], err)
	}
	for _, k := range []string{"function", "vectors", "faults", "block_coverage", "instructions_checked", "semantics_mismatches", "mismatches"} {
		if _, ok := row[k]; !ok {
			t.Errorf("row lacks %q: %s", k, lines[0])
		}
	}
	if row["function"] != "total" || row["vectors"] != float64(8) || row["block_coverage"] != float64(1) {
		t.Errorf("row %s", lines[0])
	}
	if n, _ := row["instructions_checked"].(float64); n < 50 {
		t.Errorf("instructions_checked = %v", row["instructions_checked"])
	}
	if row["semantics_mismatches"] != float64(0) {
		t.Errorf("mismatches: %v", row["mismatches"])
	}

	// Text, every function, flags after FILE.
	code, out, errOut = runBin(t, bin, "trace", obj, "--vectors", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "block_coverage") || !strings.HasPrefix(lines[1], "clamp") || !strings.HasPrefix(lines[2], "total") {
		t.Errorf("text output:\n%s", out)
	}
	if f := strings.Fields(lines[1]); len(f) != 6 || f[1] != "4" || f[4] != "-" {
		t.Errorf("text row %q", lines[1])
	}
}

func TestTraceCommandErrors(t *testing.T) {
	bin := buildEqc(t)
	obj := compileObj(t, traceSrc)
	dir := t.TempDir()
	notELF := filepath.Join(dir, "notelf.o")
	os.WriteFile(notELF, []byte("hello, world\n"), 0o644)
	exe := filepath.Join(dir, "prog")
	src := filepath.Join(dir, "p.c")
	os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o644)
	if out, err := exec.Command("gcc", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	for _, c := range []struct {
		args []string
		code int
		says []string
	}{
		{[]string{"trace"}, exitUsage, []string{"want FILE", "--help"}},
		{[]string{"trace", "--no-such-flag", obj}, exitUsage, nil},
		{[]string{"trace", "--vectors", "0", obj}, exitUsage, nil},
		{[]string{"trace", obj, obj}, exitUsage, []string{"want FILE, got 2"}},
		{[]string{"trace", notELF}, exitBadInput, []string{notELF}},
		{[]string{"trace", obj, "--func", "nosuch"}, exitBadInput, []string{obj, "nosuch"}},
		{[]string{"trace", exe}, exitBadInput, []string{exe, "relocatable"}},
	} {
		code, out, errOut := runBin(t, bin, c.args...)
		if code != c.code {
			t.Errorf("eqc %q: exit %d, want %d (stderr %q)", c.args, code, c.code, errOut)
		}
		if c.code == exitBadInput {
			if n := strings.Count(strings.TrimSpace(errOut), "\n"); n != 0 || out != "" {
				t.Errorf("eqc %q: want one line on stderr and nothing on stdout, got %q / %q", c.args, errOut, out)
			}
		}
		for _, s := range c.says {
			if !strings.Contains(errOut, s) {
				t.Errorf("eqc %q: stderr %q does not say %q", c.args, errOut, s)
			}
		}
	}
}
