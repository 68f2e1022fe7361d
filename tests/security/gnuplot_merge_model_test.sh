#!/usr/bin/env bash
# Attack: a result file from another host whose device.model (and firmware)
# holds a newline and a gnuplot command. `zcav merge` writes each group's key
# (model + firmware) into its plot script's comment: before the fix the
# newline ended the comment and `system "touch MARKER"` ran as root (-o
# fleet.html and -o fleet.md). The attacker (uid 65534) writes the results;
# root merges them. Passes when no marker appears and the merge succeeds.
# Usage: gnuplot_merge_model_test.sh ZCAV. Exit: 0 pass, 1 fail, 77 skip.
set -euo pipefail
ZCAV=$(realpath "$1")
skip() { echo "skip: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "needs root (the attacker is played with setpriv)"
command -v setpriv >/dev/null || skip "setpriv is not installed"
command -v gnuplot >/dev/null || skip "gnuplot is not installed"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/zcav-sec-merge-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
chmod 1777 "$WORK"  # the marker could be made by the attacker's uid too
ATTACKER=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fail=0
mkdir "$WORK/in"
chown 65534:65534 "$WORK/in"
for i in 1 2 3; do
  "${ATTACKER[@]}" "$ZCAV" sweep "sim:hdd?size=1G&seed=$i" --format json -o "$WORK/in/d-$i.json" -q
done
for f in "$WORK"/in/d-*.json; do
  python3 - "$f" "$WORK" <<'PY'
import json, sys
path, work = sys.argv[1], sys.argv[2]
doc = json.load(open(path))
doc.setdefault("device", {})
doc["device"]["model"] = 'x\nsystem "touch %s/MODEL"\n# ' % work
doc["device"]["firmware"] = "f\rsystem 'touch %s/FIRMWARE'\n" % work
json.dump(doc, open(path, "w"))
PY
  chown 65534:65534 "$f"
done
for out in fleet.html fleet.md; do
  rc=0
  (cd "$WORK" && TMPDIR=$WORK "$ZCAV" merge "$WORK/in" -o "$WORK/$out" -q) >"$WORK/merge.out" 2>&1 || rc=$?
  for m in MODEL FIRMWARE; do
    if [[ -e $WORK/$m ]]; then
      echo "FAIL: zcav merge -o $out ran the $m's command (marker $m exists)"
      fail=1
      rm -f "$WORK/$m"
    fi
  done
  if [[ $rc -ne 0 ]]; then
    echo "FAIL: zcav merge -o $out exited $rc: $(tail -n 2 "$WORK/merge.out")"
    fail=1
  fi
  if grep -rqs '^system' "$WORK"/*.gp; then
    echo "FAIL: a script of -o $out has a line starting with the model's command"
    fail=1
  fi
done
[[ $fail -eq 0 ]] && echo "ok - a model or firmware with a newline and a gnuplot command runs nothing"
exit $fail
