#!/usr/bin/env bash
# Checks that every C++ file of the project is laid out as .clang-format
# (Google style, 100 columns) says: lib/, zcav/, tests/ (unit tests, fixtures,
# fuzz targets). Prints the files that differ with clang-format's first
# complaint each and exits 1; 0 and a one-line summary when all are formatted.
# Fix with: clang-format -i $(git ls-files '*.cc' '*.h')
# Usage: check-format.sh [ROOT]   (ROOT: the repository, default: this script's parent's parent)
# Exit 77 when clang-format is not installed (scripts/install-deps.sh installs it).
set -uo pipefail
root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed"; exit 77; }
cd "$root" || exit 1
mapfile -t files < <(find lib zcav tests -name '*.cc' -o -name '*.h' | sort)
bad=0
for f in "${files[@]}"; do
  if ! out=$(clang-format --style=file --dry-run --Werror "$f" 2>&1); then
    line=$(grep -m 1 -o '^[^:]*:[0-9]*' <<<"$out" | sed 's/.*://')
    echo "$f: not formatted (first at line ${line:-?})"
    bad=$((bad + 1))
  fi
done
if ((bad > 0)); then
  echo "check-format: $bad of ${#files[@]} files differ from .clang-format (clang-format -i FILE fixes)"
  exit 1
fi
echo "check-format: ${#files[@]} files formatted as .clang-format says"
