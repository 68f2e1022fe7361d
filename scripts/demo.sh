#!/usr/bin/env bash
# Builds zcav and sweeps the embedded simulated zoned disk (no root, no real disk).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target zcav >/dev/null
build/zcav sweep sim:hdd --passes 3 -o build/sim-hdd.dat --plot build/demo-plot "$@"
echo "--- build/sim-hdd.dat (classic zcav layout: offset GiB, MiB/s, seconds, ...) ---"
grep -v '^#' build/sim-hdd.dat | awk 'NR % 100 == 1'
tail -n 4 build/sim-hdd.dat
echo "--- plot: $(ls build/demo-plot/*.png) (re-draw after editing: cd build/demo-plot && gnuplot *.gp) ---"
