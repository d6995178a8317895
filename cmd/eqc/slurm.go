package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// runSlurm is `eqc slurm --shards N [--submit] [--dir DIR] [--partition P]
// [--time-limit T] SWEEP-FLAGS...`: a sweep as a Slurm job array. It writes
// two batch scripts into DIR (default OUT/slurm): sweep.sbatch, an array of
// N tasks, task I running `eqc sweep SWEEP-FLAGS --shard I/N` with
// --cpus-per-task from --jobs and --mem from --jobs times the sweep's
// per-worker cap, one log per task in DIR/logs; and report.sbatch, which
// writes `eqc report OUT` to DIR/report.txt. With --submit it submits the
// array and the report, the report depending on the array (afterany), and
// prints both job ids. Submitting again runs only the checks without a row
// under OUT (each shard resumes). OUT must be on a file system every node
// sees; eqc must be at the same path on every node.
func runSlurm(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("slurm", flag.ContinueOnError)
	sw := defineSweepFlags(fs)
	shards := fs.Int("shards", 0, "array tasks: the sweep's checks are split into this many shards")
	submit := fs.Bool("submit", false, "submit the array and the report job with sbatch (else only write the scripts)")
	dir := fs.String("dir", "", "where the scripts and logs go (default OUT/slurm)")
	partition := fs.String("partition", "", "the partition to submit to (default: the cluster's)")
	timeLimit := fs.String("time-limit", "", "each array task's time limit, as sbatch --time takes it (default: the partition's)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eqc slurm --shards N [--submit] [--dir DIR] [--partition P] [--time-limit T] %s\n", sweepUsage)
		fs.PrintDefaults()
	}
	pos, status, ok := parseArgs(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	usage := func(format string, a ...any) int { return usageError(stderr, "slurm", format, a...) }
	switch {
	case len(pos) != 0:
		return usage("unexpected argument %q", pos[0])
	case *shards < 1:
		return usage("--shards N is required (N >= 1)")
	case *sw.suite == "":
		return usage("--suite is required")
	case *sw.shard != "":
		return usage("--shard is set per array task; give --shards")
	case *sw.out == "":
		return usage("--out is required: a directory every node sees")
	}
	memBytes, err := parseBytes(*sw.mem)
	if err != nil {
		return usage("--mem: %v", err)
	}
	jobs := *sw.jobs
	if jobs <= 0 {
		jobs = 2 // a task's CPUs must be stated; --jobs sets them
	}
	out, err := filepath.Abs(*sw.out)
	if err != nil {
		return usage("--out: %v", err)
	}
	scripts := *dir
	if scripts == "" {
		scripts = filepath.Join(out, "slurm")
	}
	if scripts, err = filepath.Abs(scripts); err != nil {
		return usage("--dir: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "eqc slurm: cannot find the eqc binary: %v\n", err)
		return exitUsage
	}
	wd, _ := os.Getwd()

	// The sweep's own flags as given, with --out absolute and --jobs set.
	var sweepArgs []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "shards", "submit", "dir", "partition", "time-limit", "out", "jobs":
			return
		case "ub":
			for _, spec := range *sw.ub {
				sweepArgs = append(sweepArgs, "--ub="+spec)
			}
			return
		}
		sweepArgs = append(sweepArgs, "--"+f.Name+"="+f.Value.String())
	})
	sweepArgs = append(sweepArgs, "--out="+out, "--jobs="+strconv.Itoa(jobs))

	if err := os.MkdirAll(filepath.Join(scripts, "logs"), 0o755); err != nil {
		fmt.Fprintf(stderr, "eqc slurm: %v\n", err)
		return exitBadInput
	}
	var head strings.Builder
	if *partition != "" {
		fmt.Fprintf(&head, "#SBATCH --partition=%s\n", *partition)
	}
	array := fmt.Sprintf(`#!/bin/bash
# eqc sweep as a Slurm job array, written by eqc slurm: task I of %[1]d runs
# shard I/%[1]d of the sweep into %[2]s.
#SBATCH --job-name=eqc-sweep
#SBATCH --array=0-%[3]d
#SBATCH --cpus-per-task=%[4]d
%[5]s#SBATCH --output=%[6]s/logs/sweep-%%A_%%a.log
#SBATCH --chdir=%[7]s
%[8]sexec %[9]s sweep %[10]s --shard="$SLURM_ARRAY_TASK_ID/%[1]d"
`, *shards, out, *shards-1, jobs, memLine(memBytes, jobs), scripts, shellQuote(wd), head.String(), shellQuote(exe), shellJoin(sweepArgs))
	if *timeLimit != "" {
		array = strings.Replace(array, "#SBATCH --chdir=", "#SBATCH --time="+*timeLimit+"\n#SBATCH --chdir=", 1)
	}
	report := fmt.Sprintf(`#!/bin/bash
# The report of the sweep under %[1]s, written by eqc slurm; submitted to
# run after every array task has ended (afterany).
#SBATCH --job-name=eqc-report
#SBATCH --cpus-per-task=1
#SBATCH --output=%[2]s/logs/report-%%j.log
%[3]sexec %[4]s report --details %[5]s > %[6]s
`, out, scripts, head.String(), shellQuote(exe), shellQuote(out), shellQuote(filepath.Join(scripts, "report.txt")))
	arrayPath, reportPath := filepath.Join(scripts, "sweep.sbatch"), filepath.Join(scripts, "report.sbatch")
	for path, text := range map[string]string{arrayPath: array, reportPath: report} {
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			fmt.Fprintf(stderr, "eqc slurm: %v\n", err)
			return exitBadInput
		}
	}
	fmt.Fprintf(stdout, "wrote %s (%d array tasks) and %s\n", arrayPath, *shards, reportPath)
	if !*submit {
		fmt.Fprintf(stdout, "submit: id=$(sbatch --parsable %s) && sbatch --dependency=afterany:$id %s\n", arrayPath, reportPath)
		return 0
	}
	id, err := sbatch(arrayPath)
	if err != nil {
		fmt.Fprintf(stderr, "eqc slurm: %v\n", err)
		return exitBadInput
	}
	rid, err := sbatch("--dependency=afterany:"+id, reportPath)
	if err != nil {
		fmt.Fprintf(stderr, "eqc slurm: the array is job %s, but the report was not submitted: %v\n", id, err)
		return exitBadInput
	}
	fmt.Fprintf(stdout, "submitted: array job %s (%d tasks), report job %s (writes %s)\n", id, *shards, rid, filepath.Join(scripts, "report.txt"))
	return 0
}

// memLine is the #SBATCH --mem line for jobs workers capped at memBytes
// each (none when uncapped).
func memLine(memBytes int64, jobs int) string {
	if memBytes <= 0 {
		return ""
	}
	return fmt.Sprintf("#SBATCH --mem=%dM\n", int64(jobs)*memBytes>>20)
}

// sbatch submits with sbatch --parsable and returns the job id.
func sbatch(args ...string) (string, error) {
	cmd := exec.Command("sbatch", append([]string{"--parsable"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("sbatch %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(out.String()), ";")
	if id == "" {
		return "", fmt.Errorf("sbatch %s printed no job id", strings.Join(args, " "))
	}
	return id, nil
}

// shellQuote quotes s for bash.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}
