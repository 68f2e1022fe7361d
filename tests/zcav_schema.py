#!/usr/bin/env python3
"""Validation of zcav's JSON against the JSON Schemas in schema/.

As a module (schema_test.py): Schemas(SCHEMA_DIR) loads them; check_file()
picks the schema a document says it is (schema_of) and validates it, an
events file line by line.

As a script: python3 zcav_schema.py SCHEMA_DIR FILE... validates every FILE
(a zcav JSON document or an events file) and prints one line per failure
(with --list LIST instead of the files: LIST's lines "PATH<TAB>NAME");
exit 0 when all validate, 1 when one does not, 77 (skip) without
python3-jsonschema.

Needs python3-jsonschema (Debian 12: 4.10); where the python3 on PATH lacks
it, /usr/bin/python3 runs the calling script instead.
"""
import json
import os
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("skip: python3-jsonschema is not installed (scripts/install-deps.sh)")
    sys.exit(77)


def schema_of(name, doc):
    """The schema a document (parsed; `name` its file name) belongs to."""
    if name == "aggregate.json":
        return "aggregate"
    if isinstance(doc, list) or "source" in doc:
        return "zones"
    if doc.get("format") == "zcav-merge":
        return "merge"
    if doc.get("format") == "zcav":
        return "profile" if "profile" in doc else "sweep"
    if "access" in doc or "random_access" in doc:
        return "access"
    if "burst" in doc:
        return "burst"
    if "verify" in doc:
        return "verify"
    return None


class Schemas:
    def __init__(self, schema_dir):
        self.schemas = {}
        for path in sorted(pathlib.Path(schema_dir).glob("*.schema.json")):
            schema = json.loads(path.read_text())
            jsonschema.Draft202012Validator.check_schema(schema)
            self.schemas[path.name[: -len(".schema.json")]] = schema
        self.validators = {n: self._validator(n) for n in self.schemas if n != "defs"}
        self.checked = {n: 0 for n in self.validators}
        self.failures = []

    def _validator(self, name):
        schema = self.schemas[name]
        try:  # jsonschema 4.18 and later
            from referencing import Registry, Resource

            registry = Registry().with_resources(
                (s["$id"], Resource.from_contents(s)) for s in self.schemas.values()
            )
            return jsonschema.Draft202012Validator(schema, registry=registry)
        except ImportError:  # Debian 12's 4.10
            store = {s["$id"]: s for s in self.schemas.values()}
            resolver = jsonschema.RefResolver.from_schema(schema, store=store)
            return jsonschema.Draft202012Validator(schema, resolver=resolver)

    def check(self, name, doc, where):
        errors = sorted(self.validators[name].iter_errors(doc), key=lambda e: list(e.path))
        self.checked[name] += 1
        for e in errors[:3]:
            path = "/".join(map(str, e.path))
            self.failures.append(f"{where}: {name} schema: {path}: {e.message[:200]}")

    def rejects(self, name, doc, what):
        if self.validators[name].is_valid(doc):
            self.failures.append(f"a broken {name} document validates: {what}")

    def check_file(self, path, name=None):
        """Validates the file at `path` (shown as `name`, by default the
        path): an events file (first line {"event": ...) line by line, a
        cut last line skipped as readers do; else one document."""
        path = pathlib.Path(path)
        where = name or str(path)
        text = path.read_text()
        if text.startswith('{"event":'):
            lines = text.splitlines()
            for n, line in enumerate(lines, 1):
                try:
                    event = json.loads(line)
                except json.JSONDecodeError:
                    if n == len(lines) and not text.endswith("\n"):
                        continue  # a run killed while writing its last line
                    self.failures.append(f"{where}:{n}: not JSON")
                    continue
                self.check("events", event, f"{where}:{n}")
            return
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            self.failures.append(f"{where}: not JSON: {e}")
            return
        kind = schema_of(pathlib.Path(where).name, doc)
        if kind is None:
            self.failures.append(f"{where}: no schema says what this document is")
        else:
            self.check(kind, doc, where)


def main(argv):
    if len(argv) < 2 or (argv[1] == "--list" and len(argv) != 3):
        sys.exit("usage: zcav_schema.py SCHEMA_DIR FILE... | SCHEMA_DIR --list LIST")
    schemas = Schemas(argv[0])
    if argv[1] == "--list":  # lines "PATH<TAB>NAME TO SHOW"
        files = [line.rstrip("\n").split("\t", 1) for line in open(argv[2]) if line.strip()]
    else:
        files = [(f, f) for f in argv[1:]]
    for path, name in files:
        schemas.check_file(path, name)
    for f in schemas.failures:
        print("FAIL:", f)
    counts = ", ".join(f"{n} {k}" for k, n in schemas.checked.items() if n)
    print(f"{len(files)} files ({counts or 'nothing'}) checked, {len(schemas.failures)} failures")
    return 1 if schemas.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
