# shellcheck shell=bash
# Shared helpers of the real-I/O test scripts; sourced, not run:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# Exit codes of the scripts: 0 pass, 1 fail, 77 skip (ctest SKIP_RETURN_CODE).
#
# ZCAV_REQUIRE_ALL=1 (set by .ci/run) turns every skip, whole or partial,
# into a failure that names what did not run: CI must run every real-I/O
# test, a developer without root may still run the rest.

# fail REASON: the test ran and found a defect, or cannot run where it must.
fail() { echo "FAIL: $*" >&2; exit 1; }
# skip REASON: the machine lacks something the test needs (root, a driver).
skip() {
  [[ ${ZCAV_REQUIRE_ALL:-0} != 1 ]] ||
    fail "not run, and ZCAV_REQUIRE_ALL=1 requires it: $*"
  echo "SKIP: $*"
  exit 77
}
# skip_part NAME REASON: a part of the test cannot run here (the rest did).
skip_part() {
  [[ ${ZCAV_REQUIRE_ALL:-0} != 1 ]] ||
    fail "$1 not run, and ZCAV_REQUIRE_ALL=1 requires it: $2"
  echo "note: $1 not run: $2"
}

# bench_paths [ZCAV] [ZONED_FUSE]: sets ZCAV and FIXTURE, the build tree's
# unless given (a bench script's two optional arguments).
bench_paths() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  # shellcheck disable=SC2034  # read by the script that sources this
  ZCAV=${1:-$root/build/zcav}
  # shellcheck disable=SC2034
  FIXTURE=${2:-$root/build/tests/zoned_fuse}
}

# require_zcav PATH: python3 (to read zcav's JSON) and an executable zcav.
require_zcav() {
  command -v python3 >/dev/null || fail "python3 is required to read zcav's JSON output"
  [[ -x $1 ]] || fail "zcav binary not found or not executable: $1"
}

# pick_dir: prints a directory on a file system that really takes O_DIRECT
# reads (not tmpfs or ramfs, where "direct" would still be RAM), probed with
# dd iflag=direct: the first of $ZCAV_REAL_TEST_DIR, $TMPDIR, /var/tmp, /tmp.
# Returns 1 if there is none.
pick_dir() {
  local dir type probe
  for dir in ${ZCAV_REAL_TEST_DIR:-} ${TMPDIR:-} /var/tmp /tmp; do
    [[ -d $dir && -w $dir ]] || continue
    type=$(stat -f -c %T "$dir")
    case $type in tmpfs | ramfs) continue ;; esac
    probe=$(mktemp "$dir/zcav-probe-XXXXXX") || continue
    if dd if=/dev/zero of="$probe" bs=4096 count=1 status=none conv=fsync &&
       dd if="$probe" of=/dev/null bs=4096 count=1 iflag=direct status=none 2>/dev/null; then
      rm -f "$probe"
      echo "$dir"
      return 0
    fi
    rm -f "$probe"
  done
  return 1
}

# run_and_wait CMD ARGS...: runs the command in the background and waits for
# it, so that an interrupted script can still end it from its EXIT trap
# (stop_started). Returns the command's exit status.
STARTED_PID=""
run_and_wait() {
  local rc=0
  "$@" &
  STARTED_PID=$!
  wait "$STARTED_PID" || rc=$?
  STARTED_PID=""
  return "$rc"
}

# stop_started: ends the command run_and_wait is waiting for, if any (for
# EXIT traps; only ever the one process this script started).
stop_started() {
  if [[ -n $STARTED_PID ]] && kill -0 "$STARTED_PID" 2>/dev/null; then
    kill "$STARTED_PID" 2>/dev/null
    wait "$STARTED_PID" 2>/dev/null
  fi
  STARTED_PID=""
}

# detach_loop DEV: detaches the loop device DEV that this script attached
# (nothing if DEV is empty), retrying for 2 s while udev's probe still holds
# it. Returns 1, with a warning, if it stays attached.
detach_loop() {
  local dev=$1 _
  [[ -n $dev ]] || return 0
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    losetup -d "$dev" 2>/dev/null && return 0
    sleep 0.2
  done
  echo "WARNING: could not detach $dev" >&2
  return 1
}

