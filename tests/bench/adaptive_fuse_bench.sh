#!/usr/bin/env bash
# Adaptive sampling on real kernel devices, repeated: `zcav sweep --adaptive`
# RUNS times (10 by default) on each of three 1 GiB FUSE files of 8 zones of
# 128 MiB (300 down to 110 MB/s, the steps 10-17 %), printed as figures
# (nothing is asserted: tests/real/adaptive_test.sh asserts; this shows how
# often and at what cost):
#   plain   the zone table alone;
#   jitter  2 % per-request jitter;
#   drift   the jitter, and every request 12 % slower for the first 300 ms
#           of every second (--drift 0.88:300:1000: a host's slow periods).
# Per run: the zones found, the largest edge error against the table (MiB),
# the largest zone-rate error, the share of the file read, the reference's
# reads and the largest drift divided out; then per fixture the runs with
# every edge within 5 MiB and every rate within 3 %, and the median and
# largest share read. LOAD=N runs N busy loops beside (a busy machine; they
# are ended, by their PIDs, on exit). Needs /dev/fuse and python3.
#
#   tests/bench/adaptive_fuse_bench.sh [ZCAV] [ZONED_FUSE]
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../real/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../real/lib.sh"
bench_paths "$@"
RUNS=${RUNS:-10}
LOAD=${LOAD:-0}
readonly ZONES="0:300,128M:270,256M:240,384M:210,512M:180,640M:150,768M:130,896M:110"
require_zcav "$ZCAV"
require_fuse "$FIXTURE"

LOADERS=()
on_exit() {
  local rc=$?
  set +e
  for pid in "${LOADERS[@]}"; do kill "$pid" 2>/dev/null; done
  (exit "$rc")
  fuse_cleanup  # the fixtures, $WORK; exits with rc
}
fuse_test_setup zcav-adaptive-bench
trap on_exit EXIT
mkdir "$WORK/plain" "$WORK/jitter" "$WORK/drift"
start_fixture "$FIXTURE" "$WORK/plain" "$WORK/plain.log" disk.img --size 1G --zones "$ZONES"
start_fixture "$FIXTURE" "$WORK/jitter" "$WORK/jitter.log" disk.img --size 1G --zones "$ZONES" \
  --jitter 0.02
start_fixture "$FIXTURE" "$WORK/drift" "$WORK/drift.log" disk.img --size 1G --zones "$ZONES" \
  --jitter 0.02 --drift 0.88:300:1000
for ((i = 0; i < LOAD; i++)); do
  (while :; do :; done) &
  LOADERS+=($!)
done

echo "zcav sweep --adaptive, $RUNS runs per file, LOAD=$LOAD busy loops (MB = 10^6 B, MiB = 2^20 B)"
for name in plain jitter drift; do
  for ((run = 1; run <= RUNS; run++)); do
    run_and_wait "$ZCAV" sweep "$WORK/$name/disk.img" --adaptive --quiet --format json \
      -o "$WORK/$name.$run.json"
  done
  python3 - "$name" "$RUNS" "$WORK" <<'EOF'
import json, statistics, sys
name, runs, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
edges = [128 * (k + 1) for k in range(7)]  # MiB
rates = [300, 270, 240, 210, 180, 150, 130, 110]
shares, good = [], 0
for run in range(1, runs + 1):
    doc = json.load(open(f"{work}/{name}.{run}.json"))
    a, zones = doc["adaptive"], doc["zones"]
    found = [e["at_bytes"] / 2**20 for e in a["edges"]]
    if len(found) == len(edges):
        edge_err = max(abs(f - e) for f, e in zip(found, edges))
        rate_err = max(abs(z["mb_per_s"] / r - 1) for z, r in zip(zones, rates))
    else:
        edge_err = rate_err = float("nan")
    ok = edge_err <= 5 and rate_err <= 0.03
    good += ok
    shares.append(a["share_read"])
    print(f"{name:>6} run {run:>2}: {len(zones)} zones, edge error {edge_err:5.1f} MiB, "
          f"rate error {rate_err * 100:4.1f} %, read {a['share_read'] * 100:5.2f} %, "
          f"reference reads {a.get('reference_reads', 0):>2}, "
          f"largest drift {a.get('largest_drift', 1):.3f}{'' if ok else '  WRONG'}")
print(f"{name:>6}: {good} of {runs} runs right (every edge within 5 MiB, every rate within 3 %); "
      f"read {statistics.median(shares) * 100:.2f} % (median), {max(shares) * 100:.2f} % at most")
EOF
done
