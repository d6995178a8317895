package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"eqc/bench"
	"eqc/results"
)

// The sweep re-executes its own binary as the worker, so these tests run a
// real eqc binary, built once.
var (
	eqcBinOnce sync.Once
	eqcBinPath string
	eqcBinErr  error
)

func eqcBinary(t *testing.T) string {
	t.Helper()
	eqcBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "eqc-sweep-test-")
		if err != nil {
			eqcBinErr = err
			return
		}
		eqcBinPath = filepath.Join(dir, "eqc")
		if out, err := exec.Command("go", "build", "-o", eqcBinPath, ".").CombinedOutput(); err != nil {
			eqcBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if eqcBinErr != nil {
		t.Fatal(eqcBinErr)
	}
	return eqcBinPath
}

func TestMain(m *testing.M) {
	// eqc check, run in process by a test, re-executes this test binary
	// as its worker: be eqc then.
	if os.Getenv(checkWorkerEnv) != "" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	if eqcBinPath != "" {
		os.RemoveAll(filepath.Dir(eqcBinPath))
	}
	os.Exit(code)
}

// runEQC runs the built binary and returns its exit status and output.
func runEQC(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(eqcBinary(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("eqc %q: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

func writeSuite(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	loopFreeC = "int f(int x, int y) { return (x + y) * 3 - y; }\n"
	// A local's address stored in a global before a call is still outside
	// what the checker proves: the sweep's one unknown.
	kernelC = "int g(void);\nint *gp;\nint callg(int x) { gp = &x; return g() * 2; }\n"
)

func readRows(t *testing.T, dir string) []results.Row {
	t.Helper()
	set, err := results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Bad) > 0 {
		t.Fatalf("bad results files: %v", set.Bad)
	}
	return set.Rows
}

func parquetFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := results.Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var overheadLine = regexp.MustCompile(`(?m)^time: .*$`)

func TestSweepEndToEndAndResume(t *testing.T) {
	suite := writeSuite(t, map[string]string{"arith.c": loopFreeC, "kernel.c": kernelC})
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"sweep", "--suite", suite, "--cc", "gcc-12", "--opt", "O3", "--timeout", "30s", "--jobs", "2", "--out", out}
	code, stdout, stderr := runEQC(t, args...)
	if code != exitUnknown {
		t.Fatalf("sweep exited %d, want %d (one unknown)\nstdout:\n%s\nstderr:\n%s", code, exitUnknown, stdout, stderr)
	}
	t.Logf("first run: %s", overheadLine.FindString(stdout))
	rows := readRows(t, out)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2: %+v", len(rows), rows)
	}
	byFunc := map[string]results.Row{}
	for _, r := range rows {
		byFunc[r.Function] = r
		if r.Suite != "mini" || r.Compiler != "gcc-12" || r.SrcOpt != "O0" || r.DstOpt != "O3" ||
			r.UBModel != "all" || r.Engine != "auto" || r.TimeoutS != 30 || r.StartedAt.IsZero() ||
			r.EQCVersion == "" || r.SrcFile == "" || r.DstFile == "" {
			t.Errorf("row keys: %+v", r)
		}
		if !strings.Contains(r.CFlags, "-O3") {
			t.Errorf("cflags %q: want the target object's flags", r.CFlags)
		}
	}
	if r := byFunc["f"]; r.Verdict != "equivalent" || r.Benchmark != "arith" || r.SMTQueries == 0 || r.SMTS <= 0 {
		t.Errorf("f: %+v, want equivalent from benchmark arith with SMT queries and their seconds", r)
	}
	for _, r := range rows {
		// The columns of the work every check does.
		if r.ALOCSrc == 0 || r.ALOCDst == 0 || r.CPUS <= 0 || r.WallS <= 0 {
			t.Errorf("%s: aloc %d/%d cpu_s %g wall_s %g, want all set", r.Function, r.ALOCSrc, r.ALOCDst, r.CPUS, r.WallS)
		}
		// Both targets are loop-free: one composite edge, entry to exit
		// (callg's call site is no cut point).
		if r.CompositeEdgesDst != 1 {
			t.Errorf("%s: composite_edges_dst %d, want 1", r.Function, r.CompositeEdgesDst)
		}
	}
	// The call columns: callg calls g on both sides, f calls nothing.
	if f, g := byFunc["f"], byFunc["callg"]; f.CallsSrc != 0 || f.CallsDst != 0 || g.CallsSrc != 1 || g.CallsDst != 1 {
		t.Errorf("calls_src/calls_dst: f %d/%d, callg %d/%d, want 0/0 and 1/1", f.CallsSrc, f.CallsDst, g.CallsSrc, g.CallsDst)
	}
	if r := byFunc["f"]; !r.ProofVerified || r.ProofFile == "" || r.Error != "" {
		t.Errorf("f: proof %q verified %v (%s), want a proof eqc proof verify accepted", r.ProofFile, r.ProofVerified, r.Error)
	} else if _, err := os.Stat(r.ProofFile); err != nil {
		t.Errorf("f: %v", err)
	}
	if r := byFunc["callg"]; r.Verdict != "unknown" || r.Reason == "" || r.Benchmark != "kernel" {
		t.Errorf("callg: %+v, want unknown with a reason", r)
	}
	if rows[0].Function != "f" || rows[1].Function != "callg" {
		t.Errorf("rows not in key order: %s, %s", rows[0].Function, rows[1].Function)
	}
	files := parquetFiles(t, out)
	// Under all, the sources' sanitizer builds are the witnesses of
	// signed overflow (pipeline.Config.witnessOpt).
	if w, _ := filepath.Glob(filepath.Join(out, "objects", "*O0+ubsan*.o")); len(w) != 2 {
		t.Errorf("sanitizer builds %v, want one per source", w)
	}

	// Resume: nothing left to run, no new file, rows unchanged.
	code, stdout, stderr = runEQC(t, args...)
	if code != exitUnknown {
		t.Fatalf("second sweep exited %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "2 already done, 0 run now") {
		t.Errorf("second sweep ran checks again:\n%s", stdout)
	}
	if got := parquetFiles(t, out); len(got) != len(files) {
		t.Errorf("second sweep wrote a file: %v -> %v", files, got)
	}
	if got := readRows(t, out); len(got) != 2 {
		t.Errorf("%d rows after resume, want 2", len(got))
	}

	// A new UB model is a new check; the old ones stay done.
	code, stdout, _ = runEQC(t, append(args, "--ub", "all", "--ub", "none")...)
	if code != exitUnknown || !strings.Contains(stdout, "2 already done, 2 run now") {
		t.Errorf("--ub all --ub none: exit %d\n%s", code, stdout)
	}

	// eqc report reads the directory.
	if code, _, errOut := eqc("report", out); code != 0 {
		t.Errorf("eqc report exited %d: %s", code, errOut)
	}
}

// TestSweepCrossCompiler sweeps cross-compiler pairs (--src-cc): the
// source side built by gcc-12 at -O0, the target by clang-16 at -O2. The
// row names both compilers, its files are each compiler's, the report
// labels the pair, and the same-compiler pair is another check.
func TestSweepCrossCompiler(t *testing.T) {
	suite := writeSuite(t, map[string]string{"arith.c": loopFreeC})
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"sweep", "--suite", suite, "--cc", "clang-16", "--src-cc", "gcc-12", "--opt", "O2", "--timeout", "30s", "--out", out}
	if code, stdout, stderr := runEQC(t, args...); code != 0 {
		t.Fatalf("sweep exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	rows := readRows(t, out)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1: %+v", len(rows), rows)
	}
	r := rows[0]
	if r.Compiler != "clang-16" || r.SrcCompiler != "gcc-12" || r.Verdict != "equivalent" || !r.ProofVerified {
		t.Errorf("row: compiler %q src_compiler %q verdict %s verified %v, want clang-16, gcc-12, a verified proof", r.Compiler, r.SrcCompiler, r.Verdict, r.ProofVerified)
	}
	if !strings.Contains(filepath.Base(r.SrcFile), "gcc-12.O0") || !strings.Contains(filepath.Base(r.DstFile), "clang-16.O2") {
		t.Errorf("files %s, %s: want gcc-12's -O0 object against clang-16's -O2", r.SrcFile, r.DstFile)
	}
	if code, stdout, errOut := eqc("report", out); code != 0 || !strings.Contains(stdout, "gcc-12→clang-16") {
		t.Errorf("eqc report exited %d, want the pair labelled gcc-12→clang-16:\n%s%s", code, stdout, errOut)
	}
	// clang-16 against itself is another check, not one already done.
	same := []string{"sweep", "--suite", suite, "--cc", "clang-16", "--opt", "O2", "--timeout", "30s", "--out", out}
	if code, stdout, _ := runEQC(t, same...); code != 0 || !strings.Contains(stdout, "0 already done, 1 run now") {
		t.Errorf("same-compiler sweep: exit %d\n%s", code, stdout)
	}
	if got := readRows(t, out); len(got) != 2 || got[0].SrcCompiler == got[1].SrcCompiler {
		t.Errorf("%d rows after the same-compiler sweep, want 2 with different source compilers", len(got))
	}
}

// TestSweepKilledThenResumed kills a sweep outright, then interrupts one
// with SIGINT, then resumes: every check ends with exactly one row.
func TestSweepKilledThenResumed(t *testing.T) {
	files := map[string]string{}
	const n = 6
	for i := range n {
		files[fmt.Sprintf("f%d.c", i)] = fmt.Sprintf("int g%d(int x, int y) { return (x + y) * %d - y; }\n", i, i+3)
	}
	suite := writeSuite(t, files)
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"sweep", "--suite", suite, "--cc", "gcc-12", "--opt", "O3", "--timeout", "30s", "--jobs", "1", "--out", out}

	// startAndSignal starts a sweep and sends sig once the first check
	// finished; it returns the exit status.
	startAndSignal := func(sig syscall.Signal) int {
		cmd := exec.Command(eqcBinary(t), args...)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		signalled := false
		for sc.Scan() {
			if !signalled && strings.HasPrefix(sc.Text(), "[") {
				cmd.Process.Signal(sig)
				signalled = true
			}
		}
		cmd.Wait()
		if !signalled {
			t.Fatalf("sweep finished before any progress line")
		}
		return cmd.ProcessState.ExitCode()
	}

	startAndSignal(syscall.SIGKILL)
	if got := parquetFiles(t, out); len(got) != 0 {
		t.Errorf("a killed sweep left results files %v", got)
	}
	if code := startAndSignal(syscall.SIGINT); code != exitInterrupted {
		t.Errorf("interrupted sweep exited %d, want %d", code, exitInterrupted)
	}
	rows := readRows(t, out)
	if len(rows) == 0 || len(rows) >= n {
		t.Errorf("interrupted sweep wrote %d rows, want between 1 and %d", len(rows), n-1)
	}
	code, stdout, stderr := runEQC(t, args...)
	if code != exitEquivalent {
		t.Fatalf("resumed sweep exited %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("resume: %s", overheadLine.FindString(stdout))
	rows = readRows(t, out)
	seen := map[string]int{}
	for _, r := range rows {
		seen[r.Function]++
	}
	if len(rows) != n || len(seen) != n {
		t.Errorf("after resume %d rows for %d functions, want %d each once: %v", len(rows), len(seen), n, seen)
	}
}

func TestSweepBadInputs(t *testing.T) {
	// Unknown suite: a usage error, decided before any work.
	if code, _, errOut := eqc("sweep", "--suite", "no-such-suite", "--out", t.TempDir()); code != exitUsage || !strings.Contains(errOut, "no-such-suite") {
		t.Errorf("unknown suite: exit %d, %q", code, errOut)
	}
	suite := writeSuite(t, map[string]string{"good.c": loopFreeC, "bad.c": "int h(int x) { return x +; }\n"})
	for _, args := range [][]string{
		{"--engine", "magic"}, {"--correlator", "dfs"}, {"--ub", "sio,bogus"}, {"--opt", "O7"}, {"--timeout", "0s"}, {"extra"}, {"--variant", "param"},
	} {
		if code, _, _ := eqc(append([]string{"sweep", "--suite", suite}, args...)...); code != exitUsage {
			t.Errorf("sweep %v: exit %d, want %d", args, code, exitUsage)
		}
	}
	// Missing compiler: named, exit 65.
	code, _, errOut := runEQC(t, "sweep", "--suite", suite, "--cc", "gcc-99", "--out", t.TempDir())
	if code != exitBadInput || !strings.Contains(errOut, "gcc-99") {
		t.Errorf("missing compiler: exit %d, %q", code, errOut)
	}

	// A source that does not compile is named; the others are swept. A
	// corrupt results file is set aside, not deleted.
	out := t.TempDir()
	corrupt := filepath.Join(out, "old.parquet")
	os.WriteFile(corrupt, []byte("this is not parquet"), 0o644)
	code, stdout, errOut := runEQC(t, "sweep", "--suite", suite, "--cc", "gcc-12", "--timeout", "30s", "--out", out)
	if code != exitBadInput {
		t.Errorf("sweep with a bad source exited %d, want %d", code, exitBadInput)
	}
	if !strings.Contains(errOut, "bad.c does not compile with gcc-12") || !strings.Contains(errOut, "error") {
		t.Errorf("stderr does not name bad.c and its error:\n%s", errOut)
	}
	if !strings.Contains(errOut, "set aside") {
		t.Errorf("stderr does not report the corrupt file:\n%s", errOut)
	}
	if _, err := os.Stat(corrupt); err == nil {
		t.Errorf("%s is still in place", corrupt)
	}
	aside, _ := filepath.Glob(corrupt + ".corrupt-*")
	if len(aside) == 0 {
		t.Errorf("no set-aside copy of %s", corrupt)
	}
	rows := readRows(t, out)
	if len(rows) != 1 || rows[0].Function != "f" || rows[0].Verdict != "equivalent" {
		t.Errorf("rows %+v, want f equivalent\n%s", rows, stdout)
	}
}

// TestKeepVariants: --variant keeps the named variants of the suite, in
// the suite's order, and names the ones there are when it names another.
func TestKeepVariants(t *testing.T) {
	for _, tc := range []struct{ list, want string }{
		{"fixed", "fixed"}, {"param", "param"}, {"param, fixed", "fixed param"}, {"fixed,nope", "error"},
	} {
		suites, err := bench.OpenAll("tsvc", bench.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := "error"
		if err := keepVariants(suites, tc.list); err == nil {
			var names []string
			for _, v := range suites[0].Variants {
				names = append(names, v.Name)
			}
			got = strings.Join(names, " ")
		} else if !strings.Contains(err.Error(), "have fixed, param") {
			t.Errorf("%q: %v, want the variants there are", tc.list, err)
		}
		if got != tc.want {
			t.Errorf("--variant %q: %s, want %s", tc.list, got, tc.want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "4G": 4 << 30, "512m": 512 << 20, "100": 100} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseBytes("lots"); err == nil {
		t.Error("parseBytes(lots): no error")
	}
}

// TestSweepMemoryCap runs the real worker under a cap too small for the Go
// runtime: the check is unknown with reason memout and the sweep goes on.
func TestSweepMemoryCap(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit (util-linux) not installed")
	}
	suite := writeSuite(t, map[string]string{"arith.c": loopFreeC})
	out := t.TempDir()
	code, stdout, stderr := runEQC(t, "sweep", "--suite", suite, "--cc", "gcc-12", "--mem", "100M", "--timeout", "30s", "--out", out)
	if code != exitUnknown {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	rows := readRows(t, out)
	if len(rows) != 1 || rows[0].Reason != "memout" || rows[0].Error == "" {
		t.Errorf("rows %+v, want one memout with the worker's stderr", rows)
	}
}

// TestSweepRecipe runs the recipe machinery end to end on two small
// functions of bzip2 (testdata/bzip2-small.txt): the sources are fetched
// from Debian (apt-get source, once per machine, into bench.SpecRoot),
// built with both compilers (clang with the keepsig plugin) and swept.
func TestSweepRecipe(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"sweep", "--suite", "testdata/bzip2-small.txt", "--opt", "O2", "--timeout", "30s", "--jobs", "2", "--out", out}
	code, stdout, stderr := runEQC(t, args...)
	if code != exitEquivalent && code != exitUnknown {
		t.Fatalf("sweep exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	rows := readRows(t, out)
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4 (2 functions, 2 compilers):\n%s\n%s", len(rows), stdout, stderr)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.Compiler+" "+r.Function] = true
		if r.Suite != "bzip2-small" || r.SrcOpt != "O0" || r.DstOpt != "O2" || r.Verdict == "" {
			t.Errorf("row: %+v", r)
		}
		if want := map[string]string{"default_bzfree": "bzlib", "bsPutUInt32": "compress"}[r.Function]; r.Benchmark != want {
			t.Errorf("%s: benchmark %q, want %q", r.Function, r.Benchmark, want)
		}
		if r.Compiler == "clang-16" && !strings.Contains(r.CFlags, "-fpass-plugin=") {
			t.Errorf("clang row without the keepsig plugin: cflags %q", r.CFlags)
		}
		if r.Verdict == "not-equivalent" {
			t.Errorf("%s %s: a correct compilation called not-equivalent: %+v", r.Compiler, r.Function, r)
		}
	}
	if len(seen) != 4 {
		t.Errorf("rows %v, want both functions with both compilers", seen)
	}
}

// TestSweepSpecCPU sweeps an installed SPEC CPU tree (a stand-in of our
// own, bench/testdata/speccpu): each integer C benchmark is a suite of the
// sweep, built from its object.pm, and the benchmark left out is named.
func TestSweepSpecCPU(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"sweep", "--suite", "../../bench/testdata/speccpu", "--cc", "gcc-12", "--opt", "O2", "--timeout", "30s", "--jobs", "2", "--out", out}
	code, stdout, stderr := runEQC(t, args...)
	if code != exitEquivalent && code != exitUnknown {
		t.Fatalf("sweep exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "429.mcf") {
		t.Errorf("stderr does not name the benchmark left out:\n%s", stderr)
	}
	got := map[string]bool{}
	for _, r := range readRows(t, out) {
		got[r.Suite+" "+r.Function] = true
		if r.Verdict == "not-equivalent" {
			t.Errorf("%s %s: a correct compilation called not-equivalent: %+v", r.Suite, r.Function, r)
		}
		if !strings.Contains(r.CFlags, "-DSPEC_CPU") {
			t.Errorf("%s %s: cflags %q without the SPEC tools' define", r.Suite, r.Function, r.CFlags)
		}
	}
	want := []string{"164.gzip low_bits", "401.bzip2 rotate", "401.bzip2 spec_hash", "401.bzip2 toy_mix"}
	if len(got) != len(want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("no row for %s (rows %v)", w, got)
		}
	}
}
