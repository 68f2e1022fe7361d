#!/usr/bin/env python3
"""Checks one `zcav profile` directory of health_test.sh.

Usage:
  check_health.py faulty DIR RC --eio O+L[,O+L] --slow O+L
  check_health.py clean  DIR RC

Both: profile.json names the drive and the host (device.identity), every
pass's latency classes (plus its unreadable chunks) add up to the chunks the
pass read (each block's length in chunks, rounded up), the summary has a
Health line and a SMART line, and the reports hold the verdict.
faulty: exit 1; health "failing"; a reason names the unreadable ranges with
        the GB position of each injected range, and one the slow region the
        sweep found (within one chunk of the injected range); the chunks over
        the unreadable ranges are counted unreadable in every pass, the slow
        range's chunks in a class of 150 ms or more, and the block holding
        them has its slowest chunk there.
clean:  exit 0; health "good"; no unreadable chunks, no chunk of 150 ms or more.
The surface map (NAME-map.png, .svg and NAME-map.map.dat): a cell over an
unreadable range is red (class 6), one over the slow range in a class of
150 ms or more, every other cell under 150 ms.
Prints the figures; exits 1 with "FAIL:" lines if an assertion fails.
"""
import argparse
import glob
import json
import os
import sys

FAILURES = []


def check(ok, what):
    if not ok:
        FAILURES.append(what)
        print("FAIL: " + what)


def ranges_of(text):
    out = []
    for item in text.split(","):
        off, length = item.split("+")
        out.append((int(off), int(off) + int(length)))
    return out


def gb(offset):
    return "%.3f GB" % (offset / 1e9)


