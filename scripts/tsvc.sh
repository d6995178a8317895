#!/usr/bin/env bash
# The main job, until the pipeline lands: see README.md.
set -euo pipefail
echo "make tsvc: the TSVC sweep is not built yet (issue: pipeline); nothing was checked." >&2
exit 2
