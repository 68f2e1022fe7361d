#!/usr/bin/env bash
# Security, fleet examples (issue 36): the Ansible playbook's staging
# directory. Run as root; the attacker is uid 65534 (setpriv), an ordinary
# account on a fleet host. Two inventory hosts on this machine (connection
# local, one in parallel mode) with simulated drives, staging under BASE, a
# sticky world-writable directory like /var/tmp that this test made.
#   A. The attacker first makes BASE/zcav-fleet/HOST (the playbook's old
#      staging layout, /var/tmp/zcav-fleet/HOST) holding a forged
#      profile.json whose model carries a marker, and keeps swapping any
#      zcav-fleet* directory root makes for one of its own. The play must be
#      unaffected: every drive fetched, the marker nowhere in the fetched
#      files, fleet.json or fleet.html, and no staging directory left.
#   B. zcav_staging_base is a directory the attacker owns (with a planted
#      zcav-fleet/HOST): the play fails with "refusing staging base", nothing
#      forged fetched.
#   C. zcav_staging_base is a symlink the attacker planted in BASE: the same.
# The old playbook's staging path is also set (-e remote_dir=...) so that this
# test runs against the base commit's examples/fleet, where A fails.
# Usage: bash fleet_staging_test.sh /path/to/zcav /path/to/examples/fleet.
# Exit 77 without root, setpriv or ansible-playbook.
set -euo pipefail

ZCAV=$(realpath "$1")
FLEET=$(realpath "$2")
if [[ $(id -u) -ne 0 ]]; then
  echo "skip: needs root (the play runs as root, the attacker as uid 65534)" >&2
  exit 77
fi
for tool in setpriv ansible-playbook python3; do
  command -v "$tool" >/dev/null || {
    echo "skip: no $tool" >&2
    exit 77
  }
done

WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/zcav-sec-fleet.XXXXXX")
ATTACKER=""
cleanup() {
  set +e
  if [[ -n $ATTACKER ]]; then
    kill "$ATTACKER" 2>/dev/null
    wait "$ATTACKER" 2>/dev/null
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
chmod 755 "$WORK"  # the attacker may look in (not write)
BASE=$WORK/tmp
mkdir -m 1777 "$BASE"  # like /var/tmp
MARKER="FORGED-ZCAV-MARKER-$$"
as_attacker() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

FAILS=0
ok() { echo "ok - $1"; }
fail() {
  echo "FAIL - $1" >&2
  FAILS=$((FAILS + 1))
}

# The forged result: a real profile of a simulated drive, its model and serial
# replaced by the marker; readable by the attacker.
"$ZCAV" profile "sim:hdd?size=1G&seed=99" -q -o "$WORK/forge" || {
  echo "FAIL - zcav profile of the forged drive" >&2
  exit 1
}
python3 - "$WORK/forge/profile.json" "$MARKER" <<'PY'
import json, sys
path, marker = sys.argv[1], sys.argv[2]
with open(path) as f:
    doc = json.load(f)
hits = 0
def walk(node):
    global hits
    if isinstance(node, dict):
        for key in list(node):
            if key in ("model", "serial") and isinstance(node[key], str):
                node[key] = marker
                hits += 1
            else:
                walk(node[key])
    elif isinstance(node, list):
        for item in node:
            walk(item)
walk(doc)
assert hits >= 2, "no model/serial in the profile to forge"
with open(path, "w") as f:
    json.dump(doc, f)
PY
chmod -R a+rX "$WORK/forge"
grep -q "$MARKER" "$WORK/forge/profile.json"

# The attacker's planting: DIR/forged-sim/profile.json.
cat >"$WORK/plant.sh" <<'SH'
# plant DIR: a forged result inside DIR (errors ignored).
plant() {
  mkdir -p "$1/forged-sim" 2>/dev/null &&
    cp "$FORGED" "$1/forged-sim/profile.json" 2>/dev/null
  return 0
}
# The attacker's loop: any zcav-fleet* staging directory (or HOST below
# zcav-fleet) root made is swapped for the attacker's own if the parent
# lets it, and planted into if it lets it.
watch() {
  local d
  while :; do
    for d in "$BASE"/zcav-fleet "$BASE"/zcav-fleet/host? "$BASE"/zcav-fleet.*; do
      [[ -e $d ]] || continue
      if [[ $(stat -c %u "$d" 2>/dev/null) != 65534 ]] &&
        mv "$d" "$d.moved.$RANDOM" 2>/dev/null; then
        mkdir -p "$d" 2>/dev/null
      fi
      [[ $d == "$BASE"/zcav-fleet ]] || plant "$d"
    done
    for d in host1 host2; do
      [[ -e $BASE/zcav-fleet/$d ]] || { mkdir -p "$BASE/zcav-fleet/$d" 2>/dev/null && plant "$BASE/zcav-fleet/$d"; }
    done
    sleep 0.02
  done
}
SH

cat >"$WORK/inventory.ini" <<INI
[fleet]
host1 zcav_devices="['sim:hdd?size=1G&seed=1', 'sim:hdd?size=1G&seed=2']"
host2 zcav_devices="['sim:hdd?size=1G&seed=3', 'sim:hdd?size=1G&seed=4']" zcav_mode=parallel

[fleet:vars]
ansible_connection=local
ansible_python_interpreter=/usr/bin/python3
INI
export ANSIBLE_LOCAL_TEMP=$WORK/ansible-local ANSIBLE_REMOTE_TEMP=$WORK/ansible-remote
export ANSIBLE_NOCOLOR=1 ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_RETRY_FILES_ENABLED=False

# play NAME STAGING_BASE: runs the playbook; its exit code in RC, its log in
# $WORK/NAME.log, its results in $WORK/results-NAME. remote_dir is the old
# playbook's staging path (/var/tmp/zcav-fleet/HOST) moved under BASE.
play() {
  RC=0
  ansible-playbook -i "$WORK/inventory.ini" "$FLEET/playbook.yml" \
    -e "zcav_bin=$ZCAV zcav_results=$WORK/results-$1 zcav_staging_base=$2" \
    -e "remote_dir=$BASE/zcav-fleet/{{ inventory_hostname }}" >"$WORK/$1.log" 2>&1 || RC=$?
}
# forged_absent NAME: the marker is in no file of the results.
forged_absent() {
  local hit
  hit=$(grep -rl -- "$MARKER" "$WORK/results-$1" 2>/dev/null | head -3 || true)
  if [[ -z $hit ]]; then ok "$1: the forged result is in no fetched file or report"; else
    fail "$1: the forged result reached the control host: ${hit//$'\n'/ }"
  fi
}

# A. The old layout planted, the attacker watching.
as_attacker bash -c "FORGED='$WORK/forge/profile.json' BASE='$BASE'
  . '$WORK/plant.sh'
  mkdir -p '$BASE/zcav-fleet/host1' '$BASE/zcav-fleet/host2'
  plant '$BASE/zcav-fleet/host1'; plant '$BASE/zcav-fleet/host2'"
# exec: $! is the attacker's shell itself, so the cleanup can end it by PID.
FORGED=$WORK/forge/profile.json BASE=$BASE \
  setpriv --reuid=65534 --regid=65534 --clear-groups \
  bash -c ". '$WORK/plant.sh'; watch" &
ATTACKER=$!
play planted "$BASE"
kill "$ATTACKER" 2>/dev/null || true
wait "$ATTACKER" 2>/dev/null || true
ATTACKER=""
forged_absent planted
if [[ $RC -eq 0 ]]; then
  n=$(find "$WORK/results-planted" -name profile.json | wc -l)
  if [[ $n -eq 4 ]]; then ok "planted: the play went on in its own directory, 4 drives fetched"; else
    fail "planted: $n results fetched, not the 4 drives"
  fi
  [[ -s $WORK/results-planted/fleet.json ]] || fail "planted: no fleet.json"
elif grep -q "zcav fleet: refusing" "$WORK/planted.log"; then
  ok "planted: the play refused with a clear message"
else
  fail "planted: the play failed (exit $RC) without saying why: $(tail -n 5 "$WORK/planted.log")"
fi
left=$(find "$BASE" -maxdepth 1 -name 'zcav-fleet.*' -user root | head -3)
if [[ -z $left ]]; then ok "planted: no staging directory of root left"; else
  fail "planted: staging directories left: ${left//$'\n'/ }"
fi

# B. A staging base the attacker owns, already holding its layout.
mkdir -m 0755 "$WORK/evil"
chown 65534:65534 "$WORK/evil"
as_attacker bash -c "FORGED='$WORK/forge/profile.json'; . '$WORK/plant.sh'
  for h in host1 host2; do mkdir -p '$WORK/evil/zcav-fleet/'\$h; plant '$WORK/evil/zcav-fleet/'\$h; done"
# C. A symlink planted in the sticky BASE, to a directory root owns.
mkdir -m 0700 "$WORK/rootdir"
as_attacker ln -s "$WORK/rootdir" "$BASE/staging-link"
for c in "evil $WORK/evil" "symlink $BASE/staging-link"; do
  name=${c%% *}
  play "$name" "${c#* }"
  forged_absent "$name"
  if [[ $RC -ne 0 ]] && grep -q "zcav fleet: refusing staging base" "$WORK/$name.log"; then
    ok "$name: the play refused the staging base (exit $RC)"
  else
    fail "$name: the play did not refuse the staging base (exit $RC): $(grep -m1 -i 'fatal\|refusing' "$WORK/$name.log" || true)"
  fi
  if [[ -z $(find "$WORK/results-$name" -name profile.json 2>/dev/null) ]]; then ok "$name: nothing fetched"; else
    fail "$name: results fetched from a refused base"
  fi
done

if [[ $FAILS -ne 0 ]]; then
  echo "$FAILS check(s) failed; logs: the ansible output above" >&2
  for f in "$WORK"/*.log; do
    echo "--- $(basename "$f")" >&2
    tail -n 15 "$f" >&2
  done
  exit 1
fi
echo "ok: the fleet playbook stages in its own private directory; planted and foreign ones are never fetched"
