#!/usr/bin/env bash
# Checks that DIR holds every file make-examples.sh produces, each non-empty
# (not pixel-equal: the images are only required to exist, and only when
# gnuplot is installed). Also checks report.html is one self-contained page.
#
# Usage: bash examples/check-examples.sh DIR
# Prints one line per missing or bad file; exits 1 if there is any.
set -u

if [[ $# -ne 1 || ! -d $1 ]]; then
  echo "usage: bash check-examples.sh DIR (got '${1:-}', not a directory)" >&2
  exit 2
fi
cd "$1" || exit 2

data=(sim-hdd.dat sim-usb2-hdd.dat sim-cd.json sim-dvd.dat two-disks-one-bus.txt
      two-disks-one-bus/aggregate.dat two-disks-one-bus/aggregate.json
      two-disks-one-bus/sim-hdd-seed-1-size-20G-bus-ide0.dat
      two-disks-one-bus/sim-hdd-seed-2-size-20G-bus-ide0.alone.dat)
scripts=(sim-hdd-seed-1.gp sim-usb2-hdd.gp sim-cd.gp sim-dvd.gp hdd-vs-usb2.gp
         report-1.gp report-2.gp report-3.gp two-disks-one-bus/together.gp)
reports=(report.html report.md)
images=(sim-hdd-seed-1.png sim-hdd-seed-1.svg sim-usb2-hdd.png sim-cd.png sim-dvd.png
        hdd-vs-usb2.png report-1.png report-2.png report-3.png two-disks-one-bus/together.png)

want=("${data[@]}" "${scripts[@]}" "${reports[@]}")
if command -v gnuplot >/dev/null; then
  want+=("${images[@]}")
else
  echo "note: gnuplot not installed: images not checked"
fi

bad=0
for f in "${want[@]}"; do
  if [[ ! -s $f ]]; then
    echo "missing or empty: $f"
    bad=1
  fi
done
for pattern in 'http' '<script' ' src=' '<link'; do
  if grep -Fq -- "$pattern" report.html 2>/dev/null; then
    echo "report.html contains '$pattern': not self-contained"
    bad=1
  fi
done
if command -v gnuplot >/dev/null && [[ $(grep -o '<svg' report.html 2>/dev/null | wc -l) -ne 3 ]]; then
  echo "report.html: expected 3 inline SVGs (2 falloff + 1 comparison)"
  bad=1
fi
if [[ $(grep -c '^|' report.md 2>/dev/null) -ne 4 ]]; then
  echo "report.md: expected a table of 2 rows (4 lines starting with '|')"
  bad=1
fi
if ! grep -q 'share a ceiling of about 80' two-disks-one-bus.txt 2>/dev/null; then
  echo "two-disks-one-bus.txt: the shared 80 MB/s ceiling is not reported"
  bad=1
fi
[[ $bad -eq 0 ]] && echo "examples: all ${#want[@]} files present"
exit $bad
