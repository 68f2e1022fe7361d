#!/usr/bin/env bash
# Real-I/O test of the write test on a mounted file system's free space
# (zcav sweep --write --destroy-data --fill SHARE DIR) and of --discard, on
# loop devices over files this script creates, and on nothing else:
#   (a) --fill 50% of an ext4 file system mounted from a 1 GiB loop device,
#       written through a blkio write throttle so that the script can watch
#       the free space while zcav writes: the file is SHARE of the free
#       space before (f_bavail, rounded down to the direct-I/O alignment),
#       the file system never has more than that (plus 4 MiB of ext4
#       metadata) in use meanwhile, every byte is written with O_DIRECT, and
#       afterwards no file is left and the free space is back;
#   (b) the same interrupted by SIGINT (exit 130) and by SIGKILL halfway:
#       no file left, the free space back;
#   (c) --fill 95% refused (it would leave under 10 % of the file system
#       free): exit 2, one line, nothing created;
#   (d) --discard on a 64 MiB loop device full of random data, writing only
#       its first half: the second half reads back as zeros (the loop
#       device punched its backing file) and the first half holds zcav's
#       pattern.
# The EXIT trap ends the zcav it started (by PID), removes the cgroup,
# unmounts, detaches the loop devices and removes the files, also when the
# test fails.
#
# Usage: bash fill_test.sh /path/to/zcav
# Exit: 0 pass, 1 fail, 77 skip (not root, no loop devices, no blkio cgroup).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly ZCAV=${1:?usage: fill_test.sh /path/to/zcav}
readonly FS_MIB=1024 DISCARD_MIB=64
readonly TAG="zcav write test: data destroyed"

require_zcav "$ZCAV"
[[ $(id -u) -eq 0 ]] || skip "needs root (losetup, mount, cgroups)"
[[ -e /dev/loop-control ]] || skip "no loop devices (/dev/loop-control missing)"
for tool in losetup mkfs.ext4 mount umount cmp; do
  command -v "$tool" >/dev/null || skip "$tool not installed"
done
cgroup_init

