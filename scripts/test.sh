#!/usr/bin/env bash
# Builds zcav with warnings as errors and runs every test (unit, CLI and the
# real-I/O tests, which skip with a reason where root, loop devices, the blkio
# cgroup or /dev/fuse are missing).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZCAV_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build build-test -j"$(nproc)"
cd build-test
ctest --output-on-failure "$@"
