// Package align decides a check: it proves a target function equivalent to
// its source, or shows an input on which both binaries, run for real,
// differ. Check is the whole of it, over the packages below:
//
//   - align/product/pair: the two lifted functions (Load), their shared
//     entry state and precondition, the loop-free engine
//     (pair.CheckLoopFree), co-execution on concrete inputs, and
//     alignments of co-executions (the types both loop engines share, and
//     Walk, which follows an alignment along a run);
//   - align/product: the product program of an alignment, its candidate
//     invariants, its obligations and its proof;
//   - align/correlate and align/paa: the two loop engines, each a search
//     for alignments (the static correlator, thesis Algorithm 1; the
//     data-driven alignment predicates, PLDI'19);
//   - align/verify: the proof checker (eqc proof verify), which imports no
//     engine.
//
// What this package holds:
//
//   - Check (check.go) loads the pair and runs the loop-free engine. A pair
//     with a loop (Outcome.HasLoops) goes to the loop engines, after both
//     binaries have run natively on a few generated inputs (difftest.go:
//     random, small, zero, ramp values; one link, then a millisecond or
//     two per input); a confirmed difference is "not-equivalent" at once
//     under --ub none.
//
//   - The loop engines are Engine values in a table (engines.go): --engine
//     names one; auto ("" too) races them all (race.go), each on its own
//     load of the pair: the first proof wins and cancels the others, and
//     an alignment two engines find is proved once, by the engine that
//     claims it first. Whatever engine found an alignment, checkLoopsWith
//     builds its product (product.Build), runs Houdini and discharges the
//     obligations (Product.Prove), and records the proof. When every
//     product of a round fails, the failed obligations' models give
//     inputs (integer arguments, and bytes where pointer arguments point)
//     that start new co-executions, and the engine correlates again (at
//     most two rounds; pair/cexruns.go); those inputs run natively when
//     no proof comes (the differential test's first input with the
//     models' integer arguments and pointees, difftest.go).
//
//   - Check runs a pair and, when an obligation fails with a model, turns
//     the model into a concrete input and runs both binaries on it
//     (tracer.Confirm). Only a difference seen in those real runs becomes
//     "not-equivalent", and under a UB model (ub.Parse reads it) only on
//     an input the UB monitor finds free of the model's undefined
//     behaviour in the source's run (tracer.ConfirmUnder); a model the runs
//     do not confirm leaves the verdict unknown. A not-equivalent verdict
//     is replayed first, each binary linked afresh into a new process. A
//     loop-free pair whose counterexample does not show in real runs gets
//     the differential test too.
//
//   - An equivalent verdict carries its proof (Result.Proof), which Check
//     names by the binaries' SHA-256 (eqc check --proof writes it; eqc
//     proof verify, align/verify, rechecks it).
//
// The verdict contract of docs/design.md is the invariant: "equivalent" only
// when every obligation is Unsat, "not-equivalent" only with a confirmed
// input.
package align
