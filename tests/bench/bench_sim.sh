#!/usr/bin/env bash
# Benchmark: zcav's own cost on simulated devices (no disk I/O: the simulated
# disk runs on a virtual clock, so what is measured is zcav's bookkeeping).
#
#   peak RSS and wall time of  zcav sweep 'sim:hdd?size=20T' -b 1M --quiet -o X
#       (20 TiB in 1 MiB blocks: 20,971,520 blocks, one run; target < 1024 MiB)
#   wall time of               zcav sweep 'sim:hdd?size=2T' --quiet -o X
#       (default block size; hyperfine --warmup 1 --runs 5 when installed,
#       else 1 warm-up + 5 runs under /usr/bin/time; median; target < 1 s)
#
# Peak RSS is "Maximum resident set size" from /usr/bin/time -v. Outputs go
# to a mktemp directory (under $TMPDIR, default /tmp) removed on exit; the
# 20 TiB raw file takes about 1.6 GB there while it exists.
#
# Usage: tests/bench/bench_sim.sh [PATH/TO/zcav]
#   zcav defaults to $ZCAV, then the newest Release/RelWithDebInfo build*/zcav
#   of this repository (not a sanitizer or fuzzer build), then PATH.
#   Called at the end of bench_read.sh; runs standalone too.
# Environment:
#   SIM_RUNS=5         runs of the 2 TiB sweep (at least 3)
# Installs nothing: says what is missing. Not a ctest test.
set -euo pipefail

SIM_RUNS=${SIM_RUNS:-5}
ZCAV_BIN=${ZCAV:-}

die() { echo "bench_sim: $*" >&2; exit 1; }
note() { echo "bench_sim: $*" >&2; }

for arg in "$@"; do
  case $arg in
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$arg' (usage: bench_sim.sh [PATH/TO/zcav])" ;;
    *) ZCAV_BIN=$arg ;;
  esac
done
[[ $SIM_RUNS =~ ^[0-9]+$ && $SIM_RUNS -ge 3 ]] || die "SIM_RUNS must be a whole number >= 3 (got '$SIM_RUNS')"

[[ -x /usr/bin/time ]] || die "missing /usr/bin/time (Debian package: time); this script installs nothing"
command -v python3 >/dev/null || die "missing python3 (Debian package: python3); this script installs nothing"

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
resolve_zcav

WORK=$(mktemp -d "${TMPDIR:-/tmp}/zcav-bench-sim.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

# seconds_of TIMEFILE / peak_rss_kib TIMEFILE: fields of a /usr/bin/time -v report.
time_field() {
  python3 - "$1" "$2" <<'EOF'
import sys
path, want = sys.argv[1:]
t = {}
for line in open(path):
    key, _, value = line.strip().rpartition(": ")
    t[key] = value
if want == "elapsed":
    s = 0.0
    for part in t["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":"):
        s = s * 60 + float(part)
    print(f"{s:.2f}")
else:
    print(t["Maximum resident set size (kbytes)"])
EOF
}

# timed_v TAG CMD...: CMD under /usr/bin/time -v into $WORK/TAG.time; dies
# with CMD's stderr if it fails.
timed_v() {
  local tag=$1
  shift
  if ! /usr/bin/time -v -o "$WORK/$tag.time" "$@" >"$WORK/$tag.out" 2>"$WORK/$tag.err"; then
    cat "$WORK/$tag.err" >&2
    die "failed: $*"
  fi
}

echo "bench_sim: zcav = $ZCAV_BIN ($("$ZCAV_BIN" --version)); results in seconds of wall time, RSS in MiB (2^20 B)" >&2

# --- 2 TiB at the default block size: a whole sweep should take under a second.
readonly SIM_2T='sim:hdd?size=2T'
if command -v hyperfine >/dev/null; then
  # printf %q: hyperfine runs the command through a shell, and the sim URL
  # has a '?' that the shell would otherwise glob.
  cmd=$(printf '%q ' "$ZCAV_BIN" sweep "$SIM_2T" --quiet -o "$WORK/sim2T.dat")
  hyperfine --warmup 1 --runs "$SIM_RUNS" --style none --export-json "$WORK/sim2T.json" "$cmd" \
    >"$WORK/hyperfine.out" 2>&1 || { cat "$WORK/hyperfine.out" >&2; die "hyperfine failed: $cmd"; }
  method="hyperfine --warmup 1 --runs $SIM_RUNS"
  read -r median_2t all_2t < <(python3 - "$WORK/sim2T.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"{r['median']:.3f}", " ".join(f"{t:.3f}" for t in r["times"]))
EOF
  )
else
  note "hyperfine not installed (Debian package: hyperfine): timing the 2 TiB sweep with /usr/bin/time (0.01 s resolution)"
  method="/usr/bin/time, 1 warm-up + $SIM_RUNS runs"
  timed_v sim2T.warmup "$ZCAV_BIN" sweep "$SIM_2T" --quiet -o "$WORK/sim2T.dat"
  times=()
  for ((i = 1; i <= SIM_RUNS; i++)); do
    timed_v "sim2T.$i" "$ZCAV_BIN" sweep "$SIM_2T" --quiet -o "$WORK/sim2T.dat"
    times+=("$(time_field "$WORK/sim2T.$i.time" elapsed)")
  done
  median_2t=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  all_2t="${times[*]}"
fi

# --- 20 TiB in 1 MiB blocks: 20 M blocks, what a big disk at a fine grain costs
# in memory. The raw output is about 75 B a block, so check the space first.
readonly SIM_20T='sim:hdd?size=20T'
avail_kib=$(df -Pk "$WORK" | awk 'NR == 2 { print $4 }')
rss_line=""
if [[ $avail_kib -lt $((3 * 1024 * 1024)) ]]; then
  rss_line="20 TB sim sweep at 1 MiB blocks: skipped (needs about 3 GiB free in ${TMPDIR:-/tmp} for its output; set TMPDIR)"
else
  note "20 TiB sim sweep at 1 MiB blocks (20971520 blocks; may take a few minutes)..."
  timed_v sim20T "$ZCAV_BIN" sweep "$SIM_20T" -b 1M --quiet -o "$WORK/sim20T.dat"
  blocks=$(sed -n 's/^# options:.* blocks=\([0-9]*\).*/\1/p' "$WORK/sim20T.dat" | head -n 1)
  rss_kib=$(time_field "$WORK/sim20T.time" rss)
  wall_20t=$(time_field "$WORK/sim20T.time" elapsed)
  rss_line=$(printf '20 TB sim sweep at 1 MiB blocks: peak RSS %d MiB (target < 1024 MiB), wall %s s' \
    $(((rss_kib + 512) / 1024)) "$wall_20t")
  [[ -z $blocks || $blocks -eq 20971520 ]] ||
    rss_line+=" (note: the output header says $blocks blocks, not 20971520)"
fi

echo
echo "Simulated-device sweeps (zcav $("$ZCAV_BIN" --version | awk '{ print $NF }'), $ZCAV_BIN):"
echo "  $rss_line"
echo "  2 TB sim sweep: median $median_2t s (target < 1 s)   [$method: $all_2t s]"
echo "  (sizes: 20T = 20 TiB, 2T = 2 TiB; 'sim:hdd?size=...'; RSS from /usr/bin/time -v, MiB = 2^20 B)"
