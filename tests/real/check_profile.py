"""Checks the DIR/profile.json that `zcav profile DEVICE -o DIR` wrote, for the
real-I/O test scripts, and prints the figures (verdict and its reason, the
sweep's average, access time, burst rate) for the test log.

Usage: python3 check_profile.py DIR LABEL --kind KIND [--curve TYPE]
           [--avg MB_PER_S [--tolerance FRACTION]]
           [--burst MB_PER_S [--burst-below FRACTION] [--burst-above FRACTION]]
           [--access-mean-ms-min MS] [--access-mean-ms-max MS]
           [--access-floor ZONES --access-floor-window BYTES]

  --avg, --tolerance   summary.avg_mb_per_s within +-FRACTION of MB_PER_S.
  --burst, --burst-below, --burst-above
                       burst.avg_mb_per_s at most FRACTION below / above
                       (default 0.10 each) the device's true rate for the
                       burst region.
  --access-mean-ms-min, --access-mean-ms-max
                       bounds on access.mean_ms (the caller derives them
                       from what the device is known to do).
  --access-floor ZONES a paced device's zone table, START:MB_PER_S,... (the
                       zoned_fuse fixture's --zones syntax: START in bytes
                       with an optional K/M/G binary suffix). Each access read
                       must take at least its read_bytes at the fastest rate
                       of the zones it touches -- except the first, and any
                       that starts within --access-floor-window BYTES of the
                       end of the read before (a paced device may serve those
                       from its read-ahead, earlier than their pace).
Exit: 0 pass, 1 fail (each failed check on stderr).
"""
import argparse
import json
import math
import os
import re
import sys


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def size_bytes(text):
    """'4096', '64K', '68M', '1G' -> bytes (binary suffixes)."""
    m = re.fullmatch(r"(\d+)([KMGkmg]?)", text)
    if not m:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (bytes, K, M or G)")
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2).lower()]


def zone_table(text):
    """'0M:120,68M:95' -> [(0, 120.0), (71303168, 95.0)], starts increasing from 0."""
    zones = []
    for item in text.split(","):
        start, sep, rate = item.partition(":")
        try:
            zones.append((size_bytes(start), float(rate)))
        except (argparse.ArgumentTypeError, ValueError):
            raise argparse.ArgumentTypeError(f"zone {item!r} is not START:MB_PER_S") from None
        if not sep or not zones[-1][1] > 0:
            raise argparse.ArgumentTypeError(f"zone {item!r} is not START:MB_PER_S")
    starts = [z[0] for z in zones]
    if starts[0] != 0 or starts != sorted(set(starts)):
        raise argparse.ArgumentTypeError(f"zone starts in {text!r} must begin at 0 and increase")
    return zones


