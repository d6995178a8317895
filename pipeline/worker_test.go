package pipeline

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeWorker writes a shell script standing in for `eqc check`.
func fakeWorker(t *testing.T, body string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "worker.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{path}
}

func testCheck() Check {
	return Check{Key: Key{Suite: "s", Benchmark: "b", Function: "f", Compiler: "gcc-12", SrcOpt: "O0", DstOpt: "O3",
		CFlags: "-O3", UBModel: "sio+tbsa", Engine: "auto"}, SrcFile: "a.o", DstFile: "b.o", Function: "f"}
}

func TestRunWorkerOutcomes(t *testing.T) {
	cases := []struct {
		name, body, verdict, reason string
		mem                         int64
	}{
		{"result", `echo '{"function":"f","verdict":"equivalent","reason":"","engine":"static","wall_s":0.5,"smt_queries":3,"product_nodes":2,"product_edges":1}'; exit 0`,
			"equivalent", "", 0},
		{"timeout", "sleep 30", "unknown", "timeout", 0},
		{"memout", "echo 'fatal error: runtime: out of memory' >&2; exit 2", "unknown", "memout", 1 << 30},
		{"crash", "echo 'panic: boom' >&2; exit 2", "unknown", "worker-crash: panic: boom", 0},
		{"bad input", "echo 'eqc check: no function f' >&2; exit 65", "unknown", "bad-input: eqc check: no function f", 0},
		{"silent", "exit 0", "unknown", "worker-crash: no result from the worker", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := &Config{Worker: fakeWorker(t, c.body), Timeout: 200 * time.Millisecond, Grace: 300 * time.Millisecond, MemBytes: c.mem}
			start := time.Now()
			out, err := runWorker(context.Background(), cfg, testCheck())
			if err != nil {
				t.Fatal(err)
			}
			if out.res.Verdict != c.verdict || out.res.Reason != c.reason {
				t.Errorf("verdict %q reason %q, want %q %q", out.res.Verdict, out.res.Reason, c.verdict, c.reason)
			}
			if time.Since(start) > 10*time.Second {
				t.Errorf("worker not killed in time: %s", time.Since(start))
			}
			row := makeRow(*cfg, testCheck(), out, time.Now())
			if err := row.Validate(); err != nil {
				t.Errorf("row invalid: %v", err)
			}
		})
	}
}

func TestRunWorkerArguments(t *testing.T) {
	dir := t.TempDir()
	argsFile := filepath.Join(dir, "args")
	cfg := &Config{Worker: fakeWorker(t, `echo "$@" > `+argsFile+`; echo '{"verdict":"unknown","reason":"loops"}'`),
		Timeout: 5 * time.Second, Grace: time.Second}
	if _, err := runWorker(context.Background(), cfg, testCheck()); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(argsFile)
	want := "--json --func f --ub sio,tbsa --engine auto --timeout 5s --correlator bt a.o b.o"
	if strings.TrimSpace(string(got)) != want {
		t.Errorf("worker arguments %q, want %q", got, want)
	}
}

// TestRunWorkerWitness: a check with the source's sanitizer build passes
// it to the worker.
func TestRunWorkerWitness(t *testing.T) {
	dir := t.TempDir()
	argsFile := filepath.Join(dir, "args")
	cfg := &Config{Worker: fakeWorker(t, `echo "$@" > `+argsFile+`; echo '{"verdict":"unknown","reason":"loops"}'`),
		Timeout: 5 * time.Second, Grace: time.Second}
	c := testCheck()
	c.Witness = "a.ubsan.o"
	if _, err := runWorker(context.Background(), cfg, c); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(argsFile)
	if !strings.Contains(string(got), "--witness a.ubsan.o a.o b.o") {
		t.Errorf("worker arguments %q, want the witness before the objects", got)
	}
}

func TestRunWorkerInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := &Config{Worker: fakeWorker(t, "sleep 30"), Timeout: time.Minute, Grace: time.Second}
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := runWorker(ctx, cfg, testCheck()); err != errInterrupted {
		t.Errorf("err %v, want errInterrupted", err)
	}
}

func TestParseUBModels(t *testing.T) {
	got, err := ParseUBModels([]string{"all", "all,-sio", "none", "sio,obva", "sio+tbsa", "all"})
	if err != nil || strings.Join(got, " ") != "all all,-sio none sio,obva sio+tbsa" {
		t.Errorf("got %v, %v", got, err)
	}
	if got, err := ParseUBModels(nil); err != nil || strings.Join(got, " ") != "all" {
		t.Errorf("no --ub: got %v, %v; want all", got, err)
	}
	for _, bad := range []string{"", "all,", "sio+nope", "everything", "all,none"} {
		if _, err := ParseUBModels([]string{"all", bad}); err == nil {
			t.Errorf("ParseUBModels(%q): no error", bad)
		}
	}
}

