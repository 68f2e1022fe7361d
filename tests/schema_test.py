#!/usr/bin/env python3
"""The JSON Schemas in schema/ hold for what zcav writes.

Validates every JSON file in examples/, the JSON the CLI writes now on
simulated devices (sweep --format json, --events lines of a sweep and of a
profile, DIR/profile.json, zones --format json for one and two files, access
and burst --format json, DIR/aggregate.json of a two-device sweep, zcav merge
-o OUT.json of three sweeps), and shows
that broken documents are rejected.

Usage: python3 schema_test.py SCHEMA_DIR EXAMPLES_DIR /path/to/zcav
Needs python3-jsonschema (zcav_schema.py): exits 77 (skip) without it, 1
when a document does not validate.
"""
import copy
import json
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zcav_schema import Schemas  # noqa: E402 (exits 77 without jsonschema)

if len(sys.argv) != 4:
    sys.exit("usage: schema_test.py SCHEMA_DIR EXAMPLES_DIR /path/to/zcav")
SCHEMA_DIR = pathlib.Path(sys.argv[1])
EXAMPLES = pathlib.Path(sys.argv[2])
ZCAV = os.path.realpath(sys.argv[3])

SCHEMAS = Schemas(SCHEMA_DIR)
failures = SCHEMAS.failures
check_file = SCHEMAS.check_file
rejects = SCHEMAS.rejects
checked = SCHEMAS.checked
VALIDATORS = SCHEMAS.validators


def zcav(*args, code=0, cwd):
    r = subprocess.run([ZCAV, *args], cwd=cwd, capture_output=True, text=True)
    if r.returncode != code:
        failures.append(f"zcav {' '.join(args)}: exit {r.returncode}, wanted {code}: {r.stderr[-300:]}")
    return r.stdout


examples = sorted(EXAMPLES.rglob("*.json")) + sorted(EXAMPLES.rglob("*.jsonl"))
for path in examples:
    check_file(path)

