# shellcheck shell=bash
# Shared by the benchmark scripts in this directory (sourced, not run).
# find_zcav: the newest optimized build*/zcav of this repository (a stale
# build/zcav must not hide the one just built; Debug, sanitizer and fuzzer
# builds would measure their instrumentation), else zcav on PATH.
find_zcav() {
  local repo candidate cache best=""
  repo=$(cd "$(dirname "$0")/../.." && pwd)
  for candidate in "$repo"/build*/zcav; do
    cache=$(dirname "$candidate")/CMakeCache.txt
    [[ -x $candidate && -f $cache ]] || continue
    grep -qE '^CMAKE_BUILD_TYPE:STRING=(Release|RelWithDebInfo)$' "$cache" || continue
    grep -qE '^ZCAV_(SANITIZE|FUZZ):BOOL=ON$' "$cache" && continue
    if [[ -z $best || $candidate -nt $best ]]; then best=$candidate; fi
  done
  if [[ -n $best ]]; then echo "$best"; else command -v zcav || true; fi
}

# resolve_zcav: sets ZCAV_BIN (when empty) to find_zcav's choice; dies (the
# caller's die) when there is none.
resolve_zcav() {
  [[ -n $ZCAV_BIN ]] || ZCAV_BIN=$(find_zcav)
  [[ -n $ZCAV_BIN && -x $ZCAV_BIN ]] ||
    die "zcav not found: build it (cmake --build build --target zcav) or pass its path"
}
