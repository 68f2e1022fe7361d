#!/usr/bin/env bash
# Real-I/O test of the write test (zcav sweep --write --destroy-data), on a
# loop device over a file this script creates, and on nothing else:
#   (a) refused while the loop device is mounted (mkfs.ext4 + mount);
#   (b) refused without --destroy-data (--write and classic -w);
#   (c) refused while another program holds it open with O_EXCL;
#   (d) refused while it is swap (mkswap + swapon);
#   (e) on a terminal: refused when the typed path does not match, done when it does;
#   (f) done non-interactively with the flag alone: exit 0, a plausible
#       MB/s, and zcav's pattern in every sector afterwards.
# Every refusal must exit 2 with one "zcav: ..." line naming the reason and
# leave the device byte for byte as it was. The EXIT trap unmounts, swaps
# off, ends the holder process (by its PID), detaches the loop device and
# removes the files, also when the test fails.
#
# Usage: bash write_test.sh /path/to/zcav
# Exit: 0 pass, 1 fail, 77 skip (not root, no loop devices, a tool missing).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly ZCAV=${1:?usage: write_test.sh /path/to/zcav}
readonly SIZE_MIB=64
readonly TAG="zcav write test: data destroyed"

require_zcav "$ZCAV"
[[ $(id -u) -eq 0 ]] || skip "needs root (losetup, mount, swapon)"
[[ -e /dev/loop-control ]] || skip "no loop devices (/dev/loop-control missing)"
for tool in losetup mkfs.ext4 mount umount mountpoint mkswap swapon swapoff script md5sum; do
  command -v "$tool" >/dev/null || skip "$tool not installed"
done