def check_map(directory, eio, slow, chunk):
    """The map's cells: red over eio, slow over slow (to the chunk), fast elsewhere."""
    data = glob.glob(os.path.join(directory, "*-map.map.dat"))
    check(len(data) == 1, "no single *-map.map.dat in %s" % directory)
    for ext in ("png", "svg"):
        check(glob.glob(os.path.join(directory, "*-map." + ext)), "no surface map ." + ext)
    if len(data) != 1:
        return
    cells = []
    with open(data[0], encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            w = line.split()
            cells.append((int(w[2]), round(float(w[3]) * 1e9), round(float(w[4]) * 1e9)))
    check(cells, "the map has no cells")
    red = slowc = 0
    for cls, lo, hi in cells:
        # Cell ends are printed to 1000 bytes (GB with 6 decimals).
        over_eio = any(lo + 1000 < r_hi and r_lo < hi - 1000 for r_lo, r_hi in eio)
        # A cell holds whole chunks: one that starts or ends within a chunk of the slow range
        # may hold a slow chunk.
        near_slow = any(lo < r_hi + chunk and r_lo - chunk < hi for r_lo, r_hi in slow)
        if over_eio:
            red += 1
            check(cls == 6, "cell %d-%d over an unreadable range has class %d, not 6 (red)" % (lo, hi, cls))
        elif any(lo + 1000 < r_hi and r_lo < hi - 1000 for r_lo, r_hi in slow):
            slowc += 1
            check(3 <= cls <= 5, "cell %d-%d over the slow range has class %d, not 3-5" % (lo, hi, cls))
        elif not near_slow:
            check(cls <= 2, "cell %d-%d away from the faults has class %d (150 ms or more)" % (lo, hi, cls))
    print("  map: %d cells, %d red over the unreadable ranges, %d slow over the slow range" %
          (len(cells), red, slowc))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["faulty", "clean"])
    ap.add_argument("dir")
    ap.add_argument("rc", type=int)
    ap.add_argument("--eio", default="")
    ap.add_argument("--slow", default="")
    a = ap.parse_args()
    with open(os.path.join(a.dir, "profile.json"), encoding="utf-8") as f:
        doc = json.load(f)
    ident = doc["device"]["identity"]
    check(ident.get("host") and ident.get("zcav_version") and ident.get("started"),
          "device.identity lacks host, zcav_version or started: %s" % ident)
    chunk = doc["options"]["chunk_bytes"]
    blocks = doc["blocks"]
    chunks_per_pass = sum((b["length_bytes"] + chunk - 1) // chunk for b in blocks)
    unreadable_expected = 0
    if a.kind == "faulty":
        eio = ranges_of(a.eio)
        chunk_starts = set()
        for lo, hi in eio:
            chunk_starts.update(range(lo // chunk * chunk, hi, chunk))
        unreadable_expected = len(chunk_starts)
    for p in doc["passes"]:
        classes = [c["chunks"] for c in p["latency_classes"]]
        total = sum(classes) + p["unreadable_chunks"]
        print("  pass %d: %s + %d unreadable = %d chunks of %d bytes (expected %d)" %
              (p["pass"], classes, p["unreadable_chunks"], total, p["chunk_bytes"], chunks_per_pass))
        check(total == chunks_per_pass, "pass %d counts %d chunks, read %d" %
              (p["pass"], total, chunks_per_pass))
        check(p["unreadable_chunks"] == unreadable_expected, "pass %d: %d unreadable chunks, expected %d"
              % (p["pass"], p["unreadable_chunks"], unreadable_expected))
        slow_chunks = sum(classes[3:])  # 150 ms and more
        if a.kind == "faulty":
            check(slow_chunks >= 2, "pass %d: %d chunks of 150 ms or more, expected the 2 slow ones"
                  % (p["pass"], slow_chunks))
        else:
            check(slow_chunks == 0, "pass %d: %d chunks of 150 ms or more on a clean device"
                  % (p["pass"], slow_chunks))
    health = doc.get("health", {})
    print("  health: %s: %s" % (health.get("verdict"), "; ".join(health.get("reasons", []))))
    with open(os.path.join(a.dir, "summary.txt"), encoding="utf-8") as f:
        summary = f.read()
    check("\nSMART:" in summary, "summary.txt has no SMART line")
    reports = ""
    for name in ("report.html", "report.md"):
        with open(os.path.join(a.dir, name), encoding="utf-8") as f:
            reports += f.read()
    verdict = "failing" if a.kind == "faulty" else "good"
    check(health.get("verdict") == verdict, "health %r, expected %r" % (health.get("verdict"), verdict))
    check("Health:        " + verdict in summary, "summary.txt does not say " + verdict)
    check(verdict in reports, "the reports do not say " + verdict)
    check_map(a.dir, ranges_of(a.eio) if a.eio else [], ranges_of(a.slow) if a.slow else [],
              chunk)
    if a.kind == "clean":
        check(a.rc == 0, "exit %d, expected 0" % a.rc)
        return
    check(a.rc == 1, "exit %d, expected 1 (unreadable ranges)" % a.rc)
    reasons = health.get("reasons", [])
    bad = [r for r in reasons if "unreadable range" in r]
    check(len(bad) == 1 and bad[0].startswith("2 unreadable ranges"),
          "no reason names the 2 unreadable ranges: %s" % reasons)
    for lo, _ in eio:
        check(any(gb(lo - 4096 * k) in " ".join(bad) or gb(lo + 4096 * k) in " ".join(bad)
                  for k in range(2)), "the reasons do not place an unreadable range at %s" % gb(lo))
    slow_lo, slow_hi = ranges_of(a.slow)[0]
    found = [s for s in doc["slow_regions"]
             if abs(s["offset_bytes"] - slow_lo) <= chunk and
             abs(s["offset_bytes"] + s["length_bytes"] - slow_hi) <= chunk]
    check(found, "no slow region within a chunk of %d-%d: %s" % (slow_lo, slow_hi, doc["slow_regions"]))
    slow_reason = [r for r in reasons if "slow region" in r]
    check(slow_reason and slow_reason[0].startswith("1 slow region at ") and
          any(gb(s["offset_bytes"]) in slow_reason[0] for s in found),
          "no reason names the one slow place at its position: %s" % reasons)
    held = [b for b in blocks if b["offset_bytes"] <= slow_lo < b["offset_bytes"] + b["length_bytes"]]
    check(held and held[0].get("worst_chunk_ms", 0) > 150,
          "the block holding the slow range has no slow chunk: %s" % held)


if __name__ == "__main__":
    main()
    if FAILURES:
        sys.exit(1)
