#!/usr/bin/env bash
# The layout check (scripts/check-format.sh) passes on the tree and fails on a
# copy with one badly laid-out line planted in it, naming the file.
# Usage: bash format_test.sh REPOSITORY. Exit 0 pass, 1 fail, 77 without
# clang-format (a failure under ZCAV_REQUIRE_ALL=1).
set -uo pipefail
root=$(cd "${1:?usage: format_test.sh REPOSITORY}" && pwd)
check="$root/scripts/check-format.sh"
if ! command -v clang-format >/dev/null; then
  if [[ ${ZCAV_REQUIRE_ALL:-0} == 1 ]]; then
    echo "FAIL: clang-format is not installed and ZCAV_REQUIRE_ALL=1 requires this check"
    exit 1
  fi
  echo "skip: clang-format is not installed"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/zcav-format-XXXXXX")
trap 'rm -rf "$work"' EXIT

out=$(bash "$check" "$root") || { echo "FAIL: the tree is not formatted:"; echo "$out" | tail -n 20; exit 1; }
echo "ok - $out"

cp -r "$root/lib" "$root/zcav" "$root/tests" "$root/.clang-format" "$work/"
printf 'namespace zcav {int   Planted( int x ){return x;}}\n' >>"$work/lib/zcav/base/units.cc"
rc=0
out=$(bash "$check" "$work") || rc=$?
if [[ $rc -ne 1 ]] || ! grep -qF "lib/zcav/base/units.cc: not formatted" <<<"$out"; then
  echo "FAIL - a badly laid-out line: exit $rc, expected 1 naming lib/zcav/base/units.cc; got:"
  printf '    %s\n' "$out"
  exit 1
fi
echo "ok - a badly laid-out line is refused: $(head -n 1 <<<"$out")"
