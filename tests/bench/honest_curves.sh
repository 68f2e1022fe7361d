#!/usr/bin/env bash
# The real-device checks of "honest curves" (issue 14), each repeated RUNS
# times with zcav's default options, printed as figures (nothing is asserted:
# the real-I/O tests in tests/real/ assert; this shows how often and by how
# much). Needs root, /dev/fuse, loop devices and the blkio cgroup (v1).
#
#   tests/bench/honest_curves.sh [ZCAV] [ZONED_FUSE]     (RUNS=10 by default)
#
# 1. flat FUSE file, 36 MB/s, 2 % per-request jitter, 192 MiB: `zcav sweep`;
#    per-block p1 and p99 against 36 MB/s, zones, curve type.
# 2. 4-zone FUSE file, 140/110/80/65 MB/s over 256 MiB (edges 64/128/192
#    MiB), 2 % jitter: `zcav profile`; zones, their edges, verdict.
# 3. loop device over a 512 MiB file behind a 40 MB/s blkio read throttle:
#    `zcav sweep -b 1M --bus usb2`; zones, type, verdict.
# 4. a 4 GiB file on the machine's own disk (O_DIRECT): `zcav sweep`;
#    zones, type, verdict.
# Cleans up its fixtures, loop device, cgroup and files on every exit path.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../real/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../real/lib.sh"
bench_paths "$@"
RUNS=${RUNS:-10}
ONLY=${ONLY:-1234}   # which checks to run, e.g. ONLY=34
require_zcav "$ZCAV"
require_fuse "$FIXTURE"
[[ $(id -u) -eq 0 ]] || skip "needs root"
readonly BLKIO=/sys/fs/cgroup/blkio
[[ -f $BLKIO/blkio.throttle.read_bps_device ]] || skip "no blkio cgroup v1 at $BLKIO"

CGROUP=""
DISK_DIR=""
on_exit() {
  local rc=$?
  set +e
  if [[ -n $CGROUP && -d $CGROUP ]]; then
    while read -r pid; do echo "$pid" > "$BLKIO/cgroup.procs"; done < "$CGROUP/cgroup.procs"
    rmdir "$CGROUP"
  fi
  detach_loop "$LOOP"
  LOOP=""
  [[ -n $DISK_DIR ]] && rm -rf "$DISK_DIR"
  (exit "$rc")
  fuse_cleanup  # the fixtures, $WORK; exits with rc
}
fuse_test_setup zcav-honest
trap on_exit EXIT
# Big files go to the disk, not /tmp (which may be RAM).
DISK_DIR=$(mktemp -d /var/tmp/zcav-honest-XXXXXX)

summary() {  # summary FILE.json NOMINAL_MB_PER_S: one line of figures
  python3 - "$1" "${2:-0}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); nominal = float(sys.argv[2])
rates = sorted(b["mb_per_s"] for b in d["blocks"] if b.get("mb_per_s"))
q = lambda f: rates[min(len(rates) - 1, int(f * (len(rates) - 1) + 0.5))]
zones = d.get("zones", [])
line = f"{len(rates)} blocks, p1 {q(0.01):.1f} p50 {q(0.5):.1f} p99 {q(0.99):.1f} MB/s"
if nominal:
    line += f" (p1 {100 * (q(0.01) / nominal - 1):+.1f} %, p99 {100 * (q(0.99) / nominal - 1):+.1f} %)"
line += f"; {len(zones)} zones, {d.get('curve_type')}"
edges = [round(z['start_bytes'] / 2**20) for z in zones[1:]]
if edges and len(edges) < 8: line += f", edges {edges} MiB"
v = d.get("verdict")
if v: line += f"; verdict {v['kind']}" + (" (platter!)" if "platter" in v["reason"] else "")
print(line)
PY
}

if [[ $ONLY == *1* ]]; then
echo "== 1. flat FUSE, 36 MB/s, 2 % jitter: zcav sweep (defaults)"
mkdir "$WORK/flat"
start_fixture "$FIXTURE" "$WORK/flat" "$WORK/flat.log" disk.img --size 192M --zones 0:36 --jitter 0.02
for i in $(seq "$RUNS"); do
  "$ZCAV" sweep "$WORK/flat/disk.img" --format json -o "$WORK/flat-$i.json" --quiet
  echo "  run $i: $(summary "$WORK/flat-$i.json" 36)"
done

fi
if [[ $ONLY == *2* ]]; then
echo "== 2. 4-zone FUSE, 140/110/80/65 MB/s, edges 64/128/192 MiB, 2 % jitter: zcav profile"
mkdir "$WORK/zoned"
start_fixture "$FIXTURE" "$WORK/zoned" "$WORK/zoned.log" disk.img --size 256M \
  --zones 0:140,64M:110,128M:80,192M:65 --jitter 0.02
for i in $(seq "$RUNS"); do
  "$ZCAV" profile "$WORK/zoned/disk.img" -o "$WORK/profile-$i" --quiet
  echo "  run $i: $(summary "$WORK/profile-$i/profile.json")"
done

fi
if [[ $ONLY == *3* ]]; then
echo "== 3. loop device behind a 40 MB/s blkio read throttle: zcav sweep -b 1M --bus usb2"
dd if=/dev/urandom of="$DISK_DIR/throttled.img" bs=1M count=512 status=none
LOOP=$(losetup -r -f --show --direct-io=on "$DISK_DIR/throttled.img")
CGROUP=$BLKIO/zcav-honest-$$
mkdir "$CGROUP"
echo "$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ') 40000000" > "$CGROUP/blkio.throttle.read_bps_device"
for i in $(seq "$RUNS"); do
  sh -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' _ "$CGROUP" \
    "$ZCAV" sweep "$LOOP" -b 1M --bus usb2 --format json -o "$WORK/throttle-$i.json" --quiet
  echo "  run $i: $(summary "$WORK/throttle-$i.json" 40)"
done

fi
if [[ $ONLY == *4* ]]; then
echo "== 4. 4 GiB file on the machine's own disk (O_DIRECT): zcav sweep"
dd if=/dev/urandom of="$DISK_DIR/disk.img" bs=4M count=1024 status=none
for i in $(seq "$RUNS"); do
  "$ZCAV" sweep "$DISK_DIR/disk.img" --format json -o "$WORK/virtio-$i.json" --quiet
  echo "  run $i: $(summary "$WORK/virtio-$i.json")"
done
fi
