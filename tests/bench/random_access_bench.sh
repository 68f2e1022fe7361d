#!/usr/bin/env bash
# Random access by size and depth against fio: on a file of SIZE (default
# 4 GiB, created with real data under DIR, default /var/tmp, and removed at
# the end), `zcav access --sizes 4k,64k,1M --queue-depth 1,4,32` and fio's
# randread (ioengine io_uring, direct=1, the same bs and iodepth, time_based
# for the same time per cell) are run cell by cell, back to back, ROUNDS
# times (the order swapped every round), and the script prints per cell the
# median IOPS of each, the ratio zcav / fio, the mean latency (fio: lat, from
# submission to completion, as zcav times it) and the p99 (fio: of clat). Absolute figures move between runs
# on a shared machine; compare the ratios.
#
# Buffers differ: zcav's are MADV_HUGEPAGE, fio's (mem=malloc) are on 4 KiB
# pages, so a 1 MiB request of fio's has 256 segments. On the virtio disk of
# the development machine that matters at large sizes and depth >= 4 (fio's
# 1M at depth 4 doubled with transparent huge pages set to "always").
#
# Usage: bash random_access_bench.sh [ZCAV] [DIR] [SIZE_GIB] [ROUNDS] [CELL_SECONDS]
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
die() { echo "random_access_bench: $*" >&2; exit 1; }

ZCAV_BIN=${1:-}
DIR=${2:-/var/tmp}
SIZE_GIB=${3:-4}
ROUNDS=${4:-3}
CELL=${5:-2}
resolve_zcav
command -v fio >/dev/null || die "fio is not installed (apt-get install fio)"
readonly SIZES=(4k 64k 1M) DEPTHS=(1 4 32)

WORK=$(mktemp -d "$DIR/zcav-rabench-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FILE=$WORK/data.bin
echo "writing $SIZE_GIB GiB of random data to $FILE" >&2
head -c $((SIZE_GIB * 1024 * 1024 * 1024)) /dev/urandom > "$FILE"
sync

# One cell at a time, zcav and fio back to back, the order swapped every
# round: the host's cache and load drift, and each pair sees the same.
run_zcav() {
  "$ZCAV_BIN" access "$FILE" --sizes "$1" --queue-depth "$2" --cell-time "${CELL}s" \
    --format json -o "$WORK/zcav-$3-$1-$2.json"
}
run_fio() {
  fio --name=rand --filename="$FILE" --rw=randread --bs="$1" --iodepth="$2" \
    --ioengine=io_uring --direct=1 --time_based --runtime="$CELL" --randrepeat=0 \
    --norandommap --output-format=json --output="$WORK/fio-$3-$1-$2.json" >/dev/null
}
for round in $(seq "$ROUNDS"); do
  echo "round $round of $ROUNDS" >&2
  for bs in "${SIZES[@]}"; do
    for qd in "${DEPTHS[@]}"; do
      if (( round % 2 )); then
        run_zcav "$bs" "$qd" "$round"; run_fio "$bs" "$qd" "$round"
      else
        run_fio "$bs" "$qd" "$round"; run_zcav "$bs" "$qd" "$round"
      fi
    done
  done
done

python3 - "$WORK" "$ROUNDS" "${SIZES[*]}" "${DEPTHS[*]}" <<'EOF'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
sizes, depths = sys.argv[3].split(), [int(d) for d in sys.argv[4].split()]
def bytes_of(s):
    return int(s[:-1]) * {"k": 1024, "M": 1 << 20}[s[-1]]
print(f"{'size':>5} {'depth':>5} {'zcav IOPS':>11} {'fio IOPS':>11} {'ratio':>6}"
      f" {'zcav mean':>10} {'fio mean':>9} {'zcav p99':>9} {'fio p99':>8}  (ms; median of {rounds} rounds)")
ratios = []
for s in sizes:
    for d in depths:
        zc = [json.load(open(f"{work}/zcav-{r}-{s}-{d}.json"))["random_access"]["cells"][0]
              for r in range(1, rounds + 1)]
        fj = [json.load(open(f"{work}/fio-{r}-{s}-{d}.json"))["jobs"][0]["read"]
              for r in range(1, rounds + 1)]
        zi = statistics.median(c["iops"] for c in zc)
        fi = statistics.median(j["iops"] for j in fj)
        zm = statistics.median(c["mean_ms"] for c in zc)
        fm = statistics.median(j["lat_ns"]["mean"] / 1e6 for j in fj)
        z99 = statistics.median(c["p99_ms"] for c in zc)
        f99 = statistics.median(j["clat_ns"]["percentile"]["99.000000"] / 1e6 for j in fj)  # fio gives percentiles of clat
        ratio = zi / fi
        ratios.append(ratio)
        print(f"{s:>5} {d:>5} {zi:>11.0f} {fi:>11.0f} {ratio:>6.3f} {zm:>10.3f} {fm:>9.3f}"
              f" {z99:>9.3f} {f99:>8.3f}")
print(f"ratios zcav/fio: median {statistics.median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f}; "
      f"cells within 10 %: {sum(abs(r - 1) <= 0.10 for r in ratios)} of {len(ratios)}")
EOF
