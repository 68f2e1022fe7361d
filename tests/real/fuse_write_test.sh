#!/usr/bin/env bash
# Real-I/O test of the write-cache analysis through the kernel: the
# zoned_fuse fixture (tests/fixtures/zoned_fuse.cc) serves a 256 MiB file
# that takes writes like an SSD: the first 64 MiB at 240 MB/s (its write
# cache), then 60 MB/s, and while idle it empties its cache at 30 MB/s.
# `zcav sweep --write --destroy-data` writes a read-write loop device over the
# file (O_DIRECT, through the loop driver and FUSE) in 4 MiB blocks, then
# --idle-probe 2s. Checked:
#   - write_cache.size_bytes within one block of 64 MiB;
#   - in_cache_mb_per_s and after_cache_mb_per_s within 3 % of 240 and 60;
#   - two phases, cache then sustained;
#   - the probe: 2 s idle at 30 MB/s frees 60 MB: regained within 10 %;
#   - the fixture received every byte the sweep, its untimed warm-up chunk
#     and the probe wrote (its count on exit).
#
# Usage: bash fuse_write_test.sh /path/to/zcav /path/to/zoned_fuse
# Exit: 0 pass, 1 fail, 77 skip (no /dev/fuse or fusermount3, not root, no
# loop devices). Unmounts, detaches its loop device, ends the fixture and
# removes its files on every exit path. Takes about 15 s.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly ZCAV=${1:?usage: fuse_write_test.sh /path/to/zcav /path/to/zoned_fuse}
readonly FIXTURE=${2:?usage: fuse_write_test.sh /path/to/zcav /path/to/zoned_fuse}
readonly SIZE_MIB=256 BLOCK_MIB=4
readonly CACHE_MIB=64 CACHE_MBPS=240 SUSTAINED_MBPS=60 RECOVER_MBPS=30 IDLE_S=2

require_fuse "$FIXTURE"
require_zcav "$ZCAV"
[[ $(id -u) -eq 0 ]] || skip "needs root (a loop device over the FUSE file)"
[[ -e /dev/loop-control ]] || skip "no loop devices (/dev/loop-control missing)"
command -v losetup >/dev/null || skip "no losetup (util-linux)"

fuse_test_setup zcav-fuse-write
readonly MNT=$WORK/mnt
mkdir "$MNT"
start_fixture "$FIXTURE" "$MNT" "$WORK/fixture.log" disk.img --size "${SIZE_MIB}M" \
  --zones 0:300 --write-rate "$SUSTAINED_MBPS" --write-cache "${CACHE_MIB}M@$CACHE_MBPS" \
  --write-recover "$RECOVER_MBPS"
LOOP=$(losetup -f --show "$MNT/disk.img") || fail "losetup could not attach $MNT/disk.img"
echo "loop device $LOOP (read-write) over $MNT/disk.img"

RC=0
run_and_wait "$ZCAV" sweep --write --destroy-data "$LOOP" --block-size "${BLOCK_MIB}M" \
  --idle-probe "${IDLE_S}s" --format json -o "$WORK/w.json" 2> "$WORK/err" < /dev/null || RC=$?
[[ $RC -eq 0 ]] || fail "zcav exited $RC: $(cat "$WORK/err")"
grep -E "^(write cache|zcav: write cache)" "$WORK/err" || true
detach_loop "$LOOP"
LOOP=""

python3 - "$WORK/w.json" <<EOF || fail "see above"
import json, sys
doc = json.load(open(sys.argv[1]))
w = doc.get("write_cache")
errors = []
if w is None:
    sys.exit("FAIL: no write_cache in the result")
block = $BLOCK_MIB * 2**20
cache = $CACHE_MIB * 2**20
print(f"cache {w['size_bytes']} B (model {cache}, block {block}); "
      f"{w['in_cache_mb_per_s']:.1f} MB/s in it (model $CACHE_MBPS), "
      f"{w['after_cache_mb_per_s']:.1f} after (model $SUSTAINED_MBPS)")
if abs(w["size_bytes"] - cache) > block:
    errors.append(f"cache size {w['size_bytes']} B is more than one block from {cache} B")
for got, model, what in ((w["in_cache_mb_per_s"], $CACHE_MBPS, "in-cache rate"),
                         (w["after_cache_mb_per_s"], $SUSTAINED_MBPS, "sustained rate")):
    if abs(got / model - 1) > 0.03:
        errors.append(f"{what} {got:.1f} MB/s is not within 3 % of {model}")
names = [p["name"] for p in w["phases"]]
if names != ["cache", "sustained"]:
    errors.append(f"phases {names}")
r = w.get("recovery")
model = $RECOVER_MBPS * 1e6 * $IDLE_S
if r is None:
    errors.append("no recovery from --idle-probe")
else:
    print(f"after {r['idle_seconds']} s idle: {r['regained_bytes']} B regained "
          f"(model {model:.0f} B, {r['regained_bytes'] / model - 1:+.1%})")
    if abs(r["regained_bytes"] / model - 1) > 0.10:
        errors.append(f"regained {r['regained_bytes']} B is not within 10 % of {model:.0f} B")
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
EOF
# The fixture's last line counts what it received: the whole device and the
# probe's writes, through the kernel.
stop_fixtures 0 || fail "the fixture would not unmount"
python3 - "$WORK/fixture.log" "$WORK/w.json" <<'EOF' || fail "see above"
import json, re, sys
log = open(sys.argv[1]).read()
m = re.search(r"(\d+) writes, (\d+) bytes written", log)
if not m:
    sys.exit(f"FAIL: no write count in the fixture's log: {log!r}")
w = json.load(open(sys.argv[2]))
# The device, the probe, and the sweep's untimed warm-up chunk at the start.
expected = (w["device"]["size_bytes"] + w["write_cache"]["recovery"]["probe_bytes"] +
            w["summary"]["chunk_bytes"])
print(f"the fixture received {m[2]} B in {m[1]} writes; zcav wrote {expected} B "
      "(device + probe + warm-up chunk)")
if int(m[2]) != expected:
    sys.exit("FAIL: the fixture received a different number of bytes")
EOF
echo "PASS"
