#!/usr/bin/env python3
"""Checks one `zcav sweep --format json` result of faults_test.sh.

Usage:
  check_faults.py eio  JSON RC LABEL --rate MBPS --tolerance T --passes N --ranges O+L[,O+L]
  check_faults.py slow JSON RC LABEL --rate MBPS --tolerance T --passes N --ranges O+L
  check_faults.py gone JSON RC LABEL --loss-min BYTES --loss-max BYTES

eio:  a complete sweep (exit 1) whose "errors" are the injected ranges to
      within one sector (device.sector_bytes) and cover them; the blocks
      overlapping them have no sample; every other block has all its passes
      at the fixture's rate (+-T; their median +-3 %).
slow: a complete sweep (exit 0), no errors, at least one slow region per pass,
      each within one chunk of the injected range at both ends; every block
      away from the range at the fixture's rate.
gone: the device went away: exit 3, "partial": true, the error offset (where
      reading stopped) in [loss-min, loss-max], every block before it present
      and measured, nothing unreadable before it.
Prints the figures; exits 1 with "FAIL:" lines if an assertion fails.
"""
import argparse
import json
import statistics
import sys

MiB = 1 << 20
MEDIAN_TOLERANCE = 0.03  # the median of the clean blocks' rates vs the fixture's


def ranges_of(text):
    out = []
    for item in text.split(","):
        off, length = item.split("+")
        out.append((int(off), int(off) + int(length)))
    return out


def overlaps(lo, hi, ranges):
    return any(lo < r_hi and r_lo < hi for r_lo, r_hi in ranges)


