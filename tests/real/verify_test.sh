#!/usr/bin/env bash
# Real-I/O test of zcav verify (issue 39) through the kernel: read-write loop
# devices over the fake_fuse fixture (tests/fixtures/fake_fuse.cc), which
# plays counterfeit and failing flash devices, and over a plain file.
#   - 1 GiB claimed over 256 MiB that wraps: fake capacity, usable exactly
#     256 MiB, exit 6, the same ranges as the simulated fake of the same keys
#     (sim:ssd?size=1G&real=256M), the partition command;
#   - 2 GiB claimed over 256 MiB that drops: fake capacity, usable 256 MiB;
#   - a genuine 1 GiB that loses 300-304 MiB: data loss, that range exactly,
#     the badblocks list of its 1024 blocks, exit 6;
#   - 4 KiB unreadable (EIO) at 512 MiB: "unreadable", that 1 MiB chunk;
#   - a genuine loop device over a file, 3 runs: genuine each time, exit 0;
#   - --resume: a run stopped in its write pass and one stopped in its read
#     pass (results cut as Ctrl-C leaves them) go on with the same run id and
#     end genuine (a new run id would read the first part back as stale).
#
# Usage: bash verify_test.sh /path/to/zcav /path/to/zoned_fuse /path/to/fake_fuse
# Exit: 0 pass, 1 fail, 77 skip (not root, no loop devices, no FUSE). Detaches
# its loop devices, unmounts and removes its files on every exit path.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly USAGE="usage: verify_test.sh /path/to/zcav /path/to/zoned_fuse /path/to/fake_fuse"
ZCAV=${1:?$USAGE}
readonly FAKE_FUSE=${3:?$USAGE}
readonly MIB=$((1 << 20))

require_zcav "$ZCAV"
[[ $(id -u) -eq 0 ]] || skip "needs root (loop devices)"
if [[ ! -e /dev/loop-control ]] || ! command -v losetup > /dev/null; then skip "no loop devices"; fi
require_fuse "$FAKE_FUSE"
fuse_test_setup zcav-verify
# Backing files on disk (not tmpfs: /tmp may be tmpfs, O_DIRECT needs a disk).
BACK=$(mktemp -d "${TMPDIR:-/var/tmp}/zcav-verify-back-XXXXXX")
# (set +e first: under errexit the "(exit $rc)" that hands fuse_cleanup its
# status would end the trap before anything is cleaned up.)
trap 'rc=$?; set +e; rm -rf "$BACK"; (exit $rc); fuse_cleanup' EXIT

# json FILE EXPR: a Python expression over d = the JSON document, printed.
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# fake NAME ARGS...: mounts fake_fuse with ARGS on $WORK/NAME and attaches a
# loop device over its disk.img ($LOOP).
fake() {
  local name=$1
  shift
  mkdir "$WORK/$name"
  start_fixture "$FAKE_FUSE" "$WORK/$name" "$WORK/$name.log" disk.img \
    --backing "$BACK/$name.img" "$@"
  LOOP=$(losetup -f --show "$WORK/$name/disk.img") || fail "losetup over $name/disk.img failed"
}
done_with_loop() {
  detach_loop "$LOOP" || fail "could not detach $LOOP"
  LOOP=""
}

# verify NAME WANT_EXIT ARGS...: zcav verify $LOOP --destroy-data --format
# json -o $WORK/NAME.json ARGS..., expecting WANT_EXIT.
verify() {
  local name=$1 want=$2 rc=0
  shift 2
  "$ZCAV" verify "$LOOP" --destroy-data --format json -o "$WORK/$name.json" --quiet "$@" \
    < /dev/null > "$WORK/$name.out" 2> "$WORK/$name.err" || rc=$?
  [[ $rc -eq $want ]] || fail "$name: exit $rc, expected $want: $(head -c 400 "$WORK/$name.err")"
}

# ---- wrap: 1 GiB over 256 MiB ----
fake wrap --size 1G --real 256M --fake wrap
verify wrap 6
[[ $(json "$WORK/wrap.json" 'd["verify"]["verdict"]') == "fake capacity" ]] ||
  fail "wrap: verdict $(json "$WORK/wrap.json" 'd["verify"]["verdict"]')"
[[ $(json "$WORK/wrap.json" 'd["verify"]["usable_bytes"]') -eq $((256 * MIB)) ]] ||
  fail "wrap: usable $(json "$WORK/wrap.json" 'd["verify"]["usable_bytes"]'), expected 256 MiB"
