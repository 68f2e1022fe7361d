#!/usr/bin/env bash
# Attack (issue 36, output escaping): result files whose model and serial
# carry Markdown, HTML, a spreadsheet formula, a newline and a terminal
# escape sequence are merged. fleet.md must keep one row per drive with its
# seven cells and no HTML; fleet.csv must parse into the same cells with
# every formula neutralised ('=' ... starts with '); no ESC byte may reach
# stderr or stdout (merge's flagged-drive lines, `zcav zones`).
# Usage: bash inputs_merge_escaping_test.sh /path/to/zcav
set -euo pipefail
source "$(dirname "$0")/inputs_lib.sh"

ESC=$'\e'
MODELS=('<script>alert(1)</script>'
        "=cmd|' /C calc'!A0"
        "a|b\`c\`[x](javascript:alert(1))"
        $'two\nlines # and more'
        "${ESC}]0;owned${ESC}\\${ESC}[31mred")
mkdir -p "$WORK/in"
for i in 0 1 2 3 4; do
  # 3 results per model, so each group has a reference and a flagged drive.
  for k in 1 2 3; do
    seed=$((i * 10 + k))
    weak=()
    [[ $k == 3 ]] && weak=("weak=40%-60%:0.6")
    sim_result "$WORK/in/r$seed.json" "$seed" "${weak[@]}"
    MODEL=${MODELS[$i]} SERIAL="${MODELS[$i]}-$k" set_json "$WORK/in/r$seed.json" '
import os
d["device"]["model"] = os.environ["MODEL"]
d["device"]["identity"]["model"] = os.environ["MODEL"]
d["device"]["identity"]["serial"] = os.environ["SERIAL"]'
  done
done

cd "$WORK"
"$ZCAV" merge in -o fleet.md >out.txt 2>err.txt || fail "merge -o fleet.md: exit $? ($(cat err.txt))"
"$ZCAV" merge in -o fleet.csv -q || fail "merge -o fleet.csv failed"
"$ZCAV" zones in/r41.json >zones.txt 2>>err.txt || fail "zones failed"

# Markdown: 15 drive rows, each of 7 cells (8 unescaped '|').
rows=$(grep -c '^| ' fleet.md)
[[ $rows -eq 16 ]] || fail "fleet.md has $rows table lines, not 16 (header + 15 drives)"
python3 - fleet.md <<'PY' || fail "fleet.md: a cell broke out (see above)"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
rows = [l for l in lines if l.startswith("| ")]
for l in rows:
    cells = re.split(r"(?<!\\)\|", l)
    if len(cells) != 9:
        print("row with", len(cells) - 2, "cells:", l); sys.exit(1)
text = "\n".join(lines)
for bad in ("<script", "</script", "](javascript", "\x1b"):
    if bad in text:
        print("fleet.md holds", repr(bad)); sys.exit(1)
PY

# CSV: 15 rows of 14 cells; no cell starts a formula.
python3 - fleet.csv <<'PY' || fail "fleet.csv: see above"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
if len(rows) != 16:
    print(len(rows), "CSV rows, not 16"); sys.exit(1)
seen = False
for r in rows:
    if len(r) != 14:
        print("row of", len(r), "cells:", r); sys.exit(1)
    for c in r:
        if c[:1] in ("=", "+", "-", "@", "\t", "\r"):
            print("cell starts a formula:", repr(c)); sys.exit(1)
        if c.startswith("'=cmd"):
            seen = True
        if "\x1b" in c:
            print("ESC in a cell:", repr(c)); sys.exit(1)
if not seen:
    print("the formula cell is not there as '=cmd..."); sys.exit(1)
PY

# The terminal: no ESC from the inputs on stderr or stdout.
for f in out.txt err.txt zones.txt; do
  if grep -q "$ESC" "$f"; then fail "$f holds an ESC byte: $(cat -v "$f" | head -5)"; fi
done
grep -q 'flagged' err.txt || fail "merge said nothing about flagged drives: $(cat err.txt)"
echo "ok - merge escaping"
