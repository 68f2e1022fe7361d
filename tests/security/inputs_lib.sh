# Shared by the tests/security/inputs_*_test.sh attack tests (issue 36:
# inputs are data, bounded; output escaping; merge's walk). Sourced, not run.
#
# Sets ZCAV (the binary, $1 of the test) and WORK (a fresh directory under
# /var/tmp, removed on exit with everything in it); `fail MESSAGE` ends the
# test with exit 1; `sim_result FILE SEED [KEY=VALUE...]` writes a small
# simulated drive's JSON result; `set_json FILE PYTHON` edits a JSON result
# in place with a python expression over `d` (the document).

if [[ $# -lt 1 || ! -x $1 ]]; then
  echo "usage: bash $0 /path/to/zcav (got '${1:-}', not an executable)" >&2
  exit 2
fi
ZCAV=$(realpath "$1")
readonly ZCAV
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/zcav-sec-inputs.XXXXXX")
readonly WORK
# Processes a test starts in the background, ended (by PID) on exit.
BG_PIDS=()
cleanup_inputs() {
  local pid
  for pid in "${BG_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  chmod -R u+rwx "$WORK" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup_inputs EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

sim_result() {
  local file=$1 seed=$2
  shift 2
  local extra=""
  local kv
  for kv in "$@"; do extra+="&$kv"; done
  "$ZCAV" sweep "sim:hdd?size=1G&seed=$seed$extra" --format json -o "$file" -q ||
    fail "zcav sweep of sim seed $seed failed"
}

set_json() {
  python3 - "$1" "$2" <<'PY'
import json, sys
path, expr = sys.argv[1], sys.argv[2]
with open(path) as f:
    d = json.load(f)
exec(expr)
with open(path, "w") as f:
    json.dump(d, f, indent=1)
PY
}

# The peak resident memory in kB of `/usr/bin/time -v` output in FILE.
peak_kb() {
  sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"
}

# check_peak_rss WHAT KB LIMIT_KB: fails unless KB (a peak RSS in kB) is under
# LIMIT_KB. In a sanitized build (ZCAV_SANITIZED=1, set by tests/CMakeLists.txt)
# the figure is only required to exist: AddressSanitizer keeps up to 256 MB of
# freed memory in quarantine and adds shadow memory, so the bound is the
# unsanitized build's promise, checked in the first ctest run of scripts/test.sh.
check_peak_rss() {
  local what=$1 kb=$2 limit=$3
  [[ -n $kb ]] || fail "$what: no peak RSS measured"
  if [[ ${ZCAV_SANITIZED:-0} == 1 ]]; then
    echo "note - $what: peak RSS $kb kB, not bounded in a sanitized build"
    return 0
  fi
  [[ $kb -lt $limit ]] || fail "$what: peak RSS $kb kB, not under $limit kB"
}
