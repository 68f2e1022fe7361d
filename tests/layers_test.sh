#!/usr/bin/env bash
# The include-rule check (scripts/check-layers.py) passes on the tree and
# fails on each deliberately wrong include, planted in a copy of lib/ and zcav/:
# base including a device, measure including format, format including
# report or pipeline, report including pipeline or the device seam, result
# including analysis, analysis including the
# device seam or the sweep, a reader including the writers, lib/ including
# the command line. Usage: bash layers_test.sh REPOSITORY. Exit 0 pass, 1 fail.
set -uo pipefail
root=$(cd "${1:?usage: layers_test.sh REPOSITORY}" && pwd)
check="$root/scripts/check-layers.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/zcav-layers-XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

out=$(python3 "$check" "$root") || { echo "FAIL: the tree breaks the layering:"; echo "$out"; exit 1; }
echo "ok - $out"

# plant FILE INCLUDE WANT: a copy with `#include "zcav/INCLUDE"` added to
# lib/zcav/FILE must fail, naming FILE and the rule (WANT, a fixed string).
plant() {
  local file=$1 include=$2 want=$3 copy out rc=0
  copy="$work/case-$((++cases))"
  mkdir -p "$copy" && cp -r "$root/lib" "$root/zcav" "$copy/"
  printf '#include "zcav/%s"\n' "$include" >>"$copy/lib/zcav/$file"
  out=$(python3 "$check" "$copy") || rc=$?
  if [[ $rc -ne 1 ]] || ! grep -qF "lib/zcav/$file" <<<"$out" || ! grep -qF "$want" <<<"$out"; then
    echo "FAIL - $file including $include: exit $rc, expected 1 naming '$want'; got:"
    printf '    %s\n' "$out"
    failed=1
  else
    echo "ok - $file including $include is refused: $(head -n 1 <<<"$out")"
  fi
}
cases=0
plant base/units.h device/device.h "base/ may include only base"
plant measure/sweep.cc format/writers.h "measure/ may include only"
plant measure/sample_sink.h analysis/zone_detector.h "measure/ may include only"
plant analysis/verdict.cc device/device.h "analysis/ may include only"
plant analysis/zone_detector.cc measure/sweep.h "analysis/ never includes the sweep"
plant format/data_reader.cc format/writers.h "the readers never include the writers"
plant format/csv_reader.cc format/writers.h "the readers never include the writers"
plant format/reader_internal.h format/writers.h "the readers never include the writers"
plant report/plot.cc cli.h "lib/ never includes the command line"
plant format/json_writer.cc report/plot.h "format/ may include only"
plant format/raw_writer.cc pipeline/pass_curves.h "format/ may include only"
plant report/report.cc pipeline/resume.h "report/ may include only"
plant report/plot.cc device/device.h "report/ never reads a device"
plant result/saved_result.h analysis/zone_detector.h "result/ may include only"
exit "$failed"
