#!/usr/bin/env bash
# Real-I/O test of the output's space (issue 17, item 7), on a tiny tmpfs
# (128 KiB) this script mounts:
#   (a) refused up front: `zcav sweep sim:hdd -o MNT/out.dat` (about 1000
#       blocks: the raw result's estimate, ~0.16 MB, is over the 0.13 MB
#       free) and `zcav profile sim:hdd -o MNT/dir` (~2 MB) exit 2 with
#       one line giving both figures in MB, before reading, and leave no file;
#   (b) a sweep whose result fits the estimate, of a slow file (the
#       zoned_fuse fixture: 64 MiB at 20 MB/s, about 3.4 s), while the tmpfs
#       is filled up under it once its temporary file is there: the sweep
#       goes on, exit 4, one line naming the output, "No space left on
#       device" and the file the data is kept in (under $TMPDIR, here the
#       test's own directory); that file is the whole result (every block,
#       status complete) and `zcav zones` reads it; nothing is left on the
#       tmpfs but the filler.
# The EXIT trap ends the zcav it started (by its PID), unmounts the fixture
# and the tmpfs and removes its files, also when the test fails.
#
# Usage: bash full_output_test.sh /path/to/zcav [/path/to/zoned_fuse]
# Exit: 0 pass, 1 fail, 77 skip (not root, cannot mount tmpfs). Without FUSE
# (b) is skipped (a failure under ZCAV_REQUIRE_ALL=1).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly ZCAV=${1:?usage: full_output_test.sh /path/to/zcav [/path/to/zoned_fuse]}
readonly FIXTURE=${2:-}
readonly TMPFS_SIZE=128k
readonly SIZE_MIB=64 MB_PER_S=20 BLOCK=256K BLOCKS=256

require_zcav "$ZCAV"
[[ $(id -u) -eq 0 ]] || skip "needs root (mount -t tmpfs)"
command -v mount >/dev/null && command -v umount >/dev/null || skip "mount/umount not installed"

WORK=""
SMALL=""
cleanup() {
  local rc=$?
  set +e
  stop_started
  if [[ -n $FUSERMOUNT ]] && ! stop_fixtures "$rc"; then
    echo "WARNING: leaving $WORK" >&2
    exit "$rc"
  fi
  if [[ -n $SMALL ]] && mountpoint -q "$SMALL"; then
    umount "$SMALL" || umount -l "$SMALL"
  fi
  [[ -n $WORK ]] && rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
WORK=$(mktemp -d "${TMPDIR:-/tmp}/zcav-full-output-XXXXXX")
SMALL=$WORK/small
mkdir "$SMALL" "$WORK/kept"
mount -t tmpfs -o "size=$TMPFS_SIZE" zcav-full-test "$SMALL" ||
  skip "cannot mount a tmpfs (mount -t tmpfs failed)"
echo "tmpfs of $TMPFS_SIZE on $SMALL: $(df -B1 --output=avail "$SMALL" | tail -n 1) bytes free"

# expect_refused WHAT RC ERRFILE: exit 2, one line, both figures, nothing on the tmpfs.
expect_refused() {
  [[ $2 -eq 2 ]] || fail "$1: exit $2, expected 2 (refused up front): $(cat "$3")"
  [[ $(wc -l <"$3") -eq 1 ]] || fail "$1: stderr is not one line: $(cat "$3")"
  grep -Eq "^zcav: not enough space for $SMALL/[a-z.]+: .* need about [0-9.]+ MB and the file system of $SMALL has 0\.13 MB free \(MB = 10\^6 B\); free some space" "$3" ||
    fail "$1: unexpected message: $(cat "$3")"
  [[ -z $(ls -A "$SMALL") ]] || fail "$1: left files on the tmpfs: $(ls -A "$SMALL")"
  echo "ok - $1 refused: $(cat "$3")"
}

# (a) Refused before reading.
RC=0
"$ZCAV" sweep sim:hdd --quiet -o "$SMALL/out.dat" 2>"$WORK/err" || RC=$?
expect_refused "zcav sweep sim:hdd" "$RC" "$WORK/err"
RC=0
"$ZCAV" profile sim:hdd --quiet -o "$SMALL/dir" 2>"$WORK/err" || RC=$?
expect_refused "zcav profile sim:hdd" "$RC" "$WORK/err"

# (b) Fits the estimate, then the file system fills up during the sweep.
if [[ -z $FIXTURE ]]; then
  skip_part "(b) the disk filling up mid-sweep" "no zoned_fuse fixture given"
  exit 0
fi
if ! (require_fuse "$FIXTURE") >/dev/null; then
  skip_part "(b) the disk filling up mid-sweep" "FUSE is not available here"
  exit 0
fi
require_fuse "$FIXTURE"
mkdir "$WORK/fuse"
start_fixture "$FIXTURE" "$WORK/fuse" "$WORK/fixture.log" disk.img --size "${SIZE_MIB}M" \
  --zones "0:$MB_PER_S"
TMPDIR=$WORK/kept "$ZCAV" sweep "$WORK/fuse/disk.img" --block-size "$BLOCK" --quiet \
  -o "$SMALL/out.dat" 2>"$WORK/err" &
STARTED_PID=$!
# Its temporary appears once the space check has passed: then fill the rest.
for _ in $(seq 200); do
  compgen -G "$SMALL/out.dat.tmp.*" >/dev/null && break
  kill -0 "$STARTED_PID" 2>/dev/null || break
  sleep 0.02
done
compgen -G "$SMALL/out.dat.tmp.*" >/dev/null || fail "zcav never opened $SMALL/out.dat.tmp.*: $(cat "$WORK/err")"
dd if=/dev/zero of="$SMALL/filler" bs=4k status=none 2>/dev/null || true
kill -0 "$STARTED_PID" 2>/dev/null || fail "the sweep ended before the tmpfs was full (too fast?)"
RC=0
wait "$STARTED_PID" || RC=$?
STARTED_PID=""
[[ $RC -eq 4 ]] || fail "sweep onto a file system that filled up: exit $RC, expected 4: $(cat "$WORK/err")"
[[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "stderr is not one line: $(cat "$WORK/err")"
grep -Eq "^zcav: writing $SMALL/out.dat failed: No space left on device; the measured data is kept in $WORK/kept/zcav-kept-[A-Za-z0-9]{6}-out.dat\$" "$WORK/err" ||
  fail "unexpected message: $(cat "$WORK/err")"
KEPT=$(sed -n 's/.*the measured data is kept in //p' "$WORK/err")
[[ -f $KEPT ]] || fail "the kept file $KEPT does not exist"
LINES=$(grep -vc '^#' "$KEPT")
[[ $LINES -eq $BLOCKS ]] || fail "the kept file has $LINES data lines, expected $BLOCKS"
grep -q '^# status: complete' "$KEPT" || fail "the kept file is not marked complete"
"$ZCAV" zones "$KEPT" -o "$WORK/zones.txt" || fail "zcav zones cannot read $KEPT"
[[ $(ls -A "$SMALL") == filler ]] || fail "left on the tmpfs besides the filler: $(ls -A "$SMALL")"
echo "ok - filled up mid-sweep: exit 4, $(cat "$WORK/err")"
echo "PASS"
