#!/bin/bash
# A mutation campaign: every operator mutant of FILE.c (scripts/mutants.py)
# checked against FILE.c, -O0 against -O2, with each compiler; one JSON
# line per check in mutants.jsonl, then the count of each verdict. Read
# every `equivalent` by hand: it is either an equivalent mutant or a bug.
# usage: scripts/mutants.sh FILE.c COMPILER... (TIMEOUT=20s, EQC=bin/eqc)
set -u
file=$1; shift
dir=$(mktemp -d)
python3 "$(dirname "$0")/mutants.py" "$file" "$dir" > /dev/null
: > mutants.jsonl
for cc in "$@"; do
  for m in "$dir"/*.c; do
    fn=$(basename "$m" .c | sed 's/^m[0-9]*_//')
    "$cc" -c -o /dev/null "$m" 2>/dev/null || continue
    r=$("${EQC:-bin/eqc}" check --json --cc "$cc" --src-opt O0 --dst-opt O2 --func "$fn" --timeout "${TIMEOUT:-20s}" "$file" "$m" 2>/dev/null | head -1)
    [ -n "$r" ] || r='{"verdict":"error"}'
    echo "{\"cc\":\"$cc\",\"mutant\":\"$(basename "$m")\",\"result\":$r}" >> mutants.jsonl
  done
done
python3 -c '
import json, collections
c = collections.Counter()
for l in open("mutants.jsonl"):
    d = json.loads(l)
    c[(d["cc"], d["result"]["verdict"])] += 1
    if d["result"]["verdict"] == "equivalent":
        print("equivalent:", d["cc"], d["mutant"])
for k, v in sorted(c.items()):
    print(*k, v)
'
rm -rf "$dir"
