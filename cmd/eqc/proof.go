package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"eqc/align"
	"eqc/align/product/learning"
	"eqc/align/verify"
	"eqc/prove"
)

// runProof is `eqc proof SUBCOMMAND`; verify is the only one.
func runProof(args []string, stdout, stderr io.Writer) int {
	const use = "usage: eqc proof verify [--json] [--solver LIST] [--timeout DURATION] [--context FILE]... PROOF SRC DST\n" +
		"       eqc proof show [--format text|dot] PROOF\n"
	switch {
	case len(args) == 0:
		fmt.Fprint(stderr, use)
		return exitUsage
	case args[0] == "-h" || args[0] == "--help" || args[0] == "-help":
		fmt.Fprint(stdout, use)
		return 0
	case args[0] == "show":
		return runProofShow(args[1:], stdout, stderr)
	case args[0] != "verify":
		return usageError(stderr, "proof", "unknown subcommand %q: want verify or show", args[0])
	}
	return runProofVerify(args[1:], stdout, stderr)
}

// runProofShow is `eqc proof show [--format text|dot] PROOF`: print the
// proof's product graph for a person (prove.WriteText) or for Graphviz
// (prove.WriteDOT: eqc proof show --format dot P | dot -Tsvg > p.svg).
// Nothing is checked; exit 65 when the file cannot be read.
func runProofShow(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("proof show", flag.ContinueOnError)
	format := fs.String("format", "text", "text, or dot (Graphviz)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eqc proof show [--format text|dot] PROOF\n")
		fs.PrintDefaults()
	}
	pos, status, ok := parseArgs(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if status, ok := wantArgs(stderr, "proof show", pos, "PROOF"); !ok {
		return status
	}
	if *format != "text" && *format != "dot" {
		return usageError(stderr, "proof show", "unknown format %q (want text or dot)", *format)
	}
	pf, err := prove.ReadProof(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "eqc proof show: %v\n", err)
		return exitBadInput
	}
	if *format == "dot" {
		err = pf.WriteDOT(stdout)
	} else {
		err = pf.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "eqc proof show: %v\n", err)
		return exitBadInput
	}
	return 0
}

// runProofVerify is `eqc proof verify PROOF SRC DST`: recheck a proof file
// against the two binaries with no search (verify.Verify). It prints
// "<function> verified" or "<function> not-verified: <reason>" (one JSON
// object with --json) and exits 0 when verified, 2 when not, 65 when the
// proof or a binary cannot be read, 64 on a usage error.
func runProofVerify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("proof verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print one JSON object")
	timeout := durationFlag(fs, "timeout", 300*time.Second, "give up after this long (not verified)")
	solvers := fs.String("solver", "z3", "comma-separated SMT backends to race: z3, z3-process, cvc5, boolector")
	var contexts funcList
	fs.Var(&contexts, "context", "a context file the proof names, when not at its recorded path (repeatable, in the proof's order)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eqc proof verify [--json] [--solver LIST] [--timeout DURATION] [--context FILE]... PROOF SRC DST\n")
		fs.PrintDefaults()
	}
	pos, status, ok := parseArgs(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if status, ok := wantArgs(stderr, "proof verify", pos, "PROOF SRC DST"); !ok {
		return status
	}
	proofPath, srcPath, dstPath := pos[0], pos[1], pos[2]
	pf, err := prove.ReadProof(proofPath)
	if err != nil {
		fmt.Fprintf(stderr, "eqc proof verify: %v\n", err)
		return exitBadInput
	}
	s, _, err := prove.New(prove.Options{Backends: strings.Split(*solvers, ","), CacheSize: 4096})
	if err != nil {
		fmt.Fprintf(stderr, "eqc proof verify: %v\n", err)
		return exitUsage
	}
	defer s.Close()
	req := verify.Request{Proof: pf, SrcPath: srcPath, DstPath: dstPath, Timeout: *timeout, PinEqualities: learning.Equalities}
	if len(contexts) > 0 {
		req.Context = contexts
	}
	v, err := verify.Verify(context.Background(), req, s)
	if err != nil {
		fmt.Fprintf(stderr, "eqc proof verify: %v\n", err)
		return exitBadInput
	}
	status = exitEquivalent
	if !v.Verified {
		status = exitUnknown
	}
	if *jsonOut {
		json.NewEncoder(stdout).Encode(struct {
			Proof string `json:"proof"`
			verify.Verification
		}{proofPath, v})
		return status
	}
	name := v.Function
	if v.DstFunction != "" {
		name += "/" + v.DstFunction
	}
	if v.Verified {
		fmt.Fprintf(stdout, "%s verified\n", name)
	} else {
		fmt.Fprintf(stdout, "%s not-verified: %s\n", name, v.Reason)
	}
	return status
}

// proofDirReady creates the --proof directory, so that a bad one is a
// usage error before any check runs.
func proofDirReady(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return errors.Join(err, fmt.Errorf("%s is not a directory", dir))
	}
	return nil
}

// writeProofFile writes res's proof into dir as FUNCTION.proof.json
// (SRCFUNC-DSTFUNC.proof.json for a pair of differently named functions)
// and records the path in res.
func writeProofFile(dir string, res *align.Result) error {
	name := res.Function
	if res.DstFunction != "" {
		name += "-" + res.DstFunction
	}
	path := filepath.Join(dir, name+".proof.json")
	if err := prove.WriteProof(path, res.Proof); err != nil {
		return err
	}
	res.ProofPath = path
	return nil
}
