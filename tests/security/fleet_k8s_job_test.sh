#!/usr/bin/env bash
# Security, fleet examples (issue 36): the Kubernetes Job of
# examples/fleet/k8s-job.yaml, checked statically (no cluster here, no
# kubectl or kubeconform): it parses as YAML, and
#   - nothing is privileged, no hostPath (so not the node's /dev), no
#     capability added, every one dropped, no privilege escalation, a
#     read-only root file system;
#   - the disk is one raw block volume (volumeDevices) from a claim mounted
#     readOnly, bound to a local PersistentVolume named by /dev/disk/by-id/;
#   - the node's name comes from the downward API (spec.nodeName) and is in
#     the output name; the Job has activeDeadlineSeconds and backoffLimit;
#   - the image has a tag and a digest (the placeholder to replace).
# Usage: bash fleet_k8s_job_test.sh /path/to/k8s-job.yaml. Exit 77 without
# python3's yaml module.
set -euo pipefail

MANIFEST=$(realpath "$1")
if ! python3 -c 'import yaml' 2>/dev/null; then
  echo "skip: python3 has no yaml module (apt-get install python3-yaml)" >&2
  exit 77
fi
python3 - "$MANIFEST" <<'PY'
import re
import sys

import yaml

path = sys.argv[1]
with open(path) as f:
    docs = [d for d in yaml.safe_load_all(f) if d is not None]
fails = []


def check(cond, what):
    print(("ok - " if cond else "FAIL - ") + what)
    if not cond:
        fails.append(what)


def walk(node, trail=""):
    """Yields (trail, key, value) for every mapping entry in node."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield trail, key, value
            yield from walk(value, trail + "." + str(key))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from walk(item, "%s[%d]" % (trail, i))


by_kind = {}
for doc in docs:
    by_kind.setdefault(doc.get("kind"), []).append(doc)
check(len(by_kind.get("Job", [])) == 1, "one Job")
privileged = [t for t, k, v in walk(docs) if k == "privileged" and v is True]
check(not privileged, "nothing privileged: true (%s)" % privileged)
host_paths = [t for t, k, v in walk(docs) if k == "hostPath"]
check(not host_paths, "no hostPath volume, so not the node's /dev (%s)" % host_paths)
for key in ("hostPID", "hostIPC", "hostNetwork"):
    check(not any(k == key and v for _, k, v in walk(docs)), "no " + key)

job = by_kind["Job"][0]
spec = job["spec"]
check(isinstance(spec.get("activeDeadlineSeconds"), int) and spec["activeDeadlineSeconds"] > 0,
      "the Job has an activeDeadlineSeconds")
check(isinstance(spec.get("backoffLimit"), int), "the Job has a backoffLimit")
pod = spec["template"]["spec"]
containers = pod.get("containers", []) + pod.get("initContainers", [])
check(len(containers) >= 1, "the Job has a container")
volumes = {v["name"]: v for v in pod.get("volumes", [])}
for c in containers:
    name = c.get("name")
    sc = c.get("securityContext") or {}
    caps = sc.get("capabilities") or {}
    check(sc.get("allowPrivilegeEscalation") is False, name + ": allowPrivilegeEscalation false")
    check(sc.get("readOnlyRootFilesystem") is True, name + ": readOnlyRootFilesystem")
    check("ALL" in (caps.get("drop") or []), name + ": capabilities drop ALL")
    check(not caps.get("add"), name + ": no capability added (%s)" % caps.get("add"))
    image = c.get("image", "")
    m = re.fullmatch(r"[^@\s]+/[^@\s/]+:([^@\s:/]+)@sha256:(\S+)", image)
    check(m is not None and m.group(1) != "latest", name + ": image pinned by tag and digest (%s)" % image)
    env = {e["name"]: e for e in c.get("env", [])}
    node_field = env.get("NODE_NAME", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
    check(node_field == "spec.nodeName", name + ": NODE_NAME from the downward API (spec.nodeName)")
    argv = c.get("command", []) + c.get("args", [])
    out = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "-o"]
    check(len(out) == 1 and "$(NODE_NAME)" in out[0], name + ": the output name holds $(NODE_NAME) (%s)" % out)
    devices = c.get("volumeDevices", [])
    check(len(devices) == 1, name + ": one raw block device (volumeDevices)")
    for d in devices:
        check(d["devicePath"] in argv, name + ": zcav reads the device it is given (%s)" % d["devicePath"])
        claim = volumes.get(d["name"], {}).get("persistentVolumeClaim") or {}
        check(claim.get("readOnly") is True, name + ": the device's claim is mounted readOnly")
        pvcs = [p for p in by_kind.get("PersistentVolumeClaim", [])
                if p["metadata"]["name"] == claim.get("claimName")]
        check(len(pvcs) == 1 and pvcs[0]["spec"].get("volumeMode") == "Block",
              name + ": the claim is in the manifest, volumeMode Block")
        pv_name = pvcs[0]["spec"].get("volumeName") if pvcs else None
        pvs = [p for p in by_kind.get("PersistentVolume", []) if p["metadata"]["name"] == pv_name]
        local = pvs[0]["spec"].get("local", {}).get("path", "") if pvs else ""
        check(local.startswith("/dev/disk/by-id/"), name + ": the disk named by /dev/disk/by-id/ (%s)" % local)
        check(bool(pvs) and pvs[0]["spec"].get("claimRef", {}).get("name") == claim.get("claimName"),
              name + ": the PersistentVolume is reserved for this claim (claimRef)")
    for m in c.get("volumeMounts", []):
        v = volumes.get(m["name"], {})
        check("emptyDir" in v or m.get("readOnly") is True,
              name + ": " + m["mountPath"] + " is the pod's own (emptyDir) or read-only")
if fails:
    sys.exit("%d check(s) failed in %s" % (len(fails), path))
print("ok: %s has no privileged container, one read-only by-id disk, the node from the downward API"
      % path)
PY
