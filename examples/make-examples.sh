#!/usr/bin/env bash
# Re-creates the examples: the exact commands shown in examples/README.md,
# run in OUTDIR, then a check that every expected file is there and not empty.
#
# Usage: bash examples/make-examples.sh /path/to/zcav [OUTDIR]
#   OUTDIR defaults to this script's directory (examples/), where everything
#   but README.md and the two scripts is removed first, so that a file zcav no
#   longer writes does not linger. Any other OUTDIR must be new, empty, or an
#   earlier output of this script (it holds a .made-by-make-examples marker);
#   it is emptied first.
# Simulated devices only (no disk is read), on a virtual clock, with fixed
# seeds: the outputs are the same each time but for the "started:" time in
# the data headers. check-examples.sh DIR FRESH compares a run with the
# committed examples (ctest: examples_committed).
# Without gnuplot the data, .gp scripts and reports are still written and the
# images are not checked. Exits 1 if a command fails or a file is missing.
set -eu

if [[ $# -lt 1 || ! -x $1 ]]; then
  echo "usage: bash make-examples.sh /path/to/zcav [OUTDIR] (got '${1:-}', not an executable)" >&2
  exit 2
fi
ZCAV_BIN=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd -P)
OUT=${2:-$HERE}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd -P)
MARKER=.made-by-make-examples
if [[ $OUT == "$HERE" ]]; then
  # fleet/ holds the hand-written fleet playbook (examples/fleet/README.md).
  find "$OUT" -mindepth 1 -maxdepth 1 ! -name README.md ! -name make-examples.sh \
    ! -name check-examples.sh ! -name fleet -exec rm -rf {} +
elif [[ -e $OUT/$MARKER || -z $(ls -A "$OUT") ]]; then
  find "$OUT" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
  : >"$OUT/$MARKER"
else
  echo "make-examples.sh: $OUT is not empty and was not written by make-examples.sh:" \
       "give a new or empty directory" >&2
  exit 2
fi
cd "$OUT"
# The commands below call plain `zcav`, as the README shows them (and as the
# data headers record them).
ZDIR=$(mktemp -d "${TMPDIR:-/tmp}/zcav-examples.XXXXXX")
trap 'rm -rf "$ZDIR"' EXIT
ln -s "$ZCAV_BIN" "$ZDIR/zcav"
PATH="$ZDIR:$PATH"

set -x
# 1. A simulated 250 GB ZCAV disk, 3 passes; --plot writes the falloff plot too.
zcav sweep 'sim:hdd?seed=1' --passes 3 --block-size 1G -q -o sim-hdd.dat --plot .
# 2. The same disk behind a USB2 bridge: the bus clips the outer zones.
zcav sweep 'sim:usb2-hdd?seed=1' --passes 3 --block-size 1G -q -o sim-usb2-hdd.dat
zcav plot sim-usb2-hdd.dat -o sim-usb2-hdd.png -q
# 3. A CD (CAV: the rate rises with the radius), saved as JSON.
zcav sweep 'sim:cd?seed=1' --block-size 8M --format json -q -o sim-cd.json
zcav plot sim-cd.json -o sim-cd.png -q
# 4. A DVD (X speed on the right-hand axis).
zcav sweep 'sim:dvd?seed=1' --block-size 32M -q -o sim-dvd.dat
zcav plot sim-dvd.dat -o sim-dvd.png -q
# 5. A comparison: the internal disk against the USB2 one, x in % of device.
zcav plot sim-hdd.dat sim-usb2-hdd.dat --label 'internal SATA' --label 'USB2 enclosure' \
  -o hdd-vs-usb2.png -q
# 6. A report of the two disks: one self-contained HTML page, and Markdown
#    with its PNGs beside it.
zcav report sim-hdd.dat sim-usb2-hdd.dat --label 'internal SATA' --label 'USB2 enclosure' \
  -o report.html -q
zcav report sim-hdd.dat sim-usb2-hdd.dat --label 'internal SATA' --label 'USB2 enclosure' \
  -o report.md -q
# 7. Two disks on one shared 80 MB/s bus: each alone, then both together.
zcav sweep 'sim:hdd?seed=1&size=20G&bus=ide0' 'sim:hdd?seed=2&size=20G&bus=ide0' \
  --alone-and-together --block-size 128M -q -o two-disks-one-bus --plot two-disks-one-bus \
  --label 'disk 1' --label 'disk 2' 2>two-disks-one-bus.txt
# 8. A fleet: 12 drives of one model, two of them weak in a region (weak=),
#    merged into a fleet report that flags them.
mkdir -p fleet-drives
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
  weak=""
  [[ $i == 4 ]] && weak="&weak=30%-45%:0.8"
  [[ $i == 9 ]] && weak="&weak=70%-80%:0.7"
  zcav sweep "sim:hdd?seed=$i&size=20G$weak" --block-size 128M -q -o "fleet-drives/drive-$i.dat"
done
zcav merge fleet-drives -o fleet.html -q
zcav merge fleet-drives -o fleet.md -q
zcav merge fleet-drives -o fleet.json -q
# 9. A 20 TB disk of 30 zones, sampled adaptively: a grid of probes, then
#    each zone edge bisected; the zone table read back from the JSON.
zcav sweep 'sim:hdd?seed=1&size=20T&zones=30&noise=0.02' --adaptive --format json -q \
  -o sim-20t-adaptive.json --plot .
zcav zones sim-20t-adaptive.json -o sim-20t-adaptive-zones.txt
set +x

bash "$HERE/check-examples.sh" "$OUT"
