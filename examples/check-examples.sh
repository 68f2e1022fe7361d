#!/usr/bin/env bash
# Checks the examples.
#
#   bash examples/check-examples.sh DIR
#     DIR holds every file make-examples.sh produces, each non-empty (the
#     images only when gnuplot is installed), report.html is one
#     self-contained page, and the reports say what they should.
#   bash examples/check-examples.sh DIR FRESH
#     The same, then DIR (the committed examples/) is compared with FRESH, a
#     new run of make-examples.sh with the current zcav: the same files with
#     the same content. ctest runs this as `examples_committed`, on the output
#     of the `examples` test (make-examples.sh into the build tree).
#
# What is compared, and how:
# - Every text file (the data .dat and .json, the .gp scripts and the
#   .curve.dat/.zones.dat files they plot, report.md, report.html and
#   two-disks-one-bus.txt): line by line with diff -u, after replacing in
#   both copies what legitimately differs between runs, machines or releases:
#     an ISO 8601 time (the "started:" header)          -> <time>
#     the zcav version after "zcav ", "version: ",
#       "version":" or "zcav_version":"                   -> <version>
#     the absolute paths of DIR, FRESH and this checkout -> <dir>
#     a path before "zcav" at the start of a recorded command -> zcav
#     the host name and kernel of the machine that ran it -> <machine>
#   (make-examples.sh run twice differs only in the "started:" times: the
#   devices are simulated, on a virtual clock, with fixed seeds.) A .json file
#   is first split after each comma, so that the diff shows the field that
#   changed rather than a 25 kB line.
# - Images. Each picture is drawn by gnuplot from its .gp script and the data
#   files beside it, which are compared exactly above: they determine it.
#   A PNG (pngcairo) is not byte-stable across machines (cairo, pango and the
#   installed fonts change the pixels), so a PNG is only checked to be a PNG
#   of the same width and height. SVG text depends only on gnuplot (its svg
#   terminal measures no fonts): when the committed and the new SVGs were made
#   by the same gnuplot version (their "Produced by GNUPLOT ..." line), the
#   .svg files and the SVGs inline in report.html are compared as text like
#   the rest; otherwise only their width and height, with a note.
# - Without gnuplot no image is drawn and report.html, report.md and
#   two-disks-one-bus.txt say so instead of showing the plots: those files are
#   not compared then (a note says so); everything else is. Under
#   ZCAV_REQUIRE_ALL=1 (CI) a part not compared, for want of gnuplot or for
#   SVGs from another gnuplot version, is a failure instead of a note.
# The simulated jitter comes from std::normal_distribution, which each C++
# standard library implements its own way: the committed numbers are those of
# a libstdc++ build (g++, as CI); a libc++ build draws other ones.
#
# A difference means zcav's output changed. If the change is intended, refresh
# the committed examples and commit them with it:
#   bash examples/make-examples.sh build/zcav   # rewrites examples/
#   git add -A examples && git commit
# Prints one line per missing or bad file and a diff per changed file; exits 1
# if there is any, 2 on bad usage.
set -u

