#!/usr/bin/env bash
# Attack (issue 36, lines capped): a result file of one 2 GB line (a sparse
# file: no disk used) once took 3.9 GB of memory. zcav must refuse it as
# bad input (exit 2, one "zcav: ...longer than 1 MiB" line) with a peak
# RSS under 200 MB; so must a JSON document of one 2 GB line on stdin
# ("-", from a generator), and a FIFO named as input is refused unopened.
# Usage: bash inputs_long_line_test.sh /path/to/zcav
set -euo pipefail
source "$(dirname "$0")/inputs_lib.sh"
[[ -x /usr/bin/time ]] || { echo "skip: /usr/bin/time (GNU time) is not installed"; exit 77; }
readonly LIMIT_KB=$((200 * 1024))

# Runs zcav ARGS... with stdin from the file or pipe already set up, and
# checks: exit 2, one stderr line naming the cap, peak RSS under LIMIT_KB.
expect_refused() {
  local what=$1
  shift
  local rc=0
  timeout 120 /usr/bin/time -v -o "$WORK/time.txt" "$ZCAV" "$@" >"$WORK/out.txt" \
    2>"$WORK/err.txt" || rc=$?
  [[ $rc -eq 2 ]] || fail "$what: exit $rc, not 2 ($(head -c 300 "$WORK/err.txt"))"
  grep -q '^zcav: .*longer than 1 MiB' "$WORK/err.txt" ||
    fail "$what: stderr does not name the cap: $(head -c 300 "$WORK/err.txt")"
  local kb
  kb=$(peak_kb "$WORK/time.txt")
  check_peak_rss "$what" "$kb" "$LIMIT_KB"
  echo "ok - $what refused, peak RSS $kb kB"
}

# A raw file: "# zcav " and 2 GB of NUL bytes without a newline.
printf '# zcav 0.1.0 raw data\n# device: x' >"$WORK/long.dat"
truncate -s 2G "$WORK/long.dat"
expect_refused "a 2 GB line in a file" zones "$WORK/long.dat"

# A JSON document on stdin whose second line is 2 GB of 'y'.
expect_refused "a 2 GB JSON line on stdin" zones - < <(
  printf '{"blocks": [],\n"device": {"model": "'
  yes | tr -d '\n' | head -c 2G
)

# A FIFO named as an input: refused without opening it (an open with no
# writer would wait for ever; a writer would feed it for ever).
mkfifo "$WORK/fifo.dat"
rc=0
timeout 30 "$ZCAV" zones "$WORK/fifo.dat" >/dev/null 2>"$WORK/err.txt" || rc=$?
[[ $rc -eq 2 ]] || fail "a FIFO as input: exit $rc, not 2 ($(head -c 300 "$WORK/err.txt"))"
grep -q 'not a regular file' "$WORK/err.txt" || fail "a FIFO: $(head -c 300 "$WORK/err.txt")"
echo "ok - a FIFO as input refused"
