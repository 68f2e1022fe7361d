#!/usr/bin/env bash
# Issue 36, signals: a plot, report or merge stopped while gnuplot draws
# (SIGTERM, SIGINT, SIGHUP: a dropped SSH session) stops that gnuplot and
# what it started, removes its private directory and leaves no image or
# half-written output behind. The issue found gnuplot still running and the
# temporary directory left.
#
# gnuplot is replaced by a stand-in that never ends (it starts a `sleep` and
# records both PIDs), bind-mounted over the system's gnuplot inside a private
# mount namespace of this test only: the machine's gnuplot is untouched.
# Usage: signals_render_test.sh ZCAV. Exit: 0 pass, 1 fail, 77 skip.
set -euo pipefail
ZCAV=$(realpath "$1")
skip() {
  echo "skip: $*"
  exit 77
}
[[ $(id -u) -eq 0 ]] || skip "needs root (a private mount namespace)"
command -v unshare >/dev/null || skip "unshare is not installed"
GNUPLOT=""
for d in /usr/local/bin /usr/bin /bin; do
  if [[ -x $d/gnuplot ]]; then
    GNUPLOT=$d/gnuplot
    break
  fi
done
[[ -n $GNUPLOT ]] || skip "gnuplot is not installed (zcav would not start one)"

if [[ ${ZCAV_SIGNALS_INNER:-} != 1 ]]; then
  # Re-run inside a private mount namespace, where the stand-in is mounted.
  unshare -m --propagation private env ZCAV_SIGNALS_INNER=1 GNUPLOT="$GNUPLOT" bash "$0" "$@"
  exit $?
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/zcav-sec-signals-XXXXXX")
ZPID=""
cleanup() {
  local rc=$?
  set +e
  [[ -n $ZPID ]] && kill -KILL "$ZPID" 2>/dev/null
  # Stand-ins this test started and zcav failed to stop, ended by PID.
  local f
  for f in "$WORK"/pids/*; do
    [[ -e $f ]] && kill -KILL "$(cat "$f")" 2>/dev/null
  done
  umount "$GNUPLOT" 2>/dev/null
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
mkdir -p "$WORK/pids" "$WORK/tmp" "$WORK/out"
chmod 1777 "$WORK/pids"  # as root, zcav runs gnuplot as nobody
# It answers the terminal probe (`-e 'print GPVAL_TERMINALS'`) when
# FAKE_PROBE is in the file named by $WORK/probe, and else hangs in it too.
cat >"$WORK/fake-gnuplot" <<EOF
#!/bin/sh
if [ "\$2" = "-e" ] && [ -e "$WORK/probe-answers" ]; then
  echo "dumb png pngcairo svg"
  exit 0
fi
sleep 600 &
echo \$! >"$WORK/pids/sleep.\$\$"
echo \$\$ >"$WORK/pids/gnuplot.\$\$"
wait
EOF
chmod 755 "$WORK/fake-gnuplot"
chmod 755 "$WORK"
"$ZCAV" sweep "sim:hdd?size=1G&seed=1" --format json -o "$WORK/a.json" -q
"$ZCAV" sweep "sim:hdd?size=1G&seed=2" --format json -o "$WORK/b.json" -q
"$ZCAV" sweep "sim:hdd?size=1G&seed=3" --format json -o "$WORK/c.json" -q
mount --bind "$WORK/fake-gnuplot" "$GNUPLOT"

fail=0
problem() {
  echo "FAIL: $*"
  fail=1
}

# Runs zcav ARGS... in the background, waits until the stand-in started, sends
# SIG, and checks what is left.
stop_case() {
  local sig=$1 what=$2
  shift 2
  rm -f "$WORK"/pids/*
  rm -rf "${WORK:?}"/tmp/* "${WORK:?}"/out/*
  (cd "$WORK/out" && exec env TMPDIR="$WORK/tmp" "$ZCAV" "$@" -q) >"$WORK/log" 2>&1 &
  ZPID=$!
  local i
  for ((i = 0; i < 300; i++)); do
    compgen -G "$WORK/pids/sleep.*" >/dev/null && break
    kill -0 "$ZPID" 2>/dev/null || break
    sleep 0.1
  done
  if ! compgen -G "$WORK/pids/sleep.*" >/dev/null; then
    problem "$what: gnuplot never started ($(tail -n 1 "$WORK/log"))"
    kill -KILL "$ZPID" 2>/dev/null
    wait "$ZPID" 2>/dev/null || true
    ZPID=""
    return
  fi
  kill "-$sig" "$ZPID"
  local rc=0
  for ((i = 0; i < 300; i++)); do
    kill -0 "$ZPID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$ZPID" 2>/dev/null; then
    problem "$what: zcav still running 30 s after SIG$sig"
    kill -KILL "$ZPID"
  fi
  wait "$ZPID" || rc=$?
  ZPID=""
  [[ $rc -eq 130 ]] || problem "$what: zcav exited $rc after SIG$sig, not 130"
  sleep 0.2  # the group's SIGKILL is delivered; let the kernel reap
  local f pid
  for f in "$WORK"/pids/*; do
    pid=$(cat "$f")
    # Gone, or a zombie not yet reaped by init (it was killed).
    if [[ -e /proc/$pid/stat ]] && [[ $(awk '{print $3}' "/proc/$pid/stat") != Z ]]; then
      problem "$what: after SIG$sig, ${f##*/} (pid $pid) still runs"
    fi
  done
  local left
  left=$(find "$WORK/tmp" -mindepth 1 -maxdepth 1 | head -n 3)
  [[ -z $left ]] || problem "$what: after SIG$sig, temporary left: ${left//$'\n'/ }"
  # The scripts and data written before drawing stay (gnuplot can draw them
  # later); no image, no report, no temporary.
  left=$(find "$WORK/out" -mindepth 1 ! -name '*.gp' ! -name '*.dat' | head -n 3)
  [[ -z $left ]] || problem "$what: after SIG$sig, files written: ${left//$'\n'/ }"
  [[ $fail -ne 0 ]] || echo "ok - $what stopped by SIG$sig: exit $rc, gnuplot gone, nothing left"
}

# Stopped while gnuplot is asked which terminals it has, then while it draws.
stop_case TERM "zcav plot (terminal probe)" plot "$WORK/a.json" -o "$WORK/out/a.png"
touch "$WORK/probe-answers"
stop_case TERM "zcav plot" plot "$WORK/a.json" -o "$WORK/out/a.png"
stop_case HUP "zcav report (HTML)" report "$WORK/a.json" "$WORK/b.json" -o "$WORK/out/r.html"
stop_case INT "zcav report (Markdown)" report "$WORK/a.json" -o "$WORK/out/r.md"
stop_case TERM "zcav merge" merge "$WORK/a.json" "$WORK/b.json" "$WORK/c.json" -o "$WORK/out/f.html"
exit $fail