WORK=""
LOOP=""
LOOP2=""
MNT=""
ZCAV_PID=""
cleanup() {
  local rc=$?
  set +e
  if [[ -n $ZCAV_PID ]] && kill -0 "$ZCAV_PID" 2>/dev/null; then
    kill -KILL "$ZCAV_PID"
    wait "$ZCAV_PID" 2>/dev/null
  fi
  stop_started
  cgroup_remove
  if [[ -n $MNT ]] && mountpoint -q "$MNT"; then
    umount "$MNT" || echo "WARNING: could not unmount $MNT" >&2
  fi
  detach_loop "$LOOP"
  detach_loop "$LOOP2"
  [[ -n $WORK ]] && rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

DIR=$(pick_dir) || skip "no directory on a file system with O_DIRECT"
WORK=$(mktemp -d "$DIR/zcav-fill-XXXXXX")
fallocate -l "${FS_MIB}M" "$WORK/fs.img"
LOOP=$(losetup -f --show "$WORK/fs.img") || fail "losetup could not attach $WORK/fs.img"
mkfs.ext4 -q -F "$LOOP"
MNT=$WORK/mnt
mkdir "$MNT"
mount "$LOOP" "$MNT"
MAJMIN=$(cat "/sys/block/${LOOP#/dev/}/dev")
cgroup_create
echo "ext4 on $LOOP ($FS_MIB MiB) at $MNT; writes throttled via cgroup $CGROUP_MODE"

# avail: the file system's free space for users, bytes (f_bavail x f_bsize).
avail() { echo $(( $(stat -f -c '%a * %S' "$MNT") )); }
# leftovers: what is in the file system besides lost+found.
leftovers() { find "$MNT" -mindepth 1 -maxdepth 1 ! -name lost+found -printf '%f\n'; }
# start_fill SHARE OUT: starts zcav --fill SHARE of $MNT in the cgroup, in
# the background; ZCAV_PID is its PID.
start_fill() {
  # shellcheck disable=SC2016  # $$ and $@ are the inner sh's
  sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CGROUP" \
    "$ZCAV" sweep --write --destroy-data --fill "$1" "$MNT" --block-size 16M --format json \
    -o "$2" -q 2> "$WORK/err" &
  ZCAV_PID=$!
}
# back_to AVAIL WHAT: the free space is back to AVAIL (within 1 MiB of
# ext4's own bookkeeping) and no file is left.
back_to() {
  sync
  local now left
  now=$(avail)
  left=$(leftovers)
  [[ -z $left ]] || fail "$2: left in the file system: $left"
  (( now >= $1 - 1048576 )) || fail "$2: free space $now B, was $1 B before"
  echo "$2: no file left, $now B free (before: $1 B)"
}

# (a) the fill, watched.
BEFORE=$(avail)
cgroup_limit write "$MAJMIN" $((64 * 1000 * 1000))
start_fill 50% "$WORK/fill.json"
LOWEST=$BEFORE
while kill -0 "$ZCAV_PID" 2>/dev/null; do
  now=$(avail)
  (( now < LOWEST )) && LOWEST=$now
  sleep 0.05
done
RC=0
wait "$ZCAV_PID" || RC=$?
ZCAV_PID=""
[[ $RC -eq 0 ]] || fail "(a) zcav --fill 50% exited $RC: $(cat "$WORK/err")"
python3 - "$WORK/fill.json" "$BEFORE" "$((BEFORE - LOWEST))" <<'EOF' || fail "(a) see above"
import json, sys
doc = json.load(open(sys.argv[1]))
before, used = int(sys.argv[2]), int(sys.argv[3])
dev, s = doc["device"], doc["summary"]
size, sector = dev["size_bytes"], dev["sector_bytes"]
share = before * 0.5
errors = []
if not dev.get("direct_io"):
    errors.append("not written with O_DIRECT")
if size > share or size < share - max(sector, 1 << 20):
    errors.append(f"file {size} B, asked 50 % of {before} B free = {share:.0f} B")
if not any("--fill 50 %" in n for n in dev.get("notes", [])):
    errors.append(f"no --fill note in {dev.get('notes')}")
if used > size + 4 * 2**20:
    errors.append(f"the file system had {used} B more in use, the file is {size} B")
if used < size:
    errors.append(f"the file system never had the file's {size} B in use (at most {used} B)")
written = sum(b["length_bytes"] for b in doc["blocks"])
if written != size:
    errors.append(f"blocks cover {written} B of the {size} B file")
print(f"(a) --fill 50%: {size} B of {before} B free ({size / before:.4%}); "
      f"at most {used} B in use while written ({used - size} B of metadata); "
      f"{s['avg_mb_per_s']:.1f} MB/s through the 64 MB/s throttle")
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
EOF
back_to "$BEFORE" "(a) after the run"

# (b) interrupted: SIGINT (exit 130), then SIGKILL.
cgroup_limit write "$MAJMIN" $((32 * 1000 * 1000))
for sig in INT KILL; do
  start_fill 50% "$WORK/int.json"
  # Until the file exists and zcav is writing it.
  for _ in $(seq 100); do
    (( $(avail) < BEFORE - 64 * 1048576 )) && break
    sleep 0.05
  done
  sleep 1
  kill -"$sig" "$ZCAV_PID"
  RC=0
  wait "$ZCAV_PID" 2>/dev/null || RC=$?
  ZCAV_PID=""
  want=130
  [[ $sig == KILL ]] && want=137
  [[ $RC -eq $want ]] || fail "(b) zcav after SIG$sig exited $RC, expected $want: $(cat "$WORK/err")"
  back_to "$BEFORE" "(b) after SIG$sig"
done
cgroup_limit write "$MAJMIN" 0

# (c) a fill past the safe margin.
RC=0
"$ZCAV" sweep --write --destroy-data --fill 95% "$MNT" -o "$WORK/refused.json" \
  2> "$WORK/err" < /dev/null || RC=$?
[[ $RC -eq 2 ]] || fail "(c) --fill 95% exited $RC, expected 2"
[[ $(wc -l < "$WORK/err") -eq 1 ]] && grep -q "^zcav: refusing to fill 95 % of the free space of the file system of $MNT:" "$WORK/err" ||
  fail "(c) expected one 'zcav: refusing to fill' line: $(cat "$WORK/err")"
[[ ! -e $WORK/refused.json ]] || fail "(c) the refused run wrote its output file"
echo "(c) $(cat "$WORK/err")"
back_to "$BEFORE" "(c) after the refusal"

# (d) --discard: the half not written reads back as zeros.
umount "$MNT"
dd if=/dev/urandom of="$WORK/discard.img" bs=1M count="$DISCARD_MIB" status=none
LOOP2=$(losetup -f --show "$WORK/discard.img") || fail "losetup could not attach discard.img"
if [[ $(cat "/sys/block/${LOOP2#/dev/}/queue/discard_max_bytes") == 0 ]]; then
  skip_part "(d) --discard" "$LOOP2 does not take discards (its backing file system cannot punch holes)"
else
  HALF=$((DISCARD_MIB / 2))
  RC=0
  "$ZCAV" sweep --write --destroy-data --discard "$LOOP2" --end "${HALF}MiB" --format json \
    -o "$WORK/discard.json" 2> "$WORK/err" < /dev/null || RC=$?
  [[ $RC -eq 0 ]] || fail "(d) --discard exited $RC: $(cat "$WORK/err")"
  grep -q "^zcav: discarded " "$WORK/err" || fail "(d) no 'discarded' line: $(cat "$WORK/err")"
  cmp -s <(dd if="$LOOP2" bs=1M skip="$HALF" count="$HALF" iflag=direct status=none) \
    <(head -c $((HALF * 1048576)) /dev/zero) || fail "(d) the second half is not zeros"
  tags=$(dd if="$LOOP2" bs=1M count="$HALF" iflag=direct status=none | grep -ac "$TAG" || true)
  [[ $tags -gt 0 ]] || fail "(d) the first half has no zcav pattern"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if any("discarded" in n for n in d["device"]["notes"]) else 1)' \
    "$WORK/discard.json" || fail "(d) the JSON's device notes do not say the device was discarded"
  echo "(d) --discard: second half zeros, first half zcav's pattern; $(grep '^zcav: discarded' "$WORK/err")"
fi
echo "PASS"
