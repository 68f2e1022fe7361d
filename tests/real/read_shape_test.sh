#!/usr/bin/env bash
# Real-I/O test: the default read shape (reads in flight, bytes a read) that
# zcav picks for a file, for a loop device over that file, and for a loop
# device over a file on tmpfs, as the header records it (options.queue_depth,
# options.chunk_bytes):
# - a loop device reads as the disk under its file does: over a file on
#   tmpfs (RAM, no sysfs queue) the unknown class, 4 reads of 1 MiB;
# - over a file on a disk, the file's class: its reads are at most the
#   loop's largest request (queue/max_sectors_kb) and at most the file's;
#   for a virtual disk (virtio, loop) both hold 8 MiB in flight, for any
#   other class the loop keeps the file's depth;
# - every chunk is a power of two of 1 to 4 MiB that divides the block;
# - with default options (block size from the start's rate), the reads in
#   flight fit in one block and the queue is drained per block
#   (options.timing: drained_per_block, blur_blocks 0), with at least 64
#   blocks; a block size that leaves more than a block in flight (-b 1 on
#   the loop) is recorded as blurred over that many blocks, with the note.
#
# Usage: bash read_shape_test.sh /path/to/zcav
# Exit: 0 pass, 1 fail, 77 skip (not root, no loop devices, no /dev/shm).
# Detaches its loop devices and removes its files on every exit path.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly ZCAV=${1:?usage: read_shape_test.sh /path/to/zcav}
readonly SIZE_MIB=256

require_zcav "$ZCAV"
[[ $(id -u) -eq 0 ]] || skip "needs root for losetup"
[[ -e /dev/loop-control ]] || skip "no loop devices (/dev/loop-control missing)"
command -v losetup >/dev/null || skip "losetup not installed (Debian package: mount)"
[[ -d /dev/shm && $(stat -f -c %T /dev/shm) == tmpfs ]] || skip "no tmpfs at /dev/shm"

