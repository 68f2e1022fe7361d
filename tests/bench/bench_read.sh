#!/usr/bin/env bash
# Benchmark: zcav's sequential O_DIRECT read against fio's, on one 4 GiB file.
#
# Runs, alternately, ROUNDS times:
#   zcav sweep FILE --quiet --format json -o X           (default settings)
#   fio --rw=read --bs=1M --direct=1 --ioengine=psync    --iodepth=1
#   fio --rw=read --bs=1M --direct=1 --ioengine=io_uring --iodepth=16
# each under /usr/bin/time -v, and prints per tool the median throughput in
# MB/s (10^6 B/s) as the tool reports it, the median whole-process CPU %
# ((user+sys)/elapsed), and the ratio zcav/fio for each fio configuration.
#
# Usage: tests/bench/bench_read.sh [--cleanup] [PATH/TO/zcav]
#   zcav defaults to $ZCAV, then build*/zcav in this repository, then PATH.
# Environment:
#   ROUNDS=3           rounds (at least 3)
#   BENCH_DIR=/var/tmp where the 4 GiB file lives (not tmpfs: it needs O_DIRECT)
#   BENCH_FILE=...     the file itself (default $BENCH_DIR/zcav-bench-4GiB.dat)
# The file is created once from /dev/urandom and kept for the next run;
# --cleanup removes it at the end. All reads are O_DIRECT, so the page cache
# plays no part and is not dropped. Installs nothing: says what is missing.
# Not a ctest test (it takes minutes and depends on the machine).
set -euo pipefail

readonly SIZE_MIB=4096
readonly SIZE_BYTES=$((SIZE_MIB * 1024 * 1024))
ROUNDS=${ROUNDS:-3}
BENCH_DIR=${BENCH_DIR:-/var/tmp}
BENCH_FILE=${BENCH_FILE:-$BENCH_DIR/zcav-bench-4GiB.dat}
CLEANUP=0
ZCAV_BIN=${ZCAV:-}

die() { echo "bench_read: $*" >&2; exit 1; }

for arg in "$@"; do
  case $arg in
    --cleanup) CLEANUP=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$arg' (usage: bench_read.sh [--cleanup] [PATH/TO/zcav])" ;;
    *) ZCAV_BIN=$arg ;;
  esac
done
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 3 ]] || die "ROUNDS must be a whole number >= 3 (got '$ROUNDS')"

