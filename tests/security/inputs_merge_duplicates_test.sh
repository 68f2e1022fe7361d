#!/usr/bin/env bash
# Attack (issue 36, one result per drive): copies of one drive's result (the
# same serial, from one host) counted as its siblings: forged copies of a
# good drive outvote the real fleet. Merge must keep one result per serial,
# the newest by its recorded start, and warn naming the duplicates.
# Usage: bash inputs_merge_duplicates_test.sh /path/to/zcav
set -euo pipefail
source "$(dirname "$0")/inputs_lib.sh"

mkdir -p "$WORK/in"
sim_result "$WORK/in/a.json" 1
sim_result "$WORK/in/b.json" 2
sim_result "$WORK/in/c.json" 3
for copy in d e f; do cp "$WORK/in/a.json" "$WORK/in/$copy.json"; done
set_json "$WORK/in/a.json" 'd["device"]["identity"]["started"] = "2026-01-01T00:00:00Z"'
set_json "$WORK/in/d.json" 'd["device"]["identity"]["started"] = "2026-03-01T00:00:00Z"'
set_json "$WORK/in/e.json" 'd["device"]["identity"]["started"] = "2026-02-01T00:00:00Z"'
set_json "$WORK/in/f.json" 'd["device"]["identity"]["started"] = "2025-12-01T00:00:00Z"'

cd "$WORK"
"$ZCAV" merge in -o fleet.json 2>err.txt || fail "merge failed: $(cat err.txt)"
python3 - fleet.json <<'PY' || fail "fleet.json: see above"
import json, sys
drives = json.load(open(sys.argv[1]))["drives"]
serials = [d["serial"] for d in drives]
if len(drives) != 3 or len(set(serials)) != 3:
    print("drives:", serials); sys.exit(1)
kept = [d["source"] for d in drives if d["serial"] == "SIM-HDD-1"]
if kept != ["in/d.json"]:
    print("kept", kept, "not the newest, in/d.json"); sys.exit(1)
PY
grep -q '^zcav: warning: 4 results of the drive with serial SIM-HDD-1' err.txt ||
  fail "no warning on the duplicates: $(cat err.txt)"
for f in in/a.json in/e.json in/f.json; do
  grep -q "$f" err.txt || fail "the warning does not name $f: $(cat err.txt)"
done
echo "ok - one result per serial, the newest kept, a warning"
