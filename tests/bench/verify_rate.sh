#!/usr/bin/env bash
# zcav verify's write and read-back rates against zcav sweep --write and
# zcav sweep on the same device (issue 39: stamping and checking every
# sector must cost nothing measurable). A loop device over a file on this
# machine's disk (DIR, default /var/tmp), SIZE (default 1G); ROUNDS rounds
# (default 5), each running, in turn: verify, sweep --write, sweep, at the
# same 1 MiB chunks and 16 MiB blocks, and both sweeps again at
# --queue-depth 1 --engine pread (one request at a time: how far the read
# queue's depth counts on this device; verify writes one at a time, as a
# write sweep does, and reads at the read sweep's depth). Prints per round the mean
# of the block rates (MB/s, 10^6 B/s) and, at the end, the medians and the
# ratios verify / sweep. Needs root (losetup). Absolute figures move with the
# host's cache; compare the ratios of one run.
# Usage: tests/bench/verify_rate.sh [ZCAV]  (env DIR, SIZE, ROUNDS)
set -euo pipefail
die() { echo "verify_rate: $*" >&2; exit 1; }
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
ZCAV_BIN=${1:-}
resolve_zcav
[[ $(id -u) -eq 0 ]] || die "needs root (losetup)"
DIR=${DIR:-/var/tmp}
SIZE=${SIZE:-1G}
ROUNDS=${ROUNDS:-5}
WORK=$(mktemp -d "$DIR/zcav-verify-rate-XXXXXX")
LOOP=""
cleanup() {
  [[ -z $LOOP ]] || losetup -d "$LOOP" || true
  rm -rf "$WORK"
}
trap cleanup EXIT
# Written once first: the first write of a sparse file pays for allocating it.
truncate -s "$SIZE" "$WORK/disk.img"
dd if=/dev/zero of="$WORK/disk.img" bs=1M count=$(( $(stat -c %s "$WORK/disk.img") >> 20 )) conv=notrunc,fsync status=none
LOOP=$(losetup -f --show "$WORK/disk.img")
mean() {  # mean KEY FILE: the mean of blocks[].KEY (verify's blocks are under verify)
  python3 -c '
import json, sys
d = json.load(open(sys.argv[2]))
b = d["verify"]["blocks"] if "verify" in d else d["blocks"]
v = [x[sys.argv[1]] for x in b if x[sys.argv[1]] > 0]
print(f"{sum(v) / len(v):.1f}")' "$1" "$2"
}
common=(--chunk-size 1M --format json --quiet)
qd1=(--queue-depth 1 --engine pread)
printf 'round  verify_write  sweep_write  sweep_write_qd1  verify_read  sweep_read  sweep_read_qd1\n'
for r in $(seq "$ROUNDS"); do
  "$ZCAV_BIN" verify "$LOOP" --destroy-data --block-size 16M "${common[@]}" -o "$WORK/v.json" \
    2>> "$WORK/log"
  "$ZCAV_BIN" sweep "$LOOP" --write --destroy-data --block-size 16M --no-zones "${common[@]}" \
    -o "$WORK/w.json" < /dev/null 2>> "$WORK/log"
  "$ZCAV_BIN" sweep "$LOOP" --write --destroy-data --block-size 16M --no-zones "${qd1[@]}" \
    "${common[@]}" -o "$WORK/w1.json" < /dev/null 2>> "$WORK/log"
  "$ZCAV_BIN" sweep "$LOOP" --block-size 16M --no-zones "${common[@]}" -o "$WORK/r.json"
  "$ZCAV_BIN" sweep "$LOOP" --block-size 16M --no-zones "${qd1[@]}" "${common[@]}" \
    -o "$WORK/r1.json"
  printf '%5d %13s %12s %16s %12s %11s %15s\n' "$r" "$(mean write_mb_per_s "$WORK/v.json")" \
    "$(mean mb_per_s "$WORK/w.json")" "$(mean mb_per_s "$WORK/w1.json")" \
    "$(mean read_mb_per_s "$WORK/v.json")" \
    "$(mean mb_per_s "$WORK/r.json")" "$(mean mb_per_s "$WORK/r1.json")"
done | tee "$WORK/table"
python3 - "$WORK/table" << 'PY'
import statistics, sys
rows = [list(map(float, l.split()[1:])) for l in open(sys.argv[1]) if l.split()[0].isdigit()]
med = [statistics.median(c) for c in zip(*rows)]
vw, sw, sw1, vr, sr, sr1 = med
print(f"medians (MB/s): verify write {vw:.0f}, sweep --write {sw:.0f} (qd1 {sw1:.0f}), "
      f"verify read {vr:.0f}, sweep {sr:.0f} (qd1 {sr1:.0f})")
ratios = [[r[0] / r[1], r[0] / r[2], r[3] / r[4], r[3] / r[5]] for r in rows]
rw, rw1, rr, rr1 = (statistics.median(c) for c in zip(*ratios))
print(f"median of round ratios verify/sweep: write {rw:.3f} (qd1 {rw1:.3f}), "
      f"read {rr:.3f} (qd1 {rr1:.3f})")
PY
