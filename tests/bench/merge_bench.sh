#!/usr/bin/env bash
# Benchmark: zcav merge on many profiles. Makes SEEDS real `zcav profile`
# results of simulated 250 GB disks (two of them weak: weak=), then copies
# them to COUNT profile directories, each copy with a serial of its own (a
# profile.json is about 1 MB: the blocks, the access samples, the zones), and
# merges them all: prints the whole process's wall time and peak memory
# (/usr/bin/time -v) and the flagged count (every copy of the weak drives).
# Usage: bash tests/bench/merge_bench.sh /path/to/zcav [COUNT [SEEDS]]
# (defaults 1000 profiles from 20 seeds).
set -euo pipefail
zcav=$(realpath "${1:?usage: merge_bench.sh /path/to/zcav [COUNT [SEEDS]]}")
count=${2:-1000}
seeds=${3:-20}
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/zcav-merge-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/seed" "$work/fleet"
for s in $(seq 1 "$seeds"); do
  weak=""
  [[ $s == 3 ]] && weak="&weak=40%-60%:0.8"
  [[ $s == 11 ]] && weak="&weak=10%-20%:0.7"
  "$zcav" profile "sim:hdd?seed=$s$weak" -q -o "$work/seed/$s" >/dev/null
done
for i in $(seq 1 "$count"); do
  s=$(((i - 1) % seeds + 1))
  mkdir -p "$work/fleet/$i"
  sed "s/\"SIM-HDD-$s\"/\"SIM-HDD-$s-copy-$i\"/g" "$work/seed/$s/profile.json" >"$work/fleet/$i/profile.json"
done
bytes=$(du -sb "$work/fleet" | cut -f1)
/usr/bin/time -v "$zcav" merge "$work/fleet" -o "$work/fleet.json" -q 2>"$work/time.txt"
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
flagged=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(x['flagged'] for x in d['drives']))" "$work/fleet.json")
echo "zcav merge of $count profiles ($((bytes / 1000000)) MB of profile.json, $seeds seeds):"
echo "  wall $wall, peak RSS $((rss / 1024)) MiB, flagged $flagged (the copies of 2 weak seeds: $(( (count / seeds) * 2 )) expected)"
