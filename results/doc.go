// Package results owns eqc's results: the Parquet schema of one row per
// check, the writer that produces results files, the reader that reads them
// back, and the summary tables of `eqc report`.
//
// # Schema
//
// Row is the schema: its first columns are exactly docs/design.md's results
// schema, in order (DesignColumns); extensions follow (src_file, dst_file,
// dst_function, proof_file, cex_input, error, variant, proof_verified,
// candidates, src_compiler: a cross-compiler pair's source compiler, which
// reports join to compiler as "SRC→DST", Row.CompilerLabel; correlator,
// candidates_expanded, candidates_pruned: the static engine's best-first
// correlator and its counts; calls_src, calls_dst: call sites of the two
// functions).
// Columns are added, never
// renamed or retyped (SchemaVersion counts the additions); a file written
// before a column existed reads with that column zero. Text is UTF-8,
// seconds are float64, counts int64, flags bool, started_at a UTC timestamp with
// microsecond precision. Row.Validate states the value rules — verdict is
// equivalent, not-equivalent or unknown, an unknown verdict has a reason,
// numbers are finite and non-negative — and both the writer and the reader
// enforce them (*InvalidRowError).
//
// # Writing
//
// Create starts a file; Writer.Write validates and appends rows, a row
// group every RowGroupRows rows (snappy-compressed); Writer.Close writes the
// footer, fsyncs and moves the temporary file ".NAME.tmp-*" in the same
// directory to its final name in one step. Invariant: a name ending in
// ".parquet" only ever holds a complete file — an interrupted or killed
// writer leaves at most a temporary file, which readers ignore and report
// (Set.Temps). Close does not replace an existing file (*ExistsError) unless
// Overwrite is given, and even then a corrupt existing file is set aside,
// not replaced.
//
// # Reading
//
// ReadFile reads one file; ReadDir every *.parquet under a directory,
// recursively, files in path order and rows in file order, collecting the
// files it cannot read in Set.Bad instead of failing. A file that is not
// sound Parquet (truncated, garbled, empty) is a *CorruptError naming it; a
// sound Parquet file without the results columns is a *SchemaError. Reading
// changes nothing on disk: SetAside is the one operation that moves a bad
// file, renaming it to NAME.corrupt-<UTC time> (never overwriting: it links
// rather than renames, and adds -1, -2... on a clash; never deleting) and
// recording the reason in NAME.corrupt-<UTC time>.reason.
//
// # Summaries
//
// Latest keeps the newest run of each check (a resumed or repeated sweep
// may hold one check twice). Summarize groups checks by suite, compiler,
// src_opt→dst_opt, UB model and engine: proved/total, proofs verified,
// not-equivalent,
// unknown with its most frequent reasons, median and mean wall seconds.
// Ablations puts the groups that differ only in UB model side by side.
// Kernels builds one per-kernel table per suite in the shape of PLDI'19
// Figure 10 (benchmark, source LOC, then per compiler configuration target
// LOC, verdict mark and seconds). WriteReport prints them all as aligned
// text or Markdown.
//
// The tests read every file back with this reader and with an independent
// one, hyparquet (JavaScript, run with node), installed from
// testdata/reader; see testdata/reader/README.md.
package results
