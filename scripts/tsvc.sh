#!/usr/bin/env bash
# The main job (`make tsvc`, after `make build`): sweep the TSVC suite —
# both compilers (gcc-12, clang-16), -O0 source against -O3 target, the
# variants VARIANT names (default fixed; `make tsvc-all`: fixed,param),
# UB model all, engine auto — one Parquet row per
# check under results/tsvc, then print the summary tables. The sweep
# resumes: checks that already have a row under results/tsvc are not run
# again (delete the directory for a fresh run). JOBS=0 means one check per
# CPU; TIMEOUT is the per-check timeout. See README.md and pipeline/doc.go.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results/tsvc}
variant=${VARIANT:-fixed}
echo "== TSVC sweep ($variant): gcc-12 and clang-16, O0 vs O3, ub all, engine auto -> $out" >&2
status=0
bin/eqc sweep --suite tsvc --variant "$variant" --out "$out" --jobs "${JOBS:-0}" --timeout "${TIMEOUT:-300s}" || status=$?
# 0 all equivalent, 1 some not-equivalent, 2 some unknown: all are results.
if [ "$status" -gt 2 ]; then
  echo "eqc sweep failed (exit $status)" >&2
  exit "$status"
fi
echo "== eqc report $out" >&2
bin/eqc report "$out"
