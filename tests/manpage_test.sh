#!/usr/bin/env bash
# The man page keeps up with the binary: every command of `zcav --help` and
# every long option of `zcav COMMAND --help` is named in zcav/zcav.1, and
# groff renders it without a warning (-ww). Usage: manpage_test.sh ZCAV PAGE.
set -uo pipefail
zcav=$1
page=$2
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
commands=$("$zcav" --help | sed -nE 's/^  zcav ([a-z]+) .*/\1/p' | sort -u)
[[ -n $commands ]] || fail "no commands in zcav --help"
for cmd in $commands; do
  grep -qE "^\.B[IR]? +\"?$cmd\b" "$page" || fail "the man page does not describe the command $cmd"
  for opt in $("$zcav" "$cmd" --help | grep -oE '^  (-[a-zA-Z] \[ )?--[a-z][a-z-]*' |
    sed -E 's/.*(--[a-z-]+)$/\1/' | sort -u); do
    grep -qF -- "${opt//-/\\-}" "$page" || fail "the man page does not name $opt (zcav $cmd)"
  done
done
if command -v groff >/dev/null; then
  warnings=$(groff -man -ww -z "$page" 2>&1)
  [[ -z $warnings ]] || fail "groff warns: $warnings"
else
  echo "note: groff not installed: the rendering was not checked"
fi
((failures == 0)) || exit 1
echo "ok: the man page names every command and option zcav's help lists"
