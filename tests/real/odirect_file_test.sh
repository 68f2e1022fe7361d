#!/usr/bin/env bash
# Real-I/O test: zcav reads a regular file on a disk file system with O_DIRECT.
# The file is put in the page cache first; the sweep must still fetch every
# pass from storage (summary.storage_read_bytes, from /proc/self/io), measure
# the trailing partial block, run at no less than a third of dd iflag=direct's
# rate, and have block times that add up to its reading time,
# with the default engine (io_uring, several reads in flight) and with
# --engine pread (one read at a time). Then zcav's clock against the
# script's (clock_check). Under ZCAV_REQUIRE_ALL=1 the default engine must
# be io_uring (no pread fallback).
#
# Usage: bash odirect_file_test.sh /path/to/zcav
# Exit: 0 pass, 1 fail. Needs no root and never skips: a machine without a
# file system that supports O_DIRECT fails it. Set ZCAV_REAL_TEST_DIR to pick
# the directory (default: the first of $TMPDIR, /var/tmp, /tmp that takes
# O_DIRECT reads). Needs python3 (to read the JSON output).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly ZCAV=${1:?usage: odirect_file_test.sh /path/to/zcav}
readonly BLOCK_MIB=16
readonly SIZE_BYTES=$((200 * 1024 * 1024 + 12 * 1024))  # last 16M block is partial
readonly PASSES=2
readonly DD_FACTOR=3   # zcav's average at least dd's / 3 (shared machine)

require_zcav "$ZCAV"

