#!/usr/bin/env python3
"""Checks for tests/report_browser_test.sh (standard library only).

  inject PAGE OUT W   a page showing PAGE in a frame W px wide, and a script
                      that, once loaded, writes the SVG sizes, the page's
                      widths, the lines drawn in each SVG and the
                      resources loaded into a
                      <pre id="zcav-probe"> (read back by probe)
  probe DOM N W       the DOM chromium dumped: at least N inline SVGs, each
                      drawn at a non-zero size with lines of non-zero size, nothing loaded but the page itself, and
                      no horizontal scrolling at the window's width
  static PAGE         no http(s) or protocol-relative URL in a src, href,
                      url() or @import: nothing to fetch from the network
  png SHOT            the screenshot is not blank: enough non-white pixels and
                      colours
"""
from html import escape
import json
import re
import struct
import sys
import zlib

# The page goes into an iframe exactly WIDTH px wide (a headless window has a
# minimum width of its own, wider than a phone); srcdoc keeps it same-origin,
# so the script outside can measure it once everything has loaded.
WRAPPER = """<!DOCTYPE html>
<html><head><meta charset="utf-8"/><style>body{margin:0} iframe{border:0}</style></head>
<body><iframe id="page" style="width:%dpx;height:800px" srcdoc="%s"></iframe>
<script>
window.addEventListener('load', function () {
  var w = document.getElementById('page').contentWindow, d = w.document;
  var svgs = Array.prototype.map.call(d.querySelectorAll('svg'), function (s) {
    var r = s.getBoundingClientRect(), drawn = 0;
    s.querySelectorAll('path, polyline, polygon, line').forEach(function (e) {
      var b = e.getBBox();
      if (b.width > 0 || b.height > 0) drawn++;
    });
    return [r.width, r.height, drawn];
  });
  var res = w.performance.getEntriesByType('resource').map(function (e) { return e.name; })
      .concat(performance.getEntriesByType('resource').map(function (e) { return e.name; }));
  var out = {svgs: svgs, resources: res, innerWidth: w.innerWidth,
             scrollWidth: d.documentElement.scrollWidth, bodyScrollWidth: d.body.scrollWidth};
  var pre = document.createElement('pre');
  pre.id = 'zcav-probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script></body></html>
"""


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def inject(page, out, width):
    html = open(page, encoding="utf-8").read()
    open(out, "w", encoding="utf-8").write(WRAPPER % (width, escape(html, quote=True)))


def probe(dom, want_svgs, width):
    text = open(dom, encoding="utf-8").read()
    m = re.search(r'<pre id="zcav-probe">(.*?)</pre>', text, re.S)
    if not m:
        fail(dom + ": the probe did not run (no zcav-probe in the dumped DOM)")
    raw = m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
    p = json.loads(raw.replace("&amp;", "&"))
    if p["innerWidth"] != width:
        fail("the window is %d px wide, not %d" % (p["innerWidth"], width))
    if len(p["svgs"]) < want_svgs:
        fail("%d inline SVGs, want at least %d" % (len(p["svgs"]), want_svgs))
    for i, (w, h, drawn) in enumerate(p["svgs"]):
        if not (w > 0 and h > 0):
            fail("SVG %d is drawn %gx%g px" % (i + 1, w, h))
        if drawn == 0:
            fail("SVG %d has no line or shape of non-zero size" % (i + 1))
    if p["resources"]:
        fail("the page loaded resources: " + ", ".join(p["resources"][:5]))
    if p["scrollWidth"] > width or p["bodyScrollWidth"] > width:
        fail("the page scrolls sideways at %d px: scrollWidth %d" % (width, p["scrollWidth"]))
    print("  %d SVGs (smallest %.0fx%.0f px), scrollWidth %d <= %d, no resources loaded" % (
        len(p["svgs"]), min((s[0] for s in p["svgs"]), default=0),
        min((s[1] for s in p["svgs"]), default=0), p["scrollWidth"], width))


def static(page):
    html = open(page, encoding="utf-8").read()
    bad = re.findall(r'''(?:\b(?:src|href|srcset|action|poster|data)\s*=\s*["']?\s*'''
                     r'''|url\(\s*["']?|@import\s+["']?)((?:https?:)?//[^"')\s>]*)''', html, re.I)
    if bad:
        fail(page + " names network resources: " + ", ".join(sorted(set(bad))[:5]))
    if re.search(r"<(script|link|iframe|object|embed)\b", html, re.I):
        fail(page + " has a script, link, iframe, object or embed element")


def read_png(path):
    """Decodes an 8-bit RGB or RGBA, non-interlaced PNG into rows of bytes."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + ": not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or color not in (2, 6) or interlace:
        fail("%s: PNG depth %d colour type %d interlace %d not handled" % (path, depth, color,
                                                                          interlace))
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def png(path):
    width, height, bpp, rows = read_png(path)
    ink = 0
    seen = set()
    for line in rows:
        for x in range(0, width * bpp, bpp):
            r, g, b = line[x], line[x + 1], line[x + 2]
            if r < 235 or g < 235 or b < 235:
                ink += 1
            seen.add((r, g, b))
    colours = len(seen)
    share = ink / float(width * height)
    print("  %s: %dx%d, %.1f %% non-white, %d colours" % (
        path.split("/")[-1], width, height, 100 * share, colours))
    if share < 0.02 or colours < 16:
        fail(path + ": the screenshot is blank")


def main():
    cmd = sys.argv[1]
    if cmd == "inject":
        inject(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == "probe":
        probe(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "static":
        static(sys.argv[2])
    elif cmd == "png":
        png(sys.argv[2])
    else:
        fail("unknown check " + cmd)


if __name__ == "__main__":
    main()
