#!/usr/bin/env bash
# Real-I/O test: caches named (issue 37 item 2). A loop device without direct
# I/O reads its backing file through the page cache: zcav must say so, with
# the share cached, and not present RAM as the storage.
#  a. The file cached before the sweep (cat): device.page_cache_file is the
#     file, every pass started with >= 90 % cached, caches.ram_passes holds
#     every pass, the verdict (--bus sata3) is undetermined and says "came
#     from RAM"; `zcav zones` of the saved JSON says the same; `zcav profile`
#     prints a "Page cache:" line with the share and the verdict's RAM sentence.
#  b. The file's cache dropped first (dd iflag=nocache): pass 1 starts under
#     10 % cached, pass 2 over 90 %: passes 2-3 read RAM, pass 1 measures the
#     storage (storage_pass 1).
#  c. The same file behind a loop device with direct I/O (losetup
#     --direct-io=on): no page-cache file, no RAM claim, though it is cached.
#  d. Attack: the backing file unlinked and a symlink, then a regular file,
#     put where sysfs names it ("FILE (deleted)"): neither is opened or
#     counted (O_NOFOLLOW; device and inode checked against the loop).
# Usage: bash page_cache_test.sh /path/to/zcav
# Exit: 0 pass, 1 fail, 77 skip (not root, no loop devices).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly ZCAV=${1:?usage: page_cache_test.sh /path/to/zcav}
readonly SIZE_MIB=256
require_zcav "$ZCAV"
[[ $(id -u) -eq 0 ]] || skip "needs root (loop devices)"
command -v losetup >/dev/null || skip "losetup not installed"

WORK=""
LOOP=""
cleanup() {
  local rc=$?
  set +e
  stop_started
  detach_loop "$LOOP"
  [[ -n $WORK ]] && rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

BASE=$(pick_dir) || fail "no directory on a disk file system (O_DIRECT) for the backing file"
WORK=$(mktemp -d "$BASE/zcav-pagecache-XXXXXX")
readonly FILE=$WORK/disk.img
head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom > "$FILE"
sync "$FILE" 2>/dev/null || sync

attach() {  # attach [--direct-io=on]: LOOP = a read-only loop device over FILE
  LOOP=$(losetup -f --show -r "$@" "$FILE" 2>/dev/null) || skip "cannot attach a loop device"
}
drop_cache() { dd if="$FILE" iflag=nocache count=0 status=none; }

# sweep NAME PASSES: a JSON sweep of LOOP into WORK/NAME.json.
sweep() {
  local rc=0
  run_and_wait "$ZCAV" sweep "$LOOP" --block-size 16M --passes "$2" --bus sata3 --format json \
    -o "$WORK/$1.json" --quiet || rc=$?
  [[ $rc -eq 0 ]] || fail "zcav sweep $LOOP ($1) exited with $rc"
}

# check NAME PYTHON: asserts PYTHON (j = the JSON document) on WORK/NAME.json.
check() {
  python3 - "$WORK/$1.json" "$FILE" "$2" <<'PY' || fail "$1: the check above failed"
import json, sys
j = json.load(open(sys.argv[1]))
file = sys.argv[2]
dev, passes, caches = j["device"], j["passes"], j.get("caches", {})
verdict = j.get("verdict", {})
shares = [p.get("page_cache_share") for p in passes]
print(sys.argv[1].rsplit("/", 1)[1] + ": page_cache_file=%r shares=%r rates=%r caches=%r" % (
    dev.get("page_cache_file"), shares, [round(p["mb_per_s"]) for p in passes], caches))
print("  verdict: %s: %s" % (verdict.get("kind"), verdict.get("reason")))
if not eval(sys.argv[3]):
    print("FAIL: " + sys.argv[3], file=sys.stderr)
    sys.exit(1)
PY
}

# a. cached before the sweep
attach
cat "$FILE" > /dev/null
sweep cached 2
check cached 'dev.get("page_cache_file") == file and all(s is not None and s >= 0.9 for s in shares) and caches.get("ram_passes") == [1, 2] and caches.get("misleads") is True and verdict.get("kind") == "undetermined" and "came from RAM" in verdict.get("reason", "")'
zones=$("$ZCAV" zones "$WORK/cached.json" --bus sata3) || fail "zcav zones of the cached sweep failed"
grep -q "verdict: undetermined: The reads came from RAM: [0-9]* % of $FILE" <<<"$zones" ||
  fail "zcav zones of the saved sweep does not name the page cache: $zones"
rc=0
run_and_wait "$ZCAV" profile "$LOOP" -o "$WORK/profile" --full -b 16 --quiet || rc=$?
[[ $rc -eq 0 ]] || fail "zcav profile $LOOP exited with $rc"
summary=$(cat "$WORK/profile/summary.txt")
echo "$summary" | grep -E '^(Page cache|Passes|Verdict):'
grep -qE "^Page cache: +$FILE \(the reads pass through it\): (9[0-9]|100) % cached at the start, [0-9]+ % at the end; the sweep measured RAM" <<<"$summary" ||
  fail "the profile summary has no page-cache line with the share"
grep -q "^Verdict: .*came from RAM" <<<"$summary" || fail "the profile verdict does not say RAM"
# The adaptive sweep's probes pass through the same cache: its one pass
# says the share at the start, its summary at the end.
rc=0
run_and_wait "$ZCAV" sweep "$LOOP" --adaptive --format json -o "$WORK/adaptive.json" --quiet || rc=$?
[[ $rc -eq 0 ]] || fail "zcav sweep --adaptive $LOOP exited with $rc"
check adaptive 'dev.get("page_cache_file") == file and len(shares) == 1 and shares[0] >= 0.9 and j["summary"].get("page_cache_share_at_end", 0) >= 0.9 and caches.get("misleads") is True and "came from RAM" in caches.get("description", "")'
detach_loop "$LOOP"
LOOP=""

# b. cold: pass 1 fills the cache
attach
drop_cache
sweep cold 3
check cold 'shares[0] is not None and shares[0] < 0.1 and shares[1] >= 0.9 and caches.get("ram_passes") == [2, 3] and caches.get("storage_pass") == 1 and "Pass 1 read the storage" in verdict.get("reason", "")'
detach_loop "$LOOP"
LOOP=""

# c. direct I/O: the cache is bypassed, nothing to claim
attach --direct-io=on
[[ $(cat "/sys/block/${LOOP#/dev/}/loop/dio" 2>/dev/null) == 1 ]] ||
  skip_part "direct-I/O loop" "losetup --direct-io=on did not take here"
cat "$FILE" > /dev/null
sweep dio 2
check dio '"page_cache_file" not in dev and all(s is None for s in shares) and not caches.get("ram_passes")'
detach_loop "$LOOP"
LOOP=""

# d. attack: what sysfs names is not the loop's file
attach
rm "$FILE"
OTHER=$WORK/other.img
head -c $((4 * 1024 * 1024)) /dev/zero > "$OTHER"
cat "$OTHER" > /dev/null
ln -s "$OTHER" "$FILE (deleted)"
sweep symlink 1
check symlink '"page_cache_file" not in dev'
rm "$FILE (deleted)"
cp "$OTHER" "$FILE (deleted)"
cat "$FILE (deleted)" > /dev/null
sweep impostor 1
check impostor '"page_cache_file" not in dev'
echo "PASS: page cache named with its share (cached, cold, direct I/O, swapped file)"
