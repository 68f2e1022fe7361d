#!/usr/bin/env bash
# zcav verify, full and --quick, on FUSE fakes (tests/fixtures/fake_fuse.cc)
# through read-write loop devices: for each REAL:CLAIM:FAKE of CASES (default
# 1G:2G:wrap 1G:16G:wrap 1G:4G:drop 4G:16G:wrap 2G:16G:drop 1G:64G:wrap), the
# verdict, the usable size against the real one (error in % of it), what was
# written (in % of the real size) and the time; then RUNS (default 10) runs
# of each mode on a genuine 1 GiB device, counting "genuine". The issue's
# bar: the usable size exact in full mode, within 1 % in --quick writing
# under 5 % of the real size, no false alarm.
# Usage: tests/bench/verify_fakes.sh [ZCAV [FAKE_FUSE]]  (env DIR, CASES, RUNS, FULL=0 skips full runs)
set -euo pipefail
die() { echo "verify_fakes: $*" >&2; exit 1; }
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
ZCAV_BIN=${1:-}
resolve_zcav
FAKE_FUSE=${2:-$(dirname "$ZCAV_BIN")/tests/fake_fuse}
[[ -x $FAKE_FUSE ]] || die "fake_fuse not found: $FAKE_FUSE (build the tests)"
[[ $(id -u) -eq 0 ]] || die "needs root (losetup, FUSE)"
DIR=${DIR:-/var/tmp}
CASES=${CASES:-1G:2G:wrap 1G:16G:wrap 1G:4G:drop 4G:16G:wrap 2G:16G:drop 1G:64G:wrap}
RUNS=${RUNS:-10}
FULL=${FULL:-1}
WORK=$(mktemp -d "$DIR/zcav-verify-fakes-XXXXXX")
MNT=""; PID=""; LOOP=""
down() {
  [[ -z $LOOP ]] || losetup -d "$LOOP" || true
  LOOP=""
  if [[ -n $MNT ]]; then fusermount3 -u "$MNT" || true; fi
  if [[ -n $PID ]]; then wait "$PID" 2> /dev/null || true; fi
  MNT=""; PID=""
  rm -f "$WORK"/back.img
}
trap 'down; rm -rf "$WORK"' EXIT
up() {  # up ARGS...: a fake_fuse mount and a loop device over its disk.img
  MNT=$WORK/mnt
  mkdir -p "$MNT"
  "$FAKE_FUSE" "$MNT" -f --backing "$WORK/back.img" "$@" 2> "$WORK/fuse.log" &
  PID=$!
  for _ in $(seq 100); do [[ -f $MNT/disk.img ]] && break; sleep 0.1; done
  LOOP=$(losetup -f --show "$MNT/disk.img")
}
bytes() { numfmt --from=iec "$1"; }
run() {  # run MODE REAL: one verify; prints verdict usable written seconds
  local extra=() t0
  [[ $1 == quick ]] && extra=(--quick)
  t0=$(date +%s.%N)
  "$ZCAV_BIN" verify "$LOOP" --destroy-data --format json -o "$WORK/r.json" --quiet \
    "${extra[@]}" < /dev/null 2>> "$WORK/log" || true
  python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))["verify"]
print(v["verdict"].replace(" ", "_"), v["usable_bytes"], v["written_bytes"],
      f"{float(sys.argv[2]):.1f}")' "$WORK/r.json" "$(echo "$(date +%s.%N) - $t0" | bc)"
}
printf '%-16s %-6s %-14s %12s %9s %10s %8s\n' case mode verdict usable_MiB error_% written_% seconds
for c in $CASES; do
  IFS=: read -r real claim fake <<< "$c"
  for mode in full quick; do
    [[ $mode == full && $FULL == 0 ]] && continue
    up --size "$claim" --real "$real" --fake "$fake"
    read -r verdict usable written secs <<< "$(run "$mode")"
    down
    r=$(bytes "$real")
    printf '%-16s %-6s %-14s %12.1f %9.3f %10.2f %8s\n' "$c" "$mode" "$verdict" \
      "$(echo "$usable / 1048576" | bc -l)" "$(echo "100 * ($usable - $r) / $r" | bc -l)" \
      "$(echo "100 * $written / $r" | bc -l)" "$secs"
  done
done
for mode in full quick; do
  [[ $mode == full && $FULL == 0 ]] && continue
  up --size 1G
  genuine=0
  for _ in $(seq "$RUNS"); do
    read -r verdict _ <<< "$(run "$mode")"
    [[ $verdict == genuine ]] && genuine=$((genuine + 1))
  done
  down
  echo "genuine 1 GiB, $mode: genuine in $genuine of $RUNS runs"
done
