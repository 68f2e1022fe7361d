#!/usr/bin/env bash
# Adaptive sampling against the full sweep, on simulated 1, 4 and 20 TB hard
# disks of 30 zones (T = TiB): for each size and noise, `zcav sweep
# --adaptive` and a full sweep of 10000 blocks (an edge resolution of 0.01 %
# of the device) of the same simulated disk, and per run: the zones each
# found, the bytes the adaptive run read (and their share), its virtual time
# (the simulated disk's clock: seeks and rotation included) against the full
# sweep's, the largest edge error against the full sweep's (in % of the
# device and in MiB) and the largest zone-rate error. The cost should grow
# with the number of zones, not with the size: the probes grow by a few per
# edge per doubling, the share read falls as the size grows. Takes about a
# minute (the full sweeps).
#
# Usage: bash adaptive_bench.sh [ZCAV] [NOISES]   (NOISES: a list of sim keys,
#        default "noise=0.5% noise=2% noise=2%&corr=0.5")
set -euo pipefail
readonly ZCAV=${1:-build/zcav}
readonly NOISES=${2:-"noise=0.5% noise=2% noise=2%&corr=0.5"}
[[ -x $ZCAV ]] || { echo "usage: adaptive_bench.sh [ZCAV] [NOISES]: $ZCAV not found" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/zcav-adaptive-bench-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

printf '%-5s %-20s %6s %6s %7s %10s %8s %10s %11s %11s %9s\n' size noise zones found probes \
  "read GB" "share %" "time s" "full/adapt" "edge err %" "rate err %"
for size in 1T 4T 20T; do
  for noise in $NOISES; do
    spec="sim:hdd?size=$size&zones=30&$noise"
    bytes=$("$ZCAV" sweep "sim:hdd?size=$size" --end 1M --quiet --format json -o - |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["device"]["size_bytes"])')
    "$ZCAV" sweep "$spec" --adaptive --quiet --format json -o "$WORK/a.json"
    "$ZCAV" sweep "$spec" --block-size $((bytes / 10000 / 1048576))M --quiet --format json \
      -o "$WORK/f.json"
    python3 - "$WORK/a.json" "$WORK/f.json" "$size" "$noise" <<'EOF'
import json, sys
a_doc, f_doc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
size, noise = sys.argv[3:]
a, zones, ref = a_doc["adaptive"], a_doc["zones"], f_doc["zones"]
device = a_doc["device"]["size_bytes"]
edge = rate = float("nan")
if len(zones) == len(ref):
    edge = max(abs(z["start_bytes"] - r["start_bytes"]) for z, r in zip(zones, ref)) / device * 100
    rate = max(abs(z["mb_per_s"] / r["mb_per_s"] - 1) for z, r in zip(zones, ref)) * 100
t_a, t_f = a_doc["summary"]["wall_seconds"], f_doc["summary"]["wall_seconds"]
print(f"{size:<5} {noise:<20} {len(ref):>6} {len(zones):>6} {a['probes']:>7} "
      f"{a['bytes_read'] / 1e9:>10.2f} {a['share_read'] * 100:>8.3f} {t_a:>10.0f} "
      f"{t_f / t_a:>11.0f} {edge:>11.4f} {rate:>9.2f}")
EOF
  done
done
echo "(GB = 10^9 B; time: the simulated disk's virtual clock; errors against the full sweep"
echo " of 10000 blocks, whose own edges are within 0.01 % of the device; nan: zone counts differ)"
