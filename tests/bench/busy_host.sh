#!/usr/bin/env bash
# The real-I/O tests on a busy host: `stress-ng --cpu N` keeps every CPU
# busy while ctest runs the tests labelled real_io (or those matching a
# regex) RUNS times in a build tree; prints each run's result and a tally.
# Not a test itself: it shows whether the real tests hold when the machine
# is busy (issue 37: 5 runs of 5).
#
# Usage: bash tests/bench/busy_host.sh BUILD_DIR [RUNS] [REGEX]
#   BUILD_DIR  a configured and built tree (cmake --build BUILD_DIR)
#   RUNS       default 5
#   REGEX      ctest -R pattern (default: every real_io test)
# Needs stress-ng (scripts/install-deps.sh installs it). Ends the stress-ng
# it started, by its PID, and removes its logs on every exit path.
set -euo pipefail
readonly BUILD=${1:?usage: busy_host.sh BUILD_DIR [RUNS] [REGEX]}
readonly RUNS=${2:-5}
readonly REGEX=${3:-}
command -v stress-ng >/dev/null || { echo "busy_host: stress-ng not installed" >&2; exit 2; }
[[ -f $BUILD/CTestTestfile.cmake ]] || { echo "busy_host: $BUILD is no build tree" >&2; exit 2; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "busy_host: RUNS must be a positive count" >&2; exit 2; }

STRESS=""
LOGS=$(mktemp -d)
cleanup() {
  rm -rf "$LOGS"
  if [[ -n $STRESS ]]; then
    kill -TERM "$STRESS" 2>/dev/null || true
    wait "$STRESS" 2>/dev/null || true
  fi
}
trap cleanup EXIT
cpus=$(nproc)
stress-ng --cpu "$cpus" --quiet &
STRESS=$!
select=(-L real_io)
[[ -z $REGEX ]] || select=(-R "$REGEX")
passed=0
for ((run = 1; run <= RUNS; run++)); do
  start=$SECONDS
  if ctest --test-dir "$BUILD" "${select[@]}" --output-on-failure >"$LOGS/$run.log" 2>&1
  then
    passed=$((passed + 1))
    echo "run $run of $RUNS: passed ($((SECONDS - start)) s, stress-ng --cpu $cpus beside)"
  else
    echo "run $run of $RUNS: FAILED ($((SECONDS - start)) s); its log:"
    grep -E 'FAIL|Failed|failed|zones as the fixture|re-reads' "$LOGS/$run.log" | head -40
  fi
  grep -E "zones as the fixture's|^flat:" "$LOGS/$run.log" | sed 's/^/  /' || true
  rm -f "$LOGS/$run.log"
done
echo "busy host: $passed of $RUNS runs passed"
((passed == RUNS))