# fuse_test_setup PREFIX: the usual start of a FUSE test script: an EXIT trap
# (fuse_cleanup) that ends what run_and_wait started, detaches $LOOP when the
# script set it, stops the fixtures and removes $WORK (kept, with a warning,
# when a fixture would not stop), and WORK = a new temporary directory named
# PREFIX-XXXXXX.
WORK=""
LOOP=""
fuse_cleanup() {
  local rc=$?
  set +e
  stop_started
  detach_loop "$LOOP"
  if ! stop_fixtures "$rc"; then
    echo "WARNING: leaving $WORK" >&2
  elif [[ -n $WORK ]]; then
    rm -rf "$WORK"
  fi
  exit "$rc"
}
fuse_test_setup() {
  trap fuse_cleanup EXIT
  trap 'exit 130' INT TERM
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/$1-XXXXXX")
}

# ---- The FUSE fixtures (tests/fixtures/zoned_fuse.cc, fake_fuse.cc) ----
# A script calls require_fuse, start_fixture once per mount, and stop_fixtures
# from its EXIT trap (before removing the mount points' directory).
FUSERMOUNT=""
FIXTURE_MNTS=()   # mount points, in start order
FIXTURE_PIDS=()   # the fixture processes, by mount
FIXTURE_LOGS=()   # their stderr

# require_fuse FIXTURE: skips unless this machine can mount FUSE (/dev/fuse,
# fusermount3, and root or a setuid fusermount3); fails if the fixture binary
# is missing. Sets FUSERMOUNT.
require_fuse() {
  [[ -c /dev/fuse ]] || skip "no /dev/fuse character device (FUSE not available)"
  FUSERMOUNT=$(command -v fusermount3) || skip "no fusermount3 (install fuse3)"
  [[ $(id -u) -eq 0 || (-r /dev/fuse && -w /dev/fuse && -u $FUSERMOUNT) ]] ||
    skip "needs root, or read-write /dev/fuse and a setuid $FUSERMOUNT, to mount FUSE"
  [[ -x $1 ]] || fail "FUSE fixture not found or not executable: $1"
}

# fixture_mounted MNT: is something mounted on MNT (field 5 of mountinfo)?
fixture_mounted() {
  [[ -n $1 ]] && awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo
}

# start_fixture FIXTURE MNT LOG FILE ARGS...: runs the fixture in the
# foreground mode (-f) on the existing empty directory MNT, its stderr into
# LOG, with ARGS (--size, --zones, --files ...), and waits up to 10 s until
# MNT/FILE exists. Fails if it exits or does not mount in time.
# As root the fixture runs at a higher priority (nice -10) than zcav: it
# stands for a disk, whose timing is in its hardware, not in a process the
# host's other work can keep from running (on a busy host a fixture at
# normal priority woke late: 45 % noise between its reads, where zcav's own
# noise is the subject of the test).
start_fixture() {
  local fixture=$1 mnt=$2 log=$3 file=$4 _ nice=()
  shift 4
  [[ $(id -u) -ne 0 ]] || nice=(nice -n -10)
  "${nice[@]}" "$fixture" "$mnt" -f "$@" 2>"$log" &
  FIXTURE_MNTS+=("$mnt")
  FIXTURE_PIDS+=("$!")
  FIXTURE_LOGS+=("$log")
  for _ in $(seq 100); do
    fixture_mounted "$mnt" && [[ -f $mnt/$file ]] && return 0
    kill -0 "${FIXTURE_PIDS[-1]}" 2>/dev/null || fail "${fixture##*/} exited before mounting $mnt"
    sleep 0.1
  done
  fail "${fixture##*/} did not mount $mnt within 10 s"
}

