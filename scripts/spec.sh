#!/usr/bin/env bash
# `make spec` (after `make build`): sweep the open SPEC-like suite — the
# real C programs of bench/spec/*.txt (bzip2, gzip, xz, lua, sqlite, grep,
# bc, gnugo), fetched once from Debian's source packages into
# $TMPDIR/eqc-bench-cache/spec — with both compilers (gcc-12, clang-16),
# -O0 source against -O2 and -O3, UB model all, engine auto, one Parquet
# row per check under results/spec, then print the tables.
#
# By default it checks a sample: SAMPLE functions of each program,
# stratified by size (the same functions at every compiler and level), so
# that the whole job fits in about half an hour on two cores. FULL=1
# checks every function. TIMEOUT is the per-check timeout, JOBS the
# checks at once (0: one per CPU), OPT the target levels. It also sweeps
# the sample's cross-compiler pairs, clang-16 -O0 against gcc-12 -O2
# (CROSS=0: not). The sweep
# resumes: checks with a row under results/spec are not run again.
set -euo pipefail
cd "$(dirname "$0")/.."
# SPEC_DIR: an installed SPEC CPU tree (CPU2000, CPU2006 or CPU2017) of the
# user's; its integer C benchmarks are built from their Spec/object.pm
# instead of the open suite, into results/speccpu. SPEC_CFLAGS adds
# portability flags of the user's own to every build.
suite=spec
out=${OUT:-results/spec}
if [ -n "${SPEC_DIR:-}" ]; then
  if [ ! -d "$SPEC_DIR/benchspec" ]; then
    echo "SPEC_DIR=$SPEC_DIR is not an installed SPEC CPU tree (no benchspec/ in it)" >&2
    exit 64
  fi
  suite=$SPEC_DIR
  out=${OUT:-results/speccpu}
fi
sample=${SAMPLE:-6}
if [ -n "${FULL:-}" ]; then
  sample=0
fi
echo "== SPEC-like sweep of $suite: gcc-12 and clang-16, O0 vs ${OPT:-O2,O3}, ub all, engine auto, sample ${sample} per program (0: all) -> $out" >&2
status=0
bin/eqc sweep --suite "$suite" --out "$out" --sample "$sample" --opt "${OPT:-O2,O3}" \
  --jobs "${JOBS:-0}" --timeout "${TIMEOUT:-20s}" --spec-cflags "${SPEC_CFLAGS:-}" || status=$?
# 0 all equivalent, 1 some not-equivalent, 2 some unknown: all are results.
if [ "$status" -gt 2 ]; then
  echo "eqc sweep failed (exit $status)" >&2
  exit "$status"
fi
# Cross-compiler pairs for the thesis's Table 2.4 (CompCert -O0 against gcc
# -O2 there): the same sample, clang-16 -O0 against gcc-12 -O2. CROSS=0
# leaves them out.
if [ "${CROSS:-1}" != 0 ]; then
  echo "== cross-compiler pairs: clang-16 O0 vs gcc-12 O2 -> $out" >&2
  status=0
  bin/eqc sweep --suite "$suite" --out "$out" --sample "$sample" --src-cc clang-16 --cc gcc-12 --opt O2 \
    --jobs "${JOBS:-0}" --timeout "${TIMEOUT:-20s}" --spec-cflags "${SPEC_CFLAGS:-}" || status=$?
  if [ "$status" -gt 2 ]; then
    echo "eqc sweep failed (exit $status)" >&2
    exit "$status"
  fi
fi
echo "== eqc report $out" >&2
bin/eqc report "$out"