"$ZCAV" verify 'sim:ssd?size=1G&real=256M' --destroy-data --format json -o "$WORK/sim.json" \
  --quiet || [[ $? -eq 6 ]] || fail "the simulated wrap did not run"
ranges='[(r["start_bytes"], r["end_bytes"], r["state"], r.get("source_bytes")) for r in d["verify"]["ranges"]]'
[[ $(json "$WORK/wrap.json" "$ranges") == "$(json "$WORK/sim.json" "$ranges")" ]] ||
  fail "wrap: the ranges differ from the simulated fake's: $(json "$WORK/wrap.json" "$ranges")"
json "$WORK/wrap.json" 'd["verify"]["fix"]["partition_command"]' | grep -q "mkpart primary 1MiB 256MiB$" ||
  fail "wrap: no partition command of 256 MiB"
echo "ok - a 1 GiB stick over 256 MiB that wraps: fake capacity, usable 256 MiB, as simulated"
done_with_loop

# ---- drop: 2 GiB over 256 MiB ----
fake drop --size 2G --real 256M --fake drop
verify drop 6
[[ $(json "$WORK/drop.json" 'd["verify"]["verdict"], d["verify"]["usable_bytes"]') == \
  "fake capacity $((256 * MIB))" ]] ||
  fail "drop: $(json "$WORK/drop.json" 'd["verify"]["verdict"], d["verify"]["usable_bytes"]')"
echo "ok - a 2 GiB stick over 256 MiB that drops: fake capacity, usable 256 MiB"
done_with_loop

# ---- a genuine 1 GiB that loses one 4 MiB range ----
fake lose --size 1G --lose 300M-304M
verify lose 6 --badblocks "$WORK/lose.bb"
[[ $(json "$WORK/lose.json" 'd["verify"]["verdict"]') == "data loss" ]] ||
  fail "lose: verdict $(json "$WORK/lose.json" 'd["verify"]["verdict"]')"
bad='[(r["start_bytes"], r["end_bytes"], r["state"]) for r in d["verify"]["ranges"] if r["state"] != "good"]'
[[ $(json "$WORK/lose.json" "$bad") == "[($((300 * MIB)), $((304 * MIB)), 'lost')]" ]] ||
  fail "lose: bad ranges $(json "$WORK/lose.json" "$bad"), expected 300-304 MiB lost"
[[ $(wc -l < "$WORK/lose.bb") -eq 1024 && $(head -n 1 "$WORK/lose.bb") -eq 76800 ]] ||
  fail "lose: the badblocks list is not blocks 76800-77823"
echo "ok - a 1 GiB device that loses 300-304 MiB: data loss, the range exact, exit 6"
done_with_loop

# ---- unreadable: EIO at 512 MiB ----
fake eio --size 1G --eio 512M+4K
verify eio 6
[[ $(json "$WORK/eio.json" "$bad") == "[($((512 * MIB)), $((513 * MIB)), 'unreadable')]" ]] ||
  fail "eio: bad ranges $(json "$WORK/eio.json" "$bad"), expected the chunk at 512 MiB unreadable"
echo "ok - 4 KiB that fail with EIO: the 1 MiB chunk around them unreadable"
done_with_loop

# ---- genuine, a loop device over a plain file, 3 runs ----
truncate -s 512M "$BACK/plain.img"
LOOP=$(losetup -f --show "$BACK/plain.img") || fail "losetup over plain.img failed"
for run in 1 2 3; do
  verify "plain$run" 0
  [[ $(json "$WORK/plain$run.json" 'd["verify"]["verdict"], len(d["verify"]["ranges"])') == \
    "genuine 1" ]] || fail "plain run $run: not genuine"
done
echo "ok - a genuine 512 MiB loop device: genuine in 3 runs of 3, exit 0"

# ---- --resume: cut results as an interrupt leaves them ----
# cut FILE OUT WRITE_DONE READ_DONE: the result FILE as a run stopped there.
cut_result() {
  python3 - "$1" "$2" "$3" "$4" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = d["verify"]
w, r = int(sys.argv[3]), int(sys.argv[4])
v["write_done_bytes"], v["read_done_bytes"], v["interrupted"] = w, r, True
v["written_bytes"], v["read_bytes"] = w, r
v["ranges"] = [x for x in v["ranges"] if x["start_bytes"] < r]
for x in v["ranges"]:
    x["end_bytes"] = min(x["end_bytes"], r)
d["partial"] = True
json.dump(d, open(sys.argv[2], "w"))
PY
}
verify full 0
run_id=$(json "$WORK/full.json" 'd["verify"]["run_id"]')
cut_result "$WORK/full.json" "$WORK/cut-read.json" $((512 * MIB)) $((200 * MIB))
verify resumed-read 0 --resume "$WORK/cut-read.json"
[[ $(json "$WORK/resumed-read.json" 'd["verify"]["run_id"], d["verify"]["verdict"]') == \
  "$run_id genuine" ]] || fail "resume in the read pass: not the same run, or not genuine"