WORK="" RAM_FILE="" LOOP_DISK="" LOOP_RAM=""
cleanup() {
  local rc=$?
  set +e
  stop_started
  detach_loop "$LOOP_DISK"
  detach_loop "$LOOP_RAM"
  [[ -n $RAM_FILE ]] && rm -f "$RAM_FILE"
  [[ -n $WORK ]] && rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

BASE=$(pick_dir) ||
  fail "no directory among \$ZCAV_REAL_TEST_DIR, \$TMPDIR, /var/tmp, /tmp supports O_DIRECT reads"
WORK=$(mktemp -d "$BASE/zcav-shape-XXXXXX")
head -c $((SIZE_MIB << 20)) /dev/urandom > "$WORK/disk.img"
sync "$WORK/disk.img" 2>/dev/null || sync
RAM_FILE=$(mktemp /dev/shm/zcav-shape-XXXXXX)
cp "$WORK/disk.img" "$RAM_FILE"
LOOP_DISK=$(losetup -f --show -r --direct-io=on "$WORK/disk.img")
LOOP_RAM=$(losetup -f --show -r "$RAM_FILE")
echo "file $WORK/disk.img, loop $LOOP_DISK over it, loop $LOOP_RAM over $RAM_FILE (tmpfs)"

shape() {  # TARGET NAME: a sweep of TARGET in 16 MiB blocks (default shape) into $WORK/NAME.json
  run_and_wait "$ZCAV" sweep "$1" --block-size 16M --quiet --format json -o "$WORK/$2.json" ||
    fail "zcav sweep $1 exited with $?"
}
shape "$WORK/disk.img" file
shape "$LOOP_DISK" loop-disk
shape "$LOOP_RAM" loop-ram
sweep() {  # TARGET NAME ARGS...: a sweep of TARGET with ARGS into $WORK/NAME.json
  local target=$1 name=$2
  shift 2
  run_and_wait "$ZCAV" sweep "$target" "$@" --quiet --format json -o "$WORK/$name.json" ||
    fail "zcav sweep $target $* exited with $?"
}
sweep "$WORK/disk.img" file-default
sweep "$LOOP_DISK" loop-default
sweep "$LOOP_RAM" ram-default
sweep "$LOOP_DISK" loop-b1 -b 1

python3 - "$WORK" "$LOOP_DISK" <<'EOF'
import json, os, sys
work, loop_disk = sys.argv[1:]
MiB = 1 << 20
def opts(name):
    d = json.load(open(f"{work}/{name}.json"))
    if d.get("status") != "complete":
        sys.exit(f"FAIL: {name}: sweep status {d.get('status')}")
    o = d["options"]
    return o["queue_depth"], o["chunk_bytes"], o["block_bytes"], d["device"].get("transport", "")
errors = []
shapes = {n: opts(n) for n in ("file", "loop-disk", "loop-ram")}
for n, (qd, chunk, block, transport) in shapes.items():
    print(f"{n}: {qd} reads of {chunk // 1024} KiB in flight, {block // MiB} MiB blocks, transport {transport!r}")
    if chunk < MiB or chunk > 4 * MiB or chunk & (chunk - 1) or block % chunk:
        errors.append(f"{n}: chunk {chunk} is not a power of two of 1-4 MiB dividing the {block}-byte block")
if shapes["loop-ram"][:2] != (4, MiB):
    errors.append(f"loop over tmpfs: {shapes['loop-ram'][:2]}, expected 4 reads of 1 MiB (unknown class)")
fqd, fchunk = shapes["file"][:2]
lqd, lchunk = shapes["loop-disk"][:2]
name = loop_disk.rsplit("/", 1)[-1]
max_kb = int(open(f"/sys/block/{name}/queue/max_sectors_kb").read())
if lchunk > max_kb * 1024 or lchunk > fchunk:
    errors.append(f"loop over the file: {lchunk}-byte reads, above the loop's {max_kb} KiB or the file's {fchunk}")
st = os.stat(f"{work}/disk.img")
disk = os.path.realpath(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}")
virtual = "/virtio" in disk or os.path.basename(disk).startswith("loop")
print(f"the file's disk: {disk} ({'virtual' if virtual else 'not virtual'})")
if virtual:  # 8 MiB in flight on both
    if lqd * lchunk != 8 * MiB:
        errors.append(f"loop over a file on a virtual disk: {lqd} x {lchunk} in flight, expected 8 MiB")
elif lqd != fqd:
    errors.append(f"loop over the file: depth {lqd}, the file's is {fqd}")
# The default shape: every block timed on its own.
for n in ("file-default", "loop-default", "ram-default"):
    d = json.load(open(f"{work}/{n}.json"))
    o = d["options"]
    t = o.get("timing")
    if not isinstance(t, dict):
        errors.append(f"{n}: no options.timing (how sharp the blocks are is not recorded)")
        continue
    rates = sorted(b["mb_per_s"] for b in d["blocks"])
    print(f"{n}: {o['queue_depth']} x {o['chunk_bytes'] // 1024} KiB in flight, "
          f"{o['block_bytes'] / MiB:g} MiB blocks ({o['block_count']}), timing {t}, "
          f"blocks {rates[0]:.0f}..{rates[-1]:.0f} MB/s")
    if t.get("drained_per_block") is not True or t.get("blur_blocks") != 0:
        errors.append(f"{n}: default shape not drained per block: {t}")
    if o["queue_depth"] * o["chunk_bytes"] > o["block_bytes"]:
        errors.append(f"{n}: {o['queue_depth']} x {o['chunk_bytes']} in flight over "
                      f"{o['block_bytes']}-byte blocks")
    if o["block_count"] < 64:
        errors.append(f"{n}: {o['block_count']} blocks, fewer than 64")
    if any("blurs the per-block rates" in note for note in o["notes"]):
        errors.append(f"{n}: a blur note on the default shape")
# A forced block size with more than a block in flight: blurred, and said so.
d = json.load(open(f"{work}/loop-b1.json"))
o, t = d["options"], d["options"].get("timing") or {}
spanned = o["queue_depth"] * o["chunk_bytes"] / o["block_bytes"]
print(f"loop -b 1: {o['queue_depth']} x {o['chunk_bytes'] // 1024} KiB in flight, timing {t}")
if spanned > 1:
    if t.get("drained_per_block") is not False or abs(t.get("blur_blocks", 0) - spanned) > 1e-9:
        errors.append(f"loop -b 1: {spanned:g} blocks in flight, timing {t}")
    if not any("blurs the per-block rates" in note for note in o["notes"]):
        errors.append(f"loop -b 1: no blur note ({o['notes']})")
if errors:
    sys.exit("\n".join("FAIL: " + e for e in errors))
print("PASS: read shapes follow the disk under the file; default blocks are drained")
EOF
