#!/usr/bin/env bash
# Attack (issue 36, output name templates): a drive answers ".." as its
# serial (a device's strings are its firmware's to choose; a simulated
# drive's serial= stands in here). `-o '{serial}/run.json'` must not climb
# out of the directory: a value of only dots becomes "_", '/' never
# survives, and a value is at most 200 bytes (the name, with the
# temporary name's suffix, within NAME_MAX).
# Usage: bash inputs_output_name_test.sh /path/to/zcav
set -euo pipefail
source "$(dirname "$0")/inputs_lib.sh"

mkdir -p "$WORK/up/here/_"
cd "$WORK/up/here"
"$ZCAV" sweep 'sim:hdd?size=64M&serial=..' -o '{serial}/run.json' -q 2>"$WORK/err.txt" ||
  fail "sweep with serial=..: $(cat "$WORK/err.txt")"
[[ ! -e $WORK/up/run.json ]] || fail "{serial} of '..' wrote $WORK/up/run.json"
[[ -s _/run.json ]] || fail "the result is not at _/run.json"

"$ZCAV" sweep 'sim:hdd?size=64M&serial=../../x' -o 'r-{serial}.json' -q 2>"$WORK/err.txt" ||
  fail "sweep with serial=../../x: $(cat "$WORK/err.txt")"
[[ -s r-.._.._x.json ]] || fail "serial ../../x did not become r-.._.._x.json: $(ls)"

long=$(printf 'S%.0s' $(seq 1 300))
"$ZCAV" sweep "sim:hdd?size=64M&serial=$long" -o '{serial}' -q 2>"$WORK/err.txt" ||
  fail "sweep with a 300-byte serial: $(cat "$WORK/err.txt")"
name=$(ls | grep '^SSS' || true)
[[ ${#name} -le 255 && ${#name} -gt 0 ]] || fail "a 300-byte serial gave a name of ${#name} bytes"
echo "ok - {serial} of .. does not climb"
