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
Prints the figures; exits 1 with "FAIL:" lines if an assertion fails.
"""
import argparse
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
    check(found and slow_reason and gb(found[0]["offset_bytes"]) in slow_reason[0],
          "no reason names the slow region at its position: %s" % reasons)
    held = [b for b in blocks if b["offset_bytes"] <= slow_lo < b["offset_bytes"] + b["length_bytes"]]
    check(held and held[0].get("worst_chunk_ms", 0) > 150,
          "the block holding the slow range has no slow chunk: %s" % held)


if __name__ == "__main__":
    main()
    if FAILURES:
        sys.exit(1)
