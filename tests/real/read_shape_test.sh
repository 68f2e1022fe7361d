#!/usr/bin/env bash
# Real-I/O test: the default read shape (reads in flight, bytes a read) that
# zcav picks for a file on a disk, for a loop device over that file, and for
# a loop device over a file on tmpfs, as the header records it
# (options.queue_depth, options.chunk_bytes), and that the shape pays:
# - the file reads no more in one read than its disk takes whole (the
#   disk's queue/max_sectors_kb, where sysfs knows the disk), so no read is
#   split;
# - a loop device reads as the file under it does: over the file on a disk,
#   reads at most the loop's largest request (its max_sectors_kb) and at
#   most the file's, and for a virtual disk (virtio, loop) as many bytes in
#   flight as the file, for any other class the file's depth; over a file
#   on tmpfs (RAM, no sysfs queue), the shape zcav picks for that file;
# - the benefit, measured back to back: 10 rounds, each a sweep in the
#   default shape, one reading 1 MiB at a time (classic zcav's shape) and
#   one with 4 x 4 MiB in flight (what the device gives), all in 16 MiB
#   blocks, the order reversed every other round; the median of the
#   rounds' ratios. Where one read at a time already gets 0.85 x of 4 x 4
#   MiB (a busy or slow host disk: 1.5-2 GB/s in a loaded CI run gave 1.01
#   and 1.04 x), no shape can gain 1.1 x, and the default must instead get
#   0.9 x of 4 x 4 MiB. Over a file on a virtual disk, the file and the loop
#   read at least 1.1 times as fast in the default shape (the chunk pays
#   for the file, the depth for the loop: 1.35 to 1.71 times on this
#   project's 2-CPU VM, with both shapes' buffers on huge pages, and 1.15
#   to 1.21 on 2026-12-03, the host's disk at 3-4 GB/s; 2.0 to 5.3
#   times while a 1 MiB buffer was on 4 KiB pages, 256 segments a read; 0.9
#   to 1.04 with the classic shape as the default); the loop over tmpfs, and the file and loop on
#   other disks (where the gain depends on the drive), at least 0.6 times
#   as fast, i.e. not much slower (RAM answers at once, and a 256 MiB sweep
#   of it takes some 40 ms, so this is noisy: 1.1 to 3.7 times here, 0.75
#   once in a trial on a loaded machine);
# - every chunk divides the block;
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

sweep() {  # TARGET NAME ARGS...: a sweep of TARGET with ARGS into $WORK/NAME.json
  local target=$1 name=$2
  shift 2
  run_and_wait "$ZCAV" sweep "$target" "$@" --quiet --format json -o "$WORK/$name.json" ||
    fail "zcav sweep $target $* exited with $?"
}
# The default shape in 16 MiB blocks (room for it to keep all its reads in flight).
sweep "$WORK/disk.img" file --block-size 16M
sweep "$LOOP_DISK" loop-disk --block-size 16M
sweep "$LOOP_RAM" loop-ram --block-size 16M
sweep "$RAM_FILE" ram-file --block-size 16M
# Default options throughout.
sweep "$WORK/disk.img" file-default
sweep "$LOOP_DISK" loop-default
sweep "$LOOP_RAM" ram-default
sweep "$LOOP_DISK" loop-b1 -b 1
# The benefit: rounds of the default shape and one read of 1 MiB at a time,
# back to back, in the same 16 MiB blocks; which goes first alternates (the
# second sweep of a pair can run slower or faster for being second).
# (6 rounds gave a median of 1.15 once, round ratios 0.92 to 1.24, while the
# host's cache moved the file's rate between 7 and 10 GB/s.) The floor, 1.1,
# still fails the classic shape as the default (0.9 to 1.04).
readonly ROUNDS=10
for ((round = 1; round <= ROUNDS; round++)); do
  for target in file:"$WORK/disk.img" loop-disk:"$LOOP_DISK" loop-ram:"$LOOP_RAM"; do
    for kind in $( ((round % 2)) && echo shape one deep || echo deep one shape); do
      if [[ $kind == shape ]]; then
        sweep "${target#*:}" "${target%%:*}-shape-$round" --block-size 16M
      elif [[ $kind == deep ]]; then
        sweep "${target#*:}" "${target%%:*}-deep-$round" --block-size 16M --queue-depth 4 \
          --chunk-size 4M
      else
        sweep "${target#*:}" "${target%%:*}-one-$round" --block-size 16M --queue-depth 1 \
          --chunk-size 1M
      fi
    done
  done
done

python3 - "$WORK" "$LOOP_DISK" "$ROUNDS" <<'EOF'
import json, os, statistics, sys
work, loop_disk, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
MiB = 1 << 20
errors = []
def load(name):
    d = json.load(open(f"{work}/{name}.json"))
    if d.get("status") != "complete":
        sys.exit(f"FAIL: {name}: sweep status {d.get('status')}")
    return d
def max_request(sysfs_dir):  # bytes the block device at sysfs_dir takes in one request, or None
    for d in (sysfs_dir, os.path.dirname(sysfs_dir)):  # a partition's queue is its disk's
        try:
            return int(open(f"{d}/queue/max_sectors_kb").read()) * 1024
        except OSError:
            pass
    return None
