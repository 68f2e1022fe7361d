#!/usr/bin/env bash
# Benchmark: the read path of two zcav builds, A (before) and B (after), on
# one target, alternating A and B each round (so a drift of the shared
# machine falls on both alike). Prints each round's MB/s (10^6 B/s, as zcav
# reports the sweep's mean rate) and the whole process's CPU time (user +
# system seconds, the child's rusage as /usr/bin/time reads it) per GB read, the median of each and B's
# ratio to A, and the median of the per-round ratios. A change "does not slow
# the read path" when the rate ratios are within 2 % of 1; the CPU ratio is
# the steadier figure where the target's rate swings (it is what zcav itself
# spends per byte, which is what a change to zcav can alter).
#
# The default target is a loop device (direct I/O) over a file in /dev/shm:
# RAM, the steadiest rate this kind of machine has. TARGET=PATH reads that
# instead (a file on the disk, say; its rate swings run to run).
#
# MODE=write compares write sweeps instead (zcav sweep --write
# --destroy-data: the loop device over the RAM file is made writable; with
# TARGET, give only a device or file you made for it, its data is destroyed).
#
# Usage: tests/bench/ab_read.sh ZCAV_A ZCAV_B
# Environment: ROUNDS=7, SIZE_MIB=1024 (the RAM file), TARGET=, MODE=read|write.
# Needs root for the loop device (else give TARGET). Not a ctest test.
set -euo pipefail
if [[ $# -ne 2 || ! -x $1 || ! -x $2 ]]; then
  echo "usage: $0 ZCAV_A ZCAV_B (two zcav executables)" >&2
  exit 2
fi
A=$(realpath "$1")
B=$(realpath "$2")
ROUNDS=${ROUNDS:-7}
MODE=${MODE:-read}
WRITE_ARGS=()
case $MODE in
  read) ;;
  write) WRITE_ARGS=(--write --destroy-data) ;;
  *)
    echo "$0: MODE is read or write, not '$MODE'" >&2
    exit 2
    ;;
esac
SIZE_MIB=${SIZE_MIB:-1024}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/zcav-ab-XXXXXX")
RAM_FILE=""
LOOP=""
cleanup() {
  [[ -n $LOOP ]] && losetup -d "$LOOP" 2>/dev/null
  [[ -n $RAM_FILE ]] && rm -f "$RAM_FILE"
  rm -rf "$WORK"
}
trap cleanup EXIT
TARGET=${TARGET:-}
if [[ -z $TARGET ]]; then
  [[ $(id -u) -eq 0 ]] || {
    echo "$0: a loop device needs root; give TARGET=PATH instead" >&2
    exit 2
  }
  RAM_FILE=$(mktemp /dev/shm/zcav-ab-XXXXXX)
  dd if=/dev/urandom of="$RAM_FILE" bs=1M count="$SIZE_MIB" status=none
  READ_ONLY=(-r)
  [[ $MODE == write ]] && READ_ONLY=()
  LOOP=$(losetup -f --show "${READ_ONLY[@]}" --direct-io=on "$RAM_FILE")
  TARGET=$LOOP
fi
# rate ZCAV: one sweep; prints "MB/s CPU-seconds-per-GB".
rate() {
  # The child's rusage (what /usr/bin/time prints, which rounds to 10 ms:
  # too coarse for the 20-40 ms a 1 GiB sweep takes).
  python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[2:], check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write(f"{r.ru_utime} {r.ru_stime}")' \
    "$WORK/time" "$1" sweep "$TARGET" "${WRITE_ARGS[@]}" -q --format json -o "$WORK/r.json" </dev/null
  python3 - "$WORK/r.json" "$WORK/time" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
user, system = (float(x) for x in open(sys.argv[2]).read().split()[-2:])
gb = sum(b["length_bytes"] * b["passes"] for b in d["blocks"]) / 1e9
print(d["summary"]["avg_mb_per_s"], (user + system) / gb)
EOF
}
as=() bs=() ratios=() acpu=() bcpu=() cratios=()
echo "target: $TARGET ($MODE); A: $A; B: $B; $ROUNDS rounds (MB = 10^6 B)"
for ((i = 1; i <= ROUNDS; i++)); do
  if ((i % 2)); then
    read -r a ac < <(rate "$A")
    read -r b bc < <(rate "$B")
  else
    read -r b bc < <(rate "$B")
    read -r a ac < <(rate "$A")
  fi
  as+=("$a") bs+=("$b") acpu+=("$ac") bcpu+=("$bc")
  ratios+=("$(python3 -c "print($b / $a)")")
  cratios+=("$(python3 -c "print($bc / $ac)")")
  printf 'round %d: A %.1f MB/s %.3f CPU s/GB, B %.1f MB/s %.3f CPU s/GB, B/A rate %.3f CPU %.3f\n' \
    "$i" "$a" "$ac" "$b" "$bc" "${ratios[-1]}" "${cratios[-1]}"
done
python3 - "${as[*]}" "${bs[*]}" "${ratios[*]}" "${acpu[*]}" "${bcpu[*]}" "${cratios[*]}" "$MODE" <<'EOF'
import statistics, sys
a, b, r, ac, bc, cr = ([float(x) for x in arg.split()] for arg in sys.argv[1:7])
med = statistics.median
print(f"rate: median A {med(a):.1f} MB/s, median B {med(b):.1f} MB/s, ratio of medians "
      f"{med(b) / med(a):.3f}, median of round ratios {med(r):.3f}")
print(f"CPU (user + system) per GB {'written' if sys.argv[7] == 'write' else 'read'}: median A {med(ac):.3f} s, median B {med(bc):.3f} s, "
      f"ratio of medians {med(bc) / med(ac):.3f}, median of round ratios {med(cr):.3f}")
EOF
