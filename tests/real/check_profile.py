"""Checks the DIR/profile.json that `zcav profile DEVICE -o DIR` wrote, for the
real-I/O test scripts, and prints the figures (verdict and its reason, the
sweep's average, access time, burst rate) for the test log.

Usage: python3 check_profile.py DIR LABEL --kind KIND [--curve TYPE]
                                [--avg MB_PER_S --tolerance FRACTION]
Exit: 0 pass, 1 fail (each failed check on stderr).
"""
import argparse
import json
import math
import os
import sys


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("label")
    parser.add_argument("--kind", required=True, help="expected verdict.kind")
    parser.add_argument("--curve", help="expected curve_type")
    parser.add_argument("--avg", type=float, help="expected summary.avg_mb_per_s, MB/s")
    parser.add_argument("--tolerance", type=float, default=0.05, help="for --avg, a fraction")
    args = parser.parse_args()

    path = os.path.join(args.dir, "profile.json")
    doc = json.load(open(path))
    errors = []

    if doc.get("status") != "complete" or doc.get("partial") is not False:
        errors.append(f"status {doc.get('status')!r}, partial {doc.get('partial')!r}")
    for name in ("summary.txt", "zones.txt"):
        if not os.path.isfile(os.path.join(args.dir, name)):
            errors.append(f"no {name} in {args.dir}")

    # The sweep: full (the device is small), complete, its average.
    sweep = doc.get("sweep") or {}
    if sweep.get("status") != "complete" or sweep.get("quick") is not False:
        errors.append(f"sweep status {sweep.get('status')!r}, quick {sweep.get('quick')!r}; "
                      "expected a complete full sweep")
    summary = doc.get("summary") or {}
    avg = summary.get("avg_mb_per_s")
    if not number(avg):
        errors.append(f"summary.avg_mb_per_s is {avg!r}")
    elif args.avg is not None and abs(avg - args.avg) > args.tolerance * args.avg:
        errors.append(f"average {avg:.2f} MB/s is outside {args.avg:g} MB/s "
                      f"+-{args.tolerance:.0%}")
    if args.curve and doc.get("curve_type") != args.curve:
        errors.append(f"curve_type {doc.get('curve_type')!r}, expected {args.curve!r}")

    # Access time and burst rate: measured, with numbers.
    access = doc.get("access") or {}
    if access.get("status") != "complete" or not access.get("count"):
        errors.append(f"access status {access.get('status')!r}, count {access.get('count')!r}")
    for key in ("mean_ms", "median_ms", "p95_ms"):
        if not number(access.get(key)) or access[key] <= 0:
            errors.append(f"access.{key} is {access.get(key)!r}, expected a positive number")
    burst = doc.get("burst") or {}
    if burst.get("status") != "complete" or not number(burst.get("avg_mb_per_s")) or \
            burst["avg_mb_per_s"] <= 0:
        errors.append(f"burst status {burst.get('status')!r}, avg {burst.get('avg_mb_per_s')!r}")

    verdict = doc.get("verdict") or {}
    if verdict.get("kind") != args.kind:
        errors.append(f"verdict {verdict.get('kind')!r}, expected {args.kind!r}")
    if not verdict.get("reason"):
        errors.append("the verdict gives no reason")

    def mb(v):
        return f"{v:.2f}" if number(v) else repr(v)

    def ms(v):
        return f"{v:.3f}" if number(v) else repr(v)

    transport = doc.get("transport") or {}
    print(f"{args.label}: profile sweep avg {mb(avg)} MB/s (min {mb(summary.get('min_mb_per_s'))}, "
          f"max {mb(summary.get('max_mb_per_s'))}), curve {doc.get('curve_type')}, "
          f"{len(doc.get('zones') or [])} zone(s), {sweep.get('blocks')} blocks, "
          f"{mb(sweep.get('wall_seconds'))} s")
    print(f"{args.label}: access mean {ms(access.get('mean_ms'))} ms (median "
          f"{ms(access.get('median_ms'))}, p95 {ms(access.get('p95_ms'))}, {access.get('count')} "
          f"reads); burst avg {mb(burst.get('avg_mb_per_s'))} MB/s; transport "
          f"{transport.get('link') or transport.get('kind')} (ceiling "
          f"{transport.get('ceiling_mb_per_s')} MB/s)")
    print(f"{args.label}: verdict {verdict.get('kind')}: {verdict.get('reason')}")
    if errors:
        for e in errors:
            print(f"FAIL: {args.label}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
