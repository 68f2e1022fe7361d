# shellcheck shell=bash
# Shared helpers of the real-I/O test scripts; sourced, not run:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# Exit codes of the scripts: 0 pass, 1 fail, 77 skip (ctest SKIP_RETURN_CODE).

# skip REASON: the machine lacks something the test needs (root, a driver).
skip() { echo "SKIP: $*"; exit 77; }
# fail REASON: the test ran and found a defect, or cannot run where it must.
fail() { echo "FAIL: $*" >&2; exit 1; }

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
