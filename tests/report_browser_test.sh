#!/usr/bin/env bash
# The HTML reports in a real browser (headless Chromium): the committed
# examples/report.html, the report.html of a fresh `zcav profile` and the
# fleet report of a fresh `zcav merge`. For each:
#   - the HTML names nothing on the network (no http(s):// or //host in a
#     src, href, url() or @import; no script, link, iframe, object, embed);
#   - loaded in a frame 375 px wide (a phone), with every request sent to a
#     proxy that refuses connections: every inline SVG is drawn at a non-zero
#     size with lines of non-zero size in it, the page loaded no resource at all (Resource Timing), and nothing
#     scrolls sideways (scrollWidth <= 375; wide tables scroll in their own box);
#   - a 375x800 screenshot (the same proxy) is not blank.
# A planted page wider than the frame must fail the width check (so it can).
# Usage: report_browser_test.sh ZCAV EXAMPLES_REPORT_HTML. Skips (77) without
# chromium; runs as root with --no-sandbox.
set -euo pipefail
zcav=$1
example=$2
here=$(cd "$(dirname "$0")" && pwd)
check=$here/report_browser_check.py

browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null; then
    browser=$(command -v "$b")
    break
  fi
done
# Debian's /usr/bin/chromium is a shell wrapper; the binary behind it starts faster.
[[ $browser == /usr/bin/chromium && -x /usr/lib/chromium/chromium ]] && browser=/usr/lib/chromium/chromium
if [[ -z $browser ]]; then
  echo "SKIP: chromium not installed (apt-get install chromium)"
  exit 77
fi
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zcav-browser.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
width=375
flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-extensions
  --disable-background-networking --disable-component-update --disable-sync
  --user-data-dir="$tmp/profile" --proxy-server=http://127.0.0.1:9 --proxy-bypass-list='<-loopback>')
chrome() { timeout 60 "$browser" "${flags[@]}" "$@" 2>>"$tmp/chromium.log"; }

# The profile's report (needs gnuplot for its plots; zcav says so without).
"$zcav" profile 'sim:hdd?size=1G' -o "$tmp/prof" -q
cp "$example" "$tmp/example.html"
# A fleet report (zcav merge): five drives of a model, one weak, one other.
mkdir -p "$tmp/fleet/in"
for i in 1 2 3 4 5; do
  weak=""
  [[ $i == 3 ]] && weak="&weak=30%-50%:0.75"
  "$zcav" sweep "sim:hdd?size=1G&seed=$i$weak" --format json -o "$tmp/fleet/in/$i.json" -q
done
"$zcav" sweep 'sim:ssd?size=1G' --format json -o "$tmp/fleet/in/ssd.json" -q
"$zcav" merge "$tmp/fleet/in" -o "$tmp/fleet/fleet.html" -q

svgs_wanted() { grep -c '<svg' "$1" || true; }
for page in example prof/report fleet/fleet; do
  html=$tmp/$page.html
  name=${page%%/*}
  want=$(svgs_wanted "$html")
  if [[ $page == example ]]; then
    ((want >= 1)) || fail "examples/report.html has no inline SVG"
  elif command -v gnuplot >/dev/null; then
    ((want >= 1)) || fail "$page.html has no inline SVG though gnuplot is installed"
  fi
  echo "$page.html:"
  python3 "$check" static "$html"
  python3 "$check" inject "$html" "$tmp/$name-probe.html" "$width"
  chrome --window-size=1000,1000 --dump-dom "file://$tmp/$name-probe.html" >"$tmp/$name-dom.html" ||
    fail "chromium --dump-dom failed: $(tail -3 "$tmp/chromium.log")"
  python3 "$check" probe "$tmp/$name-dom.html" "$want" "$width"
  chrome --window-size=$width,800 --hide-scrollbars --screenshot="$tmp/$name.png" "file://$html" \
    >/dev/null || fail "chromium --screenshot failed: $(tail -3 "$tmp/chromium.log")"
  python3 "$check" png "$tmp/$name.png"
done

# The width check can fail: a line wider than the frame.
sed 's|<body>|<body><p style="white-space:nowrap">'"$(printf 'wide%.0s' {1..60})"'</p>|' \
  "$tmp/example.html" >"$tmp/wide.html"
python3 "$check" inject "$tmp/wide.html" "$tmp/wide-probe.html" "$width"
chrome --window-size=1000,1000 --dump-dom "file://$tmp/wide-probe.html" >"$tmp/wide-dom.html"
if python3 "$check" probe "$tmp/wide-dom.html" 1 "$width" 2>/dev/null; then
  fail "a page wider than $width px passed the width check"
fi
# ... and the static check refuses a network URL.
sed 's|<body>|<body><img src="https://example.com/x.png"/>|' "$tmp/example.html" >"$tmp/net.html"
if python3 "$check" static "$tmp/net.html" 2>/dev/null; then
  fail "a page with an https image passed the network check"
fi
echo "ok: the reports render in $(basename "$browser") at $width px, offline, with every SVG drawn"
