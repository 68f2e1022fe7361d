#!/usr/bin/env bash
# Real-I/O test: a flat 36 MB/s device behind a stated USB2 link is
# bus-limited. The zoned_fuse fixture (tests/fixtures/zoned_fuse.cc) serves
# one file at a flat 36 MB/s (--zones 0:36), as a disk whose every zone is
# faster than a USB2 bridge reads through it; `zcav sweep FILE --bus usb2`
# reads it with O_DIRECT (3 passes) and must report: the average within 5 % of 36 MB/s,
# curve_type "flat" with one zone, every block (bar listed outliers) within
# 10 % of 36 MB/s, the transport from --bus (USB2, ceiling 40 MB/s) and the
# verdict "bus-limited". Then the gate: `--expect avg=100` over its first
# 32 MiB exits 5 and says the average (36 MB/s +-5 %) and the 100 expected;
# `--expect avg=10` exits 0.
#
# Usage: bash fuse_flat_test.sh /path/to/zcav /path/to/zoned_fuse
# Exit: 0 pass, 1 fail, 77 skip (no /dev/fuse, no fusermount3, or not root
# where /dev/fuse is not open to users). Needs python3 (to read the JSON output).
# Unmounts, ends the fixture it started and removes its files on every exit
# path. Takes about 25 s.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly ZCAV=${1:?usage: fuse_flat_test.sh /path/to/zcav /path/to/zoned_fuse}
readonly FIXTURE=${2:?usage: fuse_flat_test.sh /path/to/zcav /path/to/zoned_fuse}
readonly MB_PER_S=36
readonly SIZE_MIB=192                  # 24 blocks; 5.6 s per pass
readonly BLOCK_MIB=8
# Per-block medians over 3 passes, as fuse_zones_test.sh does. The fixture's
# curve has almost no noise (zcav's sigma hits its 0.1 % floor), so one host
# scheduling hiccup (a block ~1.5 % slow, the next as much fast: the fixture's
# read-ahead credit pays the delay back) is significant to the zone detector;
# with one pass, two such hiccups in a row were taken for a 3-block zone in 2
# of 8 runs on a loaded 2-core host (curve "other", verdict undetermined). The
# median over 3 passes drops a hiccup unless two passes hit the same block.
readonly PASSES=3
readonly TOLERANCE=0.05                # the average, and the one zone's rate
readonly BLOCK_TOLERANCE=0.10          # each block's rate (scheduling noise of a shared host)

require_fuse "$FIXTURE"
require_zcav "$ZCAV"

fuse_test_setup zcav-fuse-flat
readonly MNT=$WORK/mnt
mkdir "$MNT"
readonly IMAGE=$MNT/disk.img
start_fixture "$FIXTURE" "$MNT" "$WORK/fixture.log" disk.img --size "${SIZE_MIB}M" \
  --zones "0:$MB_PER_S"
echo "zoned_fuse on $MNT: ${SIZE_MIB} MiB, flat at $MB_PER_S MB/s"

readonly OUT=$WORK/flat.json
ZCAV_RC=0
run_and_wait "$ZCAV" sweep "$IMAGE" --bus usb2 --format json --block-size "${BLOCK_MIB}M" \
  --passes "$PASSES" -o "$OUT" --quiet || ZCAV_RC=$?
[[ $ZCAV_RC -eq 0 ]] || fail "zcav sweep $IMAGE exited with $ZCAV_RC"
[[ -s $OUT ]] || fail "zcav wrote no output to $OUT"

python3 - "$OUT" "$((SIZE_MIB << 20))" "$PASSES" "$MB_PER_S" "$TOLERANCE" "$BLOCK_TOLERANCE" \
  <<'EOF'
import json, sys

path, size, passes, expected, tol, block_tol = sys.argv[1:]
size, passes = int(size), int(passes)
expected, tol, block_tol = float(expected), float(tol), float(block_tol)
MiB = 1 << 20
doc = json.load(open(path))
errors = []

dev = doc["device"]
if dev.get("direct_io") is not True:
    errors.append(f"device.direct_io is {dev.get('direct_io')!r}, expected true "
                  f"(notes: {dev.get('notes')})")
if dev.get("size_bytes") != size:
    errors.append(f"device.size_bytes is {dev.get('size_bytes')}, expected {size}")
if doc.get("status") != "complete" or doc.get("partial") is not False:
    errors.append(f"status {doc.get('status')!r}, partial {doc.get('partial')!r}")
if len(doc.get("passes") or []) != passes:
    errors.append(f"{len(doc.get('passes') or [])} passes reported, expected {passes}")

avg = doc["summary"]["avg_mb_per_s"]
if abs(avg - expected) > tol * expected:
    errors.append(f"average {avg:.2f} MB/s is outside {expected:g} MB/s +-{tol:.0%}")

# Flat: one zone at the fixture's rate, and every block near it except the
# single slow blocks zcav itself lists as outliers (host hiccups).
if doc.get("curve_type") != "flat":
    errors.append(f"curve_type {doc.get('curve_type')!r}, expected 'flat'")