WORK=""
LOOP=""
MNT=""
SWAP_ON=0
HOLDER_PID=""
cleanup() {
  local rc=$?
  set +e
  stop_started
  if [[ -n $HOLDER_PID ]]; then
    kill "$HOLDER_PID" 2>/dev/null
    wait "$HOLDER_PID" 2>/dev/null
  fi
  if [[ -n $MNT ]] && mountpoint -q "$MNT"; then
    umount "$MNT" 2>/dev/null || umount -l "$MNT"
  fi
  [[ $SWAP_ON -eq 1 ]] && swapoff "$LOOP"
  if [[ -n $LOOP ]]; then
    local _
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      losetup -d "$LOOP" 2>/dev/null && break
      sleep 0.2
    done
  fi
  [[ -n $WORK ]] && rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

BASE=$(pick_dir) || skip "no directory on a disk file system (for the loop device's backing file)"
WORK=$(mktemp -d "$BASE/zcav-write-XXXXXX")
MNT=$WORK/mnt
mkdir "$MNT"
readonly IMG=$WORK/disk.img
head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom >"$IMG"
# Direct I/O from the loop device to its backing file, where the kernel can:
# the write rate is then the disk's, not the page cache's.
LOOP=$(losetup --find --show --direct-io=on "$IMG" 2>/dev/null) ||
  LOOP=$(losetup --find --show "$IMG" 2>/dev/null) ||
  skip "cannot attach a loop device (losetup --find failed)"
readonly LOOP_NAME=${LOOP#/dev/}

# Before anything touches $LOOP: it is a loop device whose backing file is ours.
assert_our_loop() {
  [[ $LOOP =~ ^/dev/loop[0-9]+$ && -b $LOOP ]] || fail "not a loop device: '$LOOP'"
  local backing
  backing=$(cat "/sys/class/block/$LOOP_NAME/loop/backing_file" 2>/dev/null)
  [[ $backing == "$IMG" ]] || fail "$LOOP is backed by '$backing', not by our $IMG"
}
assert_our_loop
echo "loop device $LOOP over $IMG ($SIZE_MIB MiB, direct I/O: $(cat "/sys/class/block/$LOOP_NAME/loop/dio"))"

ERR=$WORK/stderr
RC=0
# zcav ARGS...: runs zcav (stdin /dev/null: not interactive), stderr into $ERR, exit code in $RC.
zcav() {
  assert_our_loop
  RC=0
  run_and_wait timeout 60 "$ZCAV" "$@" </dev/null 2>"$ERR" || RC=$?
}

# refused WHAT ERE: the last run exited 2 with one "zcav: " line matching ERE
# and created no output file.
refused() {
  [[ $RC -eq 2 ]] || fail "$1: exit code $RC, expected 2 (stderr: $(head -c 300 "$ERR"))"
  [[ $(wc -l <"$ERR") -eq 1 ]] || fail "$1: stderr has $(wc -l <"$ERR") lines, expected 1: $(cat "$ERR")"
  grep -Eq -- "^zcav: .*$2" "$ERR" || fail "$1: stderr does not match /$2/: $(cat "$ERR")"
  [[ ! -e $WORK/out.dat ]] || fail "$1: an output file was created"
  echo "ok - $1: $(cat "$ERR")"
}

device_sum() { md5sum <"$LOOP" | cut -d' ' -f1; }

# unchanged WHAT SUM: the device still has checksum SUM and no zcav pattern.
unchanged() {
  [[ $(device_sum) == "$2" ]] || fail "$1: the device changed"
  if grep -aqF "$TAG" "$LOOP"; then fail "$1: zcav's pattern is on the device"; fi
}

# --- (a) Mounted: refused, naming the mount point; nothing written.
assert_our_loop
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP" >/dev/null
# Read-only first: nothing else writes then, so the checksum must not move.
mount -o ro,noload "$LOOP" "$MNT"
sum=$(device_sum)
zcav sweep --write --destroy-data "$LOOP" -o "$WORK/out.dat"
refused "(a) mounted read-only" "refusing to write $LOOP: mounted at $MNT"
unchanged "(a) mounted read-only" "$sum"
umount "$MNT"
# Read-write: ext4 itself writes (superblock, journal), so only zcav's
# pattern is looked for (had zcav written, its first chunk would carry it).
mount "$LOOP" "$MNT"
zcav sweep --write --destroy-data "$LOOP" -o "$WORK/out.dat"
refused "(a) mounted read-write" "refusing to write $LOOP: mounted at $MNT"
if grep -aqF "$TAG" "$LOOP"; then fail "(a) zcav's pattern is on the device"; fi
# The read sweep of a mounted device is still allowed (zcav only reads then).
zcav sweep "$LOOP" --quiet -o "$WORK/read.dat"
[[ $RC -eq 0 ]] || fail "(a) a read sweep of the mounted device exited $RC: $(cat "$ERR")"
rm -f "$WORK/read.dat"
umount "$MNT"

# --- (b) Without --destroy-data: refused before the device is opened.
sum=$(device_sum)
zcav sweep --write "$LOOP" -o "$WORK/out.dat"
refused "(b) --write without --destroy-data" "--write overwrites the device and destroys all data on it: add --destroy-data"
zcav -w "$LOOP" -l "$WORK/out.dat"
refused "(b) classic -w without --destroy-data" "-w overwrites .*add --destroy-data"
unchanged "(b) no --destroy-data" "$sum"

# --- (c) Held with O_EXCL by another program (open(2) with O_EXCL and no
# O_CREAT claims a block device exclusively, as mount and swapon do).
python3 -c '
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
print("held", flush=True)
time.sleep(120)
' "$LOOP" >"$WORK/holder.out" &
HOLDER_PID=$!
for _ in $(seq 50); do
  grep -q held "$WORK/holder.out" 2>/dev/null && break
  kill -0 "$HOLDER_PID" 2>/dev/null || fail "(c) the O_EXCL holder exited before holding $LOOP"
  sleep 0.1
done
grep -q held "$WORK/holder.out" || fail "(c) the O_EXCL holder did not open $LOOP in 5 s"
zcav sweep --write --destroy-data "$LOOP" -o "$WORK/out.dat"
refused "(c) held O_EXCL" "refusing to write $LOOP: held open exclusively by another program \\(open in python3 \\(pid $HOLDER_PID\\)\\)"
kill "$HOLDER_PID"
wait "$HOLDER_PID" 2>/dev/null || true
HOLDER_PID=""
unchanged "(c) held" "$sum"

# --- (d) Swap: refused while swapon; nothing written. (Only the swap header
# is compared: the kernel may swap pages out to it meanwhile.)
assert_our_loop
mkswap "$LOOP" >/dev/null 2>&1
swapon "$LOOP"
SWAP_ON=1
head_sum=$(head -c 4096 "$LOOP" | md5sum)
zcav sweep --write --destroy-data "$LOOP" -o "$WORK/out.dat"
refused "(d) swap" "refusing to write $LOOP: in use as swap"
swapoff "$LOOP"
SWAP_ON=0
[[ $(head -c 4096 "$LOOP" | md5sum) == "$head_sum" ]] || fail "(d) the swap header changed"
if grep -aqF "$TAG" "$LOOP"; then fail "(d) zcav's pattern is on the device"; fi

# --- (e) On a terminal (script(1) gives zcav a pty): the device path must be typed.
assert_our_loop
head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom >"$LOOP"
sync
sum=$(device_sum)
assert_our_loop
TTY_RC=0
printf '/dev/sdz\n' | timeout 60 script -qec \
  "'$ZCAV' sweep --write --destroy-data $LOOP --quiet -o '$WORK/out.dat'" /dev/null \
  >"$WORK/tty.out" 2>&1 || TTY_RC=$?
[[ $TTY_RC -eq 2 ]] || fail "(e) wrong confirmation: exit $TTY_RC, expected 2: $(cat "$WORK/tty.out")"
grep -q "This destroys all data on $LOOP\|this destroys all data on $LOOP" "$WORK/tty.out" ||
  fail "(e) no confirmation prompt: $(cat "$WORK/tty.out")"
grep -q "not confirmed" "$WORK/tty.out" || fail "(e) no refusal: $(cat "$WORK/tty.out")"
[[ ! -e $WORK/out.dat ]] || fail "(e) an output file was created"
unchanged "(e) wrong confirmation" "$sum"
echo "ok - (e) a wrong typed confirmation is refused: $(tr -d '\r' <"$WORK/tty.out" | tr '\n' ' ')"
TTY_RC=0
printf '%s\n' "$LOOP" | timeout 60 script -qec \
  "'$ZCAV' sweep --write --destroy-data $LOOP --quiet --block-size 16M -o '$WORK/tty.dat'" /dev/null \
  >"$WORK/tty.out" 2>&1 || TTY_RC=$?
[[ $TTY_RC -eq 0 ]] || fail "(e) right confirmation: exit $TTY_RC: $(cat "$WORK/tty.out")"
grep -q '^# mode: write' "$WORK/tty.dat" || fail "(e) the output does not say mode: write"
grep -aqF "$TAG" "$LOOP" || fail "(e) nothing written after a right confirmation"
echo "ok - (e) the typed device path confirms the write test"

# --- (f) Not on a terminal: --destroy-data alone; a plausible rate, the pattern everywhere.
assert_our_loop
head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom >"$LOOP"
sync
sum=$(device_sum)
START=$(date +%s.%N)
zcav sweep --write --destroy-data "$LOOP" --block-size 1M --format json -o "$WORK/write.json"
ELAPSED=$(awk -v s="$START" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
[[ $RC -eq 0 ]] || fail "(f) the write test exited $RC: $(cat "$ERR")"
[[ $(device_sum) != "$sum" ]] || fail "(f) the device is unchanged"
python3 - "$WORK/write.json" "$LOOP" "$SIZE_MIB" "$TAG" <<'EOF'
import json, sys
path, dev, size_mib, tag = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].encode() + b"\n"
d = json.load(open(path))
assert d["options"].get("mode") == "write", d["options"]
assert d["status"] == "complete", d["status"]
assert d["device"]["path"] == dev and d["device"]["kind"] == "block", d["device"]
blocks = d["blocks"]
assert len(blocks) == size_mib, len(blocks)
assert all(b["mb_per_s"] > 0 for b in blocks), "a block with no rate"
avg = d["summary"]["avg_mb_per_s"]
assert 1 < avg < 100000, "implausible write rate %.3f MB/s" % avg
# Every 512-byte sector starts with the tag.
with open(dev, "rb") as f:
    data = f.read()
assert len(data) == size_mib << 20, len(data)
bad = [i for i in range(0, len(data), 512) if data[i:i + len(tag)] != tag]
assert not bad, "%d sectors without the pattern, first at %d" % (len(bad), bad[0])
print("ok - (f) wrote %d MiB at %.1f MB/s (min %.1f, max %.1f); the pattern is in every sector"
      % (size_mib, avg, d["summary"]["min_mb_per_s"], d["summary"]["max_mb_per_s"]))
EOF
echo "(f) took ${ELAPSED} s"
echo "PASS"
