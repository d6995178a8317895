// Package pipeline runs sweeps (`eqc sweep`): compile a suite with real
// compilers, check every function pair in a worker process of its own with
// bounded concurrency and per-check limits, and write one results row per
// check.
//
// # What a sweep runs
//
// Run compiles only what the configuration needs — every source of the
// suite, in every variant, with every compiler, at the source level
// (Config.SrcOpt) and at each target level (Config.DstOpts) — through
// bench.Compile into Out/objects, where objects are cached by content hash
// (a built-in suite's sources are written to Out/src first). A missing
// compiler is an error of the whole sweep (*bench.MissingToolError). A
// source that does not compile is reported on Log with the compiler's first
// error line and listed in Summary.Failed; its functions get no rows for
// that compiler (the function names come from the object, so there are
// none to report), and every other source is still swept.
//
// The checks are compiler × target level × variant × UB model × source ×
// function: every function the suite checks (Suite.CheckedFunctions) that
// both the source-side and the target-side object define. A check is
// identified by its Key — suite, benchmark, function, compiler, src_opt,
// dst_opt, cflags (the target object's flags, which carry the variant's
// -D options), ub_model, engine — and the engine in the key and the row is
// the one asked for (auto), so that a resumed sweep recognizes its rows.
//
// # Workers and limits
//
// Each check runs in a worker process, Config.Worker (the eqc binary's own
// `eqc check`, with Config.Env marking it a worker that checks in process)
// with --json --func F --ub U --engine E --timeout T SRC DST, at most
// Config.Jobs at once (errgroup.SetLimit). RunCheckWorker runs it, as it
// runs every worker of `eqc check` itself: the worker leads a session of its
// own, so that its descendants — solver processes, each the leader of a
// process group, and traced binaries — stay in it; it runs under `prlimit
// --as=MemBytes` (util-linux) when MemBytes > 0, a cap each of those
// processes inherits; and the whole session is killed at Timeout + Grace,
// when the sweep is interrupted, and when the worker ends (RunProcess). A
// worker also gets SIGKILL if the sweep itself dies. No worker can take the
// sweep down: a killed worker gives the row verdict unknown, reason
// "timeout"; a worker that died with an out-of-memory message under the cap
// gives "memout"; one that exited 65 gives "bad-input: <first stderr
// line>"; any other death without a result "worker-crash: <first stderr
// line>". The worker's stderr (first 64 KiB) goes to the row's error
// column for unknown verdicts.
//
// With Config.Verifier (eqc sweep sets it to `eqc proof verify`) the worker
// also gets --proof Out/proofs/SUITE/<benchmark.compiler.levels.ub.hash>,
// and the proof of each equivalent verdict is rechecked by a second process
// under the same limits, which rebuilds every obligation from the binaries
// and the proof file without the search. The row keeps the verdict and
// records proof_file and proof_verified; when the proof was not verified
// (refused, crashed, killed at the deadline) the error column says why.
// The verification's time is not in the worker's process wall time.
//
// # Results, resume and interruption
//
// Before running, Run reads every results file under Out (results.ReadDir)
// and skips the checks whose key already has a row; corrupt files are set
// aside (results.SetAside: renamed, never deleted) with one line on Log,
// and the sweep goes on. The rows of one run go to one new file
// Out/run-<UTC time>.parquet through the atomic writer, sorted by key; a
// run with no new row writes no file. When ctx is cancelled (SIGINT or
// SIGTERM in eqc sweep), no new check starts, running workers are killed
// and their checks left for the next run, and the rows finished so far are
// written — the final name never holds a partial file. A sweep killed
// outright (SIGKILL) writes nothing: at most a temporary file that readers
// ignore, and all of its checks run again on resume. So a check has at
// most one row per run and is never lost, only re-run.
//
// # Progress and timing
//
// Progress goes to Log only: with Progress (a terminal) one updating line
// "done/total checks, proved, unknown, ETA"; otherwise one plain line per
// finished check. Summary carries the counts of this run and of every
// planned check with a row, and the time spent outside the checks (setup
// — compiler lookup, resume, compile —, writing, and per check the
// worker's process wall time minus its own wall_s), which is the sweep's
// overhead.
package pipeline
