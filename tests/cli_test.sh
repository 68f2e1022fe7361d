#!/usr/bin/env bash
# CLI tests: the zcav binary end to end.
#
# Bad input must give exit code 2, exactly one line on stderr starting with
# "zcav: ", nothing on stdout, and no output file (nor a leftover temporary
# *.tmp.* file). The positive cases run `zcav sweep` on simulated devices (no
# real time, deterministic) and on small real files in a temporary directory.
#
# Usage: bash cli_test.sh /path/to/zcav
# Prints one "ok - NAME" / "FAIL - NAME" line per case, then "N passed, M failed"
# alone on the last line; exits 1 if any case failed. Needs python3 (JSON check).
set -u

if [[ $# -ne 1 || ! -x $1 ]]; then
  echo "usage: bash cli_test.sh /path/to/zcav (got '${1:-}', not an executable)" >&2
  exit 2
fi
ZCAV=$(realpath "$1")
readonly ZCAV
readonly MIB=$((1024 * 1024))
DATA=$(cd "$(dirname "$0")/data" && pwd) || exit 1
readonly DATA
TESTS=$(dirname "$DATA")
readonly TESTS

# Under /var/tmp rather than /tmp: /tmp is often tmpfs, which refuses O_DIRECT.
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/zcav-cli-test.XXXXXX") || exit 1
readonly WORK
BG_PID=""
cleanup() {
  if [[ -n $BG_PID ]] && kill -0 "$BG_PID" 2>/dev/null; then
    kill -KILL "$BG_PID" 2>/dev/null
    wait "$BG_PID" 2>/dev/null
  fi
  cd / && rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---------------------------------------------------------------------------
# The harness. A case starts with `check` (or `begin`), which finishes the
# previous case; assertions after it add problems to the current case.

PASSED=0
FAILED=0
SKIPPED=0
CASE=""
CASE_NO=0
PROBLEMS=()
DIR=""      # the current case's own empty directory (the commands' cwd)
OUT=""      # file holding the last command's stdout
ERR=""      # file holding the last command's stderr
RC=0        # the last command's exit code
BEFORE=""   # listing of $DIR before the command ran

finish_case() {
  [[ -n $CASE ]] || return 0
  if [[ ${#PROBLEMS[@]} -eq 0 ]]; then
    PASSED=$((PASSED + 1))
    echo "ok - $CASE"
  else
    FAILED=$((FAILED + 1))
    echo "FAIL - $CASE"
    local p
    for p in "${PROBLEMS[@]}"; do echo "    $p"; done
    if [[ -s $ERR ]]; then
      echo "    stderr (first 5 lines):"
      head -n 5 "$ERR" | sed 's/^/      | /'
    fi
  fi
  CASE=""
  PROBLEMS=()
}

# begin NAME: starts a case in a fresh empty directory $DIR and cd's there.
begin() {
  finish_case
  CASE=$1
  CASE_NO=$((CASE_NO + 1))
  DIR="$WORK/case$CASE_NO"
  OUT="$WORK/case$CASE_NO.stdout"
  ERR="$WORK/case$CASE_NO.stderr"
  mkdir -p "$DIR" && cd "$DIR" || exit 1
  : >"$OUT"
  : >"$ERR"
}

problem() { PROBLEMS+=("$*"); }

# Every JSON a command writes (stdout, files in $DIR) is copied here as it
# comes out, to be validated against schema/ at the end (the test's own later
# changes to a file do not reach the copy). KEPT_JSON lists "COPY<TAB>what".
readonly KEPT_JSON_DIR="$WORK/kept-json"
mkdir -p "$KEPT_JSON_DIR"
RUN_NO=0

# files_in_dir: "PATH MTIME SIZE" of every file under $DIR, sorted.
files_in_dir() { (cd "$DIR" && find . -type f -printf '%p %T@ %s\n' | sort); }

# keep_json_outputs BEFORE_LISTING: copies stdout and the files in $DIR that
# are new or changed since BEFORE_LISTING when they hold JSON (first byte {
# or [); temporary *.tmp.* files excepted.
keep_json_outputs() {
  local f first
  RUN_NO=$((RUN_NO + 1))
  first=$(head -c 1 "$OUT")
  if [[ $first == "{" || $first == "[" ]]; then
    cp "$OUT" "$KEPT_JSON_DIR/$RUN_NO.stdout"
    printf '%s\t%s\n' "$KEPT_JSON_DIR/$RUN_NO.stdout" "$CASE: stdout" >>"$KEPT_JSON_DIR/list"
  fi
  while IFS= read -r f; do
    [[ $f == *.tmp.* ]] && continue
    first=$(head -c 1 "$DIR/$f")
    [[ $first == "{" || $first == "[" ]] || continue
    # The copy keeps the file's name: aggregate.json is told by its name.
    mkdir -p "$KEPT_JSON_DIR/$RUN_NO"
    cp "$DIR/$f" "$KEPT_JSON_DIR/$RUN_NO/$(basename "$f")" 2>/dev/null || continue
    printf '%s\t%s\n' "$KEPT_JSON_DIR/$RUN_NO/$(basename "$f")" "$CASE: ${f#./}" >>"$KEPT_JSON_DIR/list"
  done < <(comm -13 <(echo "$1") <(files_in_dir) | sed -E 's/ [^ ]+ [^ ]+$//' | sort -u)
}

# run CMD...: runs CMD in $DIR, stdout to $OUT, stderr to $ERR, exit code in
# $RC. A command that hangs is killed after 300 s (exit 124).
run() {
  local listing
  BEFORE=$(ls -A "$DIR")
  listing=$(files_in_dir)
  timeout -k 5 300 "$@" >"$OUT" 2>"$ERR"
  RC=$?
  keep_json_outputs "$listing"
}

# check NAME WANT_EXIT CMD...: begin NAME, run CMD, expect exit WANT_EXIT.
check() {
  local name=$1 want=$2
  shift 2
  begin "$name"
  run "$@"
  expect_exit "$want"
}

# expect_exit WANT: the exit code is WANT, and stderr holds no sanitizer
# report (a sanitized build exits 86 or 87 on a finding, see
# cmake/sanitizer_defaults.cc; this also catches a report that did not halt).
expect_exit() {
  [[ $RC -eq $1 ]] || problem "exit code $RC, expected $1"
  if grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$ERR"; then
    problem "sanitizer report on stderr: $(grep -Em 1 'Sanitizer|runtime error:' "$ERR")"
  fi
}

expect_stdout_empty() {
  [[ ! -s $OUT ]] || problem "stdout not empty ($(wc -c <"$OUT") bytes): $(head -c 200 "$OUT")"
}

expect_stderr_empty() {
  [[ ! -s $ERR ]] || problem "stderr not empty: $(head -n 3 "$ERR")"
}

# expect_one_error_line [ERE]: stderr is exactly one line, "zcav: ...",
# matching ERE (case-insensitive) when given.
expect_one_error_line() {
  local lines
  lines=$(wc -l <"$ERR")
  if [[ $lines -ne 1 ]]; then
    problem "stderr has $lines lines, expected exactly 1"
  elif ! head -n 1 "$ERR" | grep -q '^zcav: '; then
    problem "stderr line does not start with 'zcav: ': $(head -n 1 "$ERR")"
  elif [[ $# -gt 0 ]] && ! grep -Eqi -- "$1" "$ERR"; then
    problem "stderr does not match /$1/: $(head -n 1 "$ERR")"
  fi
}

# expect_no_new_files: the command created nothing in $DIR (no output file,
# no temporary *.tmp.* file).
expect_no_new_files() {
  local after
  after=$(ls -A "$DIR")
  [[ $after == "$BEFORE" ]] || problem "files left in the working directory: $(echo "$after" | tr '\n' ' ')"
}

expect_no_tmp_files() {
  local left
  left=$(find "$DIR" -name '*.tmp.*' | tr '\n' ' ')
  [[ -z $left ]] || problem "temporary files left behind: $left"
}

# expect_grep ERE FILE [what]
expect_grep() {
  grep -Eq -- "$1" "$2" 2>/dev/null || problem "${3:-$(basename "$2")} does not match /$1/"
}

expect_no_grep() {
  ! grep -Fq -- "$1" "$2" 2>/dev/null || problem "${3:-$(basename "$2")} contains '$1'"
}

# expect_eq ACTUAL EXPECTED WHAT
expect_eq() {
  [[ $1 == "$2" ]] || problem "$3 is '$1', expected '$2'"
}

# expect_num_eq ACTUAL EXPECTED WHAT: numerically equal within 1e-9.
expect_num_eq() {
  awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d < 1e-9) }' ||
    problem "$3 is '$1', expected $2"
}

# The classic data lines of a raw file (no '#' lines).
data_lines() { grep -v '^#' "$1"; }
data_count() { grep -vc '^#' "$1"; }
first_offset() { data_lines "$1" | head -n 1 | awk '{ print $1 }'; }
last_offset() { data_lines "$1" | tail -n 1 | awk '{ print $1 }'; }
gib() { awk -v b="$1" 'BEGIN { printf "%.12f", b / 1073741824 }'; }

# expect_raw_data FILE: every data line has >= 3 numeric columns, column 1
# strictly increases, and no "++++" (classic zcav's "too fast to time").
expect_raw_data() {
  local verdict
  verdict=$(awk '
    /^#/ { next }
    {
      n++
      if (NF < 3) short++
      for (i = 1; i <= 3 && i <= NF; i++)
        if ($i !~ /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) nonnum++
      if (n > 1 && $1 + 0 <= prev) order++
      prev = $1 + 0
    }
    END { printf "%d %d %d %d", n, short, nonnum, order }' "$1")
  local n short nonnum order
  read -r n short nonnum order <<<"$verdict"
  [[ $n -gt 0 ]] || problem "no data lines in $(basename "$1")"
  [[ $short -eq 0 ]] || problem "$short data lines with fewer than 3 columns"
  [[ $nonnum -eq 0 ]] || problem "$nonnum non-numeric values in columns 1-3"
  [[ $order -eq 0 ]] || problem "column 1 (offset) does not increase at $order lines"
  expect_no_grep "++++" "$1"
}

# skip_case NAME REASON: a case this machine cannot run; a failure under
# ZCAV_REQUIRE_ALL=1 (CI), which must run every case.
skip_case() {
  if [[ ${ZCAV_REQUIRE_ALL:-0} == 1 ]]; then
    begin "$1"
    problem "not run, and ZCAV_REQUIRE_ALL=1 requires it: $2"
    return
  fi
  finish_case
  SKIPPED=$((SKIPPED + 1))
  echo "skip - $1: $2"
}

# bad_input NAME ARGS...: zcav ARGS... -o OUT must be refused as bad input.
bad_input() {
  local name=$1
  shift
  check "bad input: $name" 2 "$ZCAV" "$@" -o OUT
  expect_one_error_line
  expect_stdout_empty
  expect_no_new_files
}

# ---------------------------------------------------------------------------
# Fixtures, outside the case directories.

FIX="$WORK/fixtures"
mkdir -p "$FIX/a_directory" || exit 1
: >"$FIX/empty"
head -c "$MIB" /dev/urandom >"$FIX/one_mib"
head -c $((10 * MIB + 4096)) /dev/urandom >"$FIX/ten_mib_4k"
cp "$FIX/one_mib" "$FIX/unreadable" && chmod 000 "$FIX/unreadable"

# ---------------------------------------------------------------------------
# Bad input: exit 2, one line, no output file.

bad_input "nonexistent path" sweep "$FIX/does-not-exist"
expect_grep "does-not-exist" "$ERR" stderr
bad_input "a directory" sweep "$FIX/a_directory"
expect_grep "director" "$ERR" stderr
bad_input "an empty file" sweep "$FIX/empty"
expect_grep "empty" "$ERR" stderr

if [[ $(id -u) -ne 0 ]]; then
  bad_input "permission denied" sweep "$FIX/unreadable"
  expect_grep "[Pp]ermission denied" "$ERR" stderr
elif command -v setpriv >/dev/null && chmod 755 "$WORK" "$FIX" &&
    setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$ZCAV" 2>/dev/null; then
  # Root can read anything: drop to 'nobody' for this one case.
  begin "bad input: permission denied (as nobody via setpriv)"
  chmod 777 "$DIR"
  run setpriv --reuid=65534 --regid=65534 --clear-groups "$ZCAV" sweep "$FIX/unreadable" -o OUT
  expect_exit 2
  expect_one_error_line "permission denied"
  expect_stdout_empty
  expect_no_new_files
else
  skip_case "bad input: permission denied" \
    "running as root (root can read a chmod 000 file) and cannot drop to nobody with setpriv"
fi

bad_input "block larger than a 1 MiB file" sweep "$FIX/one_mib" --block-size 2G
expect_grep "block" "$ERR" stderr
bad_input "block larger than sim:ssd?size=1G" sweep "sim:ssd?size=1G" --block-size 2G
expect_grep "block" "$ERR" stderr
bad_input "classic -b larger than the device" -b 2048 "sim:ssd?size=1G"
bad_input "range end beyond the end (sim)" sweep "sim:ssd?size=1G" --end 2G
bad_input "range end beyond the end (file)" sweep "$FIX/one_mib" --end 2M
bad_input "range start beyond the end" sweep "sim:ssd?size=1G" --start 2G
bad_input "classic -r beyond the end" -r 2048 "sim:ssd?size=1G"
bad_input "reversed range" sweep sim:hdd --start 100M --end 10M
bad_input "classic reversed -r 300:100" -r 300:100 sim:hdd
bad_input "empty range" sweep sim:hdd --start 10M --end 10M
bad_input "--block-size 0" sweep sim:hdd --block-size 0
bad_input "--block-size -1" sweep sim:hdd --block-size -1
bad_input "--block-size abc" sweep sim:hdd --block-size abc
bad_input "--block-size 12Q" sweep sim:hdd --block-size 12Q
bad_input "--chunk-size 0" sweep sim:hdd --chunk-size 0
bad_input "chunk larger than block" sweep sim:hdd --block-size 1M --chunk-size 2M
bad_input "--start garbage" sweep sim:hdd --start 1x
bad_input "--end -5G" sweep sim:hdd --end -5G
bad_input "classic -b 0" -b 0 sim:hdd
bad_input "classic -b abc" -b abc sim:hdd
bad_input "--passes 0" sweep sim:hdd --passes 0
bad_input "--passes -3" sweep sim:hdd --passes -3
bad_input "--passes x" sweep sim:hdd --passes x
bad_input "--passes 4294967297 (too large)" sweep sim:hdd --passes 4294967297
bad_input "classic -c 0" sweep sim:hdd -c 0
bad_input "classic -c 0 without the sweep command" -c 0 sim:hdd
bad_input "--skip 0" sweep sim:hdd --skip 0
bad_input "classic -s 0" -s 0 sim:hdd
bad_input "unknown sim model" sweep sim:floppy
expect_grep "floppy" "$ERR" stderr
bad_input "unknown sim parameter" sweep "sim:hdd?colour=red"
expect_grep "colour" "$ERR" stderr
bad_input "bad sim parameter value" sweep "sim:hdd?size=abc"
bad_input "unknown option after sweep" sweep sim:hdd --frobnicate
expect_grep "frobnicate" "$ERR" stderr
bad_input "unknown option before any command" --frobnicate
expect_grep "frobnicate" "$ERR" stderr
bad_input "missing device" sweep
bad_input "missing device (classic flags only)" -c 2
bad_input "slow factor 1" sweep sim:hdd --slow-factor 1
bad_input "slow factor not a number" sweep sim:hdd --slow-factor fast
bad_input "queue depth 0" sweep sim:hdd --queue-depth 0
bad_input "queue depth too deep" sweep sim:hdd --queue-depth 257
bad_input "queue depth not a number" sweep sim:hdd --queue-depth deep
bad_input "unknown engine" sweep sim:hdd --engine libaio
bad_input "io_uring on a simulated device" sweep sim:hdd --engine io_uring
bad_input "sim gone= not a size" sweep "sim:hdd?gone=soon"
bad_input "simulated and real devices together" sweep sim:hdd "$FIX/badline.dat"
expect_grep "simulated and real" "$ERR" stderr
bad_input "one real device given twice" sweep "$FIX/badline.dat" "$FIX/badline.dat"
bad_input "--alone-and-together with one device" sweep sim:hdd --alone-and-together
bad_input "more labels than devices" sweep sim:hdd sim:ssd --label a --label b --label c
bad_input "one simulated bus with two rates" sweep "sim:hdd?bus=x&busrate=50" "sim:hdd?bus=x&busrate=60"
bad_input "unknown format" sweep sim:hdd --format xml
expect_grep "xml" "$ERR" stderr
bad_input "--write without --destroy-data" sweep sim:hdd --write
expect_grep "destroys all data.*add --destroy-data" "$ERR" stderr
bad_input "classic -w without --destroy-data" sweep sim:hdd -w
expect_grep "^zcav: -w .*add --destroy-data" "$ERR" stderr
bad_input "classic -w without --destroy-data (no sweep command)" -w sim:hdd
expect_grep "add --destroy-data" "$ERR" stderr
bad_input "--destroy-data without --write" sweep sim:hdd --destroy-data
bad_input "--create-size without --write" sweep "$FIX/new.img" --create-size 1M
[[ ! -e $FIX/new.img ]] || problem "$FIX/new.img was created"
bad_input "--write with two devices" sweep sim:hdd sim:ssd --write --destroy-data
bad_input "--write with --resume" sweep sim:hdd --write --destroy-data --resume "$FIX/none.dat"
expect_grep "cannot be resumed" "$ERR" stderr
bad_input "--write --create-size on a simulated device" sweep sim:hdd --write --destroy-data --create-size 1M
bad_input "--quick with --skip 3" sweep sim:hdd --quick --skip 3
bad_input "--quick with classic -s 3" sweep sim:hdd --quick -s 3
bad_input "--block-size together with -b" sweep sim:hdd --block-size 1M -b 1
bad_input "--passes together with -c" sweep sim:hdd --passes 2 -c 2

check "bad input: output into a nonexistent directory" 2 \
  "$ZCAV" sweep sim:hdd --quiet -o "$WORK/no-such-dir/out.dat"
expect_one_error_line "no-such-dir"
expect_stdout_empty
expect_no_new_files
[[ ! -e $WORK/no-such-dir ]] || problem "$WORK/no-such-dir was created"

check "bad input: output is a directory" 2 "$ZCAV" sweep sim:hdd --quiet -o "$FIX/a_directory"
expect_one_error_line "director"
expect_stdout_empty
[[ -z $(ls -A "$FIX/a_directory") ]] || problem "files created in the output directory"
[[ -z $(find "$FIX" -maxdepth 1 -name '*.tmp.*') ]] || problem "temporary file left beside it"

# The output file must not replace the device being read (rename would
# overwrite the input file, or the device node).
begin "bad input: output file is the device itself"
cp "$FIX/one_mib" same.dat
sum_before=$(md5sum <same.dat)
run "$ZCAV" sweep same.dat --quiet -o same.dat
expect_exit 2
expect_one_error_line
expect_no_new_files
expect_eq "$(md5sum <same.dat)" "$sum_before" "the device file's checksum"

# An output that is a device node (/dev/null) is written in place, never
# replaced by a rename.
begin "output to /dev/null is written through, the node stays a device"
run "$ZCAV" sweep 'sim:ssd?size=64M' --quiet -o /dev/null
expect_exit 0
[[ -c /dev/null ]] || problem "/dev/null is no longer a character device"
[[ -z $(find /dev -maxdepth 1 -name 'null.tmp.*' 2>/dev/null) ]] || problem "temporary file left in /dev"

# ---------------------------------------------------------------------------
# Help and version.

check "zcav --help" 0 "$ZCAV" --help
expect_grep "[Uu]sage" "$OUT" stdout
expect_grep "sweep" "$OUT" stdout
expect_stderr_empty

check "zcav with no arguments shows the help" 0 "$ZCAV"
expect_grep "[Uu]sage" "$OUT" stdout

check "zcav sweep --help" 0 "$ZCAV" sweep --help
expect_grep "[Uu]sage: zcav sweep" "$OUT" stdout
expect_grep "--block-size" "$OUT" stdout
expect_grep "--passes" "$OUT" stdout
expect_stderr_empty

check "zcav --version" 0 "$ZCAV" --version
expect_grep '^zcav [0-9]+\.[0-9]+\.[0-9]+$' "$OUT" stdout
expect_eq "$(wc -l <"$OUT")" 1 "number of stdout lines"
expect_stderr_empty

# ---------------------------------------------------------------------------
# The write test (--write --destroy-data) on simulated devices and on files
# it creates; real loop devices are in tests/real/write_test.sh.

for flags in "--write --destroy-data" "--write --destroy-data --create-size 4M"; do
  # shellcheck disable=SC2086  # $flags is a list of options
  begin "--write refuses an existing regular file, which stays unchanged ($flags)"
  cp "$FIX/one_mib" precious.bin
  sum_before=$(md5sum <precious.bin)
  run "$ZCAV" sweep $flags precious.bin -o OUT
  expect_exit 2
  if [[ $flags == *create-size* ]]; then
    expect_one_error_line "refusing to write precious.bin: it exists"
  else
    expect_one_error_line "refusing to write precious.bin: a regular file zcav did not create"
  fi
  expect_stdout_empty
  expect_no_new_files
  expect_eq "$(md5sum <precious.bin)" "$sum_before" "the file's checksum"
done

check "--write --create-size writes a new file it creates, then removes it" 0 \
  "$ZCAV" sweep --write --destroy-data --create-size 8M new.img --block-size 1M --format json \
  -o w.json --quiet
expect_stderr_empty
[[ ! -e new.img ]] || problem "new.img is left behind"
expect_no_tmp_files
if [[ -f w.json ]]; then
  python3 - w.json <<'PY' || problem "w.json: wrong content (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["options"].get("mode") == "write", d["options"]
assert len(d["blocks"]) == 8, len(d["blocks"])
assert d["device"]["size_bytes"] == 8 * 1024 * 1024, d["device"]
assert d["summary"]["avg_mb_per_s"] > 1, d["summary"]
PY
else
  problem "no w.json"
fi

check "--write on a simulated device measures its (write = read) rate" 0 \
  "$ZCAV" sweep 'sim:ssd?size=1G&noise=0' --write --destroy-data --quiet </dev/null
expect_stderr_empty
expect_raw_data "$OUT"
expect_grep '^# mode: write' "$OUT" stdout
rate=$(data_lines "$OUT" | awk 'NR == 1 { print $4 }')
awk -v r="$rate" 'BEGIN { exit !(r > 520 && r < 540) }' || problem "write rate $rate MB/s, expected 530"

check "classic -w --destroy-data runs the write test" 0 \
  "$ZCAV" -w --destroy-data -b 64 'sim:ssd?size=1G' -l w.log
expect_grep '^# mode: write' w.log w.log
expect_grep '^#loops: 1' w.log w.log

check "a read sweep says nothing about a mode" 0 "$ZCAV" sweep 'sim:ssd?size=1G' --quiet
expect_no_grep "# mode:" "$OUT" stdout

# ---------------------------------------------------------------------------
# zcav verify: write, read back and compare (sim fakes here; real devices and
# FUSE fakes in tests/real/verify_test.sh).

bad_input "verify without --destroy-data" verify 'sim:ssd?size=64M'
expect_grep "destroys its data: add --destroy-data" "$ERR" stderr
bad_input "verify of two devices" verify sim:ssd sim:hdd --destroy-data
bad_input "verify --format xml" verify sim:ssd --destroy-data --format xml
bad_input "verify --plot of a .jpg" verify sim:ssd --destroy-data --plot v.jpg
bad_input "verify --chunk-size not whole sectors" verify sim:ssd --destroy-data --chunk-size 1000
bad_input "verify --queue-depth 0" verify sim:ssd --destroy-data --queue-depth 0
expect_grep "invalid queue depth" "$ERR" stderr
bad_input "verify --queue-depth 257" verify sim:ssd --destroy-data --queue-depth 257
expect_grep "invalid queue depth 257: from 1 to 256" "$ERR" stderr
bad_input "verify --quick --queue-depth" verify sim:ssd --destroy-data --quick --queue-depth 4
check "verify of a device that goes away: exit 3, the result marked partial" 3 \
  "$ZCAV" verify 'sim:ssd?size=64M&gone=40M' --destroy-data --format json -o gone-v.json --quiet
expect_grep '"device_gone": ?true' gone-v.json gone-v.json
expect_grep '"partial": ?true' gone-v.json gone-v.json
bad_input "verify --resume with --create-size" verify new.img --destroy-data \
  --create-size 4M --resume "$FIX/one_mib"
bad_input "verify --resume of a file that is not a verify result" verify sim:ssd --destroy-data \
  --resume "$FIX/one_mib"
expect_grep "no verify result" "$ERR" stderr

bad_input "verify --keep-data without --quick" verify sim:ssd --keep-data
bad_input "verify --quick with --plot" verify sim:ssd --destroy-data --quick --plot q.png
bad_input "verify --quick with --resume" verify sim:ssd --destroy-data --quick --resume x.json
bad_input "verify --cache-flush without --quick" verify sim:ssd --destroy-data --cache-flush 64M

check "verify --quick of a 64 GiB stick over 8 GiB: fake capacity, the real size, little written" 6 \
  "$ZCAV" verify 'sim:ssd?size=64G&real=8G' --quick --destroy-data --format json -o q.json --quiet
if [[ -f q.json ]]; then
  python3 - q.json <<'PY' || problem "q.json: wrong content (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
v, q = d["verify"], d["quick"]
assert v["verdict"] == "fake capacity" and v["usable_bytes"] == 8 * 2**30, v
assert q["wrap_period_bytes"] == 8 * 2**30, q
assert v["written_bytes"] < 0.05 * 8 * 2**30, v["written_bytes"]
assert v["blocks"] == [] and "spot checks" in v["notes"][0], v["notes"]
PY
fi
check "verify --quick --keep-data of a genuine device needs no --destroy-data" 0 \
  "$ZCAV" verify 'sim:ssd?size=4G' --quick --keep-data --quiet
expect_grep "verdict: genuine" "$OUT" stdout
expect_grep "kept and wrote back" "$OUT" stdout

begin "verify refuses an existing regular file, which stays unchanged"
cp "$FIX/one_mib" precious.bin
sum_before=$(md5sum <precious.bin)
run "$ZCAV" verify precious.bin --destroy-data -o OUT
expect_exit 2
expect_one_error_line "refusing to write precious.bin"
expect_no_new_files
expect_eq "$(md5sum <precious.bin)" "$sum_before" "the file's checksum"

check "verify of a genuine simulated device: exit 0, genuine" 0 \
  "$ZCAV" verify 'sim:ssd?size=256M' --destroy-data --quiet
expect_grep "claimed: genuine" "$OUT" stdout
expect_grep "usable from the start: 256.00 MiB" "$OUT" stdout
expect_stderr_empty

check "verify of a fake that wraps: exit 6, the real size, the plot, the partition command" 6 \
  "$ZCAV" verify 'sim:ssd?size=1G&real=96M' --destroy-data --format json -o v.json --plot v.svg
expect_stdout_empty
VERIFY_JSON=$DIR/v.json
expect_grep "is not genuine: fake capacity" "$ERR" stderr
[[ -s v.svg && -s v.gp && -s v.verify.dat && -s v.ranges.dat ]] ||
  problem "the plot's files are missing: $(ls)"
if [[ -f v.json ]]; then
  python3 - v.json <<'PY' || problem "v.json: wrong content (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
v = d["verify"]
assert v["verdict"] == "fake capacity", v["verdict"]
assert v["usable_bytes"] == 96 * 2**20, v["usable_bytes"]
assert v["claimed_bytes"] == 2**30
w = [r for r in v["ranges"] if r["state"] == "wrapped"]
assert len(w) >= 10 and all(r["source_bytes"] > r["start_bytes"] for r in w), w[:2]
assert v["fix"]["partition_command"].endswith("mkpart primary 1MiB 96MiB"), v["fix"]
assert d["partial"] is False
PY
fi
check "zcav plot --kind verify draws a saved verify result again" 0 \
  "$ZCAV" plot --kind verify "$VERIFY_JSON" -o again.png --quiet
[[ -s again.png && -s again.gp ]] || problem "again.png or again.gp not written"
check "zcav plot --kind verify of a sweep result is refused" 2 \
  "$ZCAV" plot --kind verify "$DATA/golden.json" -o no.png --quiet
expect_one_error_line "no verify result"

check "verify of a device that loses 4 MiB: data loss, the range exact, a badblocks list" 6 \
  "$ZCAV" verify 'sim:ssd?size=1G&lose=300M-304M' --destroy-data --badblocks bb.txt --quiet
expect_grep "claimed: data loss" "$OUT" stdout
expect_grep "300.0 MiB to 304.0 MiB  lost \(blank\)" "$OUT" stdout
expect_eq "$(wc -l <bb.txt)" 1024 "lines of the badblocks list"
expect_eq "$(head -n 1 bb.txt)" 76800 "the first bad block"
expect_eq "$(tail -n 1 bb.txt)" 77823 "the last bad block"

# ---------------------------------------------------------------------------
# End to end on simulated devices.

check "zcav sweep sim:hdd --quiet writes the classic layout on stdout" 0 "$ZCAV" sweep sim:hdd --quiet
expect_stderr_empty
expect_raw_data "$OUT"
n=$(data_count "$OUT")
[[ $n -ge 900 && $n -le 1100 ]] || problem "$n data lines, expected about 1000"
expect_grep '^#loops: 1' "$OUT" stdout
expect_grep '^# status: complete' "$OUT" stdout
expect_grep 'MiB.*2\^20 B' "$OUT" stdout
expect_num_eq "$(first_offset "$OUT")" 0 "first offset"
expect_no_new_files

check "-o - means stdout" 0 "$ZCAV" sweep sim:ssd --quiet -o -
expect_raw_data "$OUT"
expect_no_new_files

check "--format json -o FILE writes parseable JSON" 0 \
  "$ZCAV" sweep sim:hdd -o sweep.json --format json --quiet
expect_stdout_empty
expect_stderr_empty
expect_no_tmp_files
JSON_BLOCKS=""
if [[ -f sweep.json ]]; then
  JSON_BLOCKS=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("device", "options", "blocks", "summary"):
    assert k in d, "missing key " + k
for k in ("min_mb_per_s", "max_mb_per_s", "avg_mb_per_s", "cpu_percent", "seconds"):
    assert k in d["summary"], "missing summary." + k
b = d["blocks"]
assert len(b) > 0, "no blocks"
for k in ("offset_bytes", "length_bytes", "mb_per_s", "mean_mb_per_s", "min_mb_per_s",
          "max_mb_per_s", "stddev_mb_per_s", "passes"):
    assert k in b[0], "missing blocks[0]." + k
offsets = [x["offset_bytes"] for x in b]
assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets), "offsets not increasing"
assert all(x["mb_per_s"] > 0 for x in b), "a block with a non-positive rate"
s = d["summary"]
assert s["min_mb_per_s"] <= s["avg_mb_per_s"] <= s["max_mb_per_s"], "min <= avg <= max"
print(len(b))
' sweep.json 2>&1) || { problem "JSON check failed: $JSON_BLOCKS"; JSON_BLOCKS=""; }
  [[ -z $JSON_BLOCKS || ( $JSON_BLOCKS -ge 900 && $JSON_BLOCKS -le 1100 ) ]] ||
    problem "$JSON_BLOCKS blocks, expected about 1000"
else
  problem "sweep.json was not created"
fi

check "--format csv has comment lines naming the drive, a header and one row per block" 0 \
  "$ZCAV" sweep sim:hdd -o sweep.csv --format csv --quiet
expect_stdout_empty
expect_no_tmp_files
if [[ -f sweep.csv ]]; then
  expect_grep '^offset_bytes,' sweep.csv
  expect_grep '^# serial: SIM-' sweep.csv
  expect_grep '^# host: ' sweep.csv
  if [[ -n $JSON_BLOCKS ]]; then
    expect_eq "$(grep -vc '^#' sweep.csv)" $((JSON_BLOCKS + 1)) "CSV line count (blocks + 1)"
  else
    problem "no JSON block count to compare with (the JSON case failed)"
  fi
  bad_rows=$(grep -v '^#' sweep.csv | awk -F, 'NR > 1 && (NF < 11 || $3 + 0 <= 0)' | wc -l)
  expect_eq "$bad_rows" 0 "CSV rows with fewer than 11 fields or no rate"
else
  problem "sweep.csv was not created"
fi

# Classic zcav: -b MiB, -c passes, -r end MiB, -f file, -l log.
check "classic: zcav -b 1000 -c 2 -r 10000 -f sim:hdd -l FILE" 0 \
  "$ZCAV" -b 1000 -c 2 -r 10000 -f sim:hdd -l classic.dat
expect_stdout_empty
expect_no_tmp_files
if [[ -f classic.dat ]]; then
  expect_raw_data classic.dat
  expect_eq "$(data_count classic.dat)" 10 "number of blocks"
  expect_grep '^#loops: 2' classic.dat
  expect_grep 'block_bytes=1048576000 ' classic.dat "options header"
  expect_num_eq "$(last_offset classic.dat)" "$(gib $((9000 * MIB)))" "last offset (GiB)"
  passes_col=$(data_lines classic.dat | awk '$NF != 2' | wc -l)
  expect_eq "$passes_col" 0 "blocks not measured over 2 passes (last column)"
else
  problem "classic.dat was not created"
fi

check "classic: the same with 'zcav sweep' in front" 0 \
  "$ZCAV" sweep -b 1000 -c 2 -r 10000 -f sim:hdd --quiet
expect_eq "$(data_count "$OUT")" 10 "number of blocks"
expect_grep '^#loops: 2' "$OUT" stdout

# -s 10: every 10th block of the default plan.
begin "classic: zcav -s 10 sim:ssd?size=1G reads every 10th block"
run "$ZCAV" sweep "sim:ssd?size=1G" --quiet
all_blocks=$(data_count "$OUT")
block_bytes=$(grep -o 'block_bytes=[0-9]*' "$OUT" | head -n 1 | cut -d= -f2)
run "$ZCAV" -s 10 "sim:ssd?size=1G"
expect_exit 0
expect_raw_data "$OUT"
expect_eq "$(data_count "$OUT")" $(((all_blocks + 9) / 10)) "number of blocks (every 10th of $all_blocks)"
second=$(data_lines "$OUT" | sed -n 2p | awk '{ print $1 }')
expect_num_eq "$second" "$(gib $((10 * ${block_bytes:-0})))" "second offset (GiB)"
expect_grep 'skip=10' "$OUT" "options header"

check "classic: -b 10 -r 100:300 on sim:hdd gives 20 blocks from 100 MiB" 0 \
  "$ZCAV" sweep sim:hdd -b 10 -r 100:300 --quiet
expect_raw_data "$OUT"
expect_eq "$(data_count "$OUT")" 20 "number of blocks"
expect_num_eq "$(first_offset "$OUT")" 0.09765625 "first offset (GiB)"
expect_num_eq "$(last_offset "$OUT")" "$(gib $((290 * MIB)))" "last offset (GiB)"

check "--start 100M --end 300M --block-size 10M matches -r 100:300 -b 10" 0 \
  "$ZCAV" sweep sim:hdd --block-size 10M --start 100M --end 300M --quiet
expect_eq "$(data_count "$OUT")" 20 "number of blocks"
expect_num_eq "$(first_offset "$OUT")" 0.09765625 "first offset (GiB)"

check "--passes 3 records 3 passes per block" 0 \
  "$ZCAV" sweep "sim:hdd?size=10G" --block-size 1G --passes 3 --quiet
expect_grep '^#loops: 3' "$OUT" stdout
expect_eq "$(data_lines "$OUT" | awk '$NF != 3' | wc -l)" 0 "blocks without n=3"

check "--quick reads about a tenth: about 1000 points" 0 "$ZCAV" sweep sim:hdd --quick --quiet
expect_raw_data "$OUT"
n=$(data_count "$OUT")
[[ $n -ge 900 && $n -le 1100 ]] || problem "$n data lines, expected about 1000"
check "--quick reads a tenth of the bytes, spread over the whole device" 0 \
  "$ZCAV" sweep sim:hdd --quick --quiet --format json -o quick.json
python3 - quick.json <<'PY' || problem "quick.json: not a tenth of the device, evenly spread"
import json, sys
d = json.load(open(sys.argv[1]))
# bytes_read: the sweep's count; storage_read_bytes: what the simulated disk
# itself was asked for (its virtual clock counts each read), warm-up included.
size, read = d["device"]["size_bytes"], d["summary"]["bytes_read"]
served = d["summary"]["storage_read_bytes"]
assert 0.09 * size <= read <= 0.11 * size, f"read {read} bytes of {size}"
assert read <= served <= 0.11 * size, f"the disk served {served} bytes of {size}"
offsets = [b["offset_bytes"] for b in d["blocks"]]
assert offsets[0] < 0.01 * size and offsets[-1] > 0.99 * size - d["options"]["block_bytes"] * 10, offsets[-1]
PY

check "--adaptive finds a 20 TB disk's 16 zones from under 1 % of it, and says what it does" 0 \
  "$ZCAV" sweep "sim:hdd?size=20T" --adaptive --format json -o adaptive.json
ADAPTIVE_JSON=$DIR/adaptive.json
expect_grep 'adaptive: grid: probe 1 of 200' "$ERR" stderr
expect_grep 'adaptive: refining edge 1 of 15' "$ERR" stderr
expect_grep 'curve zoned \(16 zones' "$ERR" stderr
expect_grep 'note: adaptive: [0-9]+ probes read .* inferred, not measured' "$ERR" stderr
"$ZCAV" sweep "sim:hdd?size=20T" --quiet --format json -o full.json
python3 - adaptive.json full.json <<'PY' || problem "adaptive.json: not the full sweep's 16 zones from probes alone"
import json, sys
d = json.load(open(sys.argv[1]))
a, size = d["adaptive"], d["device"]["size_bytes"]
assert a["share_read"] < 0.01 and a["bytes_read"] == round(a["share_read"] * a["range_bytes"]), a
assert len(a["edges"]) == 15 and len(a["inferred"]) == 16 and len(d["zones"]) == 16
# The blocks are the probes: all of the same length, far apart, as many as said.
assert len(d["blocks"]) == a["probes"] and all(b["length_bytes"] == a["probe_bytes"] for b in d["blocks"])
assert sum(b["length_bytes"] for b in d["blocks"]) < 0.01 * size
# Each edge within a block (and a probe) of the full sweep's.
full = json.load(open(sys.argv[2]))
block = full["options"]["block_bytes"]
assert len(full["zones"]) == 16
for z, e in zip(full["zones"][1:], a["edges"]):
    assert abs(e["at_bytes"] - z["start_bytes"]) <= block + a["probe_bytes"], (z, e)
    assert e["uncertainty_bytes"] <= a["probe_bytes"], e
PY

check "an adaptive raw result reads back: zcav zones finds the same 16 zones and notes the probes" 0 \
  "$ZCAV" sweep "sim:hdd?size=2T" --adaptive --quiet -o adaptive.dat
expect_grep '^# adaptive: \{"budget_hit":false' adaptive.dat raw
run "$ZCAV" zones adaptive.dat
expect_exit 0
expect_grep 'curve zoned \(16 zones' "$OUT" stdout
expect_grep 'note: adaptive: ' "$OUT" stdout
expect_no_grep 'fewer than .* passes' "$OUT" stdout
run "$ZCAV" zones "$ADAPTIVE_JSON" --format json
expect_exit 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["zones"]) == 16, len(d["zones"])' "$OUT" ||
  problem "zones of the adaptive JSON: not 16"

check "zcav plot draws an adaptive result's probes as points and its zones as inferred levels" 0 \
  "$ZCAV" plot "$ADAPTIVE_JSON" -o plot/adaptive.png
gp=$(ls plot/*.gp 2>/dev/null | head -n 1)
[[ -n $gp ]] || problem "no gnuplot script written"
expect_grep "with points pt 7 .* title 'probes read: [0-9]+, [0-9]+\.[0-9]+ % of the range'" "$gp" script
expect_grep "zone levels inferred between the probes" "$gp" script

check "--adaptive on a flat device stops after the grid and says flat" 0 \
  "$ZCAV" sweep "sim:ssd?size=500G" --adaptive --grid 50 --format json -o flat.json
expect_grep 'curve flat' "$ERR" stderr
expect_no_grep 'refining edge' "$ERR" stderr
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["adaptive"]; assert a["probes"] == 50 and not a["edges"], a' flat.json ||
  problem "flat.json: more than the grid read, or an edge"

check "--budget 0.05% stops the refinement and leaves the open edges wide" 0 \
  "$ZCAV" sweep "sim:hdd?size=2T" --adaptive --budget 0.05% --quiet --format json -o budget.json
python3 - budget.json <<'PY' || problem "budget.json: the budget was not kept, or not said"
import json, sys
a = json.load(open(sys.argv[1]))["adaptive"]
assert a["budget_hit"] and a["bytes_read"] <= 0.0005 * a["range_bytes"] + 2 * a["probe_bytes"], a
assert max(e["uncertainty_bytes"] for e in a["edges"]) > a["probe_bytes"], a["edges"]
PY

check "zcav merge takes adaptive results beside full sweeps" 0 \
  "$ZCAV" sweep "sim:hdd?size=2T&seed=2" --adaptive --quiet --format json -o fleet-a.json
run "$ZCAV" sweep "sim:hdd?size=2T&seed=3&weak=40%-60%:0.7" --adaptive --quiet --format json -o fleet-b.json
run "$ZCAV" sweep "sim:hdd?size=2T&seed=4" --adaptive --quiet --format json -o fleet-c.json
run "$ZCAV" merge fleet-a.json fleet-b.json fleet-c.json "$ADAPTIVE_JSON" -o fleet.json --quiet
expect_exit 0
python3 - fleet.json <<'PY' || problem "fleet.json: the weak adaptive drive not singled out"
import json, sys
d = json.load(open(sys.argv[1]))
flagged = [x["source"].split("/")[-1] for x in d["drives"] if x["flagged"]]
assert flagged == ["fleet-b.json"], flagged
region = next(x["worst_region"] for x in d["drives"] if x["flagged"])
assert abs(region["start_percent"] - 40) <= 3 and abs(region["end_percent"] - 60) <= 3, region
PY

bad_input "--budget without --adaptive" sweep sim:hdd --budget 1%
bad_input "--grid without --adaptive" sweep sim:hdd --grid 50
bad_input "--adaptive with CSV output" sweep sim:hdd --adaptive --format csv
bad_input "--adaptive with --passes 2" sweep sim:hdd --adaptive --passes 2
bad_input "--adaptive with --quick" sweep sim:hdd --adaptive --quick
bad_input "--adaptive with --write" sweep sim:hdd --adaptive --write --destroy-data
bad_input "--budget 0%" sweep sim:hdd --adaptive --budget 0%
bad_input "--budget in an unknown unit" sweep sim:hdd --adaptive --budget 5x
bad_input "--grid 2" sweep sim:hdd --adaptive --grid 2

check "classic -u is accepted but ignored, with a warning" 0 \
  "$ZCAV" -u 1000 "sim:ssd?size=1G" --quiet -o ignored.dat
expect_one_error_line "warning: .*-u"
[[ -f ignored.dat ]] || problem "ignored.dat was not created"

# ---------------------------------------------------------------------------
# Real files.

check "the trailing partial block of a 10 MiB + 4 KiB file is measured" 0 \
  "$ZCAV" sweep "$FIX/ten_mib_4k" --block-size 1M --quiet
expect_raw_data "$OUT"
expect_eq "$(data_count "$OUT")" 11 "number of blocks"
expect_num_eq "$(last_offset "$OUT")" "$(gib $((10 * MIB)))" "last offset (GiB)"

check "the trailing partial block is 4096 bytes long in the JSON" 0 \
  "$ZCAV" sweep "$FIX/ten_mib_4k" --block-size 1M --quiet --format json
last_len=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["blocks"][-1]["length_bytes"])' \
  <"$OUT" 2>&1)
expect_eq "$last_len" 4096 "last block's length_bytes"

# ---------------------------------------------------------------------------
# Read error: exit 1, one message naming the offset, data kept and marked partial.

check "--stop-on-error: a read error stops with exit 1 and keeps the data before it" 1 \
  "$ZCAV" sweep "sim:hdd?size=1G&bad=500M" --block-size 1M -o partial.dat --quiet --stop-on-error
[[ -e partial.dat ]] && problem "partial.dat written although the run stopped early"
mv partial.dat.partial partial.dat 2>/dev/null
expect_one_error_line "524288000"
expect_stdout_empty
expect_no_tmp_files
if [[ -f partial.dat ]]; then
  expect_raw_data partial.dat
  expect_eq "$(data_count partial.dat)" 500 "blocks before the bad offset"
  expect_num_eq "$(last_offset partial.dat)" "$(gib $((499 * MIB)))" "last offset (GiB)"
  expect_grep '^# status: partial' partial.dat
  expect_grep '524288000' partial.dat
  expect_no_grep "status: complete" partial.dat
else
  problem "partial.dat was not kept"
fi

check "--stop-on-error: a read error with JSON output marks it partial" 1 \
  "$ZCAV" sweep "sim:hdd?size=1G&bad=500M" --block-size 1M --format json -o partial.json --quiet --stop-on-error
expect_one_error_line "read error at offset 524288000 .*partial.json.partial \(marked partial\)"
expect_stdout_empty
mv partial.json.partial partial.json 2>/dev/null
if [[ -f partial.json ]]; then
  verdict=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["blocks"]), d.get("partial"), d["blocks"][-1]["offset_bytes"])' partial.json 2>&1)
  expect_eq "$verdict" "500 True $((499 * MIB))" "blocks, partial, last offset"
else
  problem "partial.json was not kept"
fi

check "a bad sector is read around: every other block measured, the range recorded, exit 1" 1 \
  "$ZCAV" sweep "sim:hdd?size=1G&bad=500M+8k" --block-size 1M -o around.dat --quiet
expect_one_error_line "1 unreadable region, 8.00 KiB \(8192 bytes\): 524288000\+8192 "
expect_raw_data around.dat
expect_eq "$(data_count around.dat)" 1023 "data lines (1024 blocks, one unreadable)"
expect_grep '^# unreadable: offset_bytes=524288000 length_bytes=8192 errno=5 ' around.dat
expect_grep '^# unreadable block: offset_bytes=524288000 ' around.dat
expect_grep '^# errors: 1 unreadable region \(8192 bytes\), 0 slow regions' around.dat
expect_grep '^# status: complete' around.dat
# The zone table is computed without the bad block and lists the range.
expect_grep '^# unreadable regions: 1, 8.00 KiB \(8192 bytes\), not in the zone statistics: 0.524 GB \+8192 B' around.dat

check "an unreadable range is in the JSON errors, its block has no rate" 1 \
  "$ZCAV" sweep "sim:hdd?size=1G&bad=500M+8k" --block-size 1M --format json -o around.json --quiet
expect_one_error_line "1 unreadable region, 8.00 KiB \(8192 bytes\): 524288000\+8192 \(Input/output error\)"
expect_stdout_empty
python3 -c '
import json
d = json.load(open("around.json"))
assert d["errors"] == [{"offset_bytes": 524288000, "length_bytes": 8192, "errno": 5,
                        "error": "Input/output error", "pass": 1, "bounded_by_budget": False}], d["errors"]
b = d["blocks"][500]
assert b["mb_per_s"] is None and b["passes"] == 0 and b["unreadable_bytes"] == 8192, b
assert len(d["blocks"]) == 1024 and d["partial"] is False
' 2>"$WORK/py.err" || problem "around.json: $(tail -n 1 "$WORK/py.err")"

check "a device that goes away: exit 3, data before it kept, marked partial" 3 \
  "$ZCAV" sweep "sim:hdd?size=1G&gone=300M" --block-size 1M -o gone.dat --quiet
expect_one_error_line "went away at offset 314572800 .*No such device"
expect_eq "$(data_count gone.dat.partial)" 300 "blocks before the device went away"
expect_grep '^# status: partial: device gone at offset 314572800' gone.dat.partial

# Exit codes by kind (README): 2 for what the user gave, 1 when the system
# fails where nothing measured is lost, 3 for a device gone (above), 4 when
# the measured data cannot be written where asked (here a full disk:
# /dev/full behind the output's name) and is kept elsewhere.
# kept_path: the file the one stderr line says the data is kept in.
kept_path() { sed -n 's/.*the measured data is kept in \([^ ]*\).*/\1/p' "$ERR"; }
mkdir "$WORK/kept"
check "exit 4 when a sweep's result cannot be written (/dev/full): kept in \$TMPDIR, complete" 4 \
  env TMPDIR="$WORK/kept" "$ZCAV" sweep "sim:hdd?size=256M" --block-size 8M --quiet -o /dev/full
expect_one_error_line "^zcav: writing /dev/full failed: No space left on device; the measured data is kept in .*/kept/zcav-kept-[A-Za-z0-9]{6}-full$"
KEPT=$(kept_path)
expect_eq "$(data_count "$KEPT")" 32 "data lines in the kept file"
expect_grep '^# status: complete' "$KEPT" "the kept file"
run "$ZCAV" zones "$KEPT" -o zones.txt
expect_exit 0
expect_grep '^# zcav .* raw data' "$KEPT" "the kept file"
rm -f "$KEPT"
check "exit 4 for JSON to /dev/full: the kept file is the whole JSON result" 4 \
  env TMPDIR="$WORK/kept" "$ZCAV" sweep "sim:hdd?size=256M" --block-size 8M --passes 2 \
  --format json --quiet -o /dev/full
expect_one_error_line "kept in .*zcav-kept-.*-full$"
KEPT=$(kept_path)
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["blocks"]) == 32 and d["partial"] is False and len(d["samples"]) == 64, d.keys()
' "$KEPT" 2>"$WORK/py.err" || problem "kept JSON: $(tail -n 1 "$WORK/py.err")"
rm -f "$KEPT"
check "exit 4 when stdout is full: kept in \$TMPDIR, named after stdout" 4 \
  sh -c 'TMPDIR="$1" "$2" sweep "sim:hdd?size=256M" --block-size 8M --quiet >/dev/full' \
  sh "$WORK/kept" "$ZCAV"
expect_one_error_line "^zcav: writing stdout failed: No space left on device; the measured data is kept in .*zcav-kept-.*-stdout$"
KEPT=$(kept_path)
expect_eq "$(data_count "$KEPT")" 32 "data lines in the kept file"
rm -f "$KEPT"
check "exit 4 when one of several devices' logs is full: that one kept, the other written" 4 \
  env TMPDIR="$WORK/kept" "$ZCAV" sweep -l /dev/full -f "sim:hdd?size=256M" \
  -l "$WORK/several-b.dat" -f "sim:hdd?size=256M&seed=2" --block-size 8M --quiet
expect_grep "^zcav: writing /dev/full failed: No space left on device; the measured data is kept in .*/kept/zcav-kept-[A-Za-z0-9]{6}-full$" "$ERR"
expect_eq "$(grep -c 'failed' "$ERR")" 1 "failed writes reported"
KEPT=$(kept_path)
expect_eq "$(data_count "$KEPT")" 32 "data lines in the kept file"
expect_grep '^# status: complete' "$KEPT" "the kept file"
expect_eq "$(data_count "$WORK/several-b.dat")" 32 "data lines of the other device's log"
rm -f "$KEPT" "$WORK/several-b.dat"
mkdir "$WORK/several-out"
ln -s /dev/full "$WORK/several-out/aggregate.json"
check "exit 4 when several devices' aggregate cannot be written: kept, the results written" 4 \
  env TMPDIR="$WORK/kept" "$ZCAV" sweep "sim:hdd?size=256M" "sim:hdd?size=256M&seed=2" \
  -o "$WORK/several-out" --block-size 8M --quiet
expect_grep "^zcav: writing .*/several-out/aggregate.json failed: No space left on device; the measured data is kept in .*/kept/zcav-kept-[A-Za-z0-9]{6}-aggregate.json$" "$ERR"
KEPT=$(kept_path)
python3 -c 'import json, sys; assert len(json.load(open(sys.argv[1]))["devices"]) == 2' "$KEPT" ||
  problem "the kept aggregate.json is not the whole aggregate"
expect_eq "$(ls "$WORK/several-out" | grep -c '\.dat$')" 3 "results and aggregate.dat written"
rm -rf "$KEPT" "$WORK/several-out"
check "exit 4 and a partial kept file when interrupted as well (4 wins over 130)" 4 \
  env TMPDIR="$WORK/kept" "$ZCAV" sweep "sim:hdd?size=1G&gone=300M" --block-size 1M --quiet \
  -o /dev/full
expect_grep "went away at offset 314572800 .* written to .*zcav-kept-.*-full.partial" "$ERR"
expect_grep "^zcav: writing /dev/full failed: No space left on device; the measured data is kept in .*zcav-kept-[A-Za-z0-9]{6}-full.partial$" "$ERR"
KEPT=$(kept_path)
expect_eq "$(data_count "$KEPT")" 300 "blocks kept before the device went away"
expect_grep '^# status: partial: device gone' "$KEPT" "the kept file"
rm -f "$KEPT"
check "exit 4 when \$TMPDIR cannot take the kept data either: kept in /tmp" 4 \
  env TMPDIR=/dev/null/none "$ZCAV" sweep "sim:hdd?size=256M" --block-size 8M --quiet \
  -o /dev/full
expect_one_error_line "kept in /tmp/zcav-kept-[A-Za-z0-9]{6}-full$"
KEPT=$(kept_path)
expect_eq "$(data_count "$KEPT")" 32 "data lines in the kept file"
[[ $KEPT == /tmp/zcav-kept-* ]] && rm -f "$KEPT"
begin "exit 2 up front when the output's file system is too small (a 1 TB sweep of 1 KiB blocks)"
run "$ZCAV" sweep "sim:hdd?size=1T" --block-size 4K --passes 100 --quiet -o big.dat
expect_exit 2
expect_one_error_line "^zcav: not enough space for big.dat: the results need about [0-9.]+ MB and the file system of \. has [0-9.]+ MB free \(MB = 10\^6 B\); free some space"
expect_no_new_files
begin "exit 1 when a zone table cannot be written for want of space"
"$ZCAV" sweep "sim:hdd?size=256M" --block-size 8M --quiet -o small.dat
run "$ZCAV" zones small.dat -o /dev/full
expect_exit 1
expect_one_error_line "writing /dev/full failed"
begin "exit 4 when a profile's file cannot be written mid-run: profile.json kept in DIR"
mkdir full-profile && ln -s /dev/full full-profile/zones.txt
run "$ZCAV" profile "sim:hdd?size=256M" --quiet -o full-profile
expect_exit 4
expect_one_error_line "^zcav: writing full-profile/zones.txt failed: No space left on device; the measured data is kept in full-profile/profile.json"
run "$ZCAV" zones full-profile/profile.json -o zones-again.txt
expect_exit 0
begin "exit 4 when a profile's profile.json cannot be written: kept in \$TMPDIR"
mkdir full-profile && ln -s /dev/full full-profile/profile.json
run env TMPDIR="$WORK/kept" "$ZCAV" profile "sim:hdd?size=256M" --quiet -o full-profile
expect_exit 4
expect_one_error_line "^zcav: writing full-profile/profile.json failed: No space left on device; the measured data is kept in .*/kept/zcav-kept-[A-Za-z0-9]{6}-profile.json \(profile.json\)$"
KEPT=$(sed -n 's/.*kept in \([^ ]*\) (profile.json)$/\1/p' "$ERR")
run "$ZCAV" zones "$KEPT" -o zones-again.txt
expect_exit 0
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["blocks"] and "access" in d and "burst" in d and "verdict" in d, d.keys()
' "$KEPT" 2>"$WORK/py.err" || problem "kept profile.json: $(tail -n 1 "$WORK/py.err")"
rm -f "$KEPT"
begin "exit 2 when a profile's directory cannot be made under a file (the path given is wrong)"
: >a-file
run "$ZCAV" profile "sim:hdd?size=256M" --quiet -o a-file/sub
expect_exit 2
expect_one_error_line "a-file/sub: not a directory"
begin "exit 2 when several devices' directory cannot be made under a file"
: >a-file
run "$ZCAV" sweep "sim:hdd?size=256M" "sim:ssd?size=256M" --quiet -o a-file/sub
expect_exit 2
expect_one_error_line "cannot create directory a-file/sub: not a directory"

check "slow regions are reported on stderr and in the data" 0 \
  "$ZCAV" sweep "sim:hdd?size=1G&slow=600M+3M" --block-size 4M -o slow.dat --quiet
expect_one_error_line "1 slow region .* 629145600\+3145728 in "
expect_grep '^# slow: offset_bytes=629145600 length_bytes=3145728 ' slow.dat
check "--slow-factor 0 turns slow regions off" 0 \
  "$ZCAV" sweep "sim:hdd?size=1G&slow=600M+3M" --block-size 4M -o slow.dat --quiet --slow-factor 0
expect_stderr_empty

# ---------------------------------------------------------------------------
# SIGINT: simulated sweeps take no real time, so interrupt a real, slow read
# (4 KiB O_DIRECT chunks, 50 passes over 256 MiB).

# interrupt_case SIGNAL: interrupt a sweep of $WORK/big256 with SIGNAL.
interrupt_case() {
  local sig=$1 i tmp
  begin "SIG$sig stops the sweep, keeps the data marked partial, exit 130"
  BEFORE=$(ls -A "$DIR")
  "$ZCAV" sweep "$WORK/big256" --block-size 1M --chunk-size 4k --no-warmup --passes 50 \
    -o interrupted.dat >"$OUT" 2>"$ERR" &
  BG_PID=$!
  # Wait 1 s, and until at least one block is in the (temporary) output.
  sleep 1
  for ((i = 0; i < 100; i++)); do
    tmp=$(find . -maxdepth 1 -name 'interrupted.dat.tmp.*' | head -n 1)
    [[ -n $tmp ]] && grep -qv '^#' "$tmp" 2>/dev/null && break
    sleep 0.1
  done
  kill -0 "$BG_PID" 2>/dev/null || problem "zcav finished before it could be interrupted"
  kill "-$sig" "$BG_PID" 2>/dev/null
  for ((i = 0; i < 600; i++)); do
    kill -0 "$BG_PID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$BG_PID" 2>/dev/null; then
    problem "zcav still running 60 s after SIG$sig; killed"
    kill -KILL "$BG_PID" 2>/dev/null
  fi
  wait "$BG_PID"
  RC=$?
  BG_PID=""
  expect_exit 130
  expect_no_tmp_files
  grep -q '^zcav: .*interrupt' "$ERR" || problem "no 'zcav: ... interrupted' message on stderr"
  # A partial result keeps its own name; the target is not written.
  [[ ! -e interrupted.dat ]] || problem "interrupted.dat written although the run was cut short"
  if [[ -f interrupted.dat.partial ]]; then
    expect_raw_data interrupted.dat.partial
    expect_grep 'partial: interrupted' interrupted.dat.partial
    expect_no_grep "status: complete" interrupted.dat.partial
    expect_grep 'written to interrupted.dat.partial' "$ERR" stderr
  else
    problem "interrupted.dat.partial was not written"
  fi
}

dd if=/dev/urandom of="$WORK/big256" bs=1M count=256 status=none
interrupt_case INT
interrupt_case TERM
rm -f "$WORK/big256"

# --resume: interrupt a 20-pass sweep, continue it, compare with a fresh one.
begin "--resume completes an interrupted sweep: the same blocks as a fresh sweep"
dd if=/dev/urandom of="$WORK/r96" bs=1M count=96 status=none
sweep_r96() { "$ZCAV" sweep "$WORK/r96" --block-size 1M --chunk-size 4k --no-warmup --passes 20 -q "$@"; }
sweep_r96 -o fresh.dat
RESUME_DIR=$DIR
# Directly, not through the function: a background subshell would get the signal.
# 20 passes: a pass of this file can take under 0.1 s (a host-cached
# virtual disk), so the sweep must still be running when pass 2 begins.
"$ZCAV" sweep "$WORK/r96" --block-size 1M --chunk-size 4k --no-warmup --passes 20 -q -o r.dat \
  >"$OUT" 2>"$ERR" &
BG_PID=$!
for ((i = 0; i < 400; i++)); do
  tmp=$(find . -maxdepth 1 -name 'r.dat.tmp.*' | head -n 1)
  [[ -n $tmp ]] && grep -q '^# sample: pass=2' "$tmp" 2>/dev/null && break
  sleep 0.02
done
kill -INT "$BG_PID" 2>/dev/null
wait "$BG_PID"
RC=$?
BG_PID=""
expect_exit 130
if [[ -f r.dat.partial ]]; then
  run "$ZCAV" sweep "$WORK/r96" --block-size 1M --chunk-size 4k --no-warmup --passes 20 -q \
    --resume r.dat.partial -o r.dat
  expect_exit 0
  expect_raw_data r.dat
  expect_grep '^# status: complete' r.dat
  [[ ! -e r.dat.partial ]] || problem "r.dat.partial left after the resumed run completed"
  # The same block list (offsets), every block with all 20 passes.
  [[ $(data_lines r.dat | awk '{ print $1, $8 }') == $(data_lines fresh.dat | awk '{ print $1, $8 }') ]] ||
    problem "resumed block list differs from a fresh sweep's"
  expect_eq "$(data_lines r.dat | awk '$8 != 20' | wc -l)" 0 "blocks without 20 passes"
else
  problem "r.dat.partial was not written (RC $RC)"
fi
sed 's/^# status: complete/# status: partial: interrupted/' fresh.dat >"$WORK/p.dat"
check "--resume refuses a partial result of another sweep" 2 \
  "$ZCAV" sweep "$WORK/r96" --block-size 2M --chunk-size 4k --passes 20 --resume "$WORK/p.dat"
expect_one_error_line "block_bytes 1048576, this sweep has 2097152"
expect_no_new_files
check "--resume refuses a complete result" 2 \
  "$ZCAV" sweep "$WORK/r96" --block-size 1M --chunk-size 4k --passes 20 --resume "$RESUME_DIR/fresh.dat"
expect_one_error_line "nothing to resume"
rm -f "$WORK/r96" "$WORK/p.dat"

# ---------------------------------------------------------------------------
# Progress on stderr.

check "progress on a non-TTY stderr: plain lines and a final 'complete:' line" 0 \
  "$ZCAV" sweep sim:hdd
expect_raw_data "$OUT"
[[ -s $ERR ]] || problem "no progress on stderr"
if grep -q $'\r' "$ERR"; then problem "carriage returns on a non-TTY stderr"; fi
grep -q '^complete:' "$ERR" || problem "no 'complete: ...' line on stderr"
expect_grep '^zones of sim:hdd: curve zoned' "$ERR" stderr
expect_grep '^summary: 16 zones' "$ERR" stderr

check "--no-zones: the 'complete:' line is followed by the health line only" 0 "$ZCAV" sweep sim:hdd --no-zones -o nz.dat
tail -n 2 "$ERR" | head -n 1 | grep -q '^complete:' ||
  problem "last but one stderr line is not 'complete: ...': $(tail -n 2 "$ERR" | head -n 1)"
tail -n 1 "$ERR" | grep -q '^zcav: health: good: ' ||
  problem "last stderr line is not 'zcav: health: good: ...': $(tail -n 1 "$ERR")"
expect_no_grep "zones of" "$ERR"
expect_no_grep "# zones of" nz.dat

check "--quiet prints nothing on stderr" 0 "$ZCAV" sweep sim:hdd -q -o quiet.dat
expect_stderr_empty
expect_stdout_empty
[[ -f quiet.dat ]] || problem "quiet.dat was not created"

# ---------------------------------------------------------------------------
# Zones: zcav zones on saved results, and the zone table in sweep outputs.

check "sweep JSON carries curve_type, zones and outliers" 0 \
  "$ZCAV" sweep 'sim:hdd?seed=5' --format json -q -o hdd.json
python3 - hdd.json <<'PY' || problem "JSON zone fields wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["curve_type"] == "zoned", d["curve_type"]
assert len(d["zones"]) == 16, len(d["zones"])
for k in ("start_bytes", "end_bytes", "mb_per_s", "min_mb_per_s", "max_mb_per_s", "stddev_mb_per_s"):
    assert k in d["zones"][0], k
assert isinstance(d["outliers"], list)
assert d["zones"][0]["start_bytes"] == 0 and d["zones"][-1]["end_bytes"] == d["device"]["size_bytes"]
PY

check "sweep raw output carries the zone table as comment lines" 0 "$ZCAV" sweep 'sim:usb2-hdd' -q -o usb.dat
expect_grep '^# zones of sim:usb2-hdd: curve clipped' usb.dat
expect_raw_data usb.dat

for fmt in raw csv json; do
  begin "zcav zones reads zcav's own $fmt output back: 16 zones"
  run "$ZCAV" sweep 'sim:hdd?seed=9' --format "$fmt" -q -o "hdd.$fmt"
  run "$ZCAV" zones "hdd.$fmt"
  expect_exit 0
  expect_grep 'curve zoned' "$OUT" stdout
  expect_grep '^summary: 16 zones' "$OUT" stdout
done

begin "zcav zones of a saved JSON says the link as the sweep judged it (device.link_detail)"
run "$ZCAV" sweep 'sim:hdd?seed=9' --format json -q -o hdd.json
python3 - hdd.json hdd-usb.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["device"].update(transport="usb", link="USB 480 Mb/s", link_detail={
    "transport": "usb", "current": "480 Mb/s", "max": "5000 Mb/s or more", "width": None,
    "max_width": None, "driver": "uas", "downgraded": True, "limit_mb_per_s": 60,
    "max_limit_mb_per_s": 500,
    "reason": "a USB 3 disk on a USB 2 port (480 Mb/s): 60 of 500 MB/s; a USB 3 port would lift it."})
json.dump(d, open(sys.argv[2], "w"))
PY
run "$ZCAV" zones hdd-usb.json
expect_exit 0
expect_grep '^verdict: .* Link: a USB 3 disk on a USB 2 port \(480 Mb/s\): 60 of 500 MB/s' "$OUT" stdout

# A classic log (no chunk times) of a disk with a damaged stretch: 1000
# blocks of 100 MiB at ~61 MB/s, every other block of 400-498 at 5 MB/s; the
# same as a block-only zcav CSV; and the log without the damage.
begin "zcav zones: a slow stretch in a classic log or a block-only CSV is a slow region with a suspect health line"
python3 - slow.dat slow.csv healthy.dat <<'PY'
import random, sys
random.seed(37)
rates = [random.gauss(60000, 600) for i in range(1000)]  # KiB/s
with open(sys.argv[3], "w") as f:
    f.write("#loops: 1, version: 1.03\n#block K/s time\n")
    for i, k in enumerate(rates):
        f.write("%d %d %.6f\n" % (i * 100, k, 100 * 1024 / k))
for i in range(400, 500, 2):
    rates[i] = 5000
with open(sys.argv[1], "w") as f:
    f.write("#loops: 1, version: 1.03\n#block K/s time\n")
    for i, k in enumerate(rates):
        f.write("%d %d %.6f\n" % (i * 100, k, 100 * 1024 / k))
with open(sys.argv[2], "w") as f:
    f.write("offset_bytes,length_bytes,mb_per_s\n")
    for i, k in enumerate(rates):
        f.write("%d,%d,%.3f\n" % (i * 100 * 2**20, 100 * 2**20, k * 1024 / 1e6))
PY
for f in slow.dat slow.csv; do
  run "$ZCAV" zones "$f"
  expect_exit 0
  expect_grep '^slow regions: 1, far slower than their neighbours: 41\.943-52\.324 GB in ' "$OUT" "$f"
  expect_grep '^health: suspect: 1 slow region at 41\.943 GB' "$OUT" "$f"
  expect_grep '^note: slow regions from the block rates .*: 99 blocks in them' "$OUT" "$f"
  expect_grep '^summary: 1 zone' "$OUT" "$f"
  run "$ZCAV" zones "$f" --format json -o "$f-zones.json"
  expect_exit 0
  python3 - "$f-zones.json" <<'PY' || problem "$f-zones.json: not one slow region 400-498, suspect, outliers in it"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["slow_regions"]) == 1, d.get("slow_regions")
r = d["slow_regions"][0]
assert r["offset_bytes"] == 400 * 100 * 2**20 and r["length_bytes"] == 99 * 100 * 2**20, r
assert r["ms"] > 5 * r["expected_ms"], r
assert d["health"]["verdict"] == "suspect", d["health"]
assert len(d["zones"]) == 1, d["zones"]
assert not [o for o in d["outliers"] if r["offset_bytes"] <= o["offset_bytes"] < r["offset_bytes"] + r["length_bytes"]]
PY
done
run "$ZCAV" zones healthy.dat
expect_exit 0
expect_no_grep 'slow region' "$OUT" healthy.dat
expect_no_grep 'health:' "$OUT" healthy.dat
run "$ZCAV" zones healthy.dat --format json
expect_exit 0
expect_no_grep '"slow_regions"' "$OUT" healthy.dat
expect_no_grep '"health"' "$OUT" healthy.dat

check "zcav zones on an optical sweep names the curve cav and shows X speed" 0 \
  "$ZCAV" sweep sim:cd -q --no-zones -o cd.json --format json
run "$ZCAV" zones cd.json
expect_exit 0
expect_grep 'curve cav' "$OUT" stdout
expect_grep 'CD speed' "$OUT" stdout
expect_grep 'average over the disc: [0-9.]+x CD' "$OUT" stdout

check "zcav zones reads a real bonnie++ 1.03 log: one zone" 0 \
  "$ZCAV" zones "$DATA/import/bonnie-1.03-sda3-2010.dat"
expect_grep 'curve flat' "$OUT" stdout
expect_grep '^summary: 1 zone;' "$OUT" stdout

check "zcav zones --format csv on two files: a source column and one header" 0 \
  bash -c "'$ZCAV' sweep 'sim:hdd?size=10G&zones=4' -q -o a.dat && '$ZCAV' sweep 'sim:ssd?size=10G' -q -o b.dat && '$ZCAV' zones a.dat b.dat --format csv"
[[ $(grep -c '^source,' "$OUT") -eq 1 ]] || problem "expected exactly one header row"
[[ $(grep -c '^"a.dat' "$OUT") -eq 4 ]] || problem "expected 4 zone rows for a.dat"
[[ $(grep -c '^"b.dat' "$OUT") -eq 1 ]] || problem "expected 1 zone row for b.dat"

check "zcav zones --format json on two files is an array" 0 \
  bash -c "'$ZCAV' sweep 'sim:ssd?size=1G' -q -o a.dat && '$ZCAV' zones a.dat a.dat --format json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d, list) and len(d) == 2 and d[0]["curve_type"] == "flat"' "$OUT" ||
  problem "not a JSON array of two flat analyses"

printf 'hello\nworld\n' >"$FIX/junk.dat"
printf '#loops: 1, version: 1.03\n#block K/s time\n0 60000 1.7\n100 abc 1.7\n' >"$FIX/badline.dat"
for args in "zones" "zones $FIX/nonexistent.dat" "zones $FIX/empty" "zones $FIX/junk.dat" \
            "zones $FIX/a_directory" "zones --format xml $FIX/junk.dat" \
            "zones --sensitivity 0 $FIX/badline.dat" "zones --sensitivity abc $FIX/badline.dat" \
            "zones --min-zone 0 $FIX/badline.dat" "zones --media floppy $FIX/badline.dat" \
            "zones --frobnicate $FIX/badline.dat" "sweep sim:hdd --sensitivity -1" \
            "sweep sim:hdd --media tape" "sweep sim:hdd --min-zone x"; do
  # shellcheck disable=SC2086
  bad_input "$args" $args
done
check "a malformed classic log names the file and line" 2 "$ZCAV" zones "$FIX/badline.dat"
expect_one_error_line 'badline.dat:4'

# ---------------------------------------------------------------------------
# zcav report: a table of the runs and their plots, Markdown or one HTML file.

"$ZCAV" sweep 'sim:hdd?size=10G&zones=4' -q -o "$FIX/rep-a.dat" &&
  "$ZCAV" sweep 'sim:usb2-hdd?size=10G' -q -o "$FIX/rep-b.dat" || echo "report fixtures: sweep failed"
mkdir -p "$FIX/dir.html"
HAVE_GNUPLOT=0
command -v gnuplot >/dev/null && HAVE_GNUPLOT=1
# The number of "<svg" in a file.
svg_count() { grep -o '<svg' "$1" | wc -l; }

begin "zcav report a.dat b.dat -o r.html: one self-contained page, 2 falloff + 1 comparison + 2 map SVGs"
cp "$FIX/rep-a.dat" a.dat && cp "$FIX/rep-b.dat" b.dat
run "$ZCAV" report a.dat b.dat -o r.html --label 'inner <&> "disk"'
expect_exit 0
expect_stdout_empty
if [[ $HAVE_GNUPLOT -eq 1 ]]; then
  expect_eq "$(svg_count r.html)" 5 "the number of <svg in r.html"
else
  expect_eq "$(svg_count r.html)" 0 "the number of <svg in r.html (no gnuplot)"
  expect_grep 'gnuplot' "$ERR" stderr
fi
for bad in 'http' '<script' ' src=' '<link'; do expect_no_grep "$bad" r.html; done
expect_grep 'inner &lt;&amp;&gt; &quot;disk&quot;' r.html
python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' r.html 2>/dev/null ||
  problem "r.html is not well-formed XML"
expect_eq "$(ls -A | tr '\n' ' ')" "a.dat b.dat r.html " "the files in the directory"

begin "zcav report a.dat b.dat -o r.md: a table row per input, PNGs and scripts beside it"
cp "$FIX/rep-a.dat" a.dat && cp "$FIX/rep-b.dat" b.dat
run "$ZCAV" report a.dat b.dat -o r.md -q
expect_exit 0
expect_stdout_empty
# Table lines start with '|': the header, the separator, then one row per
# input; the read-latency table the same (one pass each).
expect_eq "$(grep -c '^|' r.md)" 8 "the number of table lines (2 x (header + separator + 2 rows))"
expect_grep '^## Read latency' r.md
expect_grep '^\| [^|]+ \| .*sim:usb2-hdd' r.md
for n in 1 2 3 4 5; do
  [[ -s r-$n.gp ]] || problem "r-$n.gp missing or empty"
  expect_grep "\(r-$n\.png\)" r.md
  if [[ $HAVE_GNUPLOT -eq 1 ]]; then
    [[ -s r-$n.png ]] || problem "r-$n.png missing or empty"
  fi
done
[[ ! -e r-6.gp ]] || problem "r-6.gp written: 2 inputs have 5 plots (2 falloff, 1 comparison, 2 maps)"
expect_no_tmp_files

check "zcav report on one file: one falloff plot and its map, no comparison" 0 \
  "$ZCAV" report "$FIX/rep-a.dat" -o one.html -q
if [[ $HAVE_GNUPLOT -eq 1 ]]; then
  expect_eq "$(svg_count one.html)" 2 "the number of <svg in one.html"
fi

for args in "report $FIX/rep-a.dat -o r.pdf" "report $FIX/rep-a.dat -o r" \
            "report $FIX/nonexistent.dat -o r.html" "report $FIX/rep-a.dat $FIX/nonexistent.dat -o r.md" \
            "report $FIX/junk.dat -o r.html" "report $FIX/badline.dat -o r.md" "report -o r.html" \
            "report $FIX/rep-a.dat" "report $FIX/rep-a.dat -o -" \
            "report $FIX/rep-a.dat --label a --label b -o r.html" \
            "report $FIX/rep-a.dat -o $FIX/dir.html" \
            "report $FIX/rep-a.dat -o $WORK/no-such-dir/r.md" "report $FIX/rep-a.dat --frobnicate -o r.md"; do
  begin "bad input: zcav ${args//"$WORK"\//}"
  # shellcheck disable=SC2086
  run "$ZCAV" $args
  expect_exit 2
  expect_one_error_line
  expect_stdout_empty
  expect_no_new_files
done
[[ ! -e $WORK/no-such-dir ]] || problem "$WORK/no-such-dir was created"

# ---------------------------------------------------------------------------
# zcav plot and zcav sweep --plot.

# png_check FILE: prints "WIDTH HEIGHT STDDEV" of a PNG (8-bit RGB/RGBA/grey,
# non-interlaced, as pngcairo writes): decoded with python3's zlib, the
# standard deviation of the grey level over all pixels (0-255).
png_check() {
  python3 - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
assert depth == 8, 'bit depth %d' % depth
raw, stride = zlib.decompress(idat), w * bpp
prev, total, total2, i = bytearray(stride), 0, 0, 0
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], (prev[x - bpp] if x >= bpp else 0)
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        g = line[x] if bpp < 3 else (line[x] + line[x + 1] + line[x + 2]) / 3
        total += g
        total2 += g * g
    prev = line
n = w * h
print(w, h, round(max(0, total2 / n - (total / n) ** 2) ** 0.5, 2))
PY
}

# expect_nonblank_png FILE: 1000x600 and a grey-level standard deviation
# above 27. Measured with gnuplot 5.4.4: a blank white canvas 0; titled,
# gridded axes with a key but no data 20.7; the falloff of sim:hdd 33.0, of
# sim:cd 35.9 (the curves, the band and the zone segments add the variance).
expect_nonblank_png() {
  local info
  if ! info=$(png_check "$1" 2>&1); then
    problem "$1 is not a readable PNG: $info"
    return
  fi
  read -r w h sd <<<"$info"
  [[ $w == 1000 && $h == 600 ]] || problem "$1 is ${w}x$h, expected 1000x600"
  python3 -c "import sys; sys.exit(0 if $sd > 27 else 1)" ||
    problem "$1 looks blank (grey-level standard deviation $sd)"
}

"$ZCAV" sweep sim:hdd --passes 2 -q -o "$WORK/plot-hdd.dat" || echo "setup: sweep failed"
"$ZCAV" sweep sim:cd -q -o "$WORK/plot-cd.dat" || echo "setup: sweep failed"
printf '# zcav 0.1 raw data, classic zcav layout\n0.0 1 2 3 4 5 6\n' >"$WORK/plot-bad.dat"

check "zcav plot on a sweep result writes the PNG, the .gp and its data" 0 \
  "$ZCAV" plot "$WORK/plot-hdd.dat" -o hdd.png
expect_stdout_empty
for f in hdd.gp hdd.curve.dat hdd.zones.dat; do
  [[ -s $f ]] || problem "$f not written"
done
if [[ $HAVE_GNUPLOT -eq 1 ]]; then
  expect_nonblank_png hdd.png
  rm -f hdd.png
  (gnuplot hdd.gp) >/dev/null 2>&1 || problem "gnuplot hdd.gp failed on its own"
  expect_nonblank_png hdd.png
else
  grep -q 'gnuplot hdd.gp' "$ERR" || problem "no hint on how to render later"
fi
expect_no_tmp_files
[[ -z $(find . -name '.*render*') ]] || problem "a render directory was left behind"

check "zcav plot of two results draws a comparison SVG with both labels" 0 \
  "$ZCAV" plot "$WORK/plot-hdd.dat" "$WORK/plot-cd.dat" --label 'the disk' --label 'the CD' -o cmp.svg -q
expect_stderr_empty
grep -q "label\[2\] = 'the CD'" cmp.gp || problem "cmp.gp has no label[2] = 'the CD'"
if [[ $HAVE_GNUPLOT -eq 1 ]]; then
  python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' cmp.svg 2>/dev/null ||
    problem "cmp.svg does not parse as XML"
  grep -q 'the disk' cmp.svg || problem "cmp.svg lacks the label 'the disk'"
fi

check "zcav plot of a CD result adds the X-speed axis" 0 "$ZCAV" plot "$WORK/plot-cd.dat" -o cd.png -q
grep -q "set y2label 'speed (CD X" cd.gp || problem "cd.gp has no X-speed axis"

"$ZCAV" sweep "sim:hdd?size=1G&bad=500M+8k" --block-size 1M -q -o "$WORK/plot-fault.dat" ||
  echo "setup: sweep failed"
check "zcav plot --kind map draws the surface map: a cell per block, red where unreadable" 0 \
  "$ZCAV" plot "$WORK/plot-fault.dat" --kind map -o map.png -q
expect_stderr_empty
for f in map.gp map.map.dat; do
  [[ -s $f ]] || problem "$f not written"
done
grep -q "data = 'map.map.dat'" map.gp || problem "map.gp does not name map.map.dat"
expect_grep '^# column row class start_gb end_gb' map.map.dat
# 1 GiB in 1 MiB blocks: 1024 cells, the one holding 500 MiB (0.524288 GB) red (class 6).
expect_eq "$(grep -vc '^#' map.map.dat)" 1024 "the cells of map.map.dat"
expect_grep '^[0-9]+ [0-9]+ 6 0\.524288' map.map.dat
if [[ $HAVE_GNUPLOT -eq 1 ]]; then
  expect_nonblank_png map.png
fi
check "zcav plot --kind map without -o names the image FILE-map.png" 0 \
  "$ZCAV" plot "$WORK/plot-hdd.dat" --kind map -q
[[ -s $WORK/plot-hdd-map.gp && -s $WORK/plot-hdd-map.map.dat ]] || problem "plot-hdd-map.gp not beside the data"

check "zcav plot without -o writes beside the data file, never over it" 0 \
  "$ZCAV" plot "$WORK/plot-hdd.dat" -q
[[ -s $WORK/plot-hdd.gp && -s $WORK/plot-hdd.curve.dat ]] || problem "plot-hdd.gp not beside the data"
head -n 1 "$WORK/plot-hdd.dat" | grep -q '^# zcav ' || problem "the input was replaced"

for args in "plot $WORK/nonexistent.dat -o x.png" "plot $WORK/plot-bad.dat -o x.png" \
            "plot $WORK/plot-hdd.dat $WORK/nonexistent.dat -o x.png" "plot -o x.png" \
            "plot $WORK/plot-hdd.dat -o x.jpg" "plot $WORK/plot-hdd.dat --kind pie -o x.png" \
            "plot $WORK/plot-hdd.dat --kind access -o x.png" \
            "plot $WORK/plot-hdd.dat $WORK/plot-cd.dat --kind map -o x.png" \
            "plot $WORK/plot-hdd.dat --label a --label b -o x.png"; do
  begin "bad input: zcav ${args//"$WORK"\//}"
  # shellcheck disable=SC2086
  run "$ZCAV" $args
  expect_exit 2
  expect_one_error_line
  expect_stdout_empty
  expect_no_new_files
done

check "zcav sweep --plot DIR writes data, .gp, PNG and SVG" 0 "$ZCAV" sweep sim:hdd --plot plots -q -o hdd.dat
for f in plots/sim-hdd.gp plots/sim-hdd.curve.dat; do [[ -s $f ]] || problem "$f not written"; done
if [[ $HAVE_GNUPLOT -eq 1 ]]; then
  [[ -s plots/sim-hdd.png && -s plots/sim-hdd.svg ]] || problem "no PNG/SVG in plots/"
  expect_nonblank_png plots/sim-hdd.png
  rm -f plots/sim-hdd.png plots/sim-hdd.svg
  (cd plots && gnuplot sim-hdd.gp) >/dev/null 2>&1 || problem "gnuplot plots/sim-hdd.gp failed"
  [[ -s plots/sim-hdd.png && -s plots/sim-hdd.svg ]] || problem "gnuplot sim-hdd.gp drew no PNG/SVG"
fi

# ---------------------------------------------------------------------------
# Access time and burst rate.

check "zcav access sim:hdd: mean access time near the model's 14.2 ms" 0 \
  "$ZCAV" access sim:hdd --format json -o acc.json
python3 - acc.json <<'PY' || problem "access JSON wrong"
import json, sys
a = json.load(open(sys.argv[1]))["access"]
assert len(a["samples"]) == 1000 and a["count"] == 1000
assert 13.5 < a["mean_ms"] < 15.0, a["mean_ms"]
assert a["min_ms"] <= a["median_ms"] <= a["p95_ms"] <= a["max_ms"]
assert all(s["offset_bytes"] % 512 == 0 for s in a["samples"])
PY

check "zcav burst sim:usb2-hdd: the bridge's 35 MB/s" 0 "$ZCAV" burst sim:usb2-hdd --format json
python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["burst"]; assert abs(b["avg_mb_per_s"]-35)<0.5, b' "$OUT" ||
  problem "burst is not 35 MB/s"

check "zcav sweep names the verdict: usb2-hdd is bus-capped" 0 "$ZCAV" sweep sim:usb2-hdd --format json -q -o v.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["verdict"]["kind"]=="bus-capped" and d["transport"]["ceiling_mb_per_s"]==40, d["verdict"]' v.json ||
  problem "verdict is not bus-capped"

check "zcav zones --bus usb2 on a flat 34 MB/s curve says bus-limited" 0 \
  bash -c "'$ZCAV' sweep 'sim:ssd?size=10G&outer=34' -q -o flat.dat --no-zones && '$ZCAV' zones flat.dat --bus usb2"
expect_grep '^verdict: bus-limited' "$OUT" stdout

for args in "access" "access sim:hdd sim:ssd" "access sim:hdd --samples 0" "access sim:hdd --read-size x" \
            "access sim:hdd --format xml" "burst sim:hdd --region 0" "burst sim:hdd --chunk-size 1M" \
            "burst sim:hdd --repetitions -1" "burst sim:cd?size=64k" "access $FIX/nonexistent" \
            "sweep sim:hdd --bus usb9" "zones --bus warp $FIX/badline.dat"; do
  # shellcheck disable=SC2086
  bad_input "$args" $args
done

# ---------------------------------------------------------------------------
# Several devices at once.

SEV_A="sim:hdd?size=2G&bus=ide"
SEV_B="sim:hdd?size=2G&bus=ide&seed=2"
check "two devices on one shared bus: alone and together, one result each and the aggregate" 0 \
  "$ZCAV" sweep "$SEV_A" "$SEV_B" -o out --alone-and-together -q
for f in sim-hdd-size-2G-bus-ide.dat sim-hdd-size-2G-bus-ide-seed-2.dat \
         sim-hdd-size-2G-bus-ide.alone.dat sim-hdd-size-2G-bus-ide-seed-2.alone.dat aggregate.dat aggregate.json; do
  [[ -s out/$f ]] || problem "out/$f missing"
done
expect_raw_data out/sim-hdd-size-2G-bus-ide.dat
expect_raw_data out/sim-hdd-size-2G-bus-ide-seed-2.alone.dat
expect_no_tmp_files
python3 -c '
import json, sys
d = json.load(open("out/aggregate.json"))
t = d["together"]
assert d["ceiling"]["shared"] is True, d["ceiling"]
assert 70 < t["aggregate_mb_per_s"] < 82, t
assert 78 < t["high_mb_per_s"] < 82, t
assert abs(d["alone"]["sum_mb_per_s"] - 90) < 2, d["alone"]
for dev in d["devices"]:
    assert abs(dev["alone_mb_per_s"] - 45) < 1, dev
    assert dev["together_mb_per_s"] < 41, dev
' 2>"$WORK/py.err" || problem "aggregate.json: $(tail -n 1 "$WORK/py.err")"
expect_grep "share a ceiling of about 8[0-9]" "$ERR" stderr
# aggregate.dat: time, total, one column per device; the total is never above the bus.
awk '!/^#/ { n++; if (NF != 4 || $2 > 80.5 || $2 < $3) bad++ } END { exit !(n == 200 && bad == 0) }' out/aggregate.dat ||
  problem "aggregate.dat rows malformed or above the 80 MB/s bus"

check "two devices on separate buses: no shared ceiling" 0 \
  "$ZCAV" sweep "sim:hdd?size=2G&bus=a" "sim:hdd?size=2G&bus=b" -o out --alone-and-together -q --format json
python3 -c '
import json
d = json.load(open("out/aggregate.json"))
assert d["ceiling"]["shared"] is False, d["ceiling"]
assert abs(d["together"]["aggregate_mb_per_s"] - 90) < 2, d["together"]
json.load(open("out/sim-hdd-size-2G-bus-a.json"))["blocks"]
' 2>"$WORK/py.err" || problem "aggregate.json: $(tail -n 1 "$WORK/py.err")"
expect_grep "no shared ceiling" "$ERR" stderr

check "classic -l LOG -f DEV pairs read together" 0 \
  "$ZCAV" -c 1 -l a.log -f "sim:hdd?size=1G" -l b.log -f "sim:ssd?size=1G"
expect_raw_data a.log
expect_raw_data b.log
expect_grep "^# device: sim:ssd" b.log
expect_grep "all together" "$ERR" stderr
[[ ! -e aggregate.json ]] || problem "aggregate.json written without -o DIR"

begin "two real files read together, each O_DIRECT"
head -c $((32 * MIB)) /dev/urandom >r1.img && cp r1.img r2.img
run "$ZCAV" sweep r1.img r2.img -o out -b 4M -q
expect_exit 0
expect_raw_data out/r1.img.dat
expect_raw_data out/r2.img.dat
expect_eq "$(data_count out/r2.img.dat)" 8 "blocks of r2.img"
# Both files are in the page cache (just written): only O_DIRECT reads fetch
# them from storage (the process's read_bytes in /proc/self/io).
for f in r1 r2; do
  expect_grep '^# direct_io: yes$' "out/$f.img.dat"
  fetched=$(sed -n 's/^# storage bytes read: \([0-9]*\)$/\1/p' "out/$f.img.dat")
  [[ ${fetched:-0} -ge $((32 * MIB)) ]] ||
    problem "$f.img: storage bytes read ${fetched:-unknown} < its 32 MiB: served from the page cache"
done
python3 -c '
import json
d = json.load(open("out/aggregate.json"))
assert d["together"]["aggregate_mb_per_s"] > 0 and d["alone"] is None and d["ceiling"]["shared"] is None
' 2>"$WORK/py.err" || problem "aggregate.json: $(tail -n 1 "$WORK/py.err")"

check "several devices need -o DIR or -l logs" 2 "$ZCAV" sweep sim:hdd sim:ssd
expect_one_error_line "-o DIR"
expect_no_new_files
check "classic: two devices, one log" 2 "$ZCAV" -l a.log -f sim:hdd -f sim:ssd
expect_one_error_line "one -l LOG per -f DEVICE"
expect_no_new_files
begin "several devices: -o names a regular file"
echo keep >file
run "$ZCAV" sweep sim:hdd sim:ssd -o file
expect_exit 2
expect_one_error_line "not a directory"
expect_eq "$(cat file)" keep "the file"

# ---------------------------------------------------------------------------
# zcav profile: burst, access, sweep, zones, verdict, plots and reports in one
# directory; the summary on stderr, stdout empty.

# expect_profile_files DIR NAME: every file zcav profile writes is in DIR
# (images only when gnuplot is installed), and no temporary file is left.
# With a third argument "adaptive": no surface map and no latency table (an
# adaptive sweep reads probes, not the surface).
expect_profile_files() {
  local dir=$1 name=$2 adaptive=${3:-} f left
  local map=("$name-map.gp" "$name-map.map.dat") map_images=("$name-map.png" "$name-map.svg")
  if [[ $adaptive == adaptive ]]; then
    for f in "${map[@]}" "${map_images[@]}"; do
      [[ ! -e $dir/$f ]] || problem "$dir/$f: a surface map of an adaptive sweep"
    done
    map=() map_images=()
  fi
  for f in profile.json "$name.dat" zones.txt "$name.gp" "$name.curve.dat" "$name-access.gp" \
           "${map[@]}" "$name-random.gp" "$name-random-1.random.dat" \
           report.md report.html summary.txt; do
    [[ -s $dir/$f ]] || problem "$dir/$f missing or empty"
  done
  if command -v gnuplot >/dev/null; then
    for f in "$name.png" "$name.svg" "$name-access.png" "$name-access.svg" "${map_images[@]}" \
             "$name-random.png" "$name-random.svg" report-1.png; do
      [[ -s $dir/$f ]] || problem "$dir/$f missing or empty"
    done
    grep -q '<svg' "$dir/report.html" || problem "$dir/report.html has no inline plot"
  fi
  if [[ $adaptive == adaptive ]]; then
    expect_no_grep '## Read latency' "$dir/report.md"
  else
    grep -q '^## Read latency' "$dir/report.md" || problem "$dir/report.md has no latency table"
  fi
  left=$(find "$dir" -name '*.tmp*' | tr '\n' ' ')
  [[ -z $left ]] || problem "temporary files left behind: $left"
}

# expect_profile_json FILE VERDICT SAMPLING: profile.json has the
# documented members with sane values. SAMPLING: false (full), true (quick)
# or adaptive.
expect_profile_json() {
  python3 - "$@" <<'PY' || problem "$1: profile JSON wrong (see above)"
import json, sys
path, verdict, quick = sys.argv[1], sys.argv[2], sys.argv[3] == "true"
adaptive = sys.argv[3] == "adaptive"
d = json.load(open(path))
for key in ["device", "transport", "sweep", "curve_type", "zones", "zone_summary", "access",
            "burst", "verdict", "blocks", "summary", "status", "partial"]:
    assert key in d, "no " + key
dev = d["device"]
assert dev["path"] and dev["size_bytes"] > 0 and dev["model"], dev
# Which drive and which machine: every profile names them (sim devices have
# a serial of their own; host and kernel are this machine's).
import os
ident = dev["identity"]
assert ident["model"] == dev["model"] and ident["capacity_bytes"] == dev["size_bytes"], ident
assert ident["host"] == os.uname().nodename and ident["kernel"].startswith(os.uname().sysname), ident
assert ident["zcav_version"] == d["version"] and ident["started"] == d["started"], ident
if dev["path"].startswith("sim:"):
    assert ident["serial"].startswith("SIM-") and ident["firmware"] == "zcav-sim", ident
assert {"kind", "link", "ceiling_mb_per_s"} <= set(d["transport"]), d["transport"]
s = d["sweep"]
assert 0 < s["min_mb_per_s"] <= s["avg_mb_per_s"] <= s["max_mb_per_s"], s
assert s["quick"] is quick and d["options"]["quick"] is quick, (s["quick"], quick)
p = d["profile"]
assert p["sampling"] == ("quick" if quick else "adaptive" if adaptive else "full"), p
assert p["quick"] is quick, p
assert ("adaptive" in d) is adaptive, "adaptive member"
if adaptive:
    assert 0 < d["adaptive"]["share_read"] < 0.1 and len(d["adaptive"]["inferred"]) == len(d["zones"]), d["adaptive"]
assert s["status"] == "complete" and s["partial"] is False, s
assert s["block_bytes"] > 0 and s["passes"] >= 1 and s["blocks"] == len(d["blocks"]) > 0, s
assert "cpu_percent" in s and "system_busy_percent" in s, s
a = d["access"]
assert 0 < a["min_ms"] <= a["median_ms"] <= a["p95_ms"] <= a["max_ms"], a
assert a["min_ms"] <= a["mean_ms"] <= a["max_ms"] and "cpu_percent" in a, a
assert len(a["samples"]) == 1000 and all(x["ms"] > 0 for x in a["samples"])
assert all(0 <= x["offset_bytes"] < dev["size_bytes"] for x in a["samples"])
b = d["burst"]
assert 0 < b["min_mb_per_s"] <= b["avg_mb_per_s"] <= b["max_mb_per_s"] and "cpu_percent" in b, b
v = d["verdict"]
assert v["kind"] == verdict and len(v["reason"]) > 20, v
assert d["zone_summary"]["zones"] == len(d["zones"]) >= 1
assert d["status"] == "complete" and d["partial"] is False
PY
}

# expect_summary: stderr ends with the summary's lines (eleven, and "Passes:"
# with several passes, "Page cache:" where reads pass through it), as
# summary.txt has them.
expect_summary() {
  local dir=$1 label lines
  for label in "Device:" "Drive:" "Linear read:" "Access time:" "Random reads:" "Burst rate:" \
    "Zones:" "Verdict:" "Health:" "SMART:" "Wrote:"; do
    grep -q "^$label  *[^ ]" "$ERR" || problem "no '$label' line in the summary on stderr"
  done
  expect_grep 'MB = 10\^6 B' "$ERR" stderr
  lines=$(wc -l <"$dir/summary.txt")
  [[ $lines -ge 11 && $(tail -n "$lines" "$ERR") == "$(cat "$dir/summary.txt")" ]] ||
    problem "the last $lines stderr lines differ from $dir/summary.txt"
}

check "zcav profile sim:hdd: every file, adaptive by default (1.2 h in full), media-limited" 0 \
  "$ZCAV" profile sim:hdd -o prof
expect_stdout_empty
expect_profile_files prof sim-hdd adaptive
expect_profile_json prof/profile.json media-limited adaptive
expect_summary prof
expect_grep '^Drive: +serial SIM-HDD-1, firmware zcav-sim; measured on ' prof/summary.txt
expect_grep '^zcav: note: full sweep would take about 1\.[0-9] h; run with --full' "$ERR" stderr
expect_grep '^zcav: profiling sim:hdd: .* then an adaptive sweep \(a grid of [0-9]+ probes of [0-9]+ MiB' "$ERR" stderr
expect_grep '^zcav: adaptive: refining edge 1 of 15, ' "$ERR" stderr
expect_grep '^Linear read: .*\[adaptive: [0-9]+ probes, [0-9.]+ % of the surface read\]' "$ERR" stderr
expect_grep '^Zones: +16 zones \(zoned\), 60\.0 -> 30\.0 MB/s' "$ERR" stderr
expect_grep '^Access time: +1[34]\.[0-9] ms mean' "$ERR" stderr
expect_grep '^Burst rate: +1(49|50)\.[0-9] MB/s' "$ERR" stderr
expect_grep '^Verdict: +media-limited' "$ERR" stderr
expect_grep '^Health: +good — no unreadable sectors in the probes read \([0-9.]+ % of the surface; the rest was not read' "$ERR" stderr
expect_grep '^SMART: +a simulated device has no SMART data$' "$ERR" stderr
expect_grep '^# health: good$' prof/sim-hdd.dat
expect_grep '^# adaptive: ' prof/sim-hdd.dat
expect_raw_data prof/sim-hdd.dat
expect_grep 'status: complete' prof/sim-hdd.dat
expect_grep '^verdict: media-limited' prof/zones.txt
python3 - prof/profile.json <<'PY' || problem "estimate or access/burst figures wrong"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["profile"]
assert p["sampling"] == "adaptive" and 3600 < p["estimate"]["full_sweep_seconds"] < 3 * 3600, p
assert p["why"].startswith("adaptive: a full sweep would take about 1."), p
# An adaptive sweep of the 250 GB disk takes a fraction of the full one's
# (virtual) time; its 16 zones are every one the model has.
assert d["sweep"]["wall_seconds"] < p["estimate"]["full_sweep_seconds"] / 5, d["sweep"]
assert d["zone_summary"]["zones"] == 16 and len(d["adaptive"]["edges"]) == 15
assert 13.5 < d["access"]["mean_ms"] < 15.0 and abs(d["burst"]["avg_mb_per_s"] - 150) < 2
PY

check "zcav zones, plot and report read a profile.json, with access, burst and verdict" 0 \
  bash -c "'$ZCAV' profile 'sim:hdd?size=2G' -q -o p && '$ZCAV' zones p/profile.json -o z.txt &&
           '$ZCAV' plot p/profile.json --kind access -q -o acc.svg && '$ZCAV' report p/profile.json -q -o r.md"
expect_grep '16 zones' z.txt
[[ -s acc.svg || ! -x $(command -v gnuplot) ]] || problem "access plot of profile.json not drawn"
[[ -s acc.gp ]] || problem "no acc.gp"
expect_grep '\| Access time \| Burst MB/s \| Verdict \|' r.md
expect_grep '\| 1[34]\.[0-9] ms \| 1(49|50)\.[0-9] \| media-limited \|' r.md
expect_grep '\| Access time \| Burst MB/s \| Verdict \|' p/report.md

check "zcav profile sim:usb2-hdd: bus-capped at the USB 2.0 ceiling, quiet" 0 \
  "$ZCAV" profile sim:usb2-hdd -q -o usb
expect_stdout_empty
expect_stderr_empty
expect_profile_files usb sim-usb2-hdd adaptive
expect_profile_json usb/profile.json bus-capped adaptive
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["transport"]; assert t["kind"]=="usb" and t["ceiling_mb_per_s"]==40, t' \
  usb/profile.json || problem "transport is not USB 2.0 at 40 MB/s"
expect_grep '^Verdict: +bus-capped' usb/summary.txt

check "zcav profile sim:ssd --bus sata3: bus-limited, full (16 min)" 0 \
  "$ZCAV" profile sim:ssd --bus sata3 -q -o ssd
expect_profile_files ssd sim-ssd
expect_profile_json ssd/profile.json bus-limited false
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["transport"]; assert t["source"]=="--bus" and t["ceiling_mb_per_s"]>500, t' \
  ssd/profile.json || problem "transport is not the --bus sata3 one"

check "zcav profile on a small sim disk sweeps in full without a note" 0 \
  "$ZCAV" profile 'sim:hdd?size=2G' -o small
expect_profile_files small sim-hdd-size-2G
expect_profile_json small/profile.json media-limited false
expect_grep '^# latency: pass=1 chunk_bytes=' small/sim-hdd-size-2G.dat
expect_grep '^Health: +good — no unreadable sectors and no slow regions in [0-9]+ chunks read' "$ERR" stderr
expect_no_grep "full sweep would take" "$ERR"
expect_no_grep "[quick" "$ERR"

check "--full forces the full sweep of sim:hdd" 0 "$ZCAV" profile sim:hdd --full -q -o full
expect_profile_json full/profile.json media-limited false
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["profile"]["why"]=="--full" and d["profile"]["estimate"] is None and d["sweep"]["bytes_read"]==d["device"]["size_bytes"], d["profile"]' \
  full/profile.json || problem "not a full sweep of every byte"

check "--quick forces the quick sweep of a small sim disk" 0 "$ZCAV" profile 'sim:hdd?size=2G' --quick -q -o q
expect_profile_json q/profile.json media-limited true
expect_grep '\[quick: every 10th block\]' q/summary.txt

check "--adaptive forces adaptive sampling of a small sim disk; -c does not apply to it" 0 \
  "$ZCAV" profile 'sim:hdd?size=20G' --adaptive -c 3 -o ad
expect_profile_files ad sim-hdd-size-20G adaptive
expect_profile_json ad/profile.json media-limited adaptive
expect_grep '^zcav: note: -c 3 does not apply to adaptive sampling' "$ERR" stderr
expect_grep '^Zones: +16 zones \(zoned\)' ad/summary.txt
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["profile"]; assert p["why"]=="--adaptive" and p["estimate"] is None and p["passes"]==1, p' \
  ad/profile.json || problem "not the forced adaptive sampling"
run "$ZCAV" plot ad/profile.json --kind map -o admap.svg
expect_exit 2
expect_grep 'an adaptive result has no surface map' "$ERR" stderr
[[ ! -e admap.svg ]] || problem "admap.svg written for an adaptive result"

check "--max-time caps an adaptive profile: a grid cut short still gives every edge, as wide as its gap" 0 \
  "$ZCAV" profile 'sim:hdd?size=20T&zones=30' --max-time 340s -q -o mt
python3 - mt/profile.json <<'PY' || problem "the time budget or the open edges wrong"
import json, sys
d = json.load(open(sys.argv[1]))
a = d["adaptive"]
assert d["profile"]["sampling"] == "adaptive" and a["budget_hit"] is True, (d["profile"], a["budget_hit"])
# 340 s of the simulated disk's clock (the reference's reads, in the slowest
# zone, take their share): the grid of 200 probes is cut short.
assert 340 <= d["sweep"]["wall_seconds"] < 370 and a["probes"] < a["grid_probes"], (d["sweep"], a["probes"])
assert len(a["edges"]) == 29 and d["curve_type"] == "zoned", (len(a["edges"]), d["curve_type"])
gap = a["range_bytes"] / a["grid_probes"]
assert all(e["uncertainty_bytes"] >= gap / 2 for e in a["edges"]), "an open edge narrower than its gap"
PY

check "-b and -c mean block size in MiB and passes, as for zcav sweep" 0 \
  "$ZCAV" profile 'sim:hdd?size=2G' -b 100 -c 2 -q -o bc
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["sweep"]; assert s["block_bytes"]==100*2**20 and s["passes"]==2 and s["blocks"]==21, s' \
  bc/profile.json || problem "-b 100 -c 2 not applied"

check "zcav profile reads a device swept in seconds over 3 passes, and says why" 0 \
  "$ZCAV" profile 'sim:hdd?size=500M' -o three
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["profile"]; assert d["sweep"]["passes"]==3 and p["passes"]==3 and "under 20 s" in p["passes_why"], p' \
  three/profile.json || problem "a short device was not read over 3 passes"
expect_grep "note: 3 passes: one takes about" "$ERR"
expect_grep '\[3 passes\]' three/summary.txt
check "-c 1 keeps a short device at one pass" 0 "$ZCAV" profile 'sim:hdd?size=500M' -c 1 -q -o one
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["sweep"]["passes"]==1 and d["profile"]["passes_why"]=="-c", d["profile"]' \
  one/profile.json || problem "-c 1 did not keep one pass"

check "zcav profile with no DEVICE profiles sim:hdd into ./zcav-profile-sim-hdd" 0 "$ZCAV" profile -q
expect_profile_files zcav-profile-sim-hdd sim-hdd adaptive
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["device"]["path"]=="sim:hdd"' \
  zcav-profile-sim-hdd/profile.json || problem "the default device is not sim:hdd"

check "a read error: exit 1, everything written, marked partial" 1 \
  "$ZCAV" profile 'sim:hdd?size=2G&bad=1G+1M' --full -q -o bad
expect_stdout_empty
expect_one_error_line "read error"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["partial"] is True and d["status"].startswith("partial: read error") and len(d["blocks"]) > 0, d["status"]' \
  bad/profile.json || problem "profile.json not marked partial"
[[ -s bad/sim-hdd-size-2G-bad-1G-1M.dat && -s bad/zones.txt && -s bad/report.html && -s bad/summary.txt ]] ||
  problem "not everything written"
expect_no_tmp_files

# profile_bad NAME ARGS...: zcav profile ARGS... is bad input: exit 2, one
# line, nothing on stdout, no directory (not even the default one) created.
profile_bad() {
  local name=$1
  shift
  check "bad input: zcav profile $name" 2 "$ZCAV" profile "$@"
  expect_one_error_line
  expect_stdout_empty
  expect_no_new_files
}
profile_bad "an unknown option" --bogus
profile_bad "a missing device file" "$FIX/does-not-exist"
expect_grep "does-not-exist" "$ERR" stderr
profile_bad "a bad --bus" sim:hdd --bus usb9
expect_grep "usb9" "$ERR" stderr
profile_bad "--full with --quick" sim:hdd --full --quick
profile_bad "--adaptive with --full" sim:hdd --adaptive --full
expect_grep 'give one of --full, --quick and --adaptive' "$ERR" stderr
profile_bad "two devices" sim:hdd sim:ssd
profile_bad "-o -" sim:hdd -o -
profile_bad "-o in a missing directory" sim:hdd -o "$FIX/no-such-dir/prof"
profile_bad "-b larger than the device" 'sim:hdd?size=1G' -b 2048
begin "bad input: zcav profile -o pointing at a regular file"
echo keep >afile
run "$ZCAV" profile sim:hdd -o afile
expect_exit 2
expect_one_error_line "not a directory"
expect_stdout_empty
expect_no_new_files
expect_eq "$(cat afile)" keep "the file"

# SIGINT during the sweep of a real, slow file (4 KiB O_DIRECT chunks, 50 passes).
begin "SIGINT during zcav profile: exit 130, everything measured written, marked partial"
dd if=/dev/urandom of="$WORK/prof128" bs=1M count=128 status=none
"$ZCAV" profile "$WORK/prof128" -b 1:4k -c 50 --full -o pi >"$OUT" 2>"$ERR" &
BG_PID=$!
# The sweep's data file appears (as a temporary) once burst and access are done.
for ((i = 0; i < 300; i++)); do
  [[ -n $(find pi -maxdepth 1 -name 'prof128.dat.tmp.*' 2>/dev/null) ]] && break
  sleep 0.1
done
sleep 0.5
kill -0 "$BG_PID" 2>/dev/null || problem "zcav finished before it could be interrupted"
kill -INT "$BG_PID" 2>/dev/null
for ((i = 0; i < 600; i++)); do
  kill -0 "$BG_PID" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$BG_PID" 2>/dev/null; then
  problem "zcav still running 60 s after SIGINT; killed"
  kill -KILL "$BG_PID" 2>/dev/null
fi
wait "$BG_PID"
RC=$?
BG_PID=""
expect_exit 130
expect_no_tmp_files
grep -q '^zcav: interrupted' "$ERR" || problem "no 'zcav: interrupted' message on stderr"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["partial"] is True and d["status"]=="partial: interrupted" and d["sweep"]["status"]=="partial: interrupted" and len(d["access"]["samples"])==1000 and d["burst"]["repetitions"]==200, d["status"]' \
  pi/profile.json || problem "pi/profile.json not marked partial (or the probes before the sweep missing)"
expect_grep 'partial: interrupted' pi/prof128.dat
rm -f "$WORK/prof128"

# ---------------------------------------------------------------------------
# SMART before and after, through a fake smartctl first on PATH
# (tests/fixtures/fake-smartctl): a recorded Seagate drive with 304
# reallocated sectors at the start and 312 at the end.

SMART_DIR="$WORK/fake-smart"
mkdir -p "$SMART_DIR"
ln -s "$(dirname "$DATA")/fixtures/fake-smartctl" "$SMART_DIR/smartctl"
cp "$DATA/smart/ata-hdd-seagate-st3500418as.json" "$SMART_DIR/call-1.json"
sed 's/"value": 304$/"value": 312/' "$DATA/smart/ata-hdd-seagate-st3500418as.json" >"$SMART_DIR/call-2.json"
grep -q '"value": 312$' "$SMART_DIR/call-2.json" || problem "the fake smartctl's second answer has no 312"
dd if=/dev/urandom of="$WORK/smartdisk" bs=1M count=32 status=none

check "zcav profile with SMART: new reallocated sectors during the run make it failing" 0 \
  env FAKE_SMARTCTL_DIR="$SMART_DIR" PATH="$SMART_DIR:$PATH" "$ZCAV" profile "$WORK/smartdisk" -o smartprof
expect_summary smartprof
expect_grep '^Health: +failing — SMART reallocated_sectors grew during the run: 304 -> 312' "$ERR" stderr
expect_grep '^SMART: +ATA, [0-9]+ C, [0-9]+ power-on hours; grew during the run: reallocated_sectors 304 -> 312$' "$ERR" stderr
expect_eq "$(wc -l <"$SMART_DIR/calls.log")" 2 "smartctl calls (before and after)"
expect_grep "json=c -a .*/smartdisk" "$SMART_DIR/calls.log"
python3 - smartprof/profile.json <<'PY' || problem "profile.json lacks the SMART increase or the failing verdict"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["smart"]
assert s["before"]["available"] and s["before"]["reallocated_sectors"] == 304, s["before"]
assert s["after"]["reallocated_sectors"] == 312, s["after"]
assert s["increases"] == [{"field": "reallocated_sectors", "before": 304, "after": 312}], s["increases"]
assert d["health"]["verdict"] == "failing", d["health"]
assert any("304 -> 312" in r for r in d["health"]["reasons"]), d["health"]
PY
expect_grep '^# smart increase: reallocated_sectors 304 -> 312$' smartprof/smartdisk.dat
grep -q 'failing' smartprof/report.html || problem "report.html does not say failing"

check "zcav sweep --smart without smartctl: one note, everything else unchanged" 0 \
  env PATH="$WORK/no-such-dir" "$ZCAV" sweep "$WORK/smartdisk" --smart --format json -o nosmart.json
expect_eq "$(grep -c '^zcav: note: SMART: ' "$ERR")" 1 "SMART notes on stderr"
expect_grep '^zcav: note: SMART: smartctl not found' "$ERR" stderr
expect_grep '^zcav: health: good' "$ERR" stderr
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["smart"]; assert not s["before"]["available"] and "smartctl" in s["before"]["note"] and d["health"]["verdict"]=="good" and len(d["blocks"])>0, s' \
  nosmart.json || problem "nosmart.json: SMART not marked unavailable, or results missing"

check "zcav sweep without --smart does not run smartctl" 0 \
  env FAKE_SMARTCTL_DIR="$SMART_DIR" PATH="$SMART_DIR:$PATH" "$ZCAV" sweep "$WORK/smartdisk" -q -o plain.dat
expect_eq "$(wc -l <"$SMART_DIR/calls.log")" 2 "smartctl calls after a sweep without --smart"
expect_grep '^# health: good$' plain.dat

# ---------------------------------------------------------------------------
# Temperature: a drive that warms and throttles (sim:nvme-throttle models its
# temperature, 40 C rising to 80 C where it throttles after 10 s, 30 GB).
TH="sim:nvme-throttle?size=64G&throttle_after=10"
check "a throughput drop while the drive warms: thermal throttling when a second pass tells" 0 \
  "$ZCAV" sweep "$TH" --passes 2 --format json -o th.json --plot th-plot
expect_grep "^zcav: health: suspect: .*throughput fell 60 % \(3000\.[0-9] -> 1199\.[0-9] MB/s\) at 29\.[0-9]{3} GB \(43\.7 %\) in pass 1, 10 s into the run, while the drive warmed from 40 C to 80 C; the other passes read there without the drop: thermal throttling, not a zone" "$ERR" stderr
python3 - th.json <<'PY' || problem "th.json: thermal_drops or temperatures wrong"
import json, sys
d = json.load(open(sys.argv[1]))
drops = d["thermal_drops"]
assert len(drops) == 1, drops
t = drops[0]
block = d["options"]["block_bytes"]
assert t["pass"] == 1 and t["time_effect"] is True, t
assert abs(t["offset_bytes"] - 30e9) <= block, t  # 10 s at 3000 MB/s
assert round(t["from_celsius"]) == 40 and t["to_celsius"] == 80, t
temps = d["temperatures"]
assert d["temperature_source"] == "simulated" and {x["pass"] for x in temps} == {1, 2}, temps[:3]
assert all(temps[i]["seconds"] <= temps[i + 1]["seconds"] for i in range(len(temps) - 1))
PY
TDAT=$(ls th-plot/*.temperature.dat 2>/dev/null | head -n 1)
[[ -n $TDAT ]] || problem "--plot wrote no temperature data"
expect_eq "$(grep -vc '^#' "$TDAT")" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["temperatures"]) + 1)' th.json)" \
  "temperature lines (one per reading and a blank line between the passes)"
expect_grep "axes x1y2 .* title 'drive temperature \(40-80 C, right axis\)'" th-plot/*.gp
check "one pass: the same drop is listed, but cannot be told from a zone edge" 0 \
  "$ZCAV" sweep "$TH" -o "$WORK/th1.dat"
expect_grep "^zcav: health: suspect: temperature reached 80 C .*; throughput fell 60 % .* no other pass read there, so it cannot be told from a zone edge \(read 2 passes to tell\)$" "$ERR" stderr
expect_grep "^# temperature: seconds=[0-9.]+ offset_bytes=[0-9]+ celsius=[0-9.]+ pass=1 source=simulated$" "$WORK/th1.dat"
check "zcav plot reads the temperatures back from the raw file and draws them" 0 \
  "$ZCAV" plot "$WORK/th1.dat" -o th1.png
expect_eq "$(grep -vc '^#' th1.temperature.dat)" "$(grep -c '^# temperature:' "$WORK/th1.dat")" "temperature lines plotted from th1.dat"
check "a drive without a temperature: no trace, no right axis" 0 \
  "$ZCAV" sweep "sim:hdd?size=1G" --block-size 8M --quiet -o hdd.dat --plot hdd-plot
[[ -z $(ls hdd-plot/*.temperature.dat 2>/dev/null) ]] || problem "temperature data plotted for a drive without temperatures"
expect_no_grep "y2label" hdd-plot/*.gp

# ---------------------------------------------------------------------------
# Gates for scripts: --expect (exit 5 below expectations, one line each),
# --max-errors (give up: exit 1), --max-time (stop: exit 0, marked partial).

check "--expect avg above the device's rate: exit 5, the line says both numbers" 5 \
  "$ZCAV" sweep "sim:hdd?size=1G" --block-size 8M --quiet -o g.dat --expect avg=1000000
expect_one_error_line "^zcav: below expectations: average [0-9]+\.[0-9] MB/s is below the expected 1000000 MB/s \(MB = 10\^6 B\)$"
expect_grep '^# status: complete' g.dat
check "--expect avg=1 met: exit 0, nothing said" 0 \
  "$ZCAV" sweep "sim:hdd?size=1G" --block-size 8M --quiet -o g.dat --expect avg=1
expect_stderr_empty
[[ -f g.dat ]] || problem "g.dat not written"
check "--expect: one line per unmet expectation, the health verdict judged" 5 \
  "$ZCAV" sweep "sim:hdd?size=1G&slow=500M+2M" --block-size 8M --quiet \
  --expect "min=1000000,avg=1,health=good"
expect_eq "$(grep -c '^zcav: below expectations: ' "$ERR")" 2 "below-expectations lines"
expect_grep "slowest block [0-9.]+ MB/s is below the expected minimum 1000000 MB/s" "$ERR" stderr
expect_grep "^zcav: below expectations: health suspect is worse than the expected good$" "$ERR" stderr
check "--expect health=suspect on a drive with a slow region: met, exit 0" 0 \
  "$ZCAV" sweep "sim:hdd?size=1G&slow=500M+2M" --block-size 8M --quiet --expect health=suspect
check "--expect health=good on a clean drive: met, exit 0" 0 \
  "$ZCAV" sweep "sim:hdd?size=1G" --block-size 8M --quiet --expect health=good
check "--expect judges unreadable ranges: met max-unreadable is exit 0, not 1" 0 \
  "$ZCAV" sweep "sim:hdd?size=1G&bad=500M+8k" --block-size 1M --quiet -o u.dat --expect max-unreadable=1
expect_one_error_line "1 unreadable region"
check "--expect max-unreadable=0 with an unreadable range: exit 5" 5 \
  "$ZCAV" sweep "sim:hdd?size=1G&bad=500M+8k" --block-size 1M --quiet -o u.dat --expect avg=1,max-unreadable=0
expect_grep "^zcav: below expectations: 1 unreadable range \(8192 bytes\) found, more than the expected 0 at most$" "$ERR" stderr
check "a device gone stays exit 3 with --expect" 3 \
  "$ZCAV" sweep "sim:hdd?size=1G&gone=300M" --block-size 1M -o gone.dat --quiet --expect avg=1
expect_no_grep "below expectations" "$ERR"

check "--max-errors 2 gives up at the second unreadable range: exit 1, data kept" 1 \
  "$ZCAV" sweep "sim:hdd?size=1G&bad=100M+4k,200M+4k,300M+4k&noise=0" --block-size 1M --quiet \
  -o m.dat --max-errors 2 --expect avg=1
expect_grep "^zcav: gave up after 2 unreadable ranges \(--max-errors\) at offset 209715200 bytes" "$ERR" stderr
expect_no_grep "below expectations" "$ERR"
expect_grep '^# status: partial: gave up after 2 unreadable ranges \(--max-errors\)' m.dat.partial
expect_eq "$(grep -c '^# unreadable: ' m.dat.partial)" 2 "unreadable lines"
expect_eq "$(data_count m.dat.partial)" 199 "data lines (blocks 0-199 but the unreadable one)"

check "--max-time stops the sweep on the (virtual) clock: exit 0, marked partial" 0 \
  "$ZCAV" sweep sim:hdd --block-size 64M --quiet -o t.dat --max-time 10s
expect_one_error_line "^zcav: time limit of 10s reached \(--max-time\): [0-9]+ of [0-9]+ blocks measured, written to t.dat.partial \(marked partial\)$"
expect_grep '^# status: partial: time limit of 10s reached \(--max-time\)' t.dat.partial
n=$(data_count t.dat.partial)
[[ $n -ge 8 && $n -le 11 ]] || problem "$n blocks in 10 s at ~60 MB/s of 64 MiB blocks, expected 9 or 10"
# A time-limited result is a partial one: --resume reads the rest.
run "$ZCAV" sweep sim:hdd --block-size 64M --quiet -o t.dat --resume t.dat.partial
expect_exit 0
expect_grep '^# status: complete' t.dat
[[ ! -e t.dat.partial ]] || problem "t.dat.partial left after the resumed sweep completed"
check "--max-time with unmet expectations: exit 5" 5 \
  "$ZCAV" sweep sim:hdd --block-size 64M --quiet --max-time 2m --expect avg=1000
expect_grep "time limit of 2m reached" "$ERR" stderr
expect_grep "^zcav: below expectations: average " "$ERR" stderr

bad_input "--expect with an unknown key" sweep sim:hdd --expect speed=100
expect_grep "unknown key 'speed'" "$ERR" stderr
bad_input "--expect with a bad rate" sweep sim:hdd --expect avg=fast
expect_grep "'fast' is not a rate" "$ERR" stderr
bad_input "--expect empty" sweep sim:hdd --expect ""
bad_input "--expect with a key twice" sweep sim:hdd --expect avg=1,avg=2
bad_input "--expect health=failing" sweep sim:hdd --expect health=failing
bad_input "--expect with two devices" sweep sim:hdd sim:ssd --expect avg=1
bad_input "--max-errors 0" sweep sim:hdd --max-errors 0
bad_input "--max-errors x" sweep sim:hdd --max-errors x
bad_input "--max-time 0" sweep sim:hdd --max-time 0
bad_input "--max-time 5x" sweep sim:hdd --max-time 5x
expect_grep "unknown unit" "$ERR" stderr
bad_input "--max-time -5m" sweep sim:hdd --max-time -5m
profile_bad "--expect with a bad count" sim:hdd --expect max-slow=-1
profile_bad "--max-time garbage" sim:hdd --max-time soon

check "zcav profile --expect below the device: exit 5, says why" 5 \
  "$ZCAV" profile "sim:hdd?size=1G" --quiet -o pe --expect avg=1000000
# (grep, not one line: without gnuplot a profile also warns that it drew no images)
expect_eq "$(grep -c '^zcav: below expectations: ' "$ERR")" 1 "below-expectations lines"
expect_grep "^zcav: below expectations: average [0-9.]+ MB/s is below the expected 1000000 MB/s" "$ERR" stderr
[[ -f pe/profile.json ]] || problem "pe/profile.json not written"
check "zcav profile --expect met: exit 0" 0 \
  "$ZCAV" profile "sim:hdd?size=1G" --quiet -o pe --expect avg=1,max-slow=0
expect_no_grep "below expectations" "$ERR"
# Gates for recorders: worst-stall and sustained on a simulated card (a 64 MiB
# write cache at 90 MB/s, then 30 MB/s; 2 % of the writes stall up to 300 ms).
CARD="sim:ssd?size=512M&noise=0&wcache=64M&wcache_rate=90&wrate=30&hiccups=2%&hiccup=300"
check "--expect worst-stall above a card's stalls, sustained below its rate: met, exit 0" 0 \
  "$ZCAV" sweep --write --destroy-data "$CARD" --block-size 4M --quiet --format json -o card.json \
  --expect worst-stall=400ms,sustained=10MB/s@5s
expect_stderr_empty
# The JSON names the worst stall and the lowest window after the cache also when met.
python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); w=d["worst_stall"]; s=d["sustained"]
assert 0 < w["ms"] < 400 and w["pass"] == 1 and w["offset_bytes"] % 1048576 == 0, w
assert s["window_seconds"] == 5 and s["after_write_cache"] is True, s
assert s["from_bytes"] == 64 * 1048576 and s["offset_bytes"] >= s["from_bytes"], s
assert 10 <= s["mb_per_s"] < 30 and s["timed_seconds"] > 5, s' card.json 2>"$WORK/py.err" ||
  problem "card.json: $(tail -n 1 "$WORK/py.err")"
stall_at=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["worst_stall"]["offset_bytes"])' card.json)
check "--expect worst-stall below a card's stalls: exit 5, one line naming where and when" 5 \
  "$ZCAV" sweep --write --destroy-data "$CARD" --block-size 4M --quiet --expect worst-stall=100ms
expect_one_error_line "^zcav: below expectations: worst stall [0-9]+\.[0-9] ms at [0-9.]+ MiB \($stall_at bytes\), [0-9]+\.[0-9] s into the run \(pass 1\), a request of 1 MiB, is longer than the expected 100 ms at most$"
check "--expect sustained above a card's rate after its cache: exit 5, one line naming the window" 5 \
  "$ZCAV" sweep --write --destroy-data "$CARD" --block-size 4M --quiet --expect sustained=35MB/s@5s
expect_one_error_line "^zcav: below expectations: lowest rate over 5 s [0-9]+\.[0-9] MB/s, in the window from [0-9.]+ MiB \([0-9]+ bytes\), [0-9]+\.[0-9] s into the run \(pass 1\), is below the expected sustained 35 MB/s \(MB = 10\^6 B\); counted after the write cache, from 64\.00 MiB \(67108864 bytes\)$"
check "--expect sustained in MiB/s on a read sweep: the whole run counts" 5 \
  "$ZCAV" sweep "sim:ssd?size=512M&noise=0" --block-size 4M --quiet --expect sustained=1000MiB/s@1s
expect_one_error_line "^zcav: below expectations: lowest rate over 1 s [0-9]+\.[0-9] MiB/s, in the window from .* is below the expected sustained 1000 MiB/s \(MiB = 2\^20 B\)$"
bad_input "--expect worst-stall without a unit" sweep sim:hdd --expect worst-stall=500
expect_grep "'500' has no unit: give the stall in ms or s" "$ERR" stderr
bad_input "--expect worst-stall with an unknown unit" sweep sim:hdd --expect worst-stall=2m
bad_input "--expect sustained without a rate unit" sweep sim:hdd --expect sustained=30@10s
expect_grep "'30' has no unit: give MB/s \(10\^6 B/s\) or MiB/s" "$ERR" stderr
bad_input "--expect sustained without a window" sweep sim:hdd --expect sustained=30MB/s
expect_grep "is not RATE@WINDOW" "$ERR" stderr
bad_input "--expect worst-stall with --adaptive" sweep sim:hdd --adaptive --expect worst-stall=1s
bad_input "--expect sustained on a write sweep without zones" \
  sweep --write --destroy-data sim:ssd --no-zones --expect sustained=1MB/s@1s
expect_grep "drop --no-zones" "$ERR" stderr
profile_bad "--expect worst-stall=0ms" sim:hdd --expect worst-stall=0ms
check "zcav profile --expect worst-stall below its read stalls: exit 5" 5 \
  "$ZCAV" profile "sim:ssd?size=1G&hiccups=1%&hiccup=300" --full --quiet -o pw --expect worst-stall=50ms
expect_eq "$(grep -c '^zcav: below expectations: worst stall ' "$ERR")" 1 "worst-stall lines"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["worst_stall"]["ms"] > 50 and d["sustained"]["after_write_cache"] is False, d["worst_stall"]' \
  pw/profile.json 2>"$WORK/py.err" || problem "pw/profile.json: $(tail -n 1 "$WORK/py.err")"
check "zcav verify --expect on a card with stalls: met, the worst stall and sustained rate said" 0 \
  "$ZCAV" verify "$CARD" --destroy-data --quiet --expect worst-stall=400ms,sustained=10MB/s@5s
expect_grep "^worst write stall: [0-9.]+ ms at [0-9.]+ MiB" "$OUT" stdout
expect_grep "^sustained write: [0-9.]+ MB/s, the lowest over 5 s, .*after the write cache, which ends at 64.0 MiB" "$OUT" stdout
check "zcav verify --expect above the card: exit 5, a line for each gate" 5 \
  "$ZCAV" verify "$CARD" --destroy-data --quiet --format json -o vg.json \
  --expect worst-stall=100ms,sustained=35MB/s@5s
expect_eq "$(grep -c '^zcav: below expectations: ' "$ERR")" 2 "lines below expectations"
python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["verify"]; assert v["verdict"] == "genuine" and v["worst_stall"]["ms"] > 100 and v["sustained"]["after_write_cache"] and 10 < v["sustained"]["mb_per_s"] < 35, v["sustained"]' \
  vg.json 2>"$WORK/py.err" || problem "vg.json: $(tail -n 1 "$WORK/py.err")"
check "zcav verify --expect on a fake: not genuine (6) wins over the gate" 6 \
  "$ZCAV" verify "sim:ssd?size=512M&real=128M&hiccups=2%&hiccup=300" --destroy-data --quiet \
  --expect worst-stall=100ms
bad_input "zcav verify --expect min=" verify sim:ssd --destroy-data --expect min=10
expect_grep "judges the write pass" "$ERR" stderr
bad_input "zcav verify --quick --expect" verify sim:ssd --destroy-data --quick --expect worst-stall=1s
check "zcav profile --max-time: the sweep stops, exit 0, marked partial" 0 \
  "$ZCAV" profile "sim:hdd?size=4G" --full --quiet -o pt --max-time 10s
expect_grep "^zcav: time limit of 10s reached \(--max-time\); what was measured is in pt/" "$ERR" stderr
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["partial"] is True and d["status"]=="partial: time limit of 10s reached (--max-time)" and d["sweep"]["status"]==d["status"], d["status"]' \
  pt/profile.json 2>"$WORK/py.err" || problem "pt/profile.json: $(tail -n 1 "$WORK/py.err")"
check "zcav profile --max-errors 1: gives up, exit 1" 1 \
  "$ZCAV" profile "sim:hdd?size=1G&bad=600M+4k" --full --quiet -o pm --max-errors 1
expect_grep "gave up after 1 unreadable range \(--max-errors\)" "$ERR" stderr

# ---------------------------------------------------------------------------
# --events: newline-delimited JSON events while the run goes on.

check "bad input: --events - with the result on stdout" 2 \
  "$ZCAV" sweep "sim:hdd?size=1G" --events -
expect_one_error_line
expect_stdout_empty
expect_no_new_files
expect_grep "cannot share stdout" "$ERR" stderr
bad_input "--events with several devices" sweep sim:hdd sim:ssd --events ev.jsonl
bad_input "--events naming the result file" sweep sim:hdd --events OUT

check "--events - writes one parseable event per line on stdout, result in -o FILE" 0 \
  "$ZCAV" sweep "sim:hdd?size=1G" --events - -o r.json --format json --quiet
python3 - "$OUT" r.json <<'PY' 2>"$WORK/py.err" || problem "events: $(tail -n 1 "$WORK/py.err")"
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
names = [e["event"] for e in events]
assert names[0] == "start" and names[-1] == "done", names
assert all(e["schema_version"] == "1.0" for e in events)
doc = json.load(open(sys.argv[2]))
blocks = [e for e in events if e["event"] == "block"]
assert [b["offset_bytes"] for b in blocks] == [b["offset_bytes"] for b in doc["blocks"]]
assert events[0]["device"]["size_bytes"] == doc["device"]["size_bytes"]
assert "zones" in names and "pass_start" in names and "pass_end" in names, names
assert events[-1]["exit_code"] == 0 and events[-1]["status"] == "complete", events[-1]
PY

check "--events FILE: unreadable ranges as events, done carries exit code 1" 1 \
  "$ZCAV" sweep "sim:hdd?size=1G&bad=600M+4k" --events ev.jsonl -o r.dat --quiet
python3 - ev.jsonl <<'PY' 2>"$WORK/py.err" || problem "ev.jsonl: $(tail -n 1 "$WORK/py.err")"
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
bad = [e for e in events if e["event"] == "unreadable"]
assert bad and bad[0]["offset_bytes"] <= 600 * 2**20 < bad[0]["offset_bytes"] + bad[0]["length_bytes"] + 4096, bad
assert events[-1]["event"] == "done" and events[-1]["exit_code"] == 1, events[-1]
PY
# A run killed mid-way: the lines up to the middle and half of the next one.
if [[ -f ev.jsonl ]]; then
  half=$(($(wc -l <ev.jsonl) / 2))
  { head -n "$half" ev.jsonl; sed -n "$((half + 1))p" ev.jsonl | head -c 40; } >"$WORK/cut.jsonl"
fi
check "zcav zones reads an events file cut off mid-run (a cut last line too)" 0 \
  "$ZCAV" zones "$WORK/cut.jsonl" --format json
python3 - "$OUT" "$WORK/cut.jsonl" <<'PY' 2>"$WORK/py.err" || problem "zones of cut events: $(tail -n 1 "$WORK/py.err")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["zones"], doc
ends = [json.loads(line) for line in open(sys.argv[2]) if line.startswith('{"event":"block"') and line.endswith("}\n")]
ends = [e["offset_bytes"] + e["length_bytes"] for e in ends]
assert ends and doc["zones"][-1]["end_bytes"] == ends[-1], (doc["zones"][-1], ends[-1])
assert ends[-1] < 2**30, "not cut off"
PY
check "zcav report reads an events file cut off mid-run" 0 \
  "$ZCAV" report "$WORK/cut.jsonl" -o cut.md -q
[[ -s cut.md ]] || problem "cut.md not written"

# SIGKILL (a scheduler's timeout) in the first of three passes: no block
# events yet, and the samples so far still read as a curve.
begin "zcav zones reads the events of a 3-pass run killed (SIGKILL) in its first pass"
"$ZCAV" sweep "sim:hdd?size=1G&pace=2" --passes 3 --block-size 16M -o killed.dat --quiet \
  --events killed.jsonl >"$OUT" 2>"$ERR" &
BG_PID=$!
for ((i = 0; i < 300; i++)); do
  [[ $(grep -c '^{"event":"sample"' killed.jsonl 2>/dev/null) -ge 10 ]] && break
  sleep 0.1
done
kill -0 "$BG_PID" 2>/dev/null || problem "zcav finished before it could be killed"
kill -KILL "$BG_PID" 2>/dev/null
{ wait "$BG_PID"; } 2>/dev/null  # no "Killed" note from bash
BG_PID=""
! grep -q '^{"event":"block"' killed.jsonl || problem "block events before the last pass"
"$ZCAV" zones killed.jsonl --format json >"$OUT" 2>"$ERR" || problem "zcav zones failed: $(head -n 1 "$ERR")"
python3 - "$OUT" killed.jsonl <<'PY' 2>"$WORK/py.err" || problem "zones of killed events: $(tail -n 1 "$WORK/py.err")"
import json, sys
doc = json.load(open(sys.argv[1]))
samples = [json.loads(line) for line in open(sys.argv[2]) if line.startswith('{"event":"sample"') and line.endswith("}\n")]
assert len(samples) >= 10 and all(s["pass"] == 1 for s in samples), len(samples)
end = max(s["offset_bytes"] + s["length_bytes"] for s in samples)
assert doc["zones"] and doc["zones"][-1]["end_bytes"] == end, (doc["zones"][-1], end)
assert end < 2**30, "not cut off"
PY

check "zcav profile --events -: events on stdout, done with the exit code" 0 \
  "$ZCAV" profile "sim:hdd?size=1G" --quiet -o pev --events -
python3 - "$OUT" <<'PY' 2>"$WORK/py.err" || problem "profile events: $(tail -n 1 "$WORK/py.err")"
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
assert events[0]["event"] == "start" and events[-1]["event"] == "done", events[-1]
assert events[-1]["exit_code"] == 0
assert any(e["event"] == "block" for e in events)
PY
[[ -f pev/profile.json ]] || problem "pev/profile.json not written"

# ---------------------------------------------------------------------------
# The write cache of a simulated SSD: 20 GB at 1500 MB/s, then 450 MB/s (and
# with a folding phase between).

check "a write sweep of an SSD finds its 20 GB cache at 1500 MB/s and the 450 MB/s after it" 0 \
  "$ZCAV" sweep --write --destroy-data "sim:ssd?size=64G&wcache=20GB&wcache_rate=1500&wrate=450" \
  --format json -o wc.json -q
cp wc.json "$WORK/wc.json"
python3 - wc.json <<'PY' 2>"$WORK/py.err" || problem "$(tail -n 1 "$WORK/py.err")"
import json, sys
w = json.load(open(sys.argv[1]))["write_cache"]
assert abs(w["size_bytes"] / 20e9 - 1) <= 0.02, w["size_bytes"]
assert abs(w["in_cache_mb_per_s"] / 1500 - 1) <= 0.03, w["in_cache_mb_per_s"]
assert abs(w["after_cache_mb_per_s"] / 450 - 1) <= 0.03, w["after_cache_mb_per_s"]
assert [p["name"] for p in w["phases"]] == ["cache", "sustained"], w["phases"]
PY
check "the plot of a write sweep: x = data written, the write cache's cliff marked" 0 \
  "$ZCAV" plot "$WORK/wc.json" -o wc.svg -q
expect_grep "^set xlabel 'data written \(GB, 10\^9 B\)'" wc.gp
expect_grep "^set arrow from (19|20)\.[0-9]+, graph 0 to .*# the write cache's cliff" wc.gp
expect_grep "write cache ends: 20\.[0-9] GB at 1[45][0-9][0-9] MB/s, then 4[0-9][0-9] MB/s" wc.gp
check "zcav zones of a saved write sweep says its write cache" 0 "$ZCAV" zones "$WORK/wc.json"
expect_grep '^write cache: 20\.[0-9] GB at 1[45][0-9][0-9] MB/s, then 4[0-9][0-9] MB/s sustained' "$OUT"
check "a write sweep with a folding phase gives three phases" 0 \
  "$ZCAV" sweep --write --destroy-data \
  "sim:ssd?size=64G&wcache=20GB&wcache_rate=1500&wrate=450&fold=10GB&fold_rate=200" \
  --format json -o fold.json -q
python3 - fold.json <<'PY' 2>"$WORK/py.err" || problem "$(tail -n 1 "$WORK/py.err")"
import json, sys
w = json.load(open(sys.argv[1]))["write_cache"]
names = [p["name"] for p in w["phases"]]
assert names == ["cache", "folding", "sustained"], names
f = w["phases"][1]
assert abs((f["end_bytes"] - f["start_bytes"]) / 10e9 - 1) <= 0.02, f
assert abs(f["mb_per_s"] / 200 - 1) <= 0.03, f
assert abs(w["after_cache_mb_per_s"] / 450 - 1) <= 0.03, w["after_cache_mb_per_s"]
PY
check "--idle-probe: after 2 s idle at 500 MB/s of recovery, 1 GB of the cache is back" 0 \
  "$ZCAV" sweep --write --destroy-data \
  "sim:ssd?size=64G&wcache=20GB&wcache_rate=1500&wrate=450&recover=500" --format json \
  -o probe.json -q --idle-probe 2s
got=$(sed -nE 's/^zcav: write cache after 2s idle: ([0-9.]+) GB of ([0-9.]+) GB came back.*/\1 \2/p' "$ERR")
python3 -c 'import sys; r, c = map(float, sys.argv[1:3]); assert abs(r - 1.0) <= 0.1 and abs(c / 20 - 1) <= 0.02' \
  $got 2>/dev/null || problem "the probe's line says '$got', not about 1 GB of 20 GB: $(tail -n 1 "$ERR")"
python3 - probe.json <<'PY' 2>"$WORK/py.err" || problem "$(tail -n 1 "$WORK/py.err")"
import json, sys
r = json.load(open(sys.argv[1]))["write_cache"]["recovery"]
assert r["idle_seconds"] == 2 and not r["at_least"], r
assert abs(r["regained_bytes"] / 1e9 - 1) <= 0.1, r
assert r["probe_bytes"] > r["regained_bytes"] and abs(r["mb_per_s"] / 1500 - 1) <= 0.03, r
PY
check "--discard on a simulated SSD empties its cache first and says so" 0 \
  "$ZCAV" sweep --write --destroy-data --discard \
  "sim:ssd?size=8G&wcache=2GB&wcache_rate=1500&wrate=450" --format json -o discard.json
expect_grep "^zcav: discarded .* [(]the whole device[)]" "$ERR"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any("discarded" in n for n in d["device"]["notes"]); assert abs(d["write_cache"]["size_bytes"] / 2e9 - 1) <= 0.02' \
  discard.json 2>/dev/null || problem "the discarded sweep's JSON lacks the note or its 2 GB cache"
check "bad input: --discard on a device that cannot discard" 2 \
  "$ZCAV" sweep --write --destroy-data --discard "sim:hdd?size=1G" -o nodiscard.dat
expect_one_error_line "cannot discard"
expect_no_new_files
check "bad input: --discard without --write" 2 "$ZCAV" sweep "sim:ssd?size=1G" --discard
expect_one_error_line "goes with --write"
check "bad input: --discard with a file zcav creates" 2 \
  "$ZCAV" sweep --write --destroy-data --discard --fill 10% "$WORK"
expect_one_error_line "nothing to discard"
check "bad input: --fill without --write" 2 "$ZCAV" sweep "$WORK" --fill 10%
expect_one_error_line "goes with --write"
for bad in 96% 0.5% 50 abc% ""; do
  check "bad input: --fill '$bad'" 2 "$ZCAV" sweep --write --destroy-data --fill "$bad" "$WORK"
  expect_one_error_line "is not a share of the free space from 1% to 95%"
done
check "bad input: --fill and --create-size" 2 \
  "$ZCAV" sweep --write --destroy-data --fill 10% --create-size 1G "$WORK/new"
expect_one_error_line "not both"
check "bad input: --fill on a simulated device" 2 \
  "$ZCAV" sweep --write --destroy-data --fill 10% "sim:ssd?size=1G"
expect_one_error_line "simulated device"

# Random access by size and queue depth.
check "zcav access --sizes --queue-depth: one cell per size and depth" 0 \
  "$ZCAV" access "sim:ssd?size=8G" --sizes 4k,64k,1M --queue-depth 1,4,32 --cell-time 0.2s \
  --format json -o ra.json
RANDOM_JSON=$DIR/ra.json
python3 - ra.json <<'PY' 2>"$WORK/py.err" || problem "$(tail -n 1 "$WORK/py.err")"
import json, sys
r = json.load(open(sys.argv[1]))["random_access"]
cells = [(c["size_bytes"], c["queue_depth"]) for c in r["cells"]]
assert cells == [(s, d) for s in (4096, 65536, 1 << 20) for d in (1, 4, 32)], cells
for c in r["cells"]:
    assert c["engine_depth"] == 1 and c["ops"] > 0, c
    assert abs(c["iops"] * c["seconds"] - c["ops"]) < 1e-6 * c["ops"] + 1e-9, c
    assert c["p50_ms"] <= c["p99_ms"] <= c["max_ms"], c
assert r["mode"] == "read" and r["seconds_per_cell"] == 0.2
PY
check "zcav access --sizes as a table marks the depths a simulated device cannot keep" 0 \
  "$ZCAV" access "sim:ssd?size=8G" --sizes 4k --queue-depth 1,32 --cell-time 0.2s
expect_grep "^ +size +depth +IOPS +MB/s +mean ms +p50 ms +p99 ms +max ms" "$OUT"
expect_grep "^ +4k +32\* " "$OUT"
expect_grep "^\* sim keeps one request in flight at a time" "$OUT"
check "zcav plot --kind random draws IOPS and latency against size, a line per depth" 0 \
  "$ZCAV" plot --kind random "$RANDOM_JSON" -o grid.svg -q
# A block per depth (1, 4, 32), each with the three sizes in order.
expect_eq "$(grep -vc '^#' grid-1.random.dat)" 13 "lines of grid-1.random.dat (9 cells, 4 blank)"
expect_eq "$(awk '!/^#/ && NF {print $1 "/" $2}' grid-1.random.dat | tr '\n' ' ')" \
  "4096/1 65536/1 1048576/1 4096/4 65536/4 1048576/4 4096/32 65536/32 1048576/32 " \
  "sizes and depths of grid-1.random.dat"
expect_grep "title\[3\] = 'depth 32 \(engine kept 1\)'" grid.gp
if [[ $HAVE_GNUPLOT -eq 1 ]]; then
  expect_grep "IOPS \(requests per second\)" grid.svg
  expect_grep "64 KiB" grid.svg
fi
check "bad input: a random access plot of a sweep result" 2 \
  "$ZCAV" plot --kind random "$WORK/plot-hdd.dat" -o x.png
expect_one_error_line "no random access results"
check "zcav access --sizes --write --destroy-data: random writes, mode write" 0 \
  "$ZCAV" access "sim:ssd?size=8G" --sizes 4k,1M --queue-depth 1 --cell-time 0.2s --write \
  --destroy-data --format json -o rw.json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["random_access"]; assert r["mode"]=="write" and r["engine"]=="sim" and len(r["cells"])==2, r' \
  rw.json || problem "rw.json is not a random write result"
check "bad input: random writes without --destroy-data" 2 "$ZCAV" access "sim:ssd?size=1G" --sizes 4k --write
expect_one_error_line "add --destroy-data"
check "bad input: --write without --sizes (the access time only reads)" 2 \
  "$ZCAV" access "sim:ssd?size=1G" --write --destroy-data
expect_one_error_line "give --sizes"
check "bad input: --destroy-data without --write" 2 "$ZCAV" access "sim:ssd?size=1G" --sizes 4k --destroy-data
expect_one_error_line "goes with --write"
printf 'precious' >"$WORK/precious.bin"
check "bad input: random writes to an existing file zcav did not create" 2 \
  "$ZCAV" access "$WORK/precious.bin" --sizes 512 --write --destroy-data
expect_one_error_line "a regular file zcav did not create"
expect_eq "$(cat "$WORK/precious.bin")" precious "the existing file's content"
check "bad input: --sizes with an empty item" 2 "$ZCAV" access "sim:ssd?size=1G" --sizes 4k,,1M
expect_one_error_line "empty item"
check "bad input: --queue-depth 0" 2 "$ZCAV" access "sim:ssd?size=1G" --queue-depth 1,0
expect_one_error_line "queue depth"
check "bad input: --sizes with --samples" 2 "$ZCAV" access "sim:ssd?size=1G" --sizes 4k --samples 5
expect_one_error_line "one or the other"
check "bad input: a size larger than the device" 2 "$ZCAV" access "sim:ssd?size=1M" --sizes 2M
expect_one_error_line "larger than"
check "bad input: --idle-probe without --write" 2 "$ZCAV" sweep "sim:ssd?size=1G" --idle-probe 5s
expect_one_error_line "goes with --write"
check "a read sweep has no write cache" 0 "$ZCAV" sweep "sim:ssd?size=8G&wcache=2G" --format json -o r.json -q
python3 -c 'import json,sys; assert "write_cache" not in json.load(open(sys.argv[1]))' r.json ||
  problem "write_cache in a read sweep"

# ---------------------------------------------------------------------------
# zcav merge: 24 simulated drives of one model, two of them weak in different
# regions, and 6 of another model.

FLEET="$WORK/fleet"
mkdir -p "$FLEET"
for i in $(seq 1 24); do
  weak=""
  [[ $i == 5 ]] && weak="&weak=40%-60%:0.8"
  [[ $i == 17 ]] && weak="&weak=75%-90%:0.7"
  "$ZCAV" sweep "sim:hdd?size=4G&seed=$i$weak" --format json -o "$FLEET/hdd-$i.json" -q
done
for i in $(seq 1 6); do "$ZCAV" sweep "sim:ssd?size=2G&seed=$i" -o "$FLEET/ssd-$i.dat" -q; done
check "zcav merge DIR -o OUT.json groups by model and flags exactly the two weak drives" 0 \
  "$ZCAV" merge "$FLEET" -o fleet.json
python3 - fleet.json <<'PY' 2>"$WORK/py.err" || problem "$(tail -n 1 "$WORK/py.err")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["format"] == "zcav-merge" and doc["schema_version"] == "1.0"
sizes = sorted(g["drives"] for g in doc["groups"])
assert sizes == [6, 24], sizes
flagged = [d for d in doc["drives"] if d["flagged"]]
names = sorted(d["name"].split("/")[-1] for d in flagged)
assert names == ["SIM-HDD-17", "SIM-HDD-5"], names
assert doc["drives"][0]["flagged"] and doc["drives"][1]["flagged"], "flagged drives not first"
regions = {d["name"].split("/")[-1]: d["worst_region"] for d in flagged}
r = regions["SIM-HDD-5"]
assert abs(r["start_percent"] - 40) <= 1 and abs(r["end_percent"] - 60) <= 1, r
assert abs(r["ratio"] - 0.8) < 0.02, r
r = regions["SIM-HDD-17"]
assert abs(r["start_percent"] - 75) <= 1 and abs(r["end_percent"] - 90) <= 1, r
assert abs(r["ratio"] - 0.7) < 0.02, r
assert any("between 40 and 60 % of the surface" in x for x in flagged[1]["reasons"] + flagged[0]["reasons"])
PY
expect_grep 'SIM-HDD-5: 20 % below its 23 siblings between 40 and 60 % of the surface' "$ERR"
expect_grep '30 drives in 2 groups, 2 flagged' "$ERR"
check "zcav merge FILES -o OUT.csv: one line per drive, worst first" 0 \
  "$ZCAV" merge "$FLEET"/hdd-*.json -o fleet.csv -q
[[ $(wc -l <fleet.csv) -eq 25 ]] || problem "fleet.csv has $(wc -l <fleet.csv) lines, not 25"
sed -n 2,3p fleet.csv | grep -c ',yes,' | grep -qx 2 || problem "the first two rows are not the flagged drives"
check "zcav merge -o OUT.html: one page with the table and a plot per group" 0 \
  "$ZCAV" merge "$FLEET" -o fleet.html -q
expect_grep 'class="flagged"' fleet.html
if command -v gnuplot >/dev/null; then
  [[ $(grep -c '<svg' fleet.html) -eq 2 ]] || problem "fleet.html has not 2 plots"
fi
check "zcav merge -o OUT.md: the table, and the group plots beside it" 0 \
  "$ZCAV" merge "$FLEET" -o fleet.md -q
expect_grep '^\| [^|]*SIM-HDD-17 \| .* \| yes \|' fleet.md
if command -v gnuplot >/dev/null; then
  [[ -s fleet-1.png && -s fleet-2.png && -s fleet-1.gp ]] || problem "fleet-N.png/.gp not written"
fi
check "-o and --events templates: {host}, {serial} and {date} name the files" 0 \
  "$ZCAV" sweep "sim:hdd?size=1G&seed=41" -q -o '{host}-{serial}-{date}.json' --format json \
  --events '{serial}.events'
want_name="$(uname -n | sed 's/[^A-Za-z0-9._-]/_/g')-SIM-HDD-41-$(date -u +%F).json"
[[ -s $want_name ]] || problem "$want_name not written ($(ls | tr '\n' ' '))"
[[ -s SIM-HDD-41.events ]] || problem "SIM-HDD-41.events not written"
check "zcav profile -o 'p-{serial}': the profile's directory named by the drive" 0 \
  "$ZCAV" profile "sim:ssd?size=1G&seed=42" -q -o 'p-{serial}'
[[ -s p-SIM-SSD-42/profile.json ]] || problem "p-SIM-SSD-42/profile.json not written"
check "bad input: an unknown {key} in -o" 2 "$ZCAV" sweep "sim:hdd?size=1G" -o '{colour}.dat'
expect_one_error_line "unknown \{colour\}"
expect_no_new_files
bad_input "merge without a results file" merge
check "bad input: merge -o OUT.txt" 2 "$ZCAV" merge "$FLEET" -o fleet.txt
expect_one_error_line "unknown format"
expect_no_new_files
check "bad input: merge of a file that is not a result" 2 "$ZCAV" merge "$TESTS/zcav_schema.py" -o f.json
expect_one_error_line
expect_no_new_files
mkdir -p "$WORK/empty-fleet"
check "bad input: merge of a directory without results" 2 "$ZCAV" merge "$WORK/empty-fleet" -o f.json
expect_one_error_line "no results found"
expect_no_new_files

# ---------------------------------------------------------------------------
# Every JSON the commands above wrote validates against schema/.

begin "every JSON the commands above wrote validates against schema/"
if [[ ! -s $KEPT_JSON_DIR/list ]]; then
  problem "no JSON output was kept (the collection in run() is broken)"
else
  python3 "$TESTS/zcav_schema.py" "$TESTS/../schema" --list "$KEPT_JSON_DIR/list" >"$OUT" 2>"$ERR"
  RC=$?
  if [[ $RC -eq 77 ]]; then
    SKIPPED=$((SKIPPED + 1))
    echo "skip - python3-jsonschema is not installed"
    CASE=""
  elif [[ $RC -ne 0 ]]; then
    problem "$(tail -n 1 "$OUT")"
    while IFS= read -r line; do problem "$line"; done < <(grep '^FAIL:' "$OUT" | head -n 20)
  else
    echo "    $(tail -n 1 "$OUT")"
  fi
fi

finish_case
cd /
[[ $SKIPPED -eq 0 ]] || echo "($SKIPPED skipped)"
echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 ]]
