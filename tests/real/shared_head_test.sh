#!/usr/bin/env bash
# Real-I/O test: two devices behind one shared channel, read alone and then
# together, must be judged as sharing a ceiling; two devices with their own
# channels must not.
#
# Shared: the zoned_fuse fixture (tests/fixtures/zoned_fuse.cc) with --files 2
# serves disk0.img and disk1.img, flat at 60 MB/s, through its one head (one
# mutex and "busy until" time for both): each reads 60 MB/s alone, and read
# at the same time they split the 60 MB/s, as two disks on one USB hub or
# SATA port multiplier do. `zcav sweep A B -o DIR --alone-and-together` must
# write DIR/aggregate.json with each device alone at 60 MB/s +-10 %, together
# 60 MB/s in all +-10 % and each about 30 MB/s (+-15 %), and
# ceiling.shared true.
# Independent (the control): two fixture mounts, one file each, so two heads
# at 60 MB/s: together each still reads 60 MB/s +-10 %, 120 MB/s in all, and
# ceiling.shared must be false.
#
# Usage: bash shared_head_test.sh /path/to/zcav /path/to/zoned_fuse
# Exit: 0 pass, 1 fail, 77 skip (no /dev/fuse, no fusermount3, or not root
# where /dev/fuse is not open to users). Needs python3 (to read the JSON output).
# Unmounts, ends the fixtures it started and removes its files on every exit
# path. Takes about 20 s.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly ZCAV=${1:?usage: shared_head_test.sh /path/to/zcav /path/to/zoned_fuse}
readonly FIXTURE=${2:?usage: shared_head_test.sh /path/to/zcav /path/to/zoned_fuse}
readonly MB_PER_S=60
readonly SIZE_MIB=128                  # each file: 2.2 s alone, 4.5 s both together
readonly BLOCK_MIB=8
readonly TOLERANCE=0.10                # alone, and the aggregate together
readonly SHARE_TOLERANCE=0.15          # each device's half of the shared rate

require_fuse "$FIXTURE"
require_zcav "$ZCAV"

fuse_test_setup zcav-shared
mkdir "$WORK/shared" "$WORK/own0" "$WORK/own1"
start_fixture "$FIXTURE" "$WORK/shared" "$WORK/shared.log" disk1.img --files 2 \
  --size "${SIZE_MIB}M" --zones "0:$MB_PER_S"
start_fixture "$FIXTURE" "$WORK/own0" "$WORK/own0.log" disk.img \
  --size "${SIZE_MIB}M" --zones "0:$MB_PER_S"
start_fixture "$FIXTURE" "$WORK/own1" "$WORK/own1.log" disk.img \
  --size "${SIZE_MIB}M" --zones "0:$MB_PER_S"
echo "zoned_fuse: $WORK/shared/disk{0,1}.img on one head, $WORK/own{0,1}/disk.img on one" \
  "head each; ${SIZE_MIB} MiB each, flat at $MB_PER_S MB/s"

# sweep_together OUTDIR DEVICE...: zcav's alone-and-together sweep into OUTDIR.
sweep_together() {
  local out=$1 rc=0
  shift
  run_and_wait "$ZCAV" sweep "$@" -o "$out" --alone-and-together --format json \
    --block-size "${BLOCK_MIB}M" --quiet || rc=$?
  [[ $rc -eq 0 ]] || fail "zcav sweep $* --alone-and-together exited with $rc"
  [[ -s $out/aggregate.json ]] || fail "zcav wrote no $out/aggregate.json"
}

# check OUTDIR SHARED LABEL NAME...: the assertions on OUTDIR/aggregate.json
# (SHARED: 1 = one head, 0 = one head each) and the figures.
check() {
  python3 - "$MB_PER_S" "$TOLERANCE" "$SHARE_TOLERANCE" "$@" <<'EOF'
import json, os, sys

rate, tol, share_tol = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
out, shared, label = sys.argv[4], sys.argv[5] == "1", sys.argv[6]
names = sys.argv[7:]
doc = json.load(open(os.path.join(out, "aggregate.json")))
errors = []

def near(what, got, want, t):
    if not isinstance(got, (int, float)):
        errors.append(f"{what} is {got!r}, expected a number")
    elif abs(got - want) > t * want:
        errors.append(f"{what} {got:.2f} MB/s is outside {want:g} MB/s +-{t:.0%}")

devices = doc.get("devices") or []
if [d.get("name") for d in devices] != names:
    errors.append(f"devices {[d.get('name') for d in devices]}, expected {names}")
# Alone, each device has its head to itself. Together, on one head they split
# its rate; on their own heads each keeps its rate.
each_together = rate / len(names) if shared else rate
for d in devices:
    near(f"{d.get('name')} alone", d.get("alone_mb_per_s"), rate, tol)
    near(f"{d.get('name')} together", d.get("together_mb_per_s"), each_together,
         share_tol if shared else tol)
    if not os.path.isfile(os.path.join(out, f"{d.get('name')}.json")):
        errors.append(f"no per-device result {d.get('name')}.json in {out}")
together = doc.get("together") or {}
near("together: aggregate", together.get("aggregate_mb_per_s"),
     rate if shared else rate * len(names), tol)
alone = doc.get("alone") or {}
near("alone: sum", alone.get("sum_mb_per_s"), rate * len(names), tol)
ceiling = doc.get("ceiling") or {}
if ceiling.get("shared") is not shared:
    errors.append(f"ceiling.shared is {ceiling.get('shared')!r}, expected {shared}: "
                  f"{ceiling.get('reason')}")

def mb(v):
    return f"{v:.1f}" if isinstance(v, (int, float)) else repr(v)
print(f"{label}: alone " + ", ".join(f"{d.get('name')} {mb(d.get('alone_mb_per_s'))}"
                                      for d in devices) +
      f" (sum {mb(alone.get('sum_mb_per_s'))}); together " +
      ", ".join(f"{d.get('name')} {mb(d.get('together_mb_per_s'))}" for d in devices) +
      f", aggregate {mb(together.get('aggregate_mb_per_s'))} (peak "
      f"{mb(together.get('peak_mb_per_s'))}) MB/s over {mb(together.get('wall_seconds'))} s")
print(f"{label}: ceiling shared={ceiling.get('shared')}: {ceiling.get('reason')}")
if errors:
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    sys.exit(1)
EOF
}

sweep_together "$WORK/out-shared" "$WORK/shared/disk0.img" "$WORK/shared/disk1.img"
check "$WORK/out-shared" 1 "one head" disk0.img disk1.img
sweep_together "$WORK/out-own" "$WORK/own0/disk.img" "$WORK/own1/disk.img"
# Both files are disk.img: zcav names the second one's results disk.img-2.
check "$WORK/out-own" 0 "own heads" disk.img disk.img-2
echo "PASS (${SECONDS} s)"