usage() {
  echo "usage: bash check-examples.sh DIR [FRESH] (DIR and FRESH: directories; got '$*')" >&2
  exit 2
}
[[ $# -eq 1 || $# -eq 2 ]] || usage "$@"
[[ -d $1 && ( $# -eq 1 || -d $2 ) ]] || usage "$@"
DIR=$(cd "$1" && pwd -P) || exit 2
FRESH=""
if [[ $# -eq 2 ]]; then
  FRESH=$(cd "$2" && pwd -P) || exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd -P) || exit 2
CHECKOUT=$(dirname "$HERE")
# The files of examples/ that make-examples.sh does not write (and fleet/,
# the Ansible playbook and its friends).
HAND_WRITTEN=(README.md make-examples.sh check-examples.sh)
# Files whose content depends on whether gnuplot is installed.
GNUPLOT_TEXTS=(report.html report.md two-disks-one-bus.txt fleet.html fleet.md)
HAVE_GNUPLOT=0
command -v gnuplot >/dev/null && HAVE_GNUPLOT=1

bad=0

# --- Presence: every file there and non-empty; the reports as they should be.
check_present() {
  local data=(sim-hdd.dat sim-usb2-hdd.dat sim-cd.json sim-dvd.dat two-disks-one-bus.txt
              two-disks-one-bus/aggregate.dat two-disks-one-bus/aggregate.json
              two-disks-one-bus/sim-hdd-seed-1-size-20G-bus-ide0.dat
              two-disks-one-bus/sim-hdd-seed-2-size-20G-bus-ide0.alone.dat
              fleet-drives/drive-1.dat fleet-drives/drive-12.dat fleet.json
              sim-20t-adaptive.json sim-20t-adaptive-zones.txt)
  local scripts=(sim-hdd-seed-1.gp sim-usb2-hdd.gp sim-cd.gp sim-dvd.gp hdd-vs-usb2.gp
                 report-1.gp report-2.gp report-3.gp report-4.gp report-5.gp
                 two-disks-one-bus/together.gp fleet-1.gp
                 sim-hdd-seed-1-size-20T-zones-30-noise-0.02.gp)
  local reports=(report.html report.md fleet.html fleet.md)
  local images=(sim-hdd-seed-1.png sim-hdd-seed-1.svg sim-usb2-hdd.png sim-cd.png sim-dvd.png
                hdd-vs-usb2.png report-1.png report-2.png report-3.png report-4.png
                report-5.png two-disks-one-bus/together.png fleet-1.png
                sim-hdd-seed-1-size-20T-zones-30-noise-0.02.png)
  local want=("${data[@]}" "${scripts[@]}" "${reports[@]}") f pattern
  if [[ $HAVE_GNUPLOT -eq 1 ]]; then
    want+=("${images[@]}")
  else
    echo "note: gnuplot not installed: images not checked"
  fi
  cd "$DIR" || return 1
  local missing=0
  for f in "${want[@]}"; do
    if [[ ! -s $f ]]; then
      echo "missing or empty: $f"
      missing=1
    fi
  done
  for pattern in 'http' '<script' ' src=' '<link'; do
    if grep -Fq -- "$pattern" report.html 2>/dev/null; then
      echo "report.html contains '$pattern': not self-contained"
      missing=1
    fi
  done
  if [[ $HAVE_GNUPLOT -eq 1 && $(grep -o '<svg' report.html 2>/dev/null | wc -l) -ne 5 ]]; then
    echo "report.html: expected 5 inline SVGs (2 falloff + 1 comparison + 2 surface maps)"
    missing=1
  fi
  # The runs' table (2 rows) and the read-latency table (3 passes of the
  # first run, 1 of the second, and a total row for the first: 8 rows + 2).
  if [[ $(grep -c '^|' report.md 2>/dev/null) -ne 14 ]]; then
    echo "report.md: expected a table of 2 runs and a latency table of 8 rows (14 lines starting with '|')"
    missing=1
  fi
  if ! grep -q 'share a ceiling of about 80' two-disks-one-bus.txt 2>/dev/null; then
    echo "two-disks-one-bus.txt: the shared 80 MB/s ceiling is not reported"
    missing=1
  fi
  # The fleet report flags exactly the two weak drives, worst first.
  if [[ $(grep -c '^| .* | yes |' fleet.md 2>/dev/null) -ne 2 ]] ||
    ! grep -q '^| SIM-HDD-9 |' fleet.md 2>/dev/null; then
    echo "fleet.md: expected exactly 2 flagged drives, SIM-HDD-9 (the weaker) first"
    missing=1
  fi
  [[ $missing -eq 0 ]] && echo "examples: all ${#want[@]} files present in $1"
  return $missing
}
check_present "$1" || bad=1
[[ -z $FRESH ]] && exit $bad

# --- Comparison with a fresh run.
TMP=$(mktemp -d "${TMPDIR:-/tmp}/zcav-check-examples.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
readonly MAX_DIFF_LINES=40

# The outputs under $1, one relative path a line, sorted: no hidden files
# (make-examples.sh's marker), no hand-written file; without gnuplot no image
# and no file that depends on gnuplot.
list_outputs() {
  local skip=("${HAND_WRITTEN[@]}")
  [[ $HAVE_GNUPLOT -eq 1 ]] || skip+=("${GNUPLOT_TEXTS[@]}")
  (cd "$1" && find . -type f ! -name '.*' ! -path './fleet/*' -printf '%P\n') |
    grep -vxF -f <(printf '%s\n' "${skip[@]}") |
    if [[ $HAVE_GNUPLOT -eq 1 ]]; then cat; else grep -Ev '\.(png|svg)$'; fi |
    LC_ALL=C sort
}

# $1 with the characters special in an extended regular expression (and the
# '#' used as the sed delimiter below) escaped.
ere_escape() {
  printf '%s' "$1" | sed -e 's/[][\\.*^$+?(){}|#/]/\\&/g'
}

DIR_RE=$(ere_escape "$DIR")
FRESH_RE=$(ere_escape "$FRESH")
CHECKOUT_RE=$(ere_escape "$CHECKOUT")

# Which gnuplot made the SVGs in $1 ("" when there is none).
gnuplot_of() {
  grep -m1 -ho 'Produced by GNUPLOT [^<]*[^< ]' "$1/sim-hdd-seed-1.svg" 2>/dev/null
}

# An SVG reduced to its width and height (for SVGs made by another gnuplot).
svg_size_only() {
  awk '/^<svg/ { in_svg = 1; print "<svg> (drawn by another gnuplot version: only its size compared)"; next }
       in_svg && /^ *width="[0-9.]+" height="[0-9.]+"/ { print; next }
       in_svg && /^<\/svg>/ { in_svg = 0; print; next }
       !in_svg { print }'
}

# Prints file $1 normalised (see the header).
normalise() {
  local file=$1
  if [[ $file == *.json ]]; then sed 's/,/,\n/g' "$file"; else cat "$file"; fi |
    sed -E \
      -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})?/<time>/g' \
      -e 's/(zcav |version: |"version": ?"|"zcav_version": ?")[0-9]+\.[0-9]+\.[0-9]+([-+~][0-9A-Za-z.+~-]*)?/\1<version>/g' \
      -e "s#$DIR_RE#<dir>#g" -e "s#$FRESH_RE#<dir>#g" -e "s#$CHECKOUT_RE#<dir>#g" \
      -e 's#(command: |"command": ?")[^ "]*/zcav #\1zcav #g' \
      -e 's/^(# (host|kernel): ).*/\1<machine>/' -e 's/("(host|kernel)": ?")[^"]*/\1<machine>/g' |
    if [[ $svg_compared -eq 0 && ( $file == *.svg || $file == *.html ) ]]; then
      svg_size_only
    else
      cat
    fi
}

# Width x height of a PNG, from its IHDR chunk; "not a PNG" if it is none.
png_size() {
  if [[ $(od -An -tx1 -N8 "$1" | tr -d ' \n') != 89504e470d0a1a0a ]]; then
    echo "not a PNG"
    return
  fi
  od -An -tu4 --endian=big -j16 -N8 "$1" | awk '{ print $1 "x" $2 }'
}

# A part not compared is a note, or a failure under ZCAV_REQUIRE_ALL=1 (CI),
# which must run everything.
not_compared() {
  if [[ ${ZCAV_REQUIRE_ALL:-0} == 1 ]]; then
    echo "not compared, and ZCAV_REQUIRE_ALL=1 requires it: $*"
    bad=1
  else
    echo "note: not compared: $*"
  fi
}
svg_compared=1
if [[ $HAVE_GNUPLOT -eq 1 ]]; then
  committed_gnuplot=$(gnuplot_of "$DIR")
  fresh_gnuplot=$(gnuplot_of "$FRESH")
  if [[ -z $committed_gnuplot || $committed_gnuplot != "$fresh_gnuplot" ]]; then
    svg_compared=0
    not_compared "the SVGs' content, only their size (the committed ones say" \
"'${committed_gnuplot:-nothing}', the new ones '${fresh_gnuplot:-nothing}')"
  fi
else
  not_compared "the images and ${GNUPLOT_TEXTS[*]} (gnuplot is not installed)"
fi

list_outputs "$DIR" >"$TMP/committed.list"
list_outputs "$FRESH" >"$TMP/fresh.list"
differ=0
while IFS= read -r f; do
  echo "stale: $f is committed but zcav no longer writes it"
  differ=$((differ + 1))
done < <(LC_ALL=C comm -23 "$TMP/committed.list" "$TMP/fresh.list")
while IFS= read -r f; do
  echo "new: zcav now writes $f, which is not committed"
  differ=$((differ + 1))
done < <(LC_ALL=C comm -13 "$TMP/committed.list" "$TMP/fresh.list")

total=$(LC_ALL=C sort -u "$TMP/committed.list" "$TMP/fresh.list" | wc -l)
compared=0
while IFS= read -r f; do
  compared=$((compared + 1))
  if [[ $f == *.png ]]; then
    old=$(png_size "$DIR/$f")
    new=$(png_size "$FRESH/$f")
    if [[ $old != "$new" || $old == "not a PNG" ]]; then
      echo "changed: $f: committed $old, now $new"
      differ=$((differ + 1))
    fi
    continue
  fi
  normalise "$DIR/$f" >"$TMP/old"
  normalise "$FRESH/$f" >"$TMP/new"
  if ! diff -u --label "committed/$f" --label "regenerated/$f" "$TMP/old" "$TMP/new" \
      >"$TMP/diff"; then
    echo "changed: $f"
    head -n "$MAX_DIFF_LINES" "$TMP/diff"
    lines=$(wc -l <"$TMP/diff")
    if [[ $lines -gt $MAX_DIFF_LINES ]]; then
      echo "... $((lines - MAX_DIFF_LINES)) more lines of diff (compare $DIR/$f with $FRESH/$f)"
    fi
    differ=$((differ + 1))
  fi
done < <(LC_ALL=C comm -12 "$TMP/committed.list" "$TMP/fresh.list")

if [[ $differ -eq 0 ]]; then
  echo "examples: all $compared files equal to a fresh run of make-examples.sh" \
       "(times, versions, paths, host and kernel normalised; PNGs by size)"
else
  cat <<EOF
examples: $differ of $total files differ from a fresh run of make-examples.sh with
this zcav ('-' committed, '+' now; the fresh run is in $FRESH).
zcav's output changed, or examples/ was edited by hand. If the change is
intended, refresh the committed examples and commit them with it:
  bash examples/make-examples.sh path/to/build/zcav   # rewrites examples/
  git add -A examples && git commit
EOF
  bad=1
fi
exit $bad
