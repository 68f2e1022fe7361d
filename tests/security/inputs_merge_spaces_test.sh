#!/usr/bin/env bash
# Attack (issue 36, no regex on unbounded text): a model of 50,000 spaces
# between two letters reaches the group plot's title, and the HTML report's
# SVG clean-up ran std::regex over it (libstdc++ recurses per character:
# SIGSEGV, no report). The merge must write its report (exit 0).
# Usage: bash inputs_merge_spaces_test.sh /path/to/zcav
set -euo pipefail
source "$(dirname "$0")/inputs_lib.sh"
command -v gnuplot >/dev/null || { echo "skip: gnuplot is not installed (the SVG needs it)"; exit 77; }

mkdir -p "$WORK/in"
for seed in 1 2 3; do
  sim_result "$WORK/in/r$seed.json" "$seed"
  set_json "$WORK/in/r$seed.json" '
m = "A" + " " * 50000 + "B"
d["device"]["model"] = m
d["device"]["identity"]["model"] = m'
done
cd "$WORK"
rc=0
"$ZCAV" merge in -o fleet.html -q 2>err.txt || rc=$?
[[ $rc -eq 0 ]] || fail "merge exited $rc ($(head -c 300 err.txt))"
grep -q '<svg' fleet.html || fail "fleet.html has no plot"
grep -q '<table>' fleet.html || fail "fleet.html has no table"
echo "ok - a model of 50,000 spaces"
