package main

import (
	"flag"
	"fmt"
	"io"

	"eqc/results"
)

// runExport is `eqc export [--format csv|jsonl] [--latest] DIR`: every row
// of the Parquet files under DIR on stdout, as CSV (a header of the
// schema's column names) or JSON Lines (one object per row), for tools
// without a Parquet reader: the notebooks read it with pandas. With
// --latest, a check run more than once gives only its last row. Exit 65
// when DIR holds no readable results.
func runExport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	format := fs.String("format", "csv", "csv or jsonl")
	latest := fs.Bool("latest", false, "only the last row of each check")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eqc export [--format csv|jsonl] [--latest] DIR\n")
		fs.PrintDefaults()
	}
	pos, status, ok := parseArgs(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if status, ok := wantArgs(stderr, "export", pos, "DIR"); !ok {
		return status
	}
	if *format != "csv" && *format != "jsonl" {
		return usageError(stderr, "export", "unknown format %q (want csv or jsonl)", *format)
	}
	set, err := results.ReadDir(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "eqc export: %v\n", err)
		return exitBadInput
	}
	for _, bad := range set.Bad {
		fmt.Fprintf(stderr, "eqc export: skipped: %v\n", bad)
	}
	if len(set.Files) == 0 {
		fmt.Fprintf(stderr, "eqc export: no readable results (*.parquet files) under %s\n", pos[0])
		return exitBadInput
	}
	rows := set.Rows
	if *latest {
		rows = results.Latest(rows)
	}
	if *format == "jsonl" {
		err = results.WriteJSONL(stdout, rows)
	} else {
		err = results.WriteCSV(stdout, rows)
	}
	if err != nil {
		fmt.Fprintf(stderr, "eqc export: %v\n", err)
		return exitBadInput
	}
	return 0
}
