#!/usr/bin/env python3
"""Checks that lib/ and zcav/ include one another the way the data flows.

The layers of lib/zcav/ (README, Layout), lowest first:
  base/      units, errors, clocks, statistics: includes only the standard library
             (and other base/ headers)
  device/    the Device seam and the devices: base/, device/
  measure/   the sweep and its sinks: base/, device/, measure/ -- nothing above
  result/    the model of a saved result and its Curve: base/, device/, measure/, result/
  analysis/  pure computations over values: base/, device/device_info.h, measure/, result/,
             analysis/
             -- never the device seam (device/device.h and the devices) or the sweep
             (measure/sweep.h)
  format/    file formats, readers and writers: base/, device/, measure/, result/,
             analysis/, format/ -- never report/ or pipeline/; the readers
             (format/*_reader.*, and the format/reader_* files they share) never
             include the writers (format/writers.h)
  report/    plots, reports, the live view: the layers below and report/ -- never
             pipeline/, never the device seam (device/device.h and the devices)
  pipeline/  the sinks and the sweep's chain: anything in lib/
Nothing in lib/ includes the command line (zcav/*.h beside main.cc).

Usage: check-layers.py [ROOT]   (ROOT: the repository, default: this script's parent's parent)
Prints one line per include that breaks a rule ("FILE:LINE: includes X: RULE") and
exits 1 if there is any; 0 and a one-line summary otherwise.
"""
import fnmatch
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"zcav/([^"]+)"')
# Generated headers (build tree), not part of a layer: which layer may include them.
GENERATED = {"plot_templates.h": {"report"}, "version.h": set()}
# The device seam and the devices: what analysis/ and report/ never include.
DEVICE_SEAM = {"device/device.h", "device/sim_device.h", "device/write_target.h"}
# The readers of saved results: each format's reader (format/*_reader.*) and
# what they share (format/reader_*).
READER_FILES = ("format/*_reader.*", "format/reader_*")
ALLOWED = {
    "base": {"base"},
    "device": {"base", "device"},
    "measure": {"base", "device", "measure"},
    "result": {"base", "device", "measure", "result"},
    "analysis": {"base", "measure", "result", "analysis"},
    "format": {"base", "device", "measure", "result", "analysis", "format"},
    "report": {"base", "device", "measure", "result", "analysis", "format", "report"},
    "pipeline": {"base", "device", "measure", "result", "analysis", "format", "report", "pipeline"},
}


def layer_of(rel):
    """'base/units.h' -> 'base'; 'device/posix/x.h' -> 'device'; a CLI header -> 'cli'."""
    return rel.split("/", 1)[0] if "/" in rel else "cli"


def is_reader(rel):
    """'format/json_reader.cc' -> True; 'format/json_writer.cc' -> False."""
    return any(fnmatch.fnmatchcase(rel, pattern) for pattern in READER_FILES)


def violations(root):
    problems, checked = [], 0
    lib = os.path.join(root, "lib", "zcav")
    cli_headers = {f for f in os.listdir(os.path.join(root, "zcav")) if f.endswith(".h")}
    for directory, _, files in os.walk(lib):
        for name in sorted(files):
            if not name.endswith((".h", ".cc")):
                continue
            path = os.path.join(directory, name)
            rel_file = os.path.relpath(path, lib)
            here = layer_of(rel_file)
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                checked += 1
                target = m.group(1)
                where = f"{os.path.relpath(path, root)}:{number}: includes zcav/{target}"
                if target in GENERATED:
                    if here not in GENERATED[target]:
                        problems.append(f"{where}: generated header not for the {here} layer")
                    continue
                if target in cli_headers or layer_of(target) == "cli":
                    problems.append(f"{where}: lib/ never includes the command line")
                    continue
                there = layer_of(target)
                if there not in ALLOWED.get(here, set()) and not (
                        here == "analysis" and target == "device/device_info.h"):
                    problems.append(f"{where}: {here}/ may include only "
                                    f"{', '.join(sorted(ALLOWED[here]))}"
                                    + (" and device/device_info.h" if here == "analysis" else ""))
                elif here == "analysis" and target == "measure/sweep.h":
                    problems.append(f"{where}: analysis/ never includes the sweep")
                elif is_reader(rel_file) and target == "format/writers.h":
                    problems.append(f"{where}: the readers never include the writers")
                elif here == "report" and target in DEVICE_SEAM:
                    problems.append(f"{where}: report/ never reads a device")
    return problems, checked


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems, checked = violations(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check-layers: {len(problems)} include(s) against the layering (README, Layout)")
        return 1
    print(f"check-layers: {checked} includes in lib/zcav follow the layering")
    return 0


if __name__ == "__main__":
    sys.exit(main())
