#!/usr/bin/env bash
# Attack: result files whose names are gnuplot code or pipes. `zcav plot
# FILE` names its image and data after the file's stem: before the fix
# q'.system('cd ..;touch M1').'.json closed the quoted name and ran system(),
# "<touch M2;.json" was read by gnuplot as an input pipe, and
# "|touch M3;cat>x;.json" in `set output` as an output pipe, each as root.
# The attacker (uid 65534) plants copies of a valid result under those names
# in a shared directory; root plots each. Passes when no marker appears, each
# plot succeeds and its files have names of [A-Za-z0-9._-].
# Usage: gnuplot_plot_filename_test.sh ZCAV. Exit: 0 pass, 1 fail, 77 skip.
set -euo pipefail
ZCAV=$(realpath "$1")
skip() { echo "skip: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "needs root (the attacker is played with setpriv)"
command -v setpriv >/dev/null || skip "setpriv is not installed"
command -v gnuplot >/dev/null || skip "gnuplot is not installed"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/zcav-sec-plot-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
chmod 1777 "$WORK"  # the shared directory: the attacker writes here, root plots here
ATTACKER=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fail=0
"${ATTACKER[@]}" "$ZCAV" sweep "sim:hdd?size=1G&seed=1" --format json -o "$WORK/good.json" -q
# gnuplot runs in a directory of its own (before the fix: beside the script,
# now: a private one under TMPDIR, which is WORK here), so each command first
# climbs to WORK: a name holds no '/'.
names=("q'.system('cd ..;touch M1').'.json" "<cd ..;touch M2;.json" "|cd ..;touch M3;cat>x;.json")
for name in "${names[@]}"; do
  "${ATTACKER[@]}" cp "$WORK/good.json" "$WORK/$name"
done
for name in "${names[@]}"; do
  rc=0
  (cd "$WORK" && TMPDIR=$WORK "$ZCAV" plot "$name" -q) >"$WORK/plot.out" 2>&1 || rc=$?
  for m in M1 M2 M3 x; do
    if [[ -e $WORK/$m ]]; then
      echo "FAIL: zcav plot '$name' ran a command (marker $m exists)"
      fail=1
      rm -f "$WORK/$m"
    fi
  done
  if [[ $rc -ne 0 ]]; then
    echo "FAIL: zcav plot '$name' exited $rc: $(tail -n 2 "$WORK/plot.out")"
    fail=1
  fi
done
# Every file zcav wrote has a name of the safe alphabet.
while IFS= read -r -d '' f; do
  base=${f##*/}
  case "$base" in good.json | plot.out | "${names[0]}" | "${names[1]}" | "${names[2]}") continue ;; esac
  if [[ ! $base =~ ^[A-Za-z0-9._][A-Za-z0-9._-]*$ ]]; then
    echo "FAIL: zcav wrote a file named '$base'"
    fail=1
  fi
done < <(find "$WORK" -mindepth 1 -print0)
ls "$WORK"/*.png >/dev/null 2>&1 || { echo "FAIL: no image drawn"; fail=1; }
[[ $fail -eq 0 ]] && echo "ok - result files named as gnuplot code or pipes run nothing"
exit $fail
