#!/usr/bin/env bash
# Real-I/O check: `zcav sweep --adaptive` finds a zoned disk's zone table,
# read through the kernel, from a small share of it.
# The zoned_fuse fixture serves a 1 GiB file of 8 zones of 128 MiB (300 down
# to 110 MB/s), once plain and once with 2 % per-request jitter. A full sweep
# of each (4 MiB blocks, 3 passes: one pass now and then splits a few blocks
# off a zone) is the reference: the adaptive run must give the same zone
# count, every edge within a full sweep's block plus one probe, every zone's
# rate within 3 % of the full sweep's, the curve zoned, and at most 10 % of
# the file read (the figure is printed). Then a flat fixture (one zone at
# 200 MB/s): the adaptive run says flat and reads the grid only. Last a
# file on a RAM disk (/dev/shm): the run notes that its probes are too
# short to time.
#
# A run on a noisy host is tried again, up to ATTEMPTS times in all, and
# each failed try prints its noise, cost, edges and every probe. A host's
# noisy spell (reads stalled, or 5x fast as the fixture's read-ahead serves
# what queued behind a stall) misleads single reads: of the runs here,
# about 1 in 10 in such spells (and 1 in 30 on a calm host) lost an edge
# or read over 10 %; a change that breaks the sampler fails every try.
# Figures over many runs: tests/bench/adaptive_fuse_bench.sh.
#
# Not checked here: a read-only loop device over the file. Its edges come
# out exact (10 runs of 10 here, 8.5-9.6 % read, once 13.5 %), but its
# 1 MiB probes (256 KiB reads through the loop worker) read 2-5 % under the
# full sweep's 4 MiB blocks, past the 3 % this test allows, and the extra
# noise takes the cost to 10-12 % in a try of three: 3 of 5 tries failed.
#
# Usage: bash adaptive_test.sh /path/to/zcav /path/to/zoned_fuse
# Exit: 0 pass, 1 fail, 77 skip (no /dev/fuse, no fusermount3, or not root
# where /dev/fuse is not open to users). Needs python3.
# Unmounts, ends the fixtures it started and removes its files on every exit
# path. Takes about 45 s.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly ZCAV=${1:?usage: adaptive_test.sh /path/to/zcav /path/to/zoned_fuse}
readonly FIXTURE=${2:?usage: adaptive_test.sh /path/to/zcav /path/to/zoned_fuse}
readonly ZONES="0:300,128M:270,256M:240,384M:210,512M:180,640M:150,768M:130,896M:110"
readonly MAX_SHARE=0.10   # of the device read by the adaptive run
readonly TOLERANCE=0.03   # each zone's rate against the full sweep's
readonly ATTEMPTS=3       # adaptive runs of a fixture before it fails

require_fuse "$FIXTURE"
require_zcav "$ZCAV"

RAM=""  # a file on a RAM disk (tmpfs), removed on exit
on_exit() {
  local rc=$?
  set +e  # (a failing command here must not end the cleanup)
  [[ -z $RAM ]] || rm -f "$RAM"
  (exit "$rc")
  fuse_cleanup  # the fixtures, $WORK; exits with rc
}
fuse_test_setup zcav-adaptive
trap on_exit EXIT
mkdir "$WORK/mnt" "$WORK/jitter" "$WORK/flat"
start_fixture "$FIXTURE" "$WORK/mnt" "$WORK/fixture.log" disk.img --size 1G --zones "$ZONES"
start_fixture "$FIXTURE" "$WORK/jitter" "$WORK/jitter.log" disk.img --size 1G --zones "$ZONES" \
  --jitter 0.02
start_fixture "$FIXTURE" "$WORK/flat" "$WORK/flat.log" disk.img --size 1G --zones 0:200
readonly IMAGE=$WORK/mnt/disk.img

# sweep OUT ARGS...: zcav sweep ARGS into the JSON file OUT.
sweep() {
  local out=$1 rc=0
  shift
  run_and_wait "$ZCAV" sweep "$@" --format json -o "$out" 2>"$out.err" || rc=$?
  [[ $rc -eq 0 ]] || fail "zcav sweep $* exited with $rc: $(tail -n 3 "$out.err")"
  [[ -s $out ]] || fail "zcav wrote no output to $out"
}

