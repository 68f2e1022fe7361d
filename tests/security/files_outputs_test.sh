#!/usr/bin/env bash
# Security (files, output targets, signals; issue 36): run as root, with an
# unprivileged attacker (uid 65534 via setpriv) planting files where a
# shared directory lets them.
#   - -o and --events to a loop device this test made over its own file (and
#     to a symlink to it) are refused with exit 2, the device unchanged;
#     --events naming the device being read (a file) is refused, the file
#     unchanged.
#   - A symlink planted at a guessable temporary name (TARGET.tmp.PID for
#     several PIDs) is not written through: the victim (0600) keeps its text.
#   - zcav profile -o DIR refuses a DIR made by uid 65534 (with planted
#     symlinks inside) and a world-writable DIR.
#   - An existing result's mode 0600 is kept when it is written again.
#   - SIGHUP during a sweep leaves a .partial that --resume accepts.
#   - 'zcav sweep ... --events - | head -n 1': exit 0, the result written.
# Usage: bash files_outputs_test.sh /path/to/zcav. Exit 77 without root,
# setpriv or losetup.
set -euo pipefail

ZCAV=$(realpath "$1")
if [[ $(id -u) -ne 0 ]]; then
  echo "skip: needs root (loop devices, an attacker uid)" >&2
  exit 77
fi
for tool in setpriv losetup; do
  command -v "$tool" >/dev/null || {
    echo "skip: no $tool" >&2
    exit 77
  }
done

WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/zcav-sec-files.XXXXXX")
LOOP=""
BG=""
cleanup() {
  set +e
  [[ -n $BG ]] && kill -KILL "$BG" 2>/dev/null && wait "$BG" 2>/dev/null
  [[ -n $LOOP ]] && losetup -d "$LOOP"
  rm -rf "$WORK"
}
trap cleanup EXIT
chmod 755 "$WORK"  # the attacker may look in (not write)
cd "$WORK"
umask 022

FAILS=0
ok() { echo "ok - $1"; }
fail() {
  echo "FAIL - $1" >&2
  FAILS=$((FAILS + 1))
}
# expect CODE NAME CMD...: runs CMD, its exit code must be CODE.
expect() {
  local want=$1 name=$2 rc=0
  shift 2
  "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" || rc=$?
  if [[ $rc -eq $want ]]; then ok "$name"; else
    fail "$name: exit $rc, wanted $want: $(head -c 400 "$WORK/err.txt")"
  fi
}
attacker() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
SIM='sim:hdd?size=256M'

# --- Devices as outputs --------------------------------------------------
head -c $((8 * 1024 * 1024)) /dev/urandom >backing.img
cp backing.img backing.orig
LOOP=$(losetup -f --show backing.img)
ln -s "$LOOP" loop-link
for target in "$LOOP" loop-link; do
  expect 2 "-o $target is refused" "$ZCAV" sweep "$SIM" --block-size 8M --quiet -o "$target"
  grep -q "refusing to write to $target: .*block device" err.txt ||
    fail "-o $target: the refusal names it: $(cat err.txt)"
  expect 2 "--events $target is refused" "$ZCAV" sweep "$SIM" --block-size 8M --quiet \
    -o res.dat --events "$target"
  [[ ! -e res.dat ]] || fail "--events $target: no result written after the refusal"
done
cmp -s "$LOOP" backing.orig && ok "the loop device is unchanged" ||
  fail "the loop device was written"
losetup -d "$LOOP"
LOOP=""

head -c $((16 * 1024 * 1024)) /dev/urandom >dev.img
cp dev.img dev.orig
expect 2 "--events naming the device being read is refused" "$ZCAV" sweep ./dev.img \
  --block-size 1M --quiet -o res.dat --events ./dev.img
cmp -s dev.img dev.orig && ok "the device being read is unchanged" ||
  fail "--events overwrote the device being read ($(stat -c %s dev.img) bytes)"

# --- Planted symlinks at guessable temporary names -----------------------
# In a directory the attacker owns (root writing into a user's directory):
# fs.protected_symlinks does not guard it, as it does a sticky /tmp.
mkdir shared && chmod 1777 shared
attacker mkdir shared/evil
mkdir private && printf 'secret\n' >private/victim && chmod 600 private/victim
chmod 755 private
rc=0
(
  for i in 0 1 2 3 4 5 6 7; do
    attacker ln -s "$WORK/private/victim" "shared/evil/r.dat.tmp.$((BASHPID + i))"
  done
  exec "$ZCAV" sweep "$SIM" --block-size 8M --quiet -o shared/evil/r.dat
) 2>err.txt || rc=$?
[[ $(cat private/victim) == secret ]] && ok "-o: a planted TARGET.tmp.PID symlink is not written through" ||
  fail "-o: the victim was overwritten through a planted temporary name (exit $rc)"