# stop_fixtures RC: for EXIT traps. Unmounts every fixture start_fixture
# started (lazily if one stays busy), waits for each to end (TERMs it, by its
# PID, if it outlives the unmount) and, if RC is not 0, shows their logs.
# Returns 1 if a mount point is still mounted (then the caller must not
# remove it).
stop_fixtures() {
  local rc=$1 status=0 i mnt pid _
  for i in "${!FIXTURE_MNTS[@]}"; do
    mnt=${FIXTURE_MNTS[i]}
    pid=${FIXTURE_PIDS[i]}
    for _ in 1 2 3 4 5; do
      fixture_mounted "$mnt" || break
      "$FUSERMOUNT" -u "$mnt" 2>/dev/null || sleep 0.2
    done
    if fixture_mounted "$mnt"; then
      echo "WARNING: $mnt busy; detaching it lazily" >&2
      "$FUSERMOUNT" -uz "$mnt"
    fi
    # Unmounting ends the fixture; TERM it only if it outlives that.
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
    if [[ $rc -ne 0 && -s ${FIXTURE_LOGS[i]} ]]; then
      echo "fixture log ($mnt):" >&2
      sed 's/^/  /' "${FIXTURE_LOGS[i]}" >&2
    fi
    if fixture_mounted "$mnt"; then
      echo "WARNING: $mnt is still mounted" >&2
      status=1
    fi
  done
  FIXTURE_MNTS=()
  FIXTURE_PIDS=()
  FIXTURE_LOGS=()
  return "$status"
}

# The blkio throttle: cgroup_init picks cgroup v1 blkio or the v2 io
# controller (skips when neither exists); cgroup_create makes the group
# $CGROUP (zcav-test-PID) under it; cgroup_limit read|write MAJ:MIN BPS sets
# the group's limit on one device; in_cgroup CMD ARGS... runs CMD in the
# group (through run_and_wait); cgroup_remove (for EXIT traps) moves back
# anything left in it and removes it.
CGROUP=""
CGROUP_MODE=""
CGROUP_PARENT=""
cgroup_init() {
  local v1=/sys/fs/cgroup/blkio v2=/sys/fs/cgroup
  if [[ -f $v1/cgroup.procs && -f $v1/blkio.throttle.read_bps_device ]]; then
    CGROUP_MODE=v1
    CGROUP_PARENT=$v1
  elif [[ -f $v2/cgroup.controllers ]] && grep -qw io "$v2/cgroup.controllers"; then
    CGROUP_MODE=v2
    CGROUP_PARENT=$v2
  else
    skip "no blkio cgroup (v1 $v1) and no io controller in cgroup v2 ($v2)"
  fi
}
cgroup_create() {
  CGROUP=$CGROUP_PARENT/zcav-test-$$
  mkdir "$CGROUP"
  if [[ $CGROUP_MODE == v2 ]]; then
    grep -qw io "$CGROUP_PARENT/cgroup.subtree_control" ||
      echo "+io" > "$CGROUP_PARENT/cgroup.subtree_control" ||
      skip "cannot enable the io controller in $CGROUP_PARENT/cgroup.subtree_control"
  fi
}
cgroup_limit() {
  local kind=$1 majmin=$2 bps=$3
  if [[ $CGROUP_MODE == v1 ]]; then
    echo "$majmin $bps" > "$CGROUP/blkio.throttle.${kind}_bps_device"
  else
    echo "$majmin ${kind:0:1}bps=$bps" > "$CGROUP/io.max"
  fi
}
in_cgroup() {
  # shellcheck disable=SC2016  # $$ and $@ are the inner sh's, not this script's
  run_and_wait sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CGROUP" "$@"
}
cgroup_remove() {
  [[ -n $CGROUP && -d $CGROUP ]] || return 0
  # The test's shell never joins the group; move back anything that did (its
  # child, if it outlived the kill) before removing it.
  local pid _
  while read -r pid; do
    echo "$pid" > "$CGROUP_PARENT/cgroup.procs" 2>/dev/null
  done < "$CGROUP/cgroup.procs"
  for _ in 1 2 3 4 5; do
    rmdir "$CGROUP" 2>/dev/null && return 0
    sleep 0.2
  done
  echo "WARNING: could not remove cgroup $CGROUP" >&2
}