shapes = {}
for n in ("file", "loop-disk", "loop-ram", "ram-file"):
    o = load(n)["options"]
    qd, chunk, block = o["queue_depth"], o["chunk_bytes"], o["block_bytes"]
    shapes[n] = (qd, chunk)
    print(f"{n}: {qd} reads of {chunk // 1024} KiB in flight, {block // MiB} MiB blocks")
    if block % chunk:
        errors.append(f"{n}: chunk {chunk} does not divide the {block}-byte block")
(fqd, fchunk), (lqd, lchunk) = shapes["file"], shapes["loop-disk"]
# The file: reads its disk takes whole.
st = os.stat(f"{work}/disk.img")
disk = os.path.realpath(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}")
disk_max = max_request(disk)
virtual = "/virtio" in disk or os.path.basename(disk).startswith("loop")
print(f"the file's disk: {disk} ({'virtual' if virtual else 'not virtual'}, "
      f"largest request {disk_max // 1024 if disk_max else 'unknown'} KiB)")
if disk_max is not None and fchunk > disk_max:
    errors.append(f"the file: {fchunk}-byte reads, above its disk's largest request ({disk_max})")
# The loop over it: as the file, in requests it takes whole.
loop_max = max_request(f"/sys/block/{os.path.basename(loop_disk)}")
if loop_max is None or lchunk > loop_max or lchunk > fchunk:
    errors.append(f"loop over the file: {lchunk}-byte reads, above the loop's largest request "
                  f"({loop_max}) or the file's reads ({fchunk})")
if virtual:
    if lqd * lchunk != fqd * fchunk:
        errors.append(f"loop over a file on a virtual disk: {lqd} x {lchunk} in flight, the file "
                      f"{fqd} x {fchunk}")
elif lqd != fqd:
    errors.append(f"loop over the file: depth {lqd}, the file's is {fqd}")
# The loop over tmpfs: as the tmpfs file itself.
if shapes["loop-ram"] != shapes["ram-file"]:
    errors.append(f"loop over tmpfs: {shapes['loop-ram']}, the tmpfs file {shapes['ram-file']}")
# The benefit: the default shape over one 1 MiB read at a time, round by
# round (the two sweeps of a round ran back to back, so other work on the
# machine slowed both alike), the median of the rounds.
for n, least in (("file", 1.1 if virtual else 0.6), ("loop-disk", 1.1 if virtual else 0.6),
                 ("loop-ram", 0.6)):
    rate = {}
    for kind in ("shape", "one", "deep"):
        runs = [load(f"{n}-{kind}-{r}") for r in range(1, rounds + 1)]
        o = runs[0]["options"]
        rate[kind] = [x["summary"]["avg_mb_per_s"] for x in runs]
        shape = (o["queue_depth"], o["chunk_bytes"])
        expected = {"shape": shapes[n], "one": (1, MiB), "deep": (4, 4 * MiB)}[kind]
        if shape != expected:
            errors.append(f"{n}: the {kind} rounds read {shape}, not {expected}")
    def ratio(a, b):
        return statistics.median(x / y for x, y in zip(rate[a], rate[b]))
    gain, classic_of_deep, shape_of_deep = ratio("shape", "one"), ratio("one", "deep"), \
        ratio("shape", "deep")
    print(f"{n}: {shapes[n][0]} x {shapes[n][1] // 1024} KiB over 1 x 1024 KiB: {gain:.2f} x "
          f"(median of {rounds} rounds, at least {least}; MB/s {[round(x) for x in rate['shape']]} "
          f"over {[round(x) for x in rate['one']]}); against 4 x 4096 KiB "
          f"({[round(x) for x in rate['deep']]}): the default {shape_of_deep:.2f} x, one at a "
          f"time {classic_of_deep:.2f} x")
    # A device that gives one read at a time 85 % of what 4 x 4 MiB in flight
    # gets (the host's disk busy or slow: 1.5-2 GB/s on a loaded CI run)
    # leaves no shape 1.1 x to gain: then the default must get 90 % of it.
    if least > 1 and gain < least and classic_of_deep >= 0.85:
        print(f"{n}: one read at a time already gets {classic_of_deep:.2f} x of 4 x 4 MiB in "
              f"flight: no shape can gain {least} x here; the default must get 0.9 x of it")
        if shape_of_deep < 0.9:
            errors.append(f"{n}: the default shape reads {shape_of_deep:.2f} times as fast as "
                          f"4 x 4 MiB in flight, not at least 0.9")
    elif gain < least:
        errors.append(f"{n}: the default shape reads {gain:.2f} times as fast as one 1 MiB read at "
                      f"a time, not at least {least}")
# The default shape: every block timed on its own.
for n in ("file-default", "loop-default", "ram-default"):
    d = load(n)
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
    if o["block_bytes"] % o["chunk_bytes"]:
        errors.append(f"{n}: chunk {o['chunk_bytes']} does not divide the {o['block_bytes']}-byte block")
    if o["queue_depth"] * o["chunk_bytes"] > o["block_bytes"]:
        errors.append(f"{n}: {o['queue_depth']} x {o['chunk_bytes']} in flight over "
                      f"{o['block_bytes']}-byte blocks")
    if o["block_count"] < 64:
        errors.append(f"{n}: {o['block_count']} blocks, fewer than 64")
    if any("blurs the per-block rates" in note for note in o["notes"]):
        errors.append(f"{n}: a blur note on the default shape")
# A forced block size with more than a block in flight: blurred, and said so.
d = load("loop-b1")
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
print("PASS: read shapes follow the disk under the file and pay; default blocks are drained")
EOF
