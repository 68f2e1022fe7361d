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
# Buffers: zcav's are on 2 MiB huge pages (AlignedBuffer), so a request is
# one or a few segments. fio's default (mem=malloc) is on 4 KiB pages: a
# 1 MiB request of fio's has 256 segments, over virtio's 254, and on the
# development machine's virtio disk that caps fio's 1 MiB reads at a quarter
# of the rate. So fio runs twice per cell: with its default buffers, and
# (as root) with buffers on hugetlbfs (mem=mmaphuge, huge pages reserved for
# the run through /proc/sys/vm/nr_hugepages and given back at the end). The
# ratio that compares like with like is zcav / fio-huge.
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
HUGE_BEFORE=""
cleanup() {
  if mountpoint -q "$WORK/huge"; then umount "$WORK/huge"; fi
  if [[ -n $HUGE_BEFORE ]]; then echo "$HUGE_BEFORE" > /proc/sys/vm/nr_hugepages; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
# Huge pages for fio's buffers: the largest cell's (32 x 1 MiB) and slack.
HUGE=0
if [[ $EUID -eq 0 ]]; then
  HUGE_BEFORE=$(cat /proc/sys/vm/nr_hugepages)
  echo $((HUGE_BEFORE + 64)) > /proc/sys/vm/nr_hugepages
  mkdir "$WORK/huge"
  if mount -t hugetlbfs none "$WORK/huge" &&
    (($(awk '/HugePages_Free/ {print $2}' /proc/meminfo) >= 32)); then
    HUGE=1
  else
    echo "random_access_bench: no huge pages for fio; fio-huge columns left out" >&2
  fi
else
  echo "random_access_bench: not root, no hugetlbfs for fio; fio-huge columns left out" >&2
fi
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
run_fio() {  # BS DEPTH ROUND KIND [fio options]
  fio "${@:5}" --name=rand --filename="$FILE" --rw=randread --bs="$1" --iodepth="$2" \
    --ioengine=io_uring --direct=1 --time_based --runtime="$CELL" --randrepeat=0 \
    --norandommap --output-format=json --output="$WORK/$4-$3-$1-$2.json" >/dev/null
}
run_fios() {
  run_fio "$@" fio
  if ((HUGE)); then run_fio "$@" fiohuge --mem="mmaphuge:$WORK/huge/buffers"; fi
}
for round in $(seq "$ROUNDS"); do
  echo "round $round of $ROUNDS" >&2
  for bs in "${SIZES[@]}"; do
    for qd in "${DEPTHS[@]}"; do
      if (( round % 2 )); then
        run_zcav "$bs" "$qd" "$round"; run_fios "$bs" "$qd" "$round"
      else
        run_fios "$bs" "$qd" "$round"; run_zcav "$bs" "$qd" "$round"
      fi
    done
  done
done

python3 - "$WORK" "$ROUNDS" "${SIZES[*]}" "${DEPTHS[*]}" "$HUGE" <<'EOF'
import json, statistics, sys
work, rounds, huge = sys.argv[1], int(sys.argv[2]), sys.argv[5] == "1"
sizes, depths = sys.argv[3].split(), [int(d) for d in sys.argv[4].split()]
kinds = ["fio", "fiohuge"] if huge else ["fio"]
def median_of(kind, s, d, value):
    return statistics.median(value(json.load(open(f"{work}/{kind}-{r}-{s}-{d}.json")))
                             for r in range(1, rounds + 1))
def zcav(key):
    return lambda j: j["random_access"]["cells"][0][key]
def fio(what):
    def get(j):
        r = j["jobs"][0]["read"]
        return {"iops": r["iops"], "mean": r["lat_ns"]["mean"] / 1e6,
                # fio gives percentiles of clat only
                "p99": r["clat_ns"]["percentile"]["99.000000"] / 1e6}[what]
    return get
print(f"IOPS and latency (ms), median of {rounds} rounds"
      + ("; fio-huge: fio with its buffers on huge pages, as zcav's" if huge else ""))
head = f"{'size':>5} {'depth':>5} {'zcav IOPS':>10} {'fio IOPS':>10} {'zcav/fio':>8}"
if huge:
    head += f" {'fio-huge':>10} {'zcav/huge':>9}"
head += f" {'zcav mean':>9} {'fio mean':>8} {'zcav p99':>8} {'fio p99':>8}"
print(head)
ratios = {k: [] for k in kinds}
for s in sizes:
    for d in depths:
        zi = median_of("zcav", s, d, zcav("iops"))
        row = f"{s:>5} {d:>5} {zi:>10.0f}"
        for k in kinds:
            fi = median_of(k, s, d, fio("iops"))
            ratios[k].append(zi / fi)
            row += f" {fi:>10.0f} {zi / fi:>{8 if k == 'fio' else 9}.3f}"
        like = kinds[-1]  # latency against the like-for-like fio
        row += (f" {median_of('zcav', s, d, zcav('mean_ms')):>9.3f}"
                f" {median_of(like, s, d, fio('mean')):>8.3f}"
                f" {median_of('zcav', s, d, zcav('p99_ms')):>8.3f}"
                f" {median_of(like, s, d, fio('p99')):>8.3f}")
        print(row)
for k in kinds:
    r = ratios[k]
    name = "fio-huge" if k == "fiohuge" else "fio (malloc buffers)"
    print(f"zcav / {name}: median {statistics.median(r):.3f}, range {min(r):.3f}-{max(r):.3f};"
          f" cells within 10 %: {sum(abs(x - 1) <= 0.10 for x in r)} of {len(r)}")
EOF
