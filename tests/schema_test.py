#!/usr/bin/env python3
"""The JSON Schemas in schema/ hold for what zcav writes.

Validates every JSON file in examples/, the JSON the CLI writes now on
simulated devices (sweep --format json, --events lines of a sweep and of a
profile, DIR/profile.json, zones --format json for one and two files, access
and burst --format json, DIR/aggregate.json of a two-device sweep), and shows
that broken documents are rejected.

Usage: python3 schema_test.py SCHEMA_DIR EXAMPLES_DIR /path/to/zcav
Needs python3-jsonschema (Debian 12: 4.10); where the python3 on PATH lacks
it, /usr/bin/python3 runs the test instead. Exits 77 (skip) when neither has
it, 1 when a document does not validate.
"""
import copy
import json
import os
import pathlib
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("skip: python3-jsonschema is not installed (scripts/install-deps.sh)")
    sys.exit(77)

if len(sys.argv) != 4:
    sys.exit("usage: schema_test.py SCHEMA_DIR EXAMPLES_DIR /path/to/zcav")
SCHEMA_DIR = pathlib.Path(sys.argv[1])
EXAMPLES = pathlib.Path(sys.argv[2])
ZCAV = os.path.realpath(sys.argv[3])

SCHEMAS = {}
for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    SCHEMAS[path.name[: -len(".schema.json")]] = schema


def validator(name):
    schema = SCHEMAS[name]
    try:  # jsonschema 4.18 and later
        from referencing import Registry, Resource

        registry = Registry().with_resources(
            (s["$id"], Resource.from_contents(s)) for s in SCHEMAS.values()
        )
        return jsonschema.Draft202012Validator(schema, registry=registry)
    except ImportError:  # Debian 12's 4.10
        store = {s["$id"]: s for s in SCHEMAS.values()}
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return jsonschema.Draft202012Validator(schema, resolver=resolver)


VALIDATORS = {name: validator(name) for name in SCHEMAS if name != "defs"}
failures = []
checked = {name: 0 for name in VALIDATORS}


def check(name, doc, where):
    errors = sorted(VALIDATORS[name].iter_errors(doc), key=lambda e: list(e.path))
    checked[name] += 1
    for e in errors[:3]:
        failures.append(f"{where}: {name} schema: {'/'.join(map(str, e.path))}: {e.message[:200]}")


def rejects(name, doc, what):
    if VALIDATORS[name].is_valid(doc):
        failures.append(f"a broken {name} document validates: {what}")


def schema_of(path, doc):
    if path.name == "aggregate.json":
        return "aggregate"
    if isinstance(doc, list) or "source" in doc:
        return "zones"
    if doc.get("format") == "zcav":
        return "profile" if "profile" in doc else "sweep"
    if "access" in doc:
        return "access"
    if "burst" in doc:
        return "burst"
    return None


def check_file(path):
    if path.suffix == ".jsonl":
        for n, line in enumerate(path.read_text().splitlines(), 1):
            check("events", json.loads(line), f"{path}:{n}")
        return
    doc = json.loads(path.read_text())
    name = schema_of(path, doc)
    if name is None:
        failures.append(f"{path}: no schema says what this document is")
    else:
        check(name, doc, str(path))


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
    zcav("sweep", "sim:hdd?size=1G&seed=1", "sim:hdd?size=1G&seed=2", "-o", "two",
         "--format", "json", "--quiet", cwd=w)
    fresh = [w / n for n in ("sweep.json", "sweep.jsonl", "profile.jsonl", "p/profile.json",
                             "zones-one.json", "zones-two.json", "zones-events.json",
                             "access.json", "burst.json", "two/aggregate.json")]
    fresh += sorted(p for p in (w / "two").glob("*.json") if p.name != "aggregate.json")
    for path in fresh:
        if not path.is_file() or path.stat().st_size == 0:
            failures.append(f"{path.relative_to(w)}: not written")
            continue
        check_file(path)
    events = [json.loads(l) for l in (w / "sweep.jsonl").read_text().splitlines()]
    names = {e["event"] for e in events}
    for n in ("start", "pass_start", "block", "pass_end", "unreadable", "health", "zones", "done"):
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
