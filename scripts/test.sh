#!/usr/bin/env bash
# Builds zcav with warnings as errors and runs every test (unit, CLI and the
# real-I/O tests, which skip with a reason where root, loop devices, the blkio
# cgroup or /dev/fuse are missing); arguments go to that ctest. Then two more
# builds, each skippable:
#   build-test-asan  ASan + UBSan (-DZCAV_SANITIZE=ON), every test but the
#                    real-I/O ones (timing-sensitive when sanitized); about
#                    7 min on 2 cores. ZCAV_SKIP_SANITIZE=1 skips it. A
#                    sanitizer finding exits 86 (ASan) or 87 (UBSan).
#   build-test-fuzz  clang + libFuzzer (-DZCAV_FUZZ=ON): each data-file parser
#                    fuzzed for ZCAV_FUZZ_SECONDS (default 20); about 3 min on
#                    2 cores. ZCAV_SKIP_FUZZ=1 skips it.
# ZCAV_REQUIRE_ALL=1 (set by .ci/run) makes anything that did not run a
# failure, named: a real-I/O test or part of one that would skip (exit 77), a
# unit test without io_uring or gnuplot, a CLI case, and the two stages
# above (their ZCAV_SKIP_* switches are then refused). After the first ctest
# it lists the real-I/O tests with their times.
set -euo pipefail
cd "$(dirname "$0")/.."
require_all=${ZCAV_REQUIRE_ALL:-0}
if [[ $require_all == 1 ]]; then
  for skip in ZCAV_SKIP_SANITIZE ZCAV_SKIP_FUZZ; do
    if [[ ${!skip:-0} == 1 ]]; then
      echo "test.sh: $skip=1 and ZCAV_REQUIRE_ALL=1 contradict: every stage must run" >&2
      exit 1
    fi
  done
fi
scripts/install-deps.sh
jobs=$(nproc)
# Sanitized builds: -O1 with line tables only (-g1) compiles in half the time
# of RelWithDebInfo, keeps assert() on, and stack traces still name file:line.
sanitized_flags=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1")

# not_run LOG: the names of the tests ctest reports as skipped or not run.
not_run() {
  grep -E '\*\*\*(Skipped|Not Run)|\(Not Run\)|Skipped *[0-9.]+ sec' "$1" |
    sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+).*/\1/' | sort -u || true
}

cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZCAV_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build build-test -j"$jobs"
log=build-test/ctest.log
rc=0
(cd build-test && ctest --output-on-failure "$@") 2>&1 | tee "$log" || rc=$?
echo "test.sh: real-I/O tests and their times:" >&2
grep -E 'Test +#[0-9]+: real_' "$log" | sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: /  /; s/ \.+ */ /' >&2 || true
if [[ $require_all == 1 ]]; then
  skipped=$(not_run "$log")
  if [[ -n $skipped ]]; then
    echo "test.sh: ZCAV_REQUIRE_ALL=1 and these tests did not run: ${skipped//$'\n'/ }" >&2
    exit 1
  fi
fi
[[ $rc -eq 0 ]] || exit "$rc"

if [ "${ZCAV_SKIP_SANITIZE:-0}" = 1 ]; then
  echo "test.sh: ZCAV_SKIP_SANITIZE=1: the ASan+UBSan run is skipped" >&2
else
  echo "test.sh: ASan+UBSan build in build-test-asan (ZCAV_SKIP_SANITIZE=1 skips it)" >&2
  cmake -S . -B build-test-asan "${sanitized_flags[@]}" -DZCAV_SANITIZE=ON \
    -DZCAV_WARNINGS_AS_ERRORS=ON >/dev/null
  cmake --build build-test-asan -j"$jobs"
  (cd build-test-asan && ctest --output-on-failure -j"$jobs" -LE real_io)
fi

if [ "${ZCAV_SKIP_FUZZ:-0}" = 1 ]; then
  echo "test.sh: ZCAV_SKIP_FUZZ=1: the fuzz run is skipped" >&2
else
  echo "test.sh: libFuzzer build in build-test-fuzz (ZCAV_SKIP_FUZZ=1 skips it)" >&2
  cmake -S . -B build-test-fuzz -DCMAKE_CXX_COMPILER=clang++ "${sanitized_flags[@]}" \
    -DZCAV_FUZZ=ON -DZCAV_FUZZ_SECONDS="${ZCAV_FUZZ_SECONDS:-20}" >/dev/null
  cmake --build build-test-fuzz -j"$jobs" --target fuzz_targets
  (cd build-test-fuzz &&
    UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$jobs" -L fuzz)
fi