# Stopped in the write pass: the first 200 MiB written by the run, then
# something else written over the rest (as if the device held old data).
cut_result "$WORK/full.json" "$WORK/cut-write.json" $((200 * MIB)) 0
dd if=/dev/zero of="$LOOP" bs=1M seek=200 count=312 oflag=direct status=none
verify resumed-write 0 --resume "$WORK/cut-write.json"
[[ $(json "$WORK/resumed-write.json" 'd["verify"]["run_id"], d["verify"]["verdict"], d["verify"]["written_bytes"]') == \
  "$run_id genuine $((512 * MIB))" ]] ||
  fail "resume in the write pass: $(json "$WORK/resumed-write.json" 'd["verify"]["run_id"], d["verify"]["verdict"], d["verify"]["written_bytes"]')"
verify another 0
[[ $(json "$WORK/another.json" 'd["verify"]["run_id"]') != "$run_id" ]] || fail "two runs share a run id"
cut_result "$WORK/another.json" "$WORK/cut-other.json" $((512 * MIB)) $((100 * MIB))
"$ZCAV" verify "$LOOP" --destroy-data --quiet --chunk-size 2M --resume "$WORK/cut-other.json" \
  > /dev/null 2> "$WORK/chunk.err" && fail "a resume with another chunk size ran"
grep -q "give the same --chunk-size" "$WORK/chunk.err" || fail "chunk refusal: $(cat "$WORK/chunk.err")"
echo "ok - --resume goes on in the write or the read pass with the same run id; another chunk refused"
done_with_loop
# ---- --quick: the real size from spot checks ----
# quick NAME REAL ARGS...: --quick on $LOOP: fake capacity, usable within 1 %
# of REAL bytes, under 5 % of REAL written.
quick_fake() {
  local name=$1 real=$2
  shift 2
  verify "$name" 6 --quick "$@"
  python3 - "$WORK/$name.json" "$real" << 'PY' || fail "$name: see above"
import json, sys
d = json.load(open(sys.argv[1]))
real = int(sys.argv[2])
v, q = d["verify"], d["quick"]
assert v["verdict"] == "fake capacity", v["verdict"]
assert abs(v["usable_bytes"] - real) <= 0.01 * real, (v["usable_bytes"], real)
assert v["written_bytes"] < 0.05 * real, (v["written_bytes"], real)
assert q["good_bytes"] <= real <= q["bad_bytes"], q
PY
  echo "ok - --quick $name: usable $(json "$WORK/$name.json" 'd["verify"]["usable_bytes"]') of $real, written $(json "$WORK/$name.json" 'd["verify"]["written_bytes"]')"
}
fake qwrap --size 16G --real 1G --fake wrap
quick_fake qwrap $((1024 * MIB))
done_with_loop
fake qdrop --size 4G --real 1000M --fake drop
quick_fake qdrop $((1000 * MIB))
done_with_loop
# --keep-data on a genuine device: every byte as it was.
head -c $((64 * MIB)) /dev/urandom > "$BACK/random"
for at in 0 100 300; do
  dd if="$BACK/random" of="$BACK/plain.img" bs=1M seek=$at conv=notrunc status=none
done
sum_before=$(md5sum < "$BACK/plain.img")
LOOP=$(losetup -f --show "$BACK/plain.img") || fail "losetup over plain.img failed"
"$ZCAV" verify "$LOOP" --quick --keep-data --format json -o "$WORK/keep.json" --quiet   < /dev/null || fail "--quick --keep-data of a genuine device: exit $?"
done_with_loop
[[ $(json "$WORK/keep.json" 'd["verify"]["verdict"], d["quick"]["restored"]') == "genuine True" ]] ||
  fail "--keep-data: $(json "$WORK/keep.json" 'd["verify"]["verdict"], d["quick"]["restored"]')"
[[ $(md5sum < "$BACK/plain.img") == "$sum_before" ]] || fail "--keep-data changed the device's data"
echo "ok - --quick --keep-data on a genuine device: genuine, every byte as before"

echo "ok - verify on real devices"
