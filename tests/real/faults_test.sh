#!/usr/bin/env bash
# Real-I/O test: zcav reads around a failing disk through the kernel. The
# zoned_fuse fixture (tests/fixtures/zoned_fuse.cc) serves a 96 MiB file, flat
# at 100 MB/s, with injected faults; `zcav sweep FILE --format json` (O_DIRECT,
# 4 MiB blocks, 1 MiB chunks) must:
#   eio:    (--eio, two unaligned ranges: 3 sectors inside one chunk, and
#           3 MiB across five chunks and two blocks) complete with exit 1;
#           "errors" holds the two ranges, each to within one sector
#           (device.sector_bytes: 4096 for the FUSE file, which reports no
#           STATX_DIOALIGN) and covering it, errno 5; the blocks with bad
#           sectors have no sample; every other block has its 5 passes at
#           100 MB/s +-15 %. With root and loop devices, again on a read-only
#           loop device over the file (512-byte sectors: to within 512 B).
#   slow:   (--slow, 2 MiB at 30x from an unaligned start) complete with exit
#           0, no errors, a slow region in each pass within one chunk of the
#           injected range at both ends, the other blocks at 100 MB/s.
#   shrink: (--shrink-after: the file becomes 40 MiB long once 40 MiB have been
#           served; reads past the end return 0 bytes) stop as "device gone":
#           exit 3, "partial": true, stopped at 40 MiB, blocks 0-40 MiB kept.
#   vanish: (--vanish-after 40M@ERRNO: the file leaves the directory and reads
#           of the open file fail) the same, for ENODEV (what FUSE and a loop
#           device over it pass on for a vanished device), EIO (a file whose
#           device was pulled: reads fail with EIO, the path is gone) and
#           ENOTCONN (what every read gets once a FUSE daemon has died).
#           Both at --queue-depth 1 (exact stop offsets) and, for shrink and
#           ENODEV, at the default depth (4 reads in flight: the stop may be
#           up to 3 chunks later, where the fixture really stopped serving).
# The eio and slow parts run at the default queue depth (4 for a FUSE file).
# Every part runs; the script fails at the end if any failed.
#
# Usage: bash faults_test.sh /path/to/zcav /path/to/zoned_fuse
# Exit: 0 pass, 1 fail, 77 skip (no /dev/fuse, no fusermount3, or not root
# where /dev/fuse is not open to users). Needs python3 (check_faults.py beside
# this script reads the JSON output).
# Unmounts, detaches its loop device, ends the fixtures it started and removes
# its files on every exit path. Takes about 25 s.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly ZCAV=${1:?usage: faults_test.sh /path/to/zcav /path/to/zoned_fuse}
readonly FIXTURE=${2:?usage: faults_test.sh /path/to/zcav /path/to/zoned_fuse}
CHECK=$(dirname "${BASH_SOURCE[0]}")/check_faults.py
readonly CHECK
readonly SIZE_MIB=96                   # 24 blocks, 1 s per pass
readonly BLOCK_MIB=4
readonly MB_PER_S=100
readonly PASSES=5                      # per-block medians: robust to host hiccups
readonly TOLERANCE=0.15                # per-block median vs the fixture's rate
# EIO: 3 sectors and 100 bytes inside the chunk at 10 MiB (block 8-12 MiB);
# 3,150,000 bytes from 42 MiB + 1234, over the chunks 42..45 MiB and the blocks
# 40-44 and 44-48 MiB. Bytes: OFFSET+LENGTH.
readonly EIO_RANGES=$((10 * 1048576 + 5000))+12388,$((42 * 1048576 + 1234))+3150000
# Slow: 2 MiB at 30x the zone's time, from 60 MiB + 300000 (block 60-64 MiB).
readonly SLOW_RANGE=$((60 * 1048576 + 300000))+2097152
readonly SLOW_FACTOR=30
# Shrink / vanish once this many bytes have been served (the warm-up chunk
# included): the sweep is then at about 39-40 MiB.
readonly LOSS_MIB=40

require_fuse "$FIXTURE"
require_zcav "$ZCAV"
[[ -r $CHECK ]] || fail "missing $CHECK"

fuse_test_setup zcav-faults
FAILED=()

# mount NAME FIXTURE-ARGS...: a fixture on $WORK/NAME serving disk.img.
mount_fixture() {
  local name=$1
  shift
  mkdir "$WORK/$name"
  start_fixture "$FIXTURE" "$WORK/$name" "$WORK/$name.log" disk.img --size "${SIZE_MIB}M" \
    --zones "0:$MB_PER_S" "$@"
}

# sweep TARGET OUT PASSES: zcav's JSON sweep; sets SWEEP_RC (any exit status
# is data here), SWEEP_SECONDS, and SWEEP_OUT: OUT, or OUT.partial where zcav
# puts a result it cut short.
sweep() {
  local start=$SECONDS
  SWEEP_RC=0
  run_and_wait "$ZCAV" sweep "$1" --block-size "${BLOCK_MIB}M" --passes "$3" --format json \
    -o "$2" --quiet "${@:4}" 2>>"$WORK/zcav.stderr" || SWEEP_RC=$?
  SWEEP_SECONDS=$((SECONDS - start))
  SWEEP_OUT=$2
  if [[ ! -e $2 && -e $2.partial ]]; then
    SWEEP_OUT=$2.partial
  fi
}

