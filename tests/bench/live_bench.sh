#!/usr/bin/env bash
# Benchmark: does --live slow the sweep? One file on the machine's disk
# (O_DIRECT; the virtio disk here reads 2-11 GB/s, so a run is short and
# jittery) or, with ZONED_FUSE given, a file of the FUSE fixture paced at
# 300 MB/s (a real kernel path at a steady rate, as a disk), read whole by `zcav sweep FILE --passes 1`, ROUNDS times each
# way, the ways alternating within a round (so a drift of the shared
# machine falls on all alike):
#   plain     no --live
#   window    --live with a display (a gnuplot x11 window under Xvfb)
#   terminal  --live in a terminal (tmux, 120 x 40)
# Prints per way the median sweep rate (MB/s = 10^6 B/s, zcav's own average:
# bytes read / read time), the median whole-process wall time and CPU %
# (/usr/bin/time -v), and each way's rate as a ratio to plain's.
#
# Usage: bash tests/bench/live_bench.sh /path/to/zcav [SIZE_MIB [ROUNDS [ZONED_FUSE]]]
# (defaults 2048 MiB, 5 rounds; ZONED_FUSE: build/tests/zoned_fuse). Needs Xvfb, tmux, /usr/bin/time and a
# gnuplot with the x11 terminal.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../real/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../real/lib.sh"
readonly ZCAV=${1:?usage: live_bench.sh /path/to/zcav [SIZE_MIB [ROUNDS]]}
readonly SIZE_MIB=${2:-2048} ROUNDS=${3:-5} FIXTURE=${4:-}
require_zcav "$ZCAV"
for tool in Xvfb tmux /usr/bin/time; do
  command -v "$tool" >/dev/null || fail "$tool is not installed"
done
DIR=$(pick_dir) || fail "no directory that takes O_DIRECT reads"
WORK=$(mktemp -d "$DIR/zcav-live-bench-XXXXXX")
XVFB_PID=""
SOCKET="zcav-live-bench-$$"
cleanup() {
  set +e
  tmux -L "$SOCKET" kill-server 2>/dev/null
  [[ -n $FUSERMOUNT ]] && stop_fixtures 0
  [[ -n $XVFB_PID ]] && kill "$XVFB_PID" 2>/dev/null && wait "$XVFB_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
DISPLAY_NO=""
for n in $(seq 150 199); do
  [[ -e /tmp/.X$n-lock || -e /tmp/.X11-unix/X$n ]] || { DISPLAY_NO=$n; break; }
done
Xvfb ":$DISPLAY_NO" -screen 0 1024x768x24 -nolisten tcp >/dev/null 2>&1 &
XVFB_PID=$!
sleep 1
if [[ -n $FIXTURE ]]; then
  require_fuse "$FIXTURE"
  mkdir "$WORK/fuse"
  start_fixture "$FIXTURE" "$WORK/fuse" "$WORK/fixture.log" disk.img --size "${SIZE_MIB}M" \
    --zones "0:300"
  TARGET=$WORK/fuse/disk.img
  echo "target: a $SIZE_MIB MiB FUSE file paced at 300 MB/s; $ROUNDS rounds"
else
  TARGET=$WORK/disk.img
  dd if=/dev/urandom of="$TARGET" bs=1M count="$SIZE_MIB" status=none conv=fsync
  echo "target: a $SIZE_MIB MiB file in $DIR (O_DIRECT); $ROUNDS rounds"
fi

# run WAY N: one sweep; appends "WAY rate_mb_per_s wall_s cpu_pct" to results.
run() {
  local way=$1 n=$2 out="$WORK/$1-$2.json" tv="$WORK/$1-$2.time"
  local cmd=("$ZCAV" sweep "$TARGET" --passes 1 --format json -o "$out")
  case $way in
    plain) env -u DISPLAY /usr/bin/time -v -o "$tv" "${cmd[@]}" --quiet 2>/dev/null ;;
    window) DISPLAY=:$DISPLAY_NO /usr/bin/time -v -o "$tv" "${cmd[@]}" --live 2>/dev/null ;;
    terminal)
      rm -f "$WORK/done"
      tmux -L "$SOCKET" new-session -d -x 120 -y 40 \
        "env -u DISPLAY /usr/bin/time -v -o '$tv' ${cmd[*]} --live; touch '$WORK/done'; sleep 60"
      while [[ ! -e $WORK/done ]]; do sleep 0.2; done
      # The chart must be on the screen (else --live was ignored).
      tmux -L "$SOCKET" capture-pane -p | grep -Eq -- '\+-{20,}\+' ||
        fail "the terminal run drew no chart"
      tmux -L "$SOCKET" kill-server
      ;;
  esac
  python3 - "$out" "$tv" "$way" >>"$WORK/results" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
t = open(sys.argv[2], errors="replace").read()
m = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", t)
wall = (int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))) if m else float("nan")
cpu = re.search(r"Percent of CPU this job got: (\d+)%", t)
print(sys.argv[3], d["summary"]["avg_mb_per_s"], wall, cpu.group(1) if cpu else "nan")
PY
}

: >"$WORK/results"
for r in $(seq "$ROUNDS"); do
  if ((r % 2)); then ways=(plain window terminal); else ways=(terminal window plain); fi
  for w in "${ways[@]}"; do run "$w" "$r"; done
done
python3 - "$WORK/results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
by = {}
for way, rate, wall, cpu in rows:
    by.setdefault(way, []).append((float(rate), float(wall), float(cpu)))
plain = statistics.median(r for r, _, _ in by["plain"])
print(f"{'way':10} {'MB/s (median)':>14} {'wall s':>8} {'CPU %':>6} {'rate / plain':>13}")
for way in ("plain", "window", "terminal"):
    rs = by.get(way, [])
    rate = statistics.median(r for r, _, _ in rs)
    wall = statistics.median(w for _, w, _ in rs)
    cpu = statistics.median(c for _, _, c in rs)
    print(f"{way:10} {rate:14.1f} {wall:8.2f} {cpu:6.0f} {rate / plain:13.3f}")
print("MB = 10^6 B; rates are zcav's (bytes read / read time); wall and CPU from /usr/bin/time -v")
PY
