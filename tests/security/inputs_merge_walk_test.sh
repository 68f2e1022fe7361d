#!/usr/bin/env bash
# Attack (issue 36, merge's walk): a result tree holds a symlink to / and a
# symlink loop. `zcav merge DIR` once walked all of / and one loop aborted
# the whole merge. It must not follow either, merge the three results there,
# and say it skipped the two entries (a note on stderr), in well under a
# minute.
# Usage: bash inputs_merge_walk_test.sh /path/to/zcav
set -euo pipefail
source "$(dirname "$0")/inputs_lib.sh"

mkdir -p "$WORK/tree/host-a" "$WORK/tree/host-b" "$WORK/tree/host-c"
sim_result "$WORK/tree/host-a/sweep.json" 1
sim_result "$WORK/tree/host-b/sweep.json" 2
sim_result "$WORK/tree/host-c/sweep.json" 3
ln -s / "$WORK/tree/host-a/root"
ln -s loop-2 "$WORK/tree/host-b/loop-1"
ln -s loop-1 "$WORK/tree/host-b/loop-2"
ln -s .. "$WORK/tree/host-c/up"

cd "$WORK"
rc=0
timeout 60 "$ZCAV" merge tree -o fleet.json 2>err.txt || rc=$?
[[ $rc -eq 0 ]] || fail "merge exited $rc ($(head -c 400 err.txt))"
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["drives"]))' fleet.json)
[[ $n -eq 3 ]] || fail "merged $n drives, not 3"
grep -q '^zcav: note: skipped 4 entries' err.txt ||
  fail "no note on the 4 entries skipped: $(cat err.txt)"
echo "ok - merge walk: symlinks to /, .. and a loop skipped"
