package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"eqc/results"
)

// slurmKernels are the TSVC kernels of the Slurm test: two of the fastest
// proofs (about 6 s each), one per task of the 2-task array. The sweep
// runs four times, so each kernel here costs CI about half a minute.
var slurmKernels = []string{"vpv", "vtv"}

// miniTSVC writes a suite of slurmKernels from bench/tsvc (fixed variant,
// gcc-12 only) and returns its directory.
func miniTSVC(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tsvc4")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := append([]string{"tsvc.h", "globals.c"}, func() (out []string) {
		for _, k := range slurmKernels {
			out = append(out, k+".c")
		}
		return
	}()...)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("..", "..", "bench", "tsvc", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifest := fmt.Sprintf("name tsvc4\nsources %s\nsupport globals.c\nfunctions %s\ncompilers gcc-12\n",
		strings.Join(files[2:], " "), strings.Join(slurmKernels, " "))
	if err := os.WriteFile(filepath.Join(dir, "suite.txt"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// localSlurm starts scripts/slurm-local.sh in a temporary directory, sets
// SLURM_CONF for the test, and stops it when the test ends; it skips the
// test where Slurm cannot run (not root, slurm-wlm or munge missing).
func localSlurm(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("the local Slurm needs root (slurmd)")
	}
	for _, tool := range []string{"slurmctld", "slurmd", "munged", "sbatch", "squeue", "scancel"} {
		if _, err := exec.LookPath(tool); err != nil {
			if _, err := os.Stat("/usr/sbin/" + tool); err != nil {
				t.Skipf("%s not installed (make deps installs slurm-wlm and munge)", tool)
			}
		}
	}
	dir := t.TempDir()
	script := filepath.Join("..", "..", "scripts", "slurm-local.sh")
	t0 := time.Now()
	if out, err := exec.Command(script, "start", dir).CombinedOutput(); err != nil {
		t.Fatalf("%s start: %v\n%s", script, err, out)
	}
	t.Logf("local Slurm up in %.1fs", time.Since(t0).Seconds())
	t.Cleanup(func() { exec.Command(script, "stop", dir).Run() })
	t.Setenv("SLURM_CONF", filepath.Join(dir, "slurm.conf"))
}

var submittedLine = regexp.MustCompile(`array job (\d+) .* report job (\d+)`)

// submitSweep runs eqc slurm --submit and returns the array's job id and
// the report's.
func submitSweep(t *testing.T, suite, out string) (string, string) {
	t.Helper()
	code, stdout, stderr := runEQC(t, "slurm", "--shards", "2", "--submit", "--suite", suite, "--cc", "gcc-12",
		"--opt", "O3", "--engine", "static", "--timeout", "60", "--jobs", "1", "--out", out)
	m := submittedLine.FindStringSubmatch(stdout)
	if code != 0 || m == nil {
		t.Fatalf("eqc slurm: exit %d\n%s%s", code, stdout, stderr)
	}
	return m[1], m[2]
}

// squeueStates lists the states of a job's tasks (empty when it is gone).
func squeueStates(job string) []string {
	out, _ := exec.Command("squeue", "-h", "-j", job, "-o", "%i %t").Output()
	return strings.Fields(string(out))
}

// waitJob waits until job (and its array tasks) left the queue.
func waitJob(t *testing.T, job string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for len(squeueStates(job)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("job %s still queued after %v: %v", job, limit, squeueStates(job))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// verdictsByKey reads the rows under dir: each check's verdict, failing
// on a check with more than one row.
func verdictsByKey(t *testing.T, dir string) map[string]string {
	t.Helper()
	set, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range set.Rows {
		k := fmt.Sprint(r.Suite, r.Benchmark, r.Function, r.Compiler, r.SrcOpt, r.DstOpt, r.UBModel, r.Engine, r.Variant)
		if _, dup := out[k]; dup {
			t.Errorf("check %s has two rows under %s", k, dir)
		}
		out[k] = r.Verdict
	}
	return out
}

func sameVerdicts(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	var lines []string
	for k, v := range want {
		if got[k] != v {
			lines = append(lines, fmt.Sprintf("%s: %q, locally %q", k, got[k], v))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			lines = append(lines, fmt.Sprintf("%s: not in the local sweep", k))
		}
	}
	sort.Strings(lines)
	if len(lines) > 0 {
		t.Errorf("%s differs from the local sweep:\n%s", what, strings.Join(lines, "\n"))
	}
}

// TestSlurmSweep runs a 2-shard sweep of four TSVC kernels (the static
// engine alone: half the CPU of the race, the same verdicts) as a job array
// on a real single-node Slurm and checks that its rows are exactly those
// of the same sweep run locally (same checks, same verdicts, none lost or
// twice); then cancels one array task while it runs, submits again, and
// checks the same.
func TestSlurmSweep(t *testing.T) {
	localSlurm(t)
	suite := miniTSVC(t)

	local := filepath.Join(t.TempDir(), "local")
	t0 := time.Now()
	code, stdout, stderr := runEQC(t, "sweep", "--suite", suite, "--cc", "gcc-12", "--opt", "O3", "--engine", "static", "--timeout", "60", "--jobs", "2", "--out", local)
	if code != exitEquivalent && code != exitUnknown {
		t.Fatalf("local sweep: exit %d\n%s%s", code, stdout, stderr)
	}
	want := verdictsByKey(t, local)
	if len(want) != len(slurmKernels) {
		t.Fatalf("local sweep: %d rows, want %d", len(want), len(slurmKernels))
	}
	t.Logf("local sweep: %.1fs", time.Since(t0).Seconds())

	// 1. The whole array.
	out := filepath.Join(t.TempDir(), "slurm")
	t1 := time.Now()
	array, report := submitSweep(t, suite, out)
	waitJob(t, array, 5*time.Minute)
	waitJob(t, report, time.Minute)
	t.Logf("2-task array and report: %.1fs", time.Since(t1).Seconds())
	sameVerdicts(t, "the Slurm sweep", verdictsByKey(t, out), want)
	if files, _ := results.Files(out); len(files) != 2 {
		t.Errorf("%d results files, want one per shard: %v", len(files), files)
	}
	if rep, err := os.ReadFile(filepath.Join(out, "slurm", "report.txt")); err != nil || !bytes.Contains(rep, []byte("tsvc4")) {
		t.Errorf("report.txt: %v\n%s", err, rep)
	}

	// 2. One task cancelled while it runs, then the array submitted again.
	out2 := filepath.Join(t.TempDir(), "slurm2")
	array, report = submitSweep(t, suite, out2)
	task := array + "_1"
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(strings.Join(squeueStates(task), " "), " R") {
		if time.Now().After(deadline) {
			t.Fatalf("task %s never ran: %v", task, squeueStates(array))
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // midway: compiling or checking
	if out, err := exec.Command("scancel", task).CombinedOutput(); err != nil {
		t.Fatalf("scancel %s: %v %s", task, err, out)
	}
	waitJob(t, array, 5*time.Minute)
	waitJob(t, report, time.Minute)
	partial := verdictsByKey(t, out2)
	if len(partial) >= len(want) {
		t.Logf("the cancelled task had finished its checks before it was cancelled (%d rows)", len(partial))
	}
	array, report = submitSweep(t, suite, out2)
	waitJob(t, array, 5*time.Minute)
	waitJob(t, report, time.Minute)
	sameVerdicts(t, "the Slurm sweep after a cancelled task and a resubmission", verdictsByKey(t, out2), want)
	t.Logf("whole test: %.1fs; rows after the cancel: %d of %d", time.Since(t0).Seconds(), len(partial), len(want))
}
