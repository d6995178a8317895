package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"eqc/align"
	"eqc/prove"
	"eqc/ub"
	"eqc/x86"
)

// runCheck is `eqc check`: per the CLI contract, check each function pair
// and print one line (or JSON object) per function. Exit 0 when all are
// equivalent, 1 when some are not, 2 when some are unknown, 65 for a bad
// input file.
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print one JSON object per function (JSON Lines)")
	var funcs funcList
	fs.Var(&funcs, "func", "check this function (repeatable; default: every function in both files)")
	var contexts funcList
	fs.Var(&contexts, "context", "an object whose DWARF describes globals the pair uses (sizes, alignment), e.g. the file defining them (repeatable)")
	srcFunc := fs.String("src-func", "", "the source function, compared with --dst-func")
	dstFunc := fs.String("dst-func", "", "the target function, compared with --src-func")
	engine := fs.String("engine", "auto", "static, data or auto")
	ubModel := fs.String("ub", "all", "undefined-behaviour model: all, none, or a list of sio,tbsa,obva,shift,div,null,align")
	timeout := fs.Duration("timeout", 300*time.Second, "give up on a function after this long")
	proofDir := fs.String("proof", "", "write a proof file DIR/FUNCTION.proof.json for each equivalent function (recheck with eqc proof verify)")
	solvers := fs.String("solver", "z3", "comma-separated SMT backends to race: z3, z3-process, cvc5, boolector")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: eqc check [--json] [--func NAME]... [--src-func NAME --dst-func NAME] [--engine static|data|auto] [--ub LIST] [--timeout DURATION] [--proof DIR] [--context FILE]... SRC DST\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return exitUsage
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "eqc check: "+format+"\n", a...)
		return exitUsage
	}
	switch *engine {
	case align.EngineStatic, align.EngineData, align.EngineAuto:
	default:
		return usage("unknown engine %q (want static, data or auto)", *engine)
	}
	if *ubModel != "all" && *ubModel != "none" {
		for _, m := range strings.Split(*ubModel, ",") {
			if !ub.Known(m) {
				return usage("unknown UB model %q in --ub %s", m, *ubModel)
			}
		}
	}
	if *proofDir != "" {
		if err := proofDirReady(*proofDir); err != nil {
			return usage("--proof: %v", err)
		}
	}
	if (*srcFunc == "") != (*dstFunc == "") {
		return usage("--src-func and --dst-func go together")
	}
	srcPath, dstPath := fs.Arg(0), fs.Arg(1)
	type pair struct{ src, dst string }
	var pairs []pair
	switch {
	case *srcFunc != "":
		pairs = append(pairs, pair{*srcFunc, *dstFunc})
	case len(funcs) > 0:
		for _, f := range funcs {
			pairs = append(pairs, pair{f, f})
		}
	default:
		common, err := commonFunctions(srcPath, dstPath)
		if err != nil {
			fmt.Fprintf(stderr, "eqc check: %v\n", err)
			return exitBadInput
		}
		if len(common) == 0 {
			fmt.Fprintf(stderr, "eqc check: %s and %s have no function in common\n", srcPath, dstPath)
			return exitBadInput
		}
		for _, f := range common {
			pairs = append(pairs, pair{f, f})
		}
	}
	s, _, err := prove.New(prove.Options{Backends: strings.Split(*solvers, ","), CacheSize: 4096})
	if err != nil {
		fmt.Fprintf(stderr, "eqc check: %v\n", err)
		return exitUsage
	}
	defer s.Close()
	enc := json.NewEncoder(stdout)
	if !*jsonOut {
		fmt.Fprintf(stdout, "%-24s %-15s %8s %5s  %s\n", "function", "verdict", "seconds", "smt", "reason")
	}
	status := exitEquivalent
	worse := func(code int) {
		rank := map[int]int{exitEquivalent: 0, exitUnknown: 1, exitNotEquivalent: 2, exitBadInput: 3}
		if rank[code] > rank[status] {
			status = code
		}
	}
	for _, pr := range pairs {
		res, err := align.Check(context.Background(), align.Request{
			SrcPath: srcPath, SrcFunc: pr.src, DstPath: dstPath, DstFunc: pr.dst, UB: *ubModel, Engine: *engine, Timeout: *timeout, Context: contexts}, s)
		if err != nil {
			fmt.Fprintf(stderr, "eqc check: %v\n", err)
			worse(exitBadInput)
			continue
		}
		if *proofDir != "" && res.Verdict == align.Equivalent && res.Proof != nil {
			if err := writeProofFile(*proofDir, &res); err != nil {
				fmt.Fprintf(stderr, "eqc check: writing the proof of %s: %v\n", res.Function, err)
				worse(exitBadInput)
			}
		}
		switch res.Verdict {
		case align.NotEquivalent:
			worse(exitNotEquivalent)
		case align.Unknown:
			worse(exitUnknown)
		}
		if *jsonOut {
			enc.Encode(res)
			continue
		}
		name := res.Function
		if res.DstFunction != "" {
			name += "/" + res.DstFunction
		}
		fmt.Fprintf(stdout, "%-24s %-15s %8.2f %5d  %s\n", name, res.Verdict, res.WallS, res.SMTQueries, res.Reason)
		if res.ProofPath != "" {
			fmt.Fprintf(stdout, "%24s proof: %s\n", "", res.ProofPath)
		}
		if res.Input != nil {
			fmt.Fprintf(stdout, "%24s input: args %#x", "", res.Input.Args)
			for g, data := range res.Input.Globals {
				fmt.Fprintf(stdout, " %s=%s", g, data)
			}
			fmt.Fprintln(stdout)
			for _, d := range res.Observed {
				fmt.Fprintf(stdout, "%24s observed: %s\n", "", d)
			}
		}
	}
	return status
}

// commonFunctions lists, sorted, the functions both files define.
func commonFunctions(srcPath, dstPath string) ([]string, error) {
	src, err := x86.Open(srcPath)
	if err != nil {
		return nil, err
	}
	dst, err := x86.Open(dstPath)
	if err != nil {
		return nil, err
	}
	in := map[string]bool{}
	for _, f := range dst.Functions {
		in[f.Name] = true
	}
	var out []string
	for _, f := range src.Functions {
		if in[f.Name] {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}