WORK=""
cleanup() {
  local rc=$?
  set +e
  stop_started
  [[ -n $WORK ]] && rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

BASE=$(pick_dir) ||
  fail "no directory among \$ZCAV_REAL_TEST_DIR, \$TMPDIR, /var/tmp, /tmp supports O_DIRECT reads"
WORK=$(mktemp -d "$BASE/zcav-odirect-XXXXXX")
readonly FILE=$WORK/data.bin
echo "directory $WORK ($(stat -f -c %T "$WORK"))"

# Real data (not fallocate: reads of unwritten extents never reach the disk),
# synced so no dirty page stands between zcav and the disk.
head -c "$SIZE_BYTES" /dev/urandom > "$FILE"
sync "$FILE" 2>/dev/null || sync
# Put the whole file in the page cache: a buffered reader would now run at RAM speed.
cat "$FILE" > /dev/null

# run_and_check ENGINE ARGS...: sweeps the file with ARGS and checks the result.
run_and_check() {
  local engine=$1 out=$WORK/out-$1.json
  shift
  ZCAV_RC=0
  run_and_wait "$ZCAV" sweep "$FILE" --block-size "${BLOCK_MIB}M" --passes "$PASSES" \
    --format json -o "$out" --quiet "$@" || ZCAV_RC=$?
  [[ $ZCAV_RC -eq 0 ]] || fail "zcav sweep $FILE $* exited with $ZCAV_RC"
  [[ -s $out ]] || fail "zcav wrote no output to $out"
  python3 - "$out" "$SIZE_BYTES" "$BLOCK_MIB" "$PASSES" "$DD_FACTOR" "$DD_LINE" "$engine" <<'EOF'
import json, os, re, sys

path, size, block_mib, passes, factor, dd_line, engine = sys.argv[1:]
size, block, passes, factor = int(size), int(block_mib) << 20, int(passes), float(factor)
doc = json.load(open(path))
errors = []

dev = doc["device"]
if dev.get("direct_io") is not True:
    errors.append(f"device.direct_io is {dev.get('direct_io')!r}: O_DIRECT was not used "
                  f"(notes: {dev.get('notes')})")
if dev.get("kind") != "file":
    errors.append(f"device.kind is {dev.get('kind')!r}, expected 'file'")
if dev.get("size_bytes") != size:
    errors.append(f"device.size_bytes is {dev.get('size_bytes')}, expected {size}")
opts = doc["options"]
if engine == "io_uring" and opts.get("engine") == "pread" and any(
        "io_uring unavailable" in n for n in dev.get("notes", [])):
    if os.environ.get("ZCAV_REQUIRE_ALL") == "1":
        errors.append(f"io_uring unavailable ({dev['notes']}): the default engine was not "
                      f"tested, and ZCAV_REQUIRE_ALL=1 requires it")
    else:
        print(f"note: io_uring unavailable here ({dev['notes']}): read with pread")
elif opts.get("engine") != engine:
    errors.append(f"options.engine is {opts.get('engine')!r}, expected {engine!r}")
if engine == "pread" and opts.get("queue_depth") != 1:
    errors.append(f"options.queue_depth is {opts.get('queue_depth')!r} with pread, expected 1")
if doc.get("status") != "complete" or doc.get("partial") is not False:
    errors.append(f"status {doc.get('status')!r}, partial {doc.get('partial')!r}")

# Blocks tile [0, size), the last one partial, each read on every pass.
blocks = doc["blocks"]
pos = 0
for b in blocks:
    if b["offset_bytes"] != pos:
        errors.append(f"block at {b['offset_bytes']} leaves a gap or overlap (expected {pos})")
    pos = b["offset_bytes"] + b["length_bytes"]
    if b["passes"] != passes:
        errors.append(f"block at {b['offset_bytes']} has {b['passes']} passes, expected {passes}")
if pos != size:
    errors.append(f"blocks end at {pos}, expected {size}")
expected_last = size % block
if not blocks or blocks[-1]["length_bytes"] != expected_last:
    errors.append(f"last block is {blocks[-1]['length_bytes'] if blocks else None} bytes, "
                  f"expected the partial {expected_last}")

# Every pass came from storage, though the file was in the page cache.
summary = doc["summary"]
storage = summary.get("storage_read_bytes")
if storage is None:
    errors.append("summary.storage_read_bytes is unknown (/proc/self/io unreadable?)")
elif storage < 2 * size * 0.99:
    errors.append(f"storage_read_bytes {storage} < 99% of {passes} x {size}: "
                  f"passes were served from the page cache")

m = re.match(r"(\d+) bytes .* copied, ([0-9.]+) s", dd_line)
if not m or float(m.group(2)) <= 0:
    errors.append(f"cannot parse dd's output: {dd_line!r}")
    dd_rate = None
else:
    dd_rate = int(m.group(1)) / float(m.group(2)) / 1e6
avg = summary["avg_mb_per_s"]
# Not slower than dd by more than the factor. Faster is the point: reads in
# flight, on huge-page buffers (dd's are 4 KiB pages), can be several times
# dd's rate on a virtual disk, so the bound on the other side is the clock:
# the block times add up to the reading time (none dropped to inflate a rate).
if dd_rate is not None and avg < dd_rate / factor:
    errors.append(f"zcav average {avg:.1f} MB/s is below dd iflag=direct's {dd_rate:.1f} MB/s "
                  f"/ {factor:g}")
read_s, wall_s = summary.get("seconds", 0), summary.get("wall_seconds", 0)
if not (0.5 * wall_s <= read_s <= wall_s):
    errors.append(f"summary.seconds {read_s} (the sum of the block times) is not between half "
                  f"and all of the sweep's wall_seconds {wall_s}")

figures = ", ".join(f"pass {p['pass']}: {p['mb_per_s']:.1f} MB/s" for p in doc["passes"])
print(f"zcav ({opts.get('engine')}, queue depth {opts.get('queue_depth')}): {figures}, average {avg:.1f} MB/s ({summary.get('cpu_percent', 0):.0f}% cpu); "
      f"dd iflag=direct: {dd_rate:.1f} MB/s" if dd_rate else f"zcav: {figures}")
print(f"storage_read_bytes {storage} for {passes} x {size} bytes; "
      f"{len(blocks)} blocks, last {blocks[-1]['length_bytes'] if blocks else 0} bytes")
if errors:
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    sys.exit(1)
print("PASS")
EOF
}

# dd's O_DIRECT rate on the same file, for comparison: "N bytes (...) copied, S s, ...".
DD_LINE=$(LC_ALL=C dd if="$FILE" of=/dev/null bs="${BLOCK_MIB}M" iflag=direct 2>&1 | tail -n 1)

# The default engine (io_uring, reads in flight by the disk's class), then
# pread one chunk at a time: both must fetch every pass from storage.
run_and_check io_uring
run_and_check pread --engine pread

# zcav's clock against this script's: enough passes for a sweep of about a
# second or more (at three times dd's rate), timed from outside the process. The
# sweep's wall_seconds lies inside the process's lifetime (at most it, a
# few ms of start-up less: 0.99 of it measured on an idle machine), and its
# average cannot be below the bytes it read over that lifetime. A clock
# running 1.5x fast or slow fails one side or the other.
clock_check() {
  local passes out=$WORK/out-clock.json t0 t1
  passes=$(python3 -c 'import math, re, sys
m = re.match(r"(\d+) bytes .* copied, ([0-9.]+) s", sys.argv[1])
rate = int(m.group(1)) / float(m.group(2))            # B/s
print(min(80, max(3, math.ceil(3 * rate / int(sys.argv[2])))))' "$DD_LINE" "$SIZE_BYTES") ||
    fail "cannot parse dd's output: $DD_LINE"
  t0=$(date +%s.%N)
  run_and_wait "$ZCAV" sweep "$FILE" --block-size "${BLOCK_MIB}M" --passes "$passes" \
    --format json -o "$out" --quiet || fail "zcav sweep $FILE --passes $passes failed"
  t1=$(date +%s.%N)
  python3 - "$out" "$t0" "$t1" "$passes" <<'EOF'
import json, sys
path, t0, t1, passes = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
s = json.load(open(path))["summary"]
outside = t1 - t0
wall, avg, read_bytes = s["wall_seconds"], s["avg_mb_per_s"], s["bytes_read"]
print(f"clock: {passes} passes, zcav's sweep {wall:.3f} s of the process's {outside:.3f} s "
      f"(this script's clock, ratio {wall / outside:.3f}); average {avg:.1f} MB/s, "
      f"bytes over the process's time {read_bytes / outside / 1e6:.1f} MB/s")
errors = []
if not 0.8 * outside <= wall <= outside + 0.005:
    errors.append(f"zcav's sweep took {wall:.3f} s by its clock, {outside:.3f} s by this "
                  f"script's for the whole process: not between 0.8 and 1 of it")
if avg < read_bytes / outside / 1e6:
    errors.append(f"zcav's average {avg:.1f} MB/s is below the {read_bytes} bytes it read over "
                  f"the process's {outside:.3f} s")
for e in errors:
    print("FAIL:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
}
clock_check

