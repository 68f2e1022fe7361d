#!/usr/bin/env bash
# Real-I/O test: `zcav profile` names the drive, counts every chunk in its
# latency class and concludes on the drive's health, through the kernel. The
# zoned_fuse fixture (tests/fixtures/zoned_fuse.cc) serves a 64 MiB file flat
# at 100 MB/s:
#   faulty: with two unreadable ranges (--eio) and a slow range (--slow, 2 MiB
#           at 30x) the profile exits 1 and its profile.json says "failing",
#           the reasons naming both unreadable ranges (their GB positions)
#           and the slow region; every pass's latency classes add up to the
#           chunks the pass read; the slow chunks are in a slow class and
#           counted as slow in the map's data at their position; the
#           unreadable ones are red cells there; the reports and summary say
#           "failing".
#   clean:  the same file without faults: exit 0, "good", no red cells.
#   loop:   with root and loop devices, the clean file through a read-only
#           loop device: "good", identity and latency classes present.
# Without smartctl (or for these devices, which have no SMART) the summary
# has one SMART line saying why, and nothing else changes.
#
# Usage: bash health_test.sh /path/to/zcav /path/to/zoned_fuse
# Exit: 0 pass, 1 fail, 77 skip (no /dev/fuse, no fusermount3, or not root
# where /dev/fuse is not open to users). Needs python3 (check_health.py).
# Unmounts, detaches its loop device, ends its fixtures and removes its files
# on every exit path. Takes about 20 s.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly ZCAV=${1:?usage: health_test.sh /path/to/zcav /path/to/zoned_fuse}
readonly FIXTURE=${2:?usage: health_test.sh /path/to/zcav /path/to/zoned_fuse}
CHECK=$(dirname "${BASH_SOURCE[0]}")/check_health.py
readonly CHECK
readonly SIZE_MIB=64
readonly MB_PER_S=100
# Two unreadable ranges: 3 sectors in the chunk at 10 MiB, 2 MiB from 40 MiB.
readonly EIO_RANGES=$((10 * 1048576 + 5000))+12288,$((40 * 1048576))+2097152
# 2 MiB at 30x the zone's time from 24 MiB: about 315 ms per 1 MiB chunk.
readonly SLOW_RANGE=$((24 * 1048576))+2097152
readonly SLOW_FACTOR=30

require_fuse "$FIXTURE"
require_zcav "$ZCAV"
[[ -r $CHECK ]] || fail "missing $CHECK"

fuse_test_setup zcav-health
FAILED=()

mount_fixture() {
  local name=$1
  shift
  mkdir "$WORK/$name"
  start_fixture "$FIXTURE" "$WORK/$name" "$WORK/$name.log" disk.img --size "${SIZE_MIB}M" \
    --zones "0:$MB_PER_S" "$@"
}

# profile TARGET DIR: zcav profile with 4 MiB blocks and 1 MiB chunks; sets PROFILE_RC.
profile() {
  PROFILE_RC=0
  run_and_wait "$ZCAV" profile "$1" -o "$2" -b 4:1 2>"$2.stderr" || PROFILE_RC=$?
}

part() {
  local name=$1
  shift
  if python3 "$CHECK" "$@"; then
    echo "  ok: $name"
  else
    FAILED+=("$name")
  fi
}

mount_fixture faulty --eio "$EIO_RANGES" --slow "$SLOW_RANGE@$SLOW_FACTOR"
profile "$WORK/faulty/disk.img" "$WORK/faulty-profile"
part faulty faulty "$WORK/faulty-profile" "$PROFILE_RC" --eio "$EIO_RANGES" --slow "$SLOW_RANGE"

mount_fixture clean
profile "$WORK/clean/disk.img" "$WORK/clean-profile"
part clean clean "$WORK/clean-profile" "$PROFILE_RC"

if [[ $(id -u) -eq 0 && -e /dev/loop-control ]] && command -v losetup >/dev/null; then
  LOOP=$(losetup -r -f --show "$WORK/clean/disk.img") || fail "losetup -r could not attach the file"
  profile "$LOOP" "$WORK/loop-profile"
  part "clean (loop)" clean "$WORK/loop-profile" "$PROFILE_RC"
  detach_loop "$LOOP" && LOOP=""
else
  skip_part "the loop-device part" "needs root, losetup and /dev/loop-control"
fi

if ((${#FAILED[@]} > 0)); then
  fail "${#FAILED[@]} part(s) failed: ${FAILED[*]}"
fi
echo "PASS: health_test"
