#!/usr/bin/env bash
# The size check (scripts/check-sizes.py) passes on the tree and fails on each
# deliberately long piece planted in a copy of lib/ and zcav/: a 121-line free
# function, member function, constructor with an initializer list and lambda
# (a 120-line one passes), and a file over 1,200 lines without a reason at its
# top (with one, it passes). Usage: bash sizes_test.sh REPOSITORY. Exit 0 pass, 1 fail.
set -uo pipefail
root=$(cd "${1:?usage: sizes_test.sh REPOSITORY}" && pwd)
check="$root/scripts/check-sizes.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/zcav-sizes-XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

out=$(python3 "$check" "$root") || { echo "FAIL: the tree breaks the size habits:"; echo "$out"; exit 1; }
echo "ok - $out"

# body N: N lines from an opening brace's line to its closing brace's line.
body() {
  local i
  printf '{\n'
  for ((i = 2; i < $1; i++)); do printf '  total += %d;  // "}" { in a comment and a string: "{"\n' "$i"; done
  printf '}\n'
}

# plant NAME WANT_RC WANT TEXT: a copy with TEXT appended to lib/zcav/base/units.cc
# must exit WANT_RC, and name WANT (a fixed string) when it fails.
plant() {
  local name=$1 want_rc=$2 want=$3 text=$4 copy out rc=0
  copy="$work/case-$((++cases))"
  mkdir -p "$copy" && cp -r "$root/lib" "$root/zcav" "$root/scripts" "$copy/"
  printf '%s\n' "$text" >>"$copy/lib/zcav/base/units.cc"
  out=$(python3 "$check" "$copy") || rc=$?
  if [[ $rc -ne $want_rc ]] || { [[ $want_rc -ne 0 ]] && ! grep -qF "$want" <<<"$out"; }; then
    echo "FAIL - $name: exit $rc, expected $want_rc naming '$want'; got:"
    printf '    %s\n' "$out"
    failed=1
  else
    echo "ok - $name: exit $rc $(head -n 1 <<<"$out")"
  fi
}
cases=0
plant "a 121-line function" 1 "PlantedLong is 121 lines, over 120" \
  "namespace zcav { int PlantedLong(int total) $(body 121) }"
plant "a 120-line function" 0 "" \
  "namespace zcav { int PlantedShort(int total) $(body 120) }"
plant "a 121-line member function" 1 "Planted::Run is 121 lines, over 120" \
  "namespace zcav { struct Planted { int Run(int total) const; }; int Planted::Run(int total) const $(body 121) }"
plant "a 121-line constructor with brace initializers" 1 "Planted::Planted is 121 lines, over 120" \
  "namespace zcav { struct Planted { Planted(int a); int x_, y_; }; Planted::Planted(int a) : x_{a}, y_(a)
$(body 121) }"
plant "a method defined in its class" 1 "Run is 121 lines, over 120" \
  "namespace zcav { class Planted { public: int Run(int total) $(body 121) }; }"
plant "a 121-line lambda at namespace scope" 1 "is 121 lines, over 120" \
  "namespace zcav { const auto kPlanted = [](int total) $(body 121); }"

long_file=$(for ((i = 0; i < 1201; i++)); do echo "// filler line $i"; done)
plant "a file over 1,200 lines" 1 "lib/zcav/base/units.cc:1:" "$long_file"
copy="$work/case-reason" && mkdir -p "$copy" && cp -r "$root/lib" "$root/zcav" "$copy/"
{ echo "// Longer than 1,200 lines: a planted reason."; cat "$root/lib/zcav/base/units.cc"; echo "$long_file"; } \
  >"$copy/lib/zcav/base/units.cc"
if python3 "$check" "$copy" >/dev/null; then echo "ok - a long file with a reason at its top passes"
else echo "FAIL - a long file with a reason at its top was refused"; failed=1; fi

exit "$failed"