zones = doc.get("zones") or []
if len(zones) != 1:
    errors.append(f"{len(zones)} zones, expected 1: " +
                  ", ".join(f"[{z['start_bytes'] // MiB}, {z['end_bytes'] // MiB}) MiB "
                            f"{z['mb_per_s']:.1f} MB/s" for z in zones))
elif abs(zones[0]["mb_per_s"] - expected) > tol * expected:
    errors.append(f"the zone's {zones[0]['mb_per_s']:.2f} MB/s is outside "
                  f"{expected:g} MB/s +-{tol:.0%}")
outliers = {o["offset_bytes"] for o in doc.get("outliers") or []}
blocks = [b for b in doc["blocks"] if b["offset_bytes"] not in outliers]
if sum(b["length_bytes"] for b in doc["blocks"]) != size:
    errors.append(f"the blocks cover {sum(b['length_bytes'] for b in doc['blocks'])} bytes, "
                  f"expected {size}")
for b in blocks:
    if abs(b["mb_per_s"] - expected) > block_tol * expected:
        errors.append(f"block at {b['offset_bytes'] // MiB} MiB: {b['mb_per_s']:.2f} MB/s is "
                      f"outside {expected:g} MB/s +-{block_tol:.0%}")

# The link comes from --bus: USB2, whose practical ceiling (40 MB/s) the flat
# level is 90 % of; the bus sets the rate.
transport = doc.get("transport") or {}
if transport.get("kind") != "usb" or transport.get("source") != "--bus":
    errors.append(f"transport {transport!r}, expected kind 'usb' from --bus")
verdict = doc.get("verdict") or {}
if verdict.get("kind") != "bus-limited":
    errors.append(f"verdict {verdict!r}, expected bus-limited")

rates = [b["mb_per_s"] for b in doc["blocks"]]
print(f"flat {expected:g} MB/s: average {avg:.2f} MB/s, blocks {min(rates):.2f}.."
      f"{max(rates):.2f} MB/s, curve_type {doc.get('curve_type')}, {len(zones)} zone(s), "
      f"{len(outliers)} outlier(s), {doc['summary']['wall_seconds']:.1f} s")
print(f"transport: {transport.get('link')} (ceiling {transport.get('ceiling_mb_per_s')} MB/s, "
      f"from {transport.get('source')})")
print(f"verdict: {verdict.get('kind')}: {verdict.get('reason')}")
if errors:
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    print("  per-block rates, MB/s:", " ".join(f"{r:.1f}" for r in rates), file=sys.stderr)
    sys.exit(1)
EOF
# Gates for scripts (--expect): on this 36 MB/s device avg=100 is not met
# (exit 5, one line naming the average and the 100 expected) and avg=10 is
# (exit 0, nothing said). A short range (32 MiB, about 1 s a run) keeps it quick.
readonly GATE_ERR=$WORK/gate.err
GATE_RC=0
run_and_wait "$ZCAV" sweep "$IMAGE" --block-size 4M --end 32M --quiet --expect avg=100 \
  -o "$WORK/gate.dat" 2>"$GATE_ERR" || GATE_RC=$?
echo "--expect avg=100: exit $GATE_RC: $(cat "$GATE_ERR")"
[[ $GATE_RC -eq 5 ]] || fail "--expect avg=100 on a $MB_PER_S MB/s device exited $GATE_RC, expected 5"
[[ $(wc -l <"$GATE_ERR") -eq 1 ]] ||
  fail "--expect avg=100: $(wc -l <"$GATE_ERR") lines on stderr, expected 1"
GATE_AVG=$(sed -nE 's/^zcav: below expectations: average ([0-9.]+) MB\/s is below the expected 100 MB\/s \(MB = 10\^6 B\)$/\1/p' "$GATE_ERR")
[[ -n $GATE_AVG ]] || fail "--expect avg=100: stderr does not say the average and 100"
awk -v a="$GATE_AVG" -v e="$MB_PER_S" -v t="$TOLERANCE" 'BEGIN { exit !(a > e * (1 - t) && a < e * (1 + t)) }' ||
  fail "--expect avg=100: the average said, $GATE_AVG MB/s, is not $MB_PER_S MB/s +-$TOLERANCE"
GATE_RC=0
run_and_wait "$ZCAV" sweep "$IMAGE" --block-size 4M --end 32M --quiet --expect avg=10 \
  -o "$WORK/gate.dat" 2>"$GATE_ERR" || GATE_RC=$?
echo "--expect avg=10: exit $GATE_RC"
[[ $GATE_RC -eq 0 ]] || fail "--expect avg=10 on a $MB_PER_S MB/s device exited $GATE_RC, expected 0"
[[ ! -s $GATE_ERR ]] || fail "--expect avg=10 (met) said: $(head -n 2 "$GATE_ERR")"

echo "PASS (${SECONDS} s)"
