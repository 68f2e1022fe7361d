#!/usr/bin/env bash
# Real-I/O test of the fake_fuse fixture itself (tests/fixtures/fake_fuse.cc,
# issue 39), with dd through the kernel (O_DIRECT), before zcav verify uses
# it. Two devices claim 1 GiB over a backing file of 256 MiB:
#   wrap (--fake wrap --lose 100M-104M --lose 200M-201M:garbage --eio 300M+4K):
#     - never written areas read zeros;
#     - data written at 256 MiB + 16 MiB reads back at 16, 272, 528 and 784 MiB;
#     - data written over 98-106 MiB reads back, except 100-104 MiB: zeros;
#     - data written over 200-202 MiB reads back from 201 MiB; 200-201 MiB
#       gives garbage: neither the data nor zeros, the same bytes twice;
#     - a read and a write touching 300 MiB + 4 KiB fail (EIO); a write past
#       1 GiB fails;
#     - through a read-write loop device over disk.img (as root): 1 GiB, and
#       data written at 296 MiB reads back at 40 MiB, from the loop device
#       and from the file;
#     - the backing file is 256 MiB;
#   drop (--fake drop): data written at 16 MiB stays when more is written at
#     272 MiB, and 272 MiB reads zeros.
# After unmounting, each fixture's exit line counts what it dropped, lost
# and failed.
#
# Usage: bash fake_fuse_test.sh /path/to/zcav /path/to/zoned_fuse /path/to/fake_fuse
# (the real-I/O suite's three arguments; zcav and zoned_fuse are not used).
# Exit: 0 pass, 1 fail, 77 skip (no /dev/fuse or fusermount3, not root and no
# setuid fusermount3); the loop device part needs root and loop devices (a
# note when it cannot run). Unmounts, detaches its loop device, ends the
# fixtures and removes its files on every exit path. Takes a few seconds.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly USAGE="usage: fake_fuse_test.sh /path/to/zcav /path/to/zoned_fuse /path/to/fake_fuse"
readonly FAKE_FUSE=${3:?$USAGE}
readonly MIB=$((1 << 20))

require_fuse "$FAKE_FUSE"
fuse_test_setup zcav-fake-fuse

# write_at FILE SRC OFFSET_MIB: writes SRC (whole MiBs) at OFFSET_MIB, O_DIRECT.
write_at() {
  dd if="$2" of="$1" bs=1M seek="$3" oflag=direct conv=notrunc status=none
}
# read_at FILE OFFSET_MIB COUNT_MIB: prints COUNT_MIB MiB from OFFSET_MIB, O_DIRECT.
read_at() {
  dd if="$1" bs=1M skip="$2" count="$3" iflag=direct status=none
}
# expect_data NAME FILE OFFSET_MIB DATA [DATA_SKIP_MIB COUNT_MIB]: the
# device reads back DATA (or COUNT_MIB MiB of it from DATA_SKIP_MIB) there.
expect_data() {
  local count=${6:-$(($(stat -c %s "$4") / MIB))}
  cmp -s <(read_at "$2" "$3" "$count") <(dd if="$4" bs=1M skip="${5:-0}" count="$count" \
    status=none) || fail "$1: $count MiB at $3 MiB do not read back the data written"
  echo "ok - $1"
}
# expect_zeros NAME FILE OFFSET_MIB COUNT_MIB
expect_zeros() {
  cmp -s <(read_at "$2" "$3" "$4") <(head -c $(($4 * MIB)) /dev/zero) ||
    fail "$1: $4 MiB at $3 MiB are not zeros"
  echo "ok - $1"
}
# exit_line LOG: the fixture's line on exit.
exit_line() { grep '^fake_fuse: served' "$1" || fail "no exit line in $1: $(cat "$1")"; }

for n in 2 4 8; do head -c $((n * MIB)) /dev/urandom > "$WORK/data$n"; done
head -c $((4 * MIB)) /dev/urandom > "$WORK/other4"

# ---- wrap, with lost and unreadable ranges ----
readonly WRAP=$WORK/wrap
mkdir "$WRAP"
start_fixture "$FAKE_FUSE" "$WRAP" "$WORK/wrap.log" disk.img --size 1G --real 256M \
  --fake wrap --backing "$WORK/wrap.img" --lose 100M-104M --lose 200M-201M:garbage --eio 300M+4K
DISK=$WRAP/disk.img
[[ $(stat -c %s "$DISK") -eq $((1024 * MIB)) ]] || fail "disk.img is not 1 GiB: $(stat -c %s "$DISK")"
[[ $(stat -c %s "$WORK/wrap.img") -eq $((256 * MIB)) ]] ||
  fail "the backing file is not 256 MiB: $(stat -c %s "$WORK/wrap.img")"
expect_zeros "wrap: never written reads zeros (0 MiB)" "$DISK" 0 8
expect_zeros "wrap: never written reads zeros (600 MiB)" "$DISK" 600 8

write_at "$DISK" "$WORK/data4" 272
for at in 16 272 528 784; do
  expect_data "wrap: written at 272 MiB, reads back at $at MiB" "$DISK" "$at" "$WORK/data4"