def access_floor_failures(access, zones, window_bytes):
    """The reads of access.samples faster than the pace of a zone table allows
    (see --access-floor), and how many reads were held to it."""
    read_bytes = access.get("read_bytes")
    samples = access.get("samples")
    if not isinstance(read_bytes, int) or read_bytes <= 0 or not isinstance(samples, list):
        return [f"access.read_bytes {read_bytes!r} or access.samples missing: "
                "cannot check the reads against the pace"], 0

    def fastest_mb_per_s(first, last):  # of the zones [first, last] touches
        return max(r for i, (s, r) in enumerate(zones)
                   if s <= last and (i + 1 == len(zones) or zones[i + 1][0] > first))

    failures, held, previous_end = [], 0, None
    for i, sample in enumerate(samples):
        offset, ms = sample.get("offset_bytes"), sample.get("ms")
        if not isinstance(offset, int) or not number(ms):
            failures.append(f"access sample {i} is {sample!r}")
            continue
        near = previous_end is None or abs(offset - previous_end) <= window_bytes
        previous_end = offset + read_bytes
        if near:
            continue
        held += 1
        floor_ms = read_bytes / (fastest_mb_per_s(offset, offset + read_bytes - 1) * 1e6) * 1e3
        if ms < floor_ms:
            failures.append(f"access read {i} at {offset} took {ms:.4f} ms, under the "
                            f"{floor_ms:.4f} ms its {read_bytes} bytes take at the device's pace")
    return failures, held


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("label")
    parser.add_argument("--kind", required=True, help="expected verdict.kind")
    parser.add_argument("--curve", help="expected curve_type")
    parser.add_argument("--avg", type=float, help="expected summary.avg_mb_per_s, MB/s")
    parser.add_argument("--tolerance", type=float, default=0.05, help="for --avg, a fraction")
    parser.add_argument("--burst", type=float, help="expected burst.avg_mb_per_s, MB/s")
    parser.add_argument("--burst-below", type=float, default=0.10,
                        help="for --burst, a fraction: how far below it may be")
    parser.add_argument("--burst-above", type=float, default=0.10,
                        help="for --burst, a fraction: how far above it may be")
    parser.add_argument("--access-mean-ms-min", type=float, help="least access.mean_ms")
    parser.add_argument("--access-mean-ms-max", type=float, help="greatest access.mean_ms")
    parser.add_argument("--access-floor", type=zone_table, metavar="ZONES",
                        help="START:MB_PER_S,...: every access read at least its bytes' pace")
    parser.add_argument("--access-floor-window", type=size_bytes, metavar="BYTES",
                        help="for --access-floor: reads this near the previous one are exempt")
    args = parser.parse_args()
    if (args.access_floor is None) != (args.access_floor_window is None):
        parser.error("--access-floor and --access-floor-window go together")

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

    # Access time and burst rate: measured, with numbers, and where the
    # caller knows the truth, near it.
    access = doc.get("access") or {}
    if access.get("status") != "complete" or not access.get("count"):
        errors.append(f"access status {access.get('status')!r}, count {access.get('count')!r}")
    for key in ("mean_ms", "median_ms", "p95_ms"):
        if not number(access.get(key)) or access[key] <= 0:
            errors.append(f"access.{key} is {access.get(key)!r}, expected a positive number")
    mean_ms = access.get("mean_ms")
    if number(mean_ms):
        if args.access_mean_ms_min is not None and mean_ms < args.access_mean_ms_min:
            errors.append(f"access mean {mean_ms:.4f} ms is under the bound of "
                          f"{args.access_mean_ms_min:.4f} ms")
        if args.access_mean_ms_max is not None and mean_ms > args.access_mean_ms_max:
            errors.append(f"access mean {mean_ms:.4f} ms is over the bound of "
                          f"{args.access_mean_ms_max:.4f} ms")
    floor_note = ""
    if args.access_floor is not None:
        failures, held = access_floor_failures(access, args.access_floor, args.access_floor_window)
        if len(failures) > 5:
            failures = failures[:5] + [f"... and {len(failures) - 5} more reads under their pace"]
        errors.extend(failures)
        floor_note = f"; {held} reads held to the device's pace"
    burst = doc.get("burst") or {}
    burst_avg = burst.get("avg_mb_per_s")
    if burst.get("status") != "complete" or not number(burst_avg) or burst_avg <= 0:
        errors.append(f"burst status {burst.get('status')!r}, avg {burst_avg!r}")
    elif args.burst is not None and not (args.burst * (1 - args.burst_below) <= burst_avg <=
                                         args.burst * (1 + args.burst_above)):
        errors.append(f"burst {burst_avg:.2f} MB/s is outside the device's {args.burst:g} MB/s "
                      f"-{args.burst_below:.0%}/+{args.burst_above:.0%}")

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
    print(f"{args.label}: access mean {ms(access.get('mean_ms'))} ms (min "
          f"{ms(access.get('min_ms'))}, median {ms(access.get('median_ms'))}, p95 "
          f"{ms(access.get('p95_ms'))}, max {ms(access.get('max_ms'))}; {access.get('count')} "
          f"reads of {access.get('read_bytes')} B{floor_note}); burst avg {mb(burst_avg)} MB/s "
          f"(repetitions {mb(burst.get('min_mb_per_s'))}..{mb(burst.get('max_mb_per_s'))}, "
          f"{burst.get('repetitions')} of {burst.get('region_bytes')} B); transport "
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
