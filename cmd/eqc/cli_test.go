package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCLIConventions checks the conventions of cli.go on every subcommand:
// -h and --help print its usage on stdout and exit 0; a bad flag or a
// wrong number of arguments is one line on stderr naming the command, and
// exit 64.
func TestCLIConventions(t *testing.T) {
	for _, c := range commands() {
		if c.name == "version" {
			continue
		}
		for _, h := range []string{"-h", "--help"} {
			args := []string{c.name, h}
			if c.name == "proof" {
				args = []string{"proof", "verify", h}
			}
			code, out, errOut := eqc(args...)
			if code != 0 || !strings.HasPrefix(out, "usage: eqc "+c.name) || errOut != "" {
				t.Errorf("eqc %s: exit %d, stdout %.60q, stderr %q; want 0 and the usage on stdout", strings.Join(args, " "), code, out, errOut)
			}
		}
		args := []string{c.name, "--no-such-flag"}
		if c.name == "proof" {
			args = []string{"proof", "verify", "--no-such-flag"}
		}
		code, out, errOut := eqc(args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != exitUsage || out != "" || len(lines) != 1 || !strings.HasPrefix(lines[0], "eqc "+c.name) || !strings.Contains(lines[0], "no-such-flag") {
			t.Errorf("eqc %s: exit %d, stderr %q; want 64 and one line naming the flag", strings.Join(args, " "), code, errOut)
		}
	}
	for _, args := range [][]string{{"check", "a.o"}, {"check", "a.o", "b.o", "c.o"}, {"trace"}, {"smt"}, {"report"}, {"proof", "verify", "p.json", "a.o"}, {"sweep"}, {"lift"}} {
		code, _, errOut := eqc(args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != exitUsage || len(lines) != 1 || !strings.Contains(lines[0], "--help") {
			t.Errorf("eqc %s: exit %d, stderr %q; want 64 and one line", strings.Join(args, " "), code, errOut)
		}
	}
}

// TestParseArgs: flags anywhere among the positional arguments, "--"
// ending the flags.
func TestParseArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		pos  string
		json bool
		d    time.Duration
	}{
		{[]string{"a", "b"}, "a b", false, time.Minute},
		{[]string{"--json", "a", "b"}, "a b", true, time.Minute},
		{[]string{"a", "--json", "b", "--timeout", "90"}, "a b", true, 90 * time.Second},
		{[]string{"a", "b", "--timeout=2m"}, "a b", false, 2 * time.Minute},
		{[]string{"a", "--", "--json", "b"}, "a --json b", false, time.Minute},
		{[]string{"--timeout", "1.5", "a"}, "a", false, 1500 * time.Millisecond},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		j := fs.Bool("json", false, "")
		d := durationFlag(fs, "timeout", time.Minute, "")
		pos, _, ok := parseArgs(fs, c.args, nil, nil)
		if !ok || strings.Join(pos, " ") != c.pos || *j != c.json || *d != c.d {
			t.Errorf("%q: positional %q json %v timeout %v, want %q %v %v", c.args, pos, *j, *d, c.pos, c.json, c.d)
		}
	}
	for _, bad := range []string{"soon", "-5", "5 parsecs", "-1s"} {
		if _, err := parseDuration(bad); err == nil {
			t.Errorf("duration %q accepted", bad)
		}
	}
}

// TestStrippedObject: every subcommand that reads objects says a stripped
// one has no function symbols (exit 65), and warns of one without DWARF.
func TestStrippedObject(t *testing.T) {
	dir := t.TempDir()
	c := filepath.Join(dir, "f.c")
	obj := filepath.Join(dir, "f.o")
	stripped := filepath.Join(dir, "stripped.o")
	nodebug := filepath.Join(dir, "nodebug.o")
	if err := os.WriteFile(c, []byte("int f(int x) { return x + 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{
		{"gcc", "-g", "-O2", "-fno-pie", "-c", c, "-o", obj},
		{"strip", "-o", stripped, obj},
		{"strip", "--strip-debug", "-o", nodebug, obj},
	} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
	}
	for _, args := range [][]string{{"lift", stripped}, {"trace", stripped}, {"check", stripped, obj}, {"check", obj, stripped}} {
		code, _, errOut := eqc(args...)
		if code != exitBadInput || !strings.Contains(errOut, "stripped") || !strings.Contains(errOut, stripped) {
			t.Errorf("eqc %s: exit %d, stderr %q; want 65 saying it is stripped", strings.Join(args, " "), code, errOut)
		}
	}
	code, out, errOut := eqc("lift", nodebug)
	if code != 0 || !strings.Contains(errOut, "no DWARF") || !strings.Contains(out, " f ") {
		t.Errorf("eqc lift %s: exit %d, stdout %q, stderr %q; want 0, f lifted and a warning", nodebug, code, out, errOut)
	}
}