done

write_at "$DISK" "$WORK/data8" 98
expect_data "lose: 98-100 MiB kept" "$DISK" 98 "$WORK/data8" 0 2
expect_zeros "lose: 100-104 MiB lost, reads zeros" "$DISK" 100 4
expect_data "lose: 104-106 MiB kept" "$DISK" 104 "$WORK/data8" 6 2
expect_zeros "lose: lost 100-104 MiB, as 356-360 MiB (wrapped)" "$DISK" 356 4

write_at "$DISK" "$WORK/data2" 200
read_at "$DISK" 200 1 > "$WORK/garbage1"
read_at "$DISK" 200 1 > "$WORK/garbage2"
! cmp -s "$WORK/garbage1" <(head -c "$MIB" "$WORK/data2") ||
  fail "lose garbage: 200-201 MiB read back the data written"
! cmp -s "$WORK/garbage1" <(head -c "$MIB" /dev/zero) || fail "lose garbage: 200-201 MiB is zeros"
cmp -s "$WORK/garbage1" "$WORK/garbage2" || fail "lose garbage: two reads of 200 MiB differ"
echo "ok - lose garbage: 200-201 MiB reads the same garbage twice"
expect_data "lose garbage: 201-202 MiB kept" "$DISK" 201 "$WORK/data2" 1 1

if read_at "$DISK" 300 1 > /dev/null 2> "$WORK/eio.err"; then
  fail "eio: a read at 300 MiB succeeded"
fi
grep -q "Input/output error" "$WORK/eio.err" || fail "eio: the read failed otherwise: $(cat "$WORK/eio.err")"
if write_at "$DISK" "$WORK/data2" 299 2> "$WORK/eio.err"; then
  fail "eio: a write over 299-301 MiB succeeded"
fi
grep -q "Input/output error" "$WORK/eio.err" || fail "eio: the write failed otherwise: $(cat "$WORK/eio.err")"
expect_zeros "eio: 301 MiB, past the range, reads" "$DISK" 301 1
echo "ok - eio: a read and a write touching 300 MiB + 4 KiB fail with EIO"
if write_at "$DISK" "$WORK/data2" 1024 2> /dev/null; then fail "a write past 1 GiB succeeded"; fi
echo "ok - a write past the claimed size fails"

if [[ $(id -u) -ne 0 ]]; then
  skip_part "the loop device part" "needs root"
elif [[ ! -e /dev/loop-control ]] || ! command -v losetup > /dev/null; then
  skip_part "the loop device part" "no loop devices (/dev/loop-control or losetup missing)"
else
  LOOP=$(losetup -f --show "$DISK") || fail "losetup could not attach $DISK"
  [[ $(blockdev --getsize64 "$LOOP") -eq $((1024 * MIB)) ]] ||
    fail "loop: $LOOP is not 1 GiB: $(blockdev --getsize64 "$LOOP")"
  write_at "$LOOP" "$WORK/other4" 296
  expect_data "loop: written at 296 MiB, reads back at 40 MiB of $LOOP" "$LOOP" 40 "$WORK/other4"
  expect_data "loop: written at 296 MiB, reads back at 40 MiB of disk.img" "$DISK" 40 "$WORK/other4"
  detach_loop "$LOOP" || fail "could not detach $LOOP"
  LOOP=""
fi

# ---- drop ----
readonly DROP=$WORK/drop
mkdir "$DROP"
start_fixture "$FAKE_FUSE" "$DROP" "$WORK/drop.log" disk.img --size 1G --real 256M \
  --fake drop --backing "$WORK/drop.img"
write_at "$DROP/disk.img" "$WORK/data4" 16
write_at "$DROP/disk.img" "$WORK/other4" 272
expect_data "drop: 16 MiB keeps its data after a write at 272 MiB" "$DROP/disk.img" 16 "$WORK/data4"
expect_zeros "drop: 272 MiB reads zeros" "$DROP/disk.img" 272 4

# ---- the fixtures' counts on exit ----
stop_fixtures 0 || fail "a fixture would not unmount"
wrap_line=$(exit_line "$WORK/wrap.log")
drop_line=$(exit_line "$WORK/drop.log")
echo "$wrap_line"
echo "$drop_line"
# Lost: 4 MiB of the 8 at 98 MiB, 1 MiB of the 2 at 200 MiB; failed: the
# read at 300 MiB and the write over 299-301 MiB (at least one request each).
[[ $wrap_line == *" 0 bytes dropped, $((5 * MIB)) bytes lost, "* ]] ||
  fail "wrap: expected 0 bytes dropped and $((5 * MIB)) lost"
[[ $wrap_line =~ ([0-9]+)\ failed\ requests && ${BASH_REMATCH[1]} -ge 2 ]] ||
  fail "wrap: expected at least 2 failed requests"
[[ $drop_line == *" $((4 * MIB)) bytes dropped, 0 bytes lost, 0 failed requests"* ]] ||
  fail "drop: expected $((4 * MIB)) bytes dropped, none lost or failed"
echo "ok - the fixtures count what they dropped, lost and failed"
echo "PASS"
