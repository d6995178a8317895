package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"eqc/results"
)

// runReport is `eqc report [--format text|markdown] DIR`: the summary
// tables of every results file under DIR. A corrupt file is set aside
// (renamed to FILE.corrupt-<time>, its reason beside it) with one line on
// stderr naming it, and the report goes on with the other files; any other
// unreadable file is named and skipped. Exit 0 when some file was read, 65
// when none was (no Parquet files, or all bad), 64 on a usage error.
func runReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text, markdown, csv or json")
	width := fs.Int("width", results.DefaultOptions.Width, "text: split tables wider than this many columns into parts (0: no limit)")
	details := fs.Bool("details", false, "text: print every table whole, no cell cut and no split")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eqc report [--format text|markdown|csv|json] [--width N] [--details] DIR\n")
		fs.PrintDefaults()
	}
	dirs, status, ok := parseArgs(fs, args, stdout, stderr)
	if !ok {
		return status
	}
	if status, ok := wantArgs(stderr, "report", dirs, "DIR"); !ok {
		return status
	}
	f, err := results.ParseFormat(*format)
	if err != nil {
		fmt.Fprintf(stderr, "eqc report: %v\n", err)
		return exitUsage
	}
	dir := dirs[0]

	set, err := results.ReadDir(dir)
	if err != nil {
		fmt.Fprintf(stderr, "eqc report: %v\n", err)
		return exitBadInput
	}
	for _, bad := range set.Bad {
		var corrupt *results.CorruptError
		if errors.As(bad, &corrupt) {
			aside, err := results.SetAside(corrupt.Path, corrupt.Error())
			if err != nil {
				fmt.Fprintf(stderr, "eqc report: %v (and could not set it aside: %v)\n", corrupt, err)
				continue
			}
			fmt.Fprintf(stderr, "eqc report: %v; set aside as %s\n", corrupt, aside)
			continue
		}
		fmt.Fprintf(stderr, "eqc report: skipped: %v\n", bad)
	}
	if len(set.Temps) > 0 {
		fmt.Fprintf(stderr, "eqc report: ignoring %d unfinished temporary file(s) of interrupted writers, e.g. %s\n", len(set.Temps), set.Temps[0])
	}
	if len(set.Files) == 0 {
		if len(set.Bad) == 0 {
			fmt.Fprintf(stderr, "eqc report: no results (*.parquet files) under %s\n", dir)
		} else {
			fmt.Fprintf(stderr, "eqc report: no readable results file under %s\n", dir)
		}
		return exitBadInput
	}
	if f == results.Text || f == results.Markdown {
		fmt.Fprintf(stdout, "%d rows from %d file(s) under %s\n\n", len(set.Rows), len(set.Files), dir)
	}
	o := results.DefaultOptions
	o.Width, o.Details = *width, *details
	if err := results.WriteReportOpts(stdout, set.Rows, f, o); err != nil {
		fmt.Fprintf(stderr, "eqc report: %v\n", err)
		return exitBadInput
	}
	return 0
}