with tempfile.TemporaryDirectory(prefix="zcav-schema-test.", dir="/var/tmp") as tmp:
    w = pathlib.Path(tmp)
    # A two-pass sweep with an unreadable sector and its events (exit 1).
    zcav("sweep", "sim:hdd?size=1G&bad=600M+4k", "--passes", "2", "--format", "json",
         "-o", "sweep.json", "--events", "sweep.jsonl", "--quiet", code=1, cwd=w)
    (w / "profile.jsonl").write_text(
        zcav("profile", "sim:ssd?size=1G", "-o", "p", "--quiet", "--events", "-", cwd=w))
    (w / "zones-one.json").write_text(zcav("zones", "sweep.json", "--format", "json", cwd=w))
    (w / "zones-two.json").write_text(
        zcav("zones", "sweep.json", "p/profile.json", "--format", "json", cwd=w))
    (w / "zones-events.json").write_text(
        zcav("zones", "sweep.jsonl", "--format", "json", cwd=w))
    (w / "access.json").write_text(zcav("access", "sim:hdd", "--format", "json", cwd=w))
    (w / "burst.json").write_text(zcav("burst", "sim:hdd", "--format", "json", cwd=w))
    (w / "verify.json").write_text(
        zcav("verify", "sim:ssd?size=256M&real=64M", "--destroy-data", "--format", "json",
             "--quiet", code=6, cwd=w))
    zcav("sweep", "sim:hdd?size=1G&seed=1", "sim:hdd?size=1G&seed=2", "-o", "two",
         "--format", "json", "--quiet", cwd=w)
    # An adaptive sweep: its probes and its "adaptive" member.
    zcav("sweep", "sim:hdd?size=200G", "--adaptive", "--format", "json", "-o", "adaptive.json",
         "--quiet", cwd=w)
    # A write sweep past a card's write cache: "worst_stall" and "sustained"
    # after the cache.
    zcav("sweep", "--write", "--destroy-data",
         "sim:ssd?size=512M&noise=0&wcache=64M&wcache_rate=90&wrate=30&hiccups=2%&hiccup=300",
         "--block-size", "4M", "--format", "json", "-o", "write.json", "--quiet", cwd=w)
    # A fleet of three, one weak, merged.
    (w / "fleet").mkdir()
    for seed, weak in ((1, ""), (2, "&weak=20%-40%:0.7"), (3, "")):
        zcav("sweep", f"sim:hdd?size=1G&seed={seed}{weak}", "--format", "json", "-o",
             f"fleet/{seed}.json", "--quiet", cwd=w)
    zcav("merge", "fleet", "-o", "merge.json", "--quiet", cwd=w)
    fresh = [w / n for n in ("sweep.json", "sweep.jsonl", "profile.jsonl", "p/profile.json",
                             "zones-one.json", "zones-two.json", "zones-events.json",
                             "access.json", "burst.json", "verify.json", "two/aggregate.json",
                             "merge.json", "adaptive.json", "write.json")]
    fresh += sorted(p for p in (w / "two").glob("*.json") if p.name != "aggregate.json")
    for path in fresh:
        if not path.is_file() or path.stat().st_size == 0:
            failures.append(f"{path.relative_to(w)}: not written")
            continue
        check_file(path)
    events = [json.loads(l) for l in (w / "sweep.jsonl").read_text().splitlines()]
    names = {e["event"] for e in events}
    for n in ("start", "pass_start", "sample", "block", "pass_end", "unreadable", "health",
              "zones", "done"):
        if n not in names:
            failures.append(f"sweep.jsonl: no {n} event (the schema check would miss it)")

    # Broken documents are rejected.
    sweep = json.loads((w / "sweep.json").read_text())
    broken = copy.deepcopy(sweep)
    del broken["blocks"]
    rejects("sweep", broken, "no blocks")
    broken = copy.deepcopy(sweep)
    broken["blocks"][0]["mb_per_s"] = "fast"
    rejects("sweep", broken, "a rate that is a string")
    broken = copy.deepcopy(sweep)
    broken["schema_version"] = "2.0"
    rejects("sweep", broken, "another major schema_version")
    broken = copy.deepcopy(sweep)
    broken["device"]["size_bytes"] = -1
    rejects("sweep", broken, "a negative size")
    done = copy.deepcopy(events[-1])
    del done["exit_code"]
    rejects("events", done, "a done event without its exit code")
    block = copy.deepcopy(next(e for e in events if e["event"] == "block"))
    del block["offset_bytes"]
    rejects("events", block, "a block event without its offset")
    broken = json.loads((w / "adaptive.json").read_text()) if (w / "adaptive.json").is_file() else {}
    broken.get("adaptive", {}).get("edges", [{}])[0].pop("uncertainty_bytes", None)
    rejects("sweep", broken, "an adaptive edge without its uncertainty")
    verify = json.loads((w / "verify.json").read_text()) if (w / "verify.json").is_file() else {}
    verify.get("verify", {}).get("ranges", [{}])[0]["state"] = "fine"
    rejects("verify", verify, "a range of an unknown state")
    write = json.loads((w / "write.json").read_text()) if (w / "write.json").is_file() else {}
    if not (write.get("sustained") or {}).get("after_write_cache"):
        failures.append("write.json: no sustained rate after a write cache")
    if (write.get("worst_stall") or {}).get("ms", 0) <= 0:
        failures.append("write.json: no worst stall")
    broken = copy.deepcopy(write)
    broken.get("worst_stall", {}).pop("offset_bytes", None)
    rejects("sweep", broken, "a worst stall without its place")
    broken = copy.deepcopy(write)
    if broken.get("sustained"):
        broken["sustained"]["mb_per_s"] = "fast"
    rejects("sweep", broken, "a sustained rate that is a string")
    aggregate = json.loads((w / "two/aggregate.json").read_text()) if (w / "two/aggregate.json").is_file() else {}
    aggregate.pop("devices", None)
    rejects("aggregate", aggregate, "no devices")

for name, n in checked.items():
    if n == 0:
        failures.append(f"nothing validated against schema/{name}.schema.json")
for f in failures:
    print("FAIL:", f)
print(f"{sum(checked.values())} documents checked against {len(VALIDATORS)} schemas "
      f"({len(examples)} from examples/), {len(failures)} failures")
sys.exit(1 if failures else 0)