# check ADAPTIVE FULL LABEL: the adaptive run against the full sweep.
check() {
  python3 - "$1" "$2" "$3" "$MAX_SHARE" "$TOLERANCE" <<'EOF'
import json, sys
path, full_path, label, max_share, tol = sys.argv[1:]
max_share, tol = float(max_share), float(tol)
doc, full = json.load(open(path)), json.load(open(full_path))
a = doc["adaptive"]
errors = []
if doc["device"].get("direct_io") is not True:
    errors.append(f"device.direct_io is {doc['device'].get('direct_io')!r}")
if doc.get("curve_type") != "zoned" or full.get("curve_type") != "zoned":
    errors.append(f"curve {doc.get('curve_type')!r}, the full sweep's {full.get('curve_type')!r}")
zones, ref = doc["zones"], full["zones"]
if len(zones) != len(ref) or len(a["edges"]) != len(ref) - 1:
    errors.append(f"{len(zones)} zones ({len(a['edges'])} edges), the full sweep {len(ref)}")
else:
    slack = full["options"]["block_bytes"] + a["probe_bytes"]
    for z, r, e in zip(zones[1:], ref[1:], a["edges"]):
        if abs(e["at_bytes"] - r["start_bytes"]) > slack:
            errors.append(f"edge at {e['at_bytes']} B, the full sweep's at {r['start_bytes']} B")
    for k, (z, r) in enumerate(zip(zones, ref), 1):
        if abs(z["mb_per_s"] - r["mb_per_s"]) > tol * r["mb_per_s"]:
            errors.append(f"zone {k}: {z['mb_per_s']:.1f} MB/s, the full sweep {r['mb_per_s']:.1f}")
if a["share_read"] > max_share:
    errors.append(f"read {a['share_read']:.1%} of the device, more than {max_share:.0%}")
for e in errors:
    print(f"FAIL ({label}): {e}")
if errors:
    # What the run did, for a failure seen only in CI: its noise, cost, the
    # edges either way and every probe (MiB: rate x reads).
    print(f"  noise {a['noise_rel']:.2%}, grid {a['grid_probes']}, {a['probes']} probes, "
          f"{a['bytes_read'] >> 20} MiB read")
    print("  edges:", [(e["at_bytes"] >> 20, e["uncertainty_bytes"] >> 10) for e in a["edges"]],
          "full sweep:", [z["start_bytes"] >> 20 for z in ref[1:]])
    print("  probes:", " ".join(f"{b['offset_bytes'] >> 20}:{b['mb_per_s']:.0f}x{b['passes']}"
                                 for b in doc["blocks"]))
    sys.exit(1)
print(f"{label}: {len(zones)} zones as the full sweep's, {a['probes']} probes of "
      f"{a['probe_bytes'] >> 10} KiB read {a['share_read']:.2%} of the device; widest edge "
      f"+-{max(e['uncertainty_bytes'] for e in a['edges']) >> 10} KiB; wall "
      f"{doc['summary']['wall_seconds']:.2f} s against the full sweep's "
      f"{full['summary']['wall_seconds']:.2f} s")
EOF
}

# adaptive NAME DEVICE: one adaptive run of DEVICE into $WORK/NAME.json,
# its progress line checked.
adaptive() {
  sweep "$WORK/$1.json" "$2" --adaptive
  grep -Eq 'adaptive: refining edge 1 of [0-9]+' "$WORK/$1.json.err" || {
    echo "no progress line 'refining edge 1 of N' on stderr: $(head -n 3 "$WORK/$1.json.err")"
    return 1
  }
}

# tries LABEL CMD...: CMD until it passes, at most ATTEMPTS times.
tries() {
  local label=$1 k
  shift
  for ((k = 1; k <= ATTEMPTS; k++)); do
    "$@" && return 0
    echo "($label: try $k of $ATTEMPTS failed)"
  done
  return 1
}

# compare NAME DEVICE LABEL: a full sweep of DEVICE, then adaptive runs
# until one gives its zone table.
compare() {
  local name=$1 device=$2 label=$3
  sweep "$WORK/$name.full.json" "$device" --block-size 4M --passes 3 --quiet
  tries "$label" compare_once "$name" "$device" "$label" || fail "the adaptive runs of $label"
}
compare_once() {
  adaptive "$1" "$2" && check "$WORK/$1.json" "$WORK/$1.full.json" "$3"
}

compare file "$IMAGE" "the file"
compare jitter "$WORK/jitter/disk.img" "the file with 2 % jitter"

flat_once() {
  sweep "$WORK/flat.json" "$WORK/flat/disk.img" --adaptive --quiet
  python3 - "$WORK/flat.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
a = doc["adaptive"]
errors = []
if doc["curve_type"] != "flat":
    errors.append(f"curve {doc['curve_type']!r}")
if a["edges"] or a["probes"] != a["grid_probes"]:
    errors.append(f"{len(a['edges'])} edges, {a['probes']} probes of a grid of {a['grid_probes']}")
if abs(doc["zones"][0]["mb_per_s"] - 200) > 0.05 * 200:
    errors.append(f"{doc['zones'][0]['mb_per_s']:.1f} MB/s, not 200")
for e in errors:
    print(f"FAIL (flat): {e}")
if errors:
    print("  probes:", " ".join(f"{b['offset_bytes'] >> 20}:{b['mb_per_s']:.0f}x{b['passes']}"
                                 for b in doc["blocks"]))
    sys.exit(1)
print(f"flat: {a['probes']} grid probes, {a['share_read']:.2%} read, "
      f"{doc['zones'][0]['mb_per_s']:.1f} MB/s, no edge")
EOF
}
tries "flat" flat_once || fail "the flat fixture's adaptive runs"

# A RAM disk: its 1 MiB probes read in a fraction of a millisecond, too
# short to time (on tmpfs a CPU's caches serve a probe read again 30-50 %
# faster); the run says so, on stderr and in the result's notes.
if [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]]; then
  RAM=$(mktemp /dev/shm/zcav-adaptive-XXXXXX)
  dd if=/dev/zero of="$RAM" bs=1M count=256 status=none
  sweep "$WORK/ram.json" "$RAM" --adaptive
  grep -Eq 'note: adaptive probes of 1 MiB read in [0-9.]+ ms .* too short to time' \
    "$WORK/ram.json.err" || fail "no short-probe note for a RAM disk: $(head -n 3 "$WORK/ram.json.err")"
  python3 -c 'import json, sys
notes = json.load(open(sys.argv[1]))["options"]["notes"]
assert any("too short to time" in n for n in notes), notes' "$WORK/ram.json" ||
    fail "the RAM disk's result has no short-probe note"
  echo "RAM disk: $(grep -o 'adaptive probes of .* ms at [^:]*' "$WORK/ram.json.err")"
else
  echo "(/dev/shm is no tmpfs here: the RAM disk's note not checked)"
fi
echo "PASS"