// An equivalent verdict's proof goes to the verifier; the row records
// whether it was verified, and why not.
func TestRunWorkerVerifiesProofs(t *testing.T) {
	out := t.TempDir()
	worker := `for a; do case "$prev" in --proof) dir=$a;; esac; prev=$a; done
mkdir -p "$dir" && echo '{}' > "$dir/f.proof.json"
echo "{\"function\":\"f\",\"verdict\":\"equivalent\",\"reason\":\"\",\"engine\":\"static\",\"wall_s\":0.5,\"proof\":\"$dir/f.proof.json\"}"`
	cases := []struct {
		name, verifier string
		verified       bool
		note           string
	}{
		{"verified", `echo '{"function":"f","verified":true,"engine":"loop-free"}'`, true, ""},
		{"refused", `echo '{"function":"f","verified":false,"reason":"edge 0 differs"}'; exit 2`, false, "proof not verified: edge 0 differs"},
		{"crashed", `echo 'panic: boom' >&2; exit 2`, false, "proof not verified: the verifier gave no result: panic: boom"},
		{"hung", `sleep 30`, false, "proof not verified: the verifier was killed at the timeout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := &Config{Worker: fakeWorker(t, worker), Verifier: fakeWorker(t, c.verifier), Out: out,
				Timeout: 200 * time.Millisecond, Grace: 300 * time.Millisecond}
			o, err := runWorker(context.Background(), cfg, testCheck())
			if err != nil {
				t.Fatal(err)
			}
			row := makeRow(*cfg, testCheck(), o, time.Now())
			if err := row.Validate(); err != nil {
				t.Errorf("row invalid: %v", err)
			}
			if row.Verdict != "equivalent" || row.ProofVerified != c.verified || row.Error != c.note {
				t.Errorf("row verdict %q verified %v error %q; want equivalent, %v, %q", row.Verdict, row.ProofVerified, row.Error, c.verified, c.note)
			}
			if want := proofDir(cfg, testCheck()); !strings.HasPrefix(row.ProofFile, filepath.Join(want, "f.proof.json")) || !strings.HasPrefix(want, out) {
				t.Errorf("proof file %q, want it in %s under %s", row.ProofFile, want, out)
			}
		})
	}
	// Without a verifier no proof is asked for.
	cfg := &Config{Worker: fakeWorker(t, `case "$*" in *--proof*) exit 3;; esac; echo '{"function":"f","verdict":"equivalent","reason":"","engine":"static"}'`),
		Timeout: time.Second, Grace: time.Second}
	o, err := runWorker(context.Background(), cfg, testCheck())
	if err != nil || o.res.Verdict != "equivalent" || o.proofVerified {
		t.Errorf("no verifier: %+v, %v", o, err)
	}
}

// RunProcess kills the worker's whole session, also a descendant in a
// process group of its own (as every solver process is): at the deadline,
// when the descendant holds the worker's output open, and when the worker
// ends (leaving, say, a solver process that writes to a pipe of its own).
func TestRunProcessKillsSession(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("perl not installed")
	}
	for _, c := range []struct{ name, redirect, tail string }{{"deadline", "", "wait"}, {"worker ends", ">/dev/null 2>&1", "exit 0"}} {
		t.Run(c.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			w := fakeWorker(t, `perl -e 'setpgrp(0, 0); sleep 30' `+c.redirect+` & echo $! > `+pidFile+`; `+c.tail)
			start := time.Now()
			p := RunProcess(context.Background(), Limits{Deadline: 300 * time.Millisecond}, w)
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("RunProcess took %s: the descendant kept the output open", took)
			}
			if c.name == "deadline" && !p.TimedOut {
				t.Errorf("not timed out: %+v", p)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			deadline := time.Now().Add(2 * time.Second)
			for {
				if _, ok := sessionOf(pid); !ok { // gone, or a zombie
					break
				}
				if time.Now().After(deadline) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("descendant %d outlived its worker", pid)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// TestWorkerCorrelator: a check's correlator reaches the worker as
// --correlator and its row names it, with the best-first search's counts;
// the empty one is the backtracking correlator, named to the worker.
func TestWorkerCorrelator(t *testing.T) {
	for _, correlator := range []string{"", "ceg"} {
		c := testCheck()
		c.Key.Engine, c.Key.Correlator = "static", correlator
		// The fake worker echoes whether it was given the flag.
		body := `case "$*" in *"--correlator ceg"*) x=7;; *"--correlator bt"*) x=0;; *) x=99;; esac
echo "{\"function\":\"f\",\"verdict\":\"unknown\",\"reason\":\"timeout\",\"engine\":\"static\",\"wall_s\":1,\"candidates_expanded\":$x,\"candidates_pruned\":2}"`
		cfg := &Config{Worker: fakeWorker(t, body), Timeout: 5 * time.Second}
		out, err := runWorker(context.Background(), cfg, c)
		if err != nil {
			t.Fatal(err)
		}
		row := makeRow(*cfg, c, out, time.Now())
		want := int64(0)
		if correlator == "ceg" {
			want = 7
		}
		if row.Correlator != correlator || row.CandidatesExpanded != want || row.CandidatesPruned != 2 {
			t.Errorf("correlator %q: row correlator %q, expanded %d, pruned %d; want %q, %d, 2", correlator, row.Correlator, row.CandidatesExpanded, row.CandidatesPruned, correlator, want)
		}
	}
}

// TestStderrLimit: a worker's stderr is cut at 64 KiB, except under
// EQC_DEBUG, whose traces must reach the user whole.
func TestStderrLimit(t *testing.T) {
	t.Setenv("EQC_DEBUG", "")
	if got := stderrLimit(); got != 64<<10 {
		t.Errorf("without EQC_DEBUG: %d bytes kept, want %d", got, 64<<10)
	}
	t.Setenv("EQC_DEBUG", "1")
	if got := stderrLimit(); got < 64<<20 {
		t.Errorf("under EQC_DEBUG: %d bytes kept, want at least 64 MiB", got)
	}
	var buf bytes.Buffer
	l := &limitedBuffer{buf: &buf, max: 4}
	l.Write([]byte("abc"))
	l.Write([]byte("defg"))
	if buf.String() != "abcd" {
		t.Errorf("limitedBuffer kept %q, want the first 4 bytes %q", buf.String(), "abcd")
	}
}
