#!/usr/bin/env bash
# The fleet playbook (examples/fleet/playbook.yml) for real with Ansible:
# three inventory hosts on this machine (connection local), each profiling
# two simulated drives of one model (one host reads its two at once), one
# drive weak between 40 and 60 % of its surface; the results are fetched
# into one directory and merged. The fleet report must exist and flag the
# weak drive, and only it; each host's private staging directory is gone
# afterwards. Skips (77) without ansible-playbook.
# Usage: fleet_ansible_test.sh ZCAV FLEET_EXAMPLE_DIR
set -uo pipefail
zcav=$(realpath "$1")
fleet=$(realpath "$2")
if ! command -v ansible-playbook >/dev/null; then
  echo "SKIP: ansible-playbook not installed (apt-get install ansible-core)"
  exit 77
fi
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zcav-fleet-ansible.XXXXXX")
cleanup() {
  rm -rf "$tmp"
}
trap cleanup EXIT
sim() { echo "sim:hdd?size=2G&seed=$1${2:+&weak=$2}"; }
cat >"$tmp/inventory.ini" <<INI
[fleet]
host1 zcav_devices="['$(sim 1)', '$(sim 2)']"
host2 zcav_devices="['$(sim 3)', '$(sim 4 40%-60%:0.8)']"
host3 zcav_devices="['$(sim 5)', '$(sim 6)']" zcav_mode=parallel

[fleet:vars]
ansible_connection=local
ansible_python_interpreter=/usr/bin/python3
INI
# The hosts stage their results in private directories made under this base
# (the playbook's zcav_staging_base; /var/tmp by default).
mkdir -m 0700 "$tmp/staging"
export ANSIBLE_LOCAL_TEMP=$tmp/ansible-local ANSIBLE_REMOTE_TEMP=$tmp/ansible-remote
export ANSIBLE_NOCOLOR=1 ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_RETRY_FILES_ENABLED=False
if ! ansible-playbook -i "$tmp/inventory.ini" "$fleet/playbook.yml" \
  -e "zcav_bin=$zcav zcav_results=$tmp/results zcav_staging_base=$tmp/staging" >"$tmp/ansible.log" 2>&1; then
  tail -n 30 "$tmp/ansible.log"
  fail "ansible-playbook failed"
fi
left=$(find "$tmp/staging" -mindepth 1 | head -3)
[[ -z $left ]] || fail "the staging directories were not removed: $left"
n=$(find "$tmp/results" -name profile.json | wc -l)
((n == 6)) || fail "$n profile.json fetched, not 6: $(find "$tmp/results" -type f | head)"
[[ -s $tmp/results/fleet.html ]] || fail "no fleet.html"
python3 - "$tmp/results/fleet.json" <<'PY' || fail "the fleet report does not flag exactly the weak drive"
import json, sys
doc = json.load(open(sys.argv[1]))
flagged = [d for d in doc["drives"] if d["flagged"]]
assert len(doc["drives"]) == 6, len(doc["drives"])
assert [d["serial"] for d in flagged] == ["SIM-HDD-4"], [(d["name"], d["reasons"]) for d in flagged]
r = flagged[0]["worst_region"]
assert abs(r["start_percent"] - 40) <= 1 and abs(r["end_percent"] - 60) <= 1, r
assert "/host2/" in flagged[0]["source"], flagged[0]["source"]
PY
echo "ok: the playbook profiled 6 drives on 3 hosts, fetched and merged them; SIM-HDD-4 flagged"
