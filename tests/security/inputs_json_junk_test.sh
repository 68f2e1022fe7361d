#!/usr/bin/env bash
# Attack (issue 36, unknown JSON members skipped): a valid result with 100 MB
# of junk members (one per line, at the top level and inside "device" and a
# block) was accepted with the junk kept: a peak RSS of 260 MB at e33e9da,
# more than the file. zcav must read it as the result it is (the junk
# skipped as it is parsed, never kept) with a peak RSS under 100 MB (less
# than the file; about 7 MB when the junk is dropped).
# Usage: bash inputs_json_junk_test.sh /path/to/zcav
set -euo pipefail
source "$(dirname "$0")/inputs_lib.sh"
[[ -x /usr/bin/time ]] || { echo "skip: /usr/bin/time (GNU time) is not installed"; exit 77; }
readonly LIMIT_KB=$((100 * 1024))

sim_result "$WORK/clean.json" 1
python3 - "$WORK/clean.json" "$WORK/junk.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
out = open(sys.argv[2], "w")
filler = "x" * 90
def junk(n, tag):
    # n members of ~100 bytes, one per line
    return ",\n".join('"%s%d": "%s"' % (tag, i, filler) for i in range(n))
out.write("{\n")
out.write(junk(450000, "top") + ",\n")
out.write('"device": {\n' + junk(250000, "dev") + ",\n" + json.dumps(d["device"])[1:-1] + "},\n")
blocks = d["blocks"]
first = json.dumps(blocks[0])
out.write('"blocks": [' + first[:-1] + ",\n" + junk(300000, "blk") + "}")
for b in blocks[1:]:
    out.write(",\n" + json.dumps(b))
out.write("],\n")
rest = {k: v for k, v in d.items() if k not in ("device", "blocks")}
out.write(json.dumps(rest, indent=1)[1:].lstrip())
PY
size=$(stat -c %s "$WORK/junk.json")
[[ $size -gt 100000000 ]] || fail "the junk file is only $size bytes"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/junk.json" ||
  fail "the junk file is not JSON (the test is wrong)"

"$ZCAV" zones "$WORK/clean.json" >"$WORK/clean.txt" 2>/dev/null || fail "zones of the clean file"
rc=0
/usr/bin/time -v -o "$WORK/time.txt" "$ZCAV" zones "$WORK/junk.json" >"$WORK/junk.txt" \
  2>"$WORK/err.txt" || rc=$?
kb=$(peak_kb "$WORK/time.txt")
[[ $rc -eq 0 || $rc -eq 2 ]] || fail "exit $rc ($(head -c 300 "$WORK/err.txt"))"
check_peak_rss "100 MB of junk members" "$kb" "$LIMIT_KB"
if [[ $rc -eq 0 ]]; then
  # Read as the result it is: the same zones as without the junk (the
  # first line names the file read).
  diff <(grep -v '^#' "$WORK/clean.txt") \
    <(grep -v '^#' "$WORK/junk.txt" | sed "s|$WORK/junk.json|$WORK/clean.json|") >/dev/null ||
    fail "the zones differ from the clean file's"
fi
echo "ok - 100 MB of junk members: exit $rc, peak RSS $kb kB"
rm -f "$WORK/junk.json"