def mib(v):
    return f"{v / MiB:.4f} MiB"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["eio", "slow", "gone"])
    ap.add_argument("json")
    ap.add_argument("rc", type=int)
    ap.add_argument("label")
    ap.add_argument("--rate", type=float)
    ap.add_argument("--tolerance", type=float)
    ap.add_argument("--passes", type=int)
    ap.add_argument("--ranges")
    ap.add_argument("--loss-min", type=int)
    ap.add_argument("--loss-max", type=int)
    a = ap.parse_args()

    errors = []
    try:
        doc = json.load(open(a.json))
    except (OSError, ValueError) as e:
        print(f"FAIL: {a.label}: no readable JSON result ({e}); zcav exited with {a.rc}",
              file=sys.stderr)
        return 1
    dev = doc["device"]
    sector = dev["sector_bytes"]
    size = dev["size_bytes"]
    chunk = doc["options"]["chunk_bytes"]
    blocks = doc["blocks"]
    found = doc.get("errors")
    slow = doc.get("slow_regions")
    if found is None:
        errors.append("the JSON has no 'errors' member")
        found = []
    if slow is None:
        errors.append("the JSON has no 'slow_regions' member")
        slow = []
    status = f"status {doc.get('status')!r}, partial {doc.get('partial')!r}, exit {a.rc}"

    def check_rates(avoid):
        clean = []
        for b in blocks:
            lo, hi = b["offset_bytes"], b["offset_bytes"] + b["length_bytes"]
            if overlaps(lo, hi, avoid):
                continue
            if b["passes"] != a.passes:
                errors.append(f"block at {mib(lo)} (away from the faults) has {b['passes']} "
                              f"passes, expected {a.passes}")
                continue
            if b.get("unreadable_bytes"):
                errors.append(f"block at {mib(lo)} (away from the faults) has "
                              f"{b['unreadable_bytes']} unreadable bytes")
            clean.append(b["mb_per_s"])
            # The block right after an injected range may read fast: the
            # fixture credits its read-ahead with the time the head stood
            # idle (up to its slack) while the sweep handled the errors, so
            # the first requests after them finish early (123.6 MB/s of 100
            # once under load). It still counts in the median below.
            if any(r_hi <= lo < r_hi + b["length_bytes"] for _, r_hi in avoid):
                continue
            if abs(b["mb_per_s"] - a.rate) > a.tolerance * a.rate:
                errors.append(f"block at {mib(lo)}: {b['mb_per_s']:.1f} MB/s is outside the "
                              f"fixture's {a.rate:g} MB/s +-{a.tolerance:.0%}")
        # The curve as a whole sits on the fixture's rate.
        if clean and abs(statistics.median(clean) - a.rate) > MEDIAN_TOLERANCE * a.rate:
            errors.append(f"the median block rate {statistics.median(clean):.1f} MB/s is outside "
                          f"the fixture's {a.rate:g} MB/s +-{MEDIAN_TOLERANCE:.0%}")
        return clean

    def tiles():
        pos = 0
        for b in blocks:
            if b["offset_bytes"] != pos:
                errors.append(f"block at {b['offset_bytes']} leaves a gap or overlap "
                              f"(expected {pos})")
            pos = b["offset_bytes"] + b["length_bytes"]
        return pos

    if a.mode == "eio":
        injected = ranges_of(a.ranges)
        if a.rc != 1 or doc.get("status") != "complete" or doc.get("partial") is not False:
            errors.append(f"{status}; expected a complete sweep (not partial) and exit 1")
        if tiles() != size:
            errors.append(f"blocks do not reach the end of the device ({size})")
        got = [(e["offset_bytes"], e["offset_bytes"] + e["length_bytes"]) for e in found]
        if len(got) != len(injected):
            errors.append(f"{len(got)} unreadable ranges reported, {len(injected)} injected: "
                          f"{found}")
        print(f"{a.label}: sector {sector} B, chunk {chunk // 1024} KiB; {status}")
        print(f"  {'injected':>27} {'reported':>27} {'start diff':>11} {'end diff':>9}  errno")
        for i, (lo, hi) in enumerate(injected):
            g = got[i] if i < len(got) else None
            if g is None:
                print(f"  {lo:>12}-{hi:<14} {'-':>27}")
                continue
            e = found[i]
            print(f"  {lo:>12}-{hi:<14} {g[0]:>12}-{g[1]:<14} {g[0] - lo:>11} {g[1] - hi:>9}  "
                  f"{e.get('errno')}{' bounded' if e.get('bounded_by_budget') else ''}")
            # Within one sector at each end, and covering the injected bytes.
            if not (lo - sector < g[0] <= lo and hi <= g[1] < hi + sector):
                errors.append(f"reported {g[0]}-{g[1]} is not injected {lo}-{hi} to within one "
                              f"{sector}-byte sector (covering it)")
            if e.get("errno") != 5:
                errors.append(f"range {g[0]}+{g[1] - g[0]} errno {e.get('errno')}, expected 5 "
                              "(EIO)")
        for b in blocks:
            lo, hi = b["offset_bytes"], b["offset_bytes"] + b["length_bytes"]
            if overlaps(lo, hi, injected):
                want = sum(max(0, min(hi, g1) - max(lo, g0)) for g0, g1 in got)
                if b["passes"] != 0 or b.get("unreadable_bytes") != want:
                    errors.append(f"block at {mib(lo)} overlaps an injected range: passes "
                                  f"{b['passes']} (expected 0), unreadable_bytes "
                                  f"{b.get('unreadable_bytes')} (expected {want})")
        clean = check_rates(injected)
        if clean:
            print(f"  {len(clean)} blocks away from the ranges: median {statistics.median(clean):.1f}"
                  f" MB/s (min {min(clean):.1f}, max {max(clean):.1f}; fixture {a.rate:g})")
        if slow:
            errors.append(f"slow regions reported where none were injected: {slow}")

    elif a.mode == "slow":
        (lo, hi), = ranges_of(a.ranges)
        if a.rc != 0 or doc.get("status") != "complete" or doc.get("partial") is not False:
            errors.append(f"{status}; expected a complete sweep and exit 0")
        if found:
            errors.append(f"a slow range is not unreadable, but 'errors' has {found}")
        tiles()
        print(f"{a.label}: chunk {chunk // 1024} KiB; {status}; injected slow {lo}-{hi}")
        for r in slow:
            r_lo, r_hi = r["offset_bytes"], r["offset_bytes"] + r["length_bytes"]
            print(f"  pass {r['pass']}: slow {r_lo}-{r_hi} (start {r_lo - lo:+d}, end "
                  f"{r_hi - hi:+d} B) {r['ms']:.0f} ms, expected {r['expected_ms']:.1f} ms")
            if abs(r_lo - lo) > chunk or abs(r_hi - hi) > chunk:
                errors.append(f"slow region {r_lo}-{r_hi} (pass {r['pass']}) is more than one "
                              f"{chunk}-byte chunk from the injected {lo}-{hi}")
        missing = sorted(set(range(1, a.passes + 1)) - {r["pass"] for r in slow})
        if missing:
            errors.append(f"no slow region reported in pass(es) {missing}")
        clean = check_rates([(lo, hi)])
        if clean:
            print(f"  {len(clean)} blocks away from the slow range: median "
                  f"{statistics.median(clean):.1f} MB/s (min {min(clean):.1f}, max "
                  f"{max(clean):.1f}; fixture {a.rate:g})")

    else:  # gone
        err = doc.get("error") or {}
        loss = err.get("offset_bytes")
        print(f"{a.label}: {status}; error {err}; {len(blocks)} blocks, {len(found)} unreadable "
              f"ranges")
        if a.rc != 3 or doc.get("partial") is not True or \
                not str(doc.get("status", "")).startswith("partial"):
            errors.append(f"{status}; expected the device gone: exit 3, partial, status "
                          "'partial: ...'")
        if not isinstance(loss, int):
            # zcav went on: say what it did instead, in one line.
            bad = sum(e["length_bytes"] for e in found)
            kept = sum(1 for b in blocks if b["passes"] > 0)
            errors.append(
                f"zcav did not stop: no error offset (JSON 'error': {doc.get('error')!r}); it "
                f"read on and mapped {bad} bytes as unreadable ("
                + ", ".join(f"{e['offset_bytes']}+{e['length_bytes']} errno {e.get('errno')} "
                            f"{e.get('error')}{' bounded' if e.get('bounded_by_budget') else ''}"
                            for e in found)
                + f"); {kept} of {len(blocks)} blocks have a rate")
            for e in errors:
                print(f"FAIL: {a.label}: {e}", file=sys.stderr)
            return 1
        elif not a.loss_min <= loss <= a.loss_max:
            errors.append(f"stopped at {loss}, expected where the file went away: "
                          f"[{a.loss_min}, {a.loss_max}]")
        # Everything before the loss point is kept, measured.
        pos = 0
        for b in blocks:
            if b["offset_bytes"] + b["length_bytes"] > loss:
                errors.append(f"block at {mib(b['offset_bytes'])} reaches past the loss point "
                              f"{loss} (passes {b['passes']})")
                continue
            if b["offset_bytes"] != pos:
                errors.append(f"block at {b['offset_bytes']} leaves a gap (expected {pos})")
            pos = b["offset_bytes"] + b["length_bytes"]
            if b["passes"] < 1 or b.get("unreadable_bytes"):
                errors.append(f"block at {mib(b['offset_bytes'])}, before the loss point, has "
                              f"passes {b['passes']}, unreadable_bytes "
                              f"{b.get('unreadable_bytes')}")
        block = doc["options"]["block_bytes"]
        if loss and pos < loss // block * block:
            errors.append(f"blocks end at {pos}: the blocks before the loss point {loss} are "
                          "not all there")
        for e in found:
            if e["offset_bytes"] < loss or not loss:
                errors.append(f"unreadable range {e['offset_bytes']}+{e['length_bytes']} "
                              f"(errno {e.get('errno')}, {e.get('error')}) where the file was "
                              f"readable or had gone: expected none")
        print(f"  blocks 0-{mib(pos)} kept before the loss at {loss}")

    if errors:
        for e in errors[:20]:
            print(f"FAIL: {a.label}: {e}", file=sys.stderr)
        if len(errors) > 20:
            print(f"FAIL: {a.label}: ... and {len(errors) - 20} more", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
