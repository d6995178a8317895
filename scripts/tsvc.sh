#!/usr/bin/env bash
# The main job (`make tsvc`, after `make build`): sweep the TSVC suite —
# both compilers (gcc-12, clang-16), -O0 source against -O3 target, the
# variants VARIANT names (default fixed; `make tsvc-all`: fixed,param),
# UB model all, engine auto — one Parquet row per
# check under results/tsvc, then print the summary tables; then the same
# for the loop kernels of bench/kernels (56 integer loops in the shape
# ordinary C has them, both compilers) under results/kernels, each check
# within KERNELS_TIMEOUT (default 30s; KERNELS=0 skips them). The sweeps
# resume: checks that already have a row under --out are not run
# again (delete the directory for a fresh run). JOBS=0 means one check per
# CPU; TIMEOUT is the per-check timeout of TSVC. See README.md and
# pipeline/doc.go.
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
if [ "${KERNELS:-1}" != 0 ]; then
  kout=${KERNELS_OUT:-results/kernels}
  echo "== loop kernels: gcc-12 and clang-16, O0 vs O3, ub all, engine auto -> $kout" >&2
  status=0
  bin/eqc sweep --suite kernels --opt O3 --out "$kout" --jobs "${JOBS:-0}" --timeout "${KERNELS_TIMEOUT:-30s}" || status=$?
  if [ "$status" -gt 2 ]; then
    echo "eqc sweep failed (exit $status)" >&2
    exit "$status"
  fi
  echo "== eqc report $kout" >&2
  bin/eqc report "$kout"
fi