[[ $rc -eq 0 && -s shared/evil/r.dat ]] && ok "-o: the result is written beside the planted links" ||
  fail "-o: exit $rc, $(cat err.txt)"

# --- profile -o DIR --------------------------------------------------------
attacker mkdir shared/prof
rc=0
(
  for i in 0 1 2 3 4 5 6 7; do
    for f in profile.json summary.txt zones.txt; do
      attacker ln -s "$WORK/private/victim" "shared/prof/$f.tmp.$((BASHPID + i))"
    done
  done
  exec "$ZCAV" profile "$SIM" --quick --quiet -o shared/prof
) >out.txt 2>err.txt || rc=$?
[[ $rc -eq 2 ]] && ok "profile -o DIR made by uid 65534 is refused" ||
  fail "profile -o DIR made by uid 65534: exit $rc, wanted 2"
[[ $(cat private/victim) == secret ]] && ok "profile: the victim is unchanged" ||
  fail "profile: the victim was overwritten through DIR/NAME.tmp.PID"
mkdir open && chmod 777 open
expect 2 "profile -o DIR writable by everyone is refused" "$ZCAV" profile "$SIM" --quick --quiet \
  -o open
[[ -z $(ls open) ]] || fail "profile wrote into the refused world-writable DIR"
expect 0 "profile -o a new DIR works" "$ZCAV" profile "$SIM" --quick --quiet -o new-prof
[[ $(stat -c %a new-prof) == 755 && -s new-prof/profile.json ]] ||
  fail "profile: the new DIR is $(stat -c %a new-prof), profile.json $(ls new-prof)"

# --- An existing file's mode is kept ---------------------------------------
printf 'old\n' >kept.dat && chmod 600 kept.dat
expect 0 "a sweep rewrites an existing result" "$ZCAV" sweep "$SIM" --block-size 8M --quiet \
  -o kept.dat
[[ $(stat -c %a kept.dat) == 600 ]] && ok "its mode 0600 is kept" ||
  fail "the rewritten result's mode is $(stat -c %a kept.dat), wanted 600"

# --- SIGHUP keeps a .partial ----------------------------------------------
SLOW='sim:hdd?size=4G&pace=2'
"$ZCAV" sweep "$SLOW" --block-size 16M --quiet -o hup.dat 2>hup.err &
BG=$!
sleep 2
kill -HUP "$BG"
rc=0
wait "$BG" || rc=$?
BG=""
[[ $rc -eq 130 && -s hup.dat.partial ]] && ok "SIGHUP: exit 130 with hup.dat.partial" ||
  fail "SIGHUP: exit $rc, files: $(ls hup.dat* 2>&1 | tr '\n' ' ')"
if [[ -s hup.dat.partial ]]; then
  expect 0 "--resume accepts the .partial SIGHUP left" "$ZCAV" sweep "$SLOW" --block-size 16M \
    --quiet --resume hup.dat.partial -o hup.dat
fi

# --- A closed events pipe ends the events, not the sweep -------------------
rm -f pipe.dat
set +o pipefail
"$ZCAV" sweep 'sim:hdd?size=1G' --block-size 1M --quiet -o pipe.dat --events - 2>pipe.err |
  head -n 1 >/dev/null
rc=${PIPESTATUS[0]}
set -o pipefail
[[ $rc -eq 0 ]] && ok "--events - | head -n 1: exit 0" || fail "--events - | head -n 1: exit $rc"
if [[ -s pipe.dat ]] && "$ZCAV" zones pipe.dat >/dev/null 2>&1 &&
  ! grep -q partial pipe.dat; then
  ok "--events - | head -n 1: the whole result is written"
else
  fail "--events - | head -n 1: no whole result ($(ls pipe.dat* 2>&1 | tr '\n' ' '))"
fi
[[ $(grep -c . pipe.err) -le 1 ]] || fail "more than one note on stderr: $(cat pipe.err)"

echo "$FAILS failed"
[[ $FAILS -eq 0 ]]
