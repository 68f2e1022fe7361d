#!/usr/bin/env bash
# Benchmark: the read path of two zcav builds, A (before) and B (after), on
# one target, alternating A and B each round (so a drift of the shared
# machine falls on both alike). Prints each round's MB/s (10^6 B/s, as zcav
# reports the sweep's mean rate), the median of each and B's ratio to A, and
# the median of the per-round ratios. A change "does not slow the read path"
# when both ratios are within 2 % of 1.
#
# The default target is a loop device (direct I/O) over a file in /dev/shm:
# RAM, the steadiest rate this kind of machine has. TARGET=PATH reads that
# instead (a file on the disk, say; its rate swings run to run).
#
# Usage: tests/bench/ab_read.sh ZCAV_A ZCAV_B
# Environment: ROUNDS=7, SIZE_MIB=1024 (the RAM file), TARGET=.
# Needs root for the loop device (else give TARGET). Not a ctest test.
set -euo pipefail
if [[ $# -ne 2 || ! -x $1 || ! -x $2 ]]; then
  echo "usage: $0 ZCAV_A ZCAV_B (two zcav executables)" >&2
  exit 2
fi
A=$(realpath "$1")
B=$(realpath "$2")
ROUNDS=${ROUNDS:-7}
SIZE_MIB=${SIZE_MIB:-1024}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/zcav-ab-XXXXXX")
RAM_FILE=""
LOOP=""
cleanup() {
  [[ -n $LOOP ]] && losetup -d "$LOOP" 2>/dev/null
  [[ -n $RAM_FILE ]] && rm -f "$RAM_FILE"
  rm -rf "$WORK"
}
trap cleanup EXIT
TARGET=${TARGET:-}
if [[ -z $TARGET ]]; then
  [[ $(id -u) -eq 0 ]] || {
    echo "$0: a loop device needs root; give TARGET=PATH instead" >&2
    exit 2
  }
  RAM_FILE=$(mktemp /dev/shm/zcav-ab-XXXXXX)
  dd if=/dev/urandom of="$RAM_FILE" bs=1M count="$SIZE_MIB" status=none
  LOOP=$(losetup -f --show -r --direct-io=on "$RAM_FILE")
  TARGET=$LOOP
fi
rate() {
  "$1" sweep "$TARGET" -q --format json -o "$WORK/r.json"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["summary"]["avg_mb_per_s"])' \
    "$WORK/r.json"
}
as=() bs=() ratios=()
echo "target: $TARGET; A: $A; B: $B; $ROUNDS rounds (MB = 10^6 B)"
for ((i = 1; i <= ROUNDS; i++)); do
  if ((i % 2)); then
    a=$(rate "$A")
    b=$(rate "$B")
  else
    b=$(rate "$B")
    a=$(rate "$A")
  fi
  as+=("$a") bs+=("$b")
  ratios+=("$(python3 -c "print($b / $a)")")
  printf 'round %d: A %.1f MB/s, B %.1f MB/s, B/A %.3f\n' "$i" "$a" "$b" "${ratios[-1]}"
done
python3 - "${as[*]}" "${bs[*]}" "${ratios[*]}" <<'EOF'
import statistics, sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
r = [float(x) for x in sys.argv[3].split()]
ma, mb = statistics.median(a), statistics.median(b)
print(f"median A {ma:.1f} MB/s, median B {mb:.1f} MB/s, ratio of medians {mb / ma:.3f}, "
      f"median of round ratios {statistics.median(r):.3f}")
EOF