# --- What we need, and which Debian package provides it.
missing=()
command -v fio >/dev/null || missing+=("fio (Debian package: fio)")
[[ -x /usr/bin/time ]] || missing+=("/usr/bin/time (Debian package: time)")
command -v python3 >/dev/null || missing+=("python3 (Debian package: python3)")
if [[ ${#missing[@]} -gt 0 ]]; then
  printf 'bench_read: missing: %s\n' "${missing[@]}" >&2
  echo "bench_read: install with: apt-get install fio time python3 (this script installs nothing)" >&2
  exit 1
fi
fio --enghelp 2>/dev/null | grep -qw io_uring ||
  die "this fio has no io_uring engine (fio >= 3.13 built with io_uring support is needed)"

if [[ -z $ZCAV_BIN ]]; then
  repo=$(cd "$(dirname "$0")/../.." && pwd)
  for candidate in "$repo"/build/zcav "$repo"/build*/zcav; do
    if [[ -x $candidate ]]; then ZCAV_BIN=$candidate; break; fi
  done
  [[ -n $ZCAV_BIN ]] || ZCAV_BIN=$(command -v zcav || true)
fi
[[ -n $ZCAV_BIN && -x $ZCAV_BIN ]] ||
  die "zcav not found: build it (cmake --build build --target zcav) or pass its path"

# --- The file: on a real file system that supports O_DIRECT.
bench_dir=$(dirname "$BENCH_FILE")
[[ -d $bench_dir ]] || die "directory $bench_dir does not exist (set BENCH_DIR)"
fstype=$(stat -f -c %T "$bench_dir")
case $fstype in
  tmpfs | ramfs) die "$bench_dir is on $fstype: O_DIRECT reads would measure RAM; set BENCH_DIR to a disk-backed directory" ;;
esac

if [[ -f $BENCH_FILE && $(stat -c %s "$BENCH_FILE") -ne $SIZE_BYTES ]]; then
  echo "bench_read: $BENCH_FILE is not $SIZE_BYTES bytes: recreating it" >&2
  rm -f "$BENCH_FILE"
fi
if [[ ! -f $BENCH_FILE ]]; then
  avail_kib=$(df -Pk "$bench_dir" | awk 'NR == 2 { print $4 }')
  [[ $avail_kib -gt $((SIZE_MIB * 1024 + 512 * 1024)) ]] ||
    die "not enough space in $bench_dir for a 4 GiB file (+512 MiB margin)"
  echo "bench_read: creating $BENCH_FILE (4 GiB from /dev/urandom, once)..." >&2
  dd if=/dev/urandom of="$BENCH_FILE.partial" bs=1M count=$SIZE_MIB conv=fsync status=none
  mv "$BENCH_FILE.partial" "$BENCH_FILE"
fi
dd if="$BENCH_FILE" of=/dev/null bs=1M count=1 iflag=direct status=none 2>/dev/null ||
  die "$bench_dir ($fstype) refuses O_DIRECT; set BENCH_DIR to a file system that supports it"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/zcav-bench.XXXXXX")
cleanup() {
  rm -rf "$WORK"
  if [[ $CLEANUP -eq 1 ]]; then rm -f "$BENCH_FILE" "$BENCH_FILE.partial"; fi
}
trap cleanup EXIT

# --- The runs. Each writes "tool<TAB>round<TAB>MB/s<TAB>wall MB/s<TAB>CPU %"
# to results.tsv.

# timed NAME ROUND CMD...: runs CMD under /usr/bin/time -v; leaves
# $WORK/NAME.ROUND.{out,err,time}.
timed() {
  local name=$1 round=$2
  shift 2
  if ! /usr/bin/time -v -o "$WORK/$name.$round.time" "$@" \
      >"$WORK/$name.$round.out" 2>"$WORK/$name.$round.err"; then
    cat "$WORK/$name.$round.err" >&2
    die "$name failed in round $round: $*"
  fi
}

# record NAME ROUND LABEL MB_PER_S: appends a result row for LABEL, with the
# CPU % and the whole-process MB/s (file size / elapsed) from NAME's
# /usr/bin/time -v report.
record() {
  python3 - "$WORK/$1.$2.time" "$3" "$2" "$4" "$SIZE_BYTES" >>"$WORK/results.tsv" <<'EOF'
import sys
path, name, rnd, mbps, size = sys.argv[1:]
t = {}
for line in open(path):
    key, _, value = line.strip().rpartition(": ")
    t[key] = value
def seconds(text):
    s = 0.0
    for part in text.split(":"):
        s = s * 60 + float(part)
    return s
user = float(t["User time (seconds)"])
system = float(t["System time (seconds)"])
elapsed = seconds(t["Elapsed (wall clock) time (h:mm:ss or m:ss)"])
cpu = 100.0 * (user + system) / elapsed if elapsed > 0 else 0.0
print(f"{name}\t{rnd}\t{float(mbps):.1f}\t{int(size) / elapsed / 1e6:.1f}\t{cpu:.1f}")
EOF
}

fio_mb_per_s() {  # FILE: fio's read bandwidth in MB/s (10^6 B/s); fails on a job error
  python3 - "$1" <<'EOF'
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
if job.get("error", 0):
    sys.exit(f"fio job error {job['error']}")
if job["read"]["io_bytes"] <= 0:
    sys.exit("fio read nothing")
print(job["read"]["bw_bytes"] / 1e6)
EOF
}

zcav_mb_per_s() {  # FILE: zcav's summary average in MB/s; fails if not complete
  python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
if d.get("partial") or d.get("status") != "complete":
    sys.exit(f"zcav sweep not complete: {d.get('status')}")
if not d["device"].get("direct_io", False):
    print("warning: zcav did not use O_DIRECT", file=sys.stderr)
print(d["summary"]["avg_mb_per_s"])
EOF
}

fio_common=(--filename="$BENCH_FILE" --rw=read --bs=1M --direct=1 --output-format=json)
: >"$WORK/results.tsv"
echo "bench_read: $ROUNDS rounds on $BENCH_FILE ($fstype), zcav = $ZCAV_BIN ($("$ZCAV_BIN" --version)), $(fio --version)" >&2
for ((round = 1; round <= ROUNDS; round++)); do
  echo "bench_read: round $round/$ROUNDS" >&2
  timed zcav "$round" "$ZCAV_BIN" sweep "$BENCH_FILE" --quiet --format json -o "$WORK/zcav.$round.json"
  mbps=$(zcav_mb_per_s "$WORK/zcav.$round.json") || die "zcav round $round: no usable result"
  record zcav "$round" "zcav sweep" "$mbps"

  timed psync "$round" fio --name=psync --ioengine=psync --iodepth=1 "${fio_common[@]}"
  mbps=$(fio_mb_per_s "$WORK/psync.$round.out") || die "fio psync round $round: no usable result"
  record psync "$round" "fio psync QD1" "$mbps"

  timed uring "$round" fio --name=io_uring --ioengine=io_uring --iodepth=16 "${fio_common[@]}"
  mbps=$(fio_mb_per_s "$WORK/uring.$round.out") || die "fio io_uring round $round: no usable result"
  record uring "$round" "fio io_uring QD16" "$mbps"
done

# --- The table.
python3 - "$WORK/results.tsv" <<'EOF'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
tools = []
for r in rows:
    if r[0] not in tools:
        tools.append(r[0])
def col(tool, i):
    return [float(r[i]) for r in rows if r[0] == tool]
print("per round (MB/s as reported / MB/s by wall clock / CPU %):")
for t in tools:
    print(f"  {t:<18}" + "   ".join(
        f"{m:.0f}/{w:.0f}/{c:.1f}%" for m, w, c in zip(col(t, 2), col(t, 3), col(t, 4))))
med = {t: (statistics.median(col(t, 2)), statistics.median(col(t, 3)),
           statistics.median(col(t, 4))) for t in tools}
z = med["zcav sweep"]
print()
print(f"{'tool':<18} {'MB/s':>8} {'wall MB/s':>10} {'CPU %':>7} {'zcav/tool MB/s':>15} {'zcav/tool CPU':>14}")
for t in tools:
    m, w, c = med[t]
    ratio = "-" if t == "zcav sweep" else f"{z[0] / m:.3f}"
    cratio = "-" if t == "zcav sweep" else (f"{z[2] / c:.2f}" if c > 0 else "n/a")
    print(f"{t:<18} {m:>8.1f} {w:>10.1f} {c:>7.1f} {ratio:>15} {cratio:>14}")
print()
print(f"medians over {len(col(tools[0], 2))} rounds; MB/s = 10^6 B/s as each tool reports it "
      "(zcav: summary.avg_mb_per_s, fio: read.bw_bytes); wall MB/s = 4 GiB / elapsed;")
print("CPU % = whole-process (user+sys)/elapsed from /usr/bin/time -v.")
EOF
