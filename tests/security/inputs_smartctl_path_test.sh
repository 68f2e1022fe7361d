#!/usr/bin/env bash
# Attack (issue 36, PATH as root): whoever owns the current directory
# plants ./smartctl; root runs zcav with PATH unset (cron, a bare env -i)
# or with an empty or relative PATH entry, and --smart once ran the planted
# program as root. It must never run: the marker file it would write never
# appears. Needs root (the rule is for euid 0).
# Usage: bash inputs_smartctl_path_test.sh /path/to/zcav
set -euo pipefail
source "$(dirname "$0")/inputs_lib.sh"
[[ $(id -u) -eq 0 ]] || { echo "skip: needs root (the PATH rule is for euid 0)"; exit 77; }

# The attacker's directory and program (owned by nobody, as if planted).
mkdir -p "$WORK/cwd"
cat >"$WORK/cwd/smartctl" <<SH
#!/bin/sh
echo ran >"$WORK/marker"
SH
chmod 755 "$WORK/cwd/smartctl"
chown -R 65534:65534 "$WORK/cwd"
truncate -s 16M "$WORK/disk.img"

cd "$WORK/cwd"
for path_setting in unset "" ":" "." "bin:." "/nonexistent:"; do
  rm -f "$WORK/marker"
  if [[ $path_setting == unset ]]; then
    env -u PATH "$ZCAV" sweep "$WORK/disk.img" --smart -o "$WORK/out.json" -q 2>"$WORK/err.txt" ||
      true
  else
    env PATH="$path_setting" "$ZCAV" sweep "$WORK/disk.img" --smart -o "$WORK/out.json" -q \
      2>"$WORK/err.txt" || true
  fi
  [[ ! -e $WORK/marker ]] || fail "PATH=$path_setting: root ran ./smartctl from the current directory"
done
echo "ok - no ./smartctl run as root"