# part NAME CHECK-ARGS...: runs the checker on the last sweep; records a failure.
part() {
  local name=$1
  shift
  if python3 "$CHECK" "$@"; then
    echo "  ok: $name (${SWEEP_SECONDS} s)"
  else
    FAILED+=("$name")
  fi
}

# a. EIO on two ranges.
mount_fixture eio --eio "$EIO_RANGES"
sweep "$WORK/eio/disk.img" "$WORK/eio.json" "$PASSES"
part eio eio "$SWEEP_OUT" "$SWEEP_RC" "eio (file)" --rate "$MB_PER_S" \
  --tolerance "$TOLERANCE" --passes "$PASSES" --ranges "$EIO_RANGES"
if [[ $(id -u) -eq 0 && -e /dev/loop-control ]] && command -v losetup >/dev/null; then
  LOOP=$(losetup -r -f --show "$WORK/eio/disk.img") || fail "losetup -r could not attach the file"
  sweep "$LOOP" "$WORK/eio-loop.json" "$PASSES"
  part "eio (loop)" eio "$SWEEP_OUT" "$SWEEP_RC" "eio ($LOOP over the file)" \
    --rate "$MB_PER_S" --tolerance "$TOLERANCE" --passes "$PASSES" --ranges "$EIO_RANGES"
  detach_loop "$LOOP" && LOOP=""
else
  skip_part "the loop-device part" "needs root, losetup and /dev/loop-control"
fi

# b. A slow region.
mount_fixture slow --slow "$SLOW_RANGE@$SLOW_FACTOR"
sweep "$WORK/slow/disk.img" "$WORK/slow.json" "$PASSES"
part slow slow "$SWEEP_OUT" "$SWEEP_RC" "slow (file)" --rate "$MB_PER_S" \
  --tolerance "$TOLERANCE" --passes "$PASSES" --ranges "$SLOW_RANGE"

# c. The file shrinks, or vanishes. Where the sweep must stop, reading one
# chunk at a time (--queue-depth 1): the shrunk file's end exactly; for a
# vanished one, the first read after LOSS_MIB were served, the warm-up chunk
# counted (1-2 MiB earlier). At the default depth for a FUSE file (4 reads of
# 1 MiB in flight) up to 3 more chunks may have been served before the
# fixture counted past LOSS_MIB: the sweep stops at the lowest chunk that
# failed, and keeps every block before it.
readonly LOSS=$((LOSS_MIB << 20))
readonly IN_FLIGHT=$((3 << 20))
mount_fixture shrink --shrink-after "${LOSS_MIB}M"
sweep "$WORK/shrink/disk.img" "$WORK/shrink.json" 1 --queue-depth 1
part shrink gone "$SWEEP_OUT" "$SWEEP_RC" "shrink to ${LOSS_MIB} MiB" \
  --loss-min "$LOSS" --loss-max "$LOSS"
mount_fixture shrink-qd --shrink-after "${LOSS_MIB}M"
sweep "$WORK/shrink-qd/disk.img" "$WORK/shrink-qd.json" 1
part "shrink (queue depth 4)" gone "$SWEEP_OUT" "$SWEEP_RC" \
  "shrink to ${LOSS_MIB} MiB, 4 reads in flight" --loss-min "$LOSS" --loss-max $((LOSS + IN_FLIGHT))
for errno_name in ENODEV EIO ENOTCONN; do
  mount_fixture "vanish-$errno_name" --vanish-after "${LOSS_MIB}M@$errno_name"
  sweep "$WORK/vanish-$errno_name/disk.img" "$WORK/vanish-$errno_name.json" 1 --queue-depth 1
  part "vanish ($errno_name)" gone "$SWEEP_OUT" "$SWEEP_RC" \
    "vanish after ${LOSS_MIB} MiB, reads fail with $errno_name" \
    --loss-min $((LOSS - (2 << 20))) --loss-max "$LOSS"
done
mount_fixture vanish-qd --vanish-after "${LOSS_MIB}M@ENODEV"
sweep "$WORK/vanish-qd/disk.img" "$WORK/vanish-qd.json" 1
part "vanish (queue depth 4)" gone "$SWEEP_OUT" "$SWEEP_RC" \
  "vanish after ${LOSS_MIB} MiB (ENODEV), 4 reads in flight" \
  --loss-min $((LOSS - (2 << 20))) --loss-max $((LOSS + IN_FLIGHT))

if ((${#FAILED[@]} > 0)); then
  echo "zcav's messages:" >&2
  sed 's/^/  /' "$WORK/zcav.stderr" >&2
  fail "${#FAILED[@]} part(s) failed: ${FAILED[*]} (${SECONDS} s)"
fi
echo "PASS (${SECONDS} s)"
