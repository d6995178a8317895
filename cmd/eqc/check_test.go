package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The limits of eqc check are those of a sweep's workers: these tests run
// the real binary, with the test hooks (hookStall, hookAlloc) making one
// function's worker exceed them for real.

// twoFunctions holds f and g, each proved equivalent at -O0 and -O3 in
// about a second.
const twoFunctions = "int f(int x, int y) { return (x + y) * 3 - y; }\nint g(int x) { return x * 5 + 1; }\n"

// buildPair compiles src at -O0 and -O3 and returns both objects.
func buildPair(t *testing.T, src string) (o0, o3 string) {
	t.Helper()
	dir := t.TempDir()
	c := filepath.Join(dir, "pair.c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var objs []string
	for _, opt := range []string{"O0", "O3"} {
		o := filepath.Join(dir, "pair."+opt+".o")
		if out, err := exec.Command("gcc", "-g", "-"+opt, "-fno-inline", "-fno-pie", "-fno-stack-protector", "-fcf-protection=none", "-c", c, "-o", o).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		objs = append(objs, o)
	}
	return objs[0], objs[1]
}

// runEQCEnv runs the built binary with env added to its environment and
// returns its exit status, output and wall time.
func runEQCEnv(t *testing.T, env []string, args ...string) (int, string, string, time.Duration) {
	t.Helper()
	cmd := exec.Command(eqcBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("eqc %q: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String(), time.Since(start)
}

// checkLines reads eqc check --json output: one result per function.
func checkLines(t *testing.T, out string) map[string]map[string]any {
	t.Helper()
	got := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not JSON Lines: %q: %v", line, err)
		}
		got[r["function"].(string)] = r
	}
	return got
}

// leftovers lists the processes whose environment holds tag.
func leftovers(tag string) []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte(tag)) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		found = append(found, e.Name()+": "+string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
	}
	return found
}

func needPrlimit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit (util-linux) not installed")
	}
}

// TestCheckMemoryCap: under --memory, a function whose check outgrows the
// cap is unknown with reason memout, and the other functions are checked.
func TestCheckMemoryCap(t *testing.T) {
	needPrlimit(t)
	o0, o3 := buildPair(t, twoFunctions)

	// A cap too small for the Go runtime: every function is memout, in
	// the JSON format of a check that ran; no crash, exit status 2.
	code, out, errOut, took := runEQCEnv(t, nil, "check", "--json", "--memory", "100M", o0, o3)
	if code != exitUnknown {
		t.Fatalf("--memory 100M: exit %d, want %d\n%s\n%s", code, exitUnknown, out, errOut)
	}
	got := checkLines(t, out)
	for _, fn := range []string{"f", "g"} {
		if r := got[fn]; r == nil || r["verdict"] != "unknown" || r["reason"] != "memout" || r["engine"] != "auto" {
			t.Errorf("--memory 100M: %s: %v, want unknown memout", fn, r)
		}
	}
	if len(got) != 2 || !strings.Contains(errOut, "out of memory under --memory 100M") {
		t.Errorf("--memory 100M: %d results, stderr %q", len(got), errOut)
	}
	t.Logf("--memory 100M: %s", took)

	// g's worker allocates 4 GiB: g is memout under a 2G cap, f is still
	// proved, and the text format is the usual one.
	code, out, errOut, took = runEQCEnv(t, []string{hookAlloc + "=g"}, "check", "--memory", "2G", o0, o3)
	if code != exitUnknown {
		t.Fatalf("allocating g under --memory 2G: exit %d, want %d\n%s\n%s", code, exitUnknown, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || strings.Fields(lines[0])[0] != "function" ||
		!strings.HasPrefix(lines[1], fmt.Sprintf("%-24s %-15s ", "f", "equivalent")) ||
		!strings.HasPrefix(lines[2], fmt.Sprintf("%-24s %-15s ", "g", "unknown")) || !strings.HasSuffix(lines[2], "  memout") {
		t.Errorf("allocating g under --memory 2G: want f equivalent, g unknown memout; got\n%s\nstderr:\n%s", out, errOut)
	}
	t.Logf("allocating g under --memory 2G: %s", took)
}

// TestCheckTimeout: a function whose check does not stop (its worker waits
// on a child process in a group of its own, as on a hung solver) is
// killed, with that child, at --timeout plus the grace, and reported
// unknown with reason timeout; the next function is checked.
func TestCheckTimeout(t *testing.T) {
	o0, o3 := buildPair(t, twoFunctions)
	const timeout = 2 * time.Second
	bound := timeout + checkGrace(timeout)
	tag := fmt.Sprintf("EQC_TEST_TAG=check-timeout-%d-%d", os.Getpid(), time.Now().UnixNano())
	code, out, errOut, took := runEQCEnv(t, []string{hookStall + "=f", tag}, "check", "--json", "--timeout", timeout.String(), o0, o3)
	t.Logf("took %s (bound %s per function)", took, bound)
	if code != exitUnknown {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitUnknown, out, errOut)
	}
	got := checkLines(t, out)
	f, g := got["f"], got["g"]
	if f == nil || f["verdict"] != "unknown" || f["reason"] != "timeout" {
		t.Errorf("f: %v, want unknown timeout", f)
	} else if wall := time.Duration(f["wall_s"].(float64) * float64(time.Second)); wall < bound || wall > bound+time.Second {
		t.Errorf("f's worker ended after %s, want it killed at %s", wall, bound)
	}
	if g == nil || g["verdict"] != "equivalent" {
		t.Errorf("g: %v, want equivalent (checked after f's timeout)", g)
	}
	if !strings.Contains(errOut, "f: killed after") {
		t.Errorf("stderr does not say f was killed: %q", errOut)
	}
	if left := leftovers(tag); len(left) > 0 {
		for _, p := range left {
			if pid, err := strconv.Atoi(strings.SplitN(p, ":", 2)[0]); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		t.Errorf("processes of the check outlived it: %q", left)
	}
}

// TestCheckInterrupted: SIGINT kills the running worker and everything it
// started, and eqc check dies of SIGINT as it did when it checked in
// process.
func TestCheckInterrupted(t *testing.T) {
	o0, o3 := buildPair(t, twoFunctions)
	tag := fmt.Sprintf("EQC_TEST_TAG=check-interrupted-%d-%d", os.Getpid(), time.Now().UnixNano())
	cmd := exec.Command(eqcBinary(t), "check", "--timeout", "60s", o0, o3)
	cmd.Env = append(os.Environ(), hookStall+"=f", tag)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the stalled worker's child, then interrupt.
	deadline := time.Now().Add(10 * time.Second)
	for len(leftovers(tag)) < 3 && time.Now().Before(deadline) { // eqc check, its worker, the worker's child
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	t.Logf("ended %s after SIGINT: %v", time.Since(start), err)
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("eqc check ended with %v, want killed by SIGINT", err)
	}
	if left := leftovers(tag); len(left) > 0 {
		for _, p := range left {
			if pid, err := strconv.Atoi(strings.SplitN(p, ":", 2)[0]); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		t.Errorf("processes of the check outlived it: %q", left)
	}
}
