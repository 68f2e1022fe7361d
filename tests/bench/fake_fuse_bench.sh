#!/usr/bin/env bash
# Benchmark: how fast the fake_fuse fixture (tests/fixtures/fake_fuse.cc)
# serves O_DIRECT 1 MiB writes and reads, to size the devices a CI test of
# zcav verify can afford. dd (bs=1M, oflag/iflag=direct, one request at a
# time, as zcav verify's 1 MiB chunks) writes the whole claimed size of
# MOUNT/disk.img, reads it back, then does the same through a read-write
# loop device over it (as root, with loop devices). Prints seconds and MB/s
# (10^6 B/s) of each pass; nothing is asserted. The backing file lies in
# $TMPDIR (default /tmp; its file system's type is printed): on a disk its
# pages go through the page cache, so a real capacity beyond what the cache
# holds dirty is written at the disk's rate.
#
# Usage: bash tests/bench/fake_fuse_bench.sh [FAKE_FUSE]
#        (default build/tests/fake_fuse)
# Environment: SIZE=4G (claimed), REAL=1G, FAKE=wrap|drop, ROUNDS=1, VIA_LOOP=1
# (0: the file only). Needs root or a setuid fusermount3 (the loop device: root).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../real/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../real/lib.sh"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
readonly FAKE_FUSE=${1:-$ROOT/build/tests/fake_fuse}
readonly SIZE=${SIZE:-4G} REAL=${REAL:-1G} FAKE=${FAKE:-wrap} ROUNDS=${ROUNDS:-1}
require_fuse "$FAKE_FUSE"
fuse_test_setup zcav-fake-fuse-bench
mkdir "$WORK/mnt"
start_fixture "$FAKE_FUSE" "$WORK/mnt" "$WORK/fixture.log" disk.img --size "$SIZE" \
  --real "$REAL" --fake "$FAKE" --backing "$WORK/backing.img"
readonly DISK=$WORK/mnt/disk.img
readonly MIB_COUNT=$(($(stat -c %s "$DISK") >> 20))
echo "disk.img: $SIZE claimed, $REAL real ($FAKE), backing on $(stat -f -c %T "$WORK")," \
  "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

# pass WHAT TARGET write|read: one dd pass over TARGET, timed.
pass() {
  local what=$1 target=$2 dir=$3 start end
  start=$(date +%s%N)
  if [[ $dir == write ]]; then
    dd if=/dev/zero of="$target" bs=1M count="$MIB_COUNT" oflag=direct conv=notrunc status=none
  else
    dd if="$target" of=/dev/null bs=1M count="$MIB_COUNT" iflag=direct status=none
  fi
  end=$(date +%s%N)
  awk -v w="$what" -v d="$dir" -v n="$MIB_COUNT" -v ns=$((end - start)) 'BEGIN {
    printf "%-10s %-5s %6d MiB %7.2f s %7.0f MB/s\n", w, d, n, ns / 1e9, n * 1048576 / (ns / 1e3) }'
}

for _ in $(seq "$ROUNDS"); do
  pass disk.img "$DISK" write
  pass disk.img "$DISK" read
done
if [[ ${VIA_LOOP:-1} == 1 && $(id -u) -eq 0 && -e /dev/loop-control ]]; then
  LOOP=$(losetup -f --show "$DISK")
  for _ in $(seq "$ROUNDS"); do
    pass loop "$LOOP" write
    pass loop "$LOOP" read
  done
  detach_loop "$LOOP"
  LOOP=""
fi
stop_fixtures 0
grep '^fake_fuse: served' "$WORK/fixture.log"
