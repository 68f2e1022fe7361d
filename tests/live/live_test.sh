#!/usr/bin/env bash
# The live view (zcav sweep --live), for real:
#   (a) a gnuplot window under Xvfb: two screenshots (xwd) 4 s apart of a
#       paced simulated sweep; the window is not blank, the curve's colour
#       (#08519c) and the zones' (#d94801) are there, and the later shot has
#       more curve than the earlier; then the gnuplot zcav started is killed
#       (as when its window is closed and gnuplot goes away): the sweep goes
#       on to its end, exit 0, every block in the result;
#   (b) the terminal view under tmux: capture-pane shows the chart's frame,
#       a curve, the zones so far and the status line below the chart;
#   (c) no display and stderr not a terminal: --live is ignored with one
#       note, the sweep runs as without it.
# Processes: Xvfb and tmux on a display/socket of this test's own, ended by
# their PIDs (and the tmux server by its socket) in the EXIT trap.
#
# Usage: bash live_test.sh /path/to/zcav
# Exit: 0 pass, 1 fail, 77 skip (no Xvfb, xwd, tmux or a gnuplot with x11).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../real/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../real/lib.sh"
readonly ZCAV=${1:?usage: live_test.sh /path/to/zcav}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE
require_zcav "$ZCAV"
for tool in Xvfb xwd tmux gnuplot; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (Debian: xvfb, x11-apps, tmux, gnuplot-x11)"
done
gnuplot -e 'print GPVAL_TERMINALS' 2>&1 | grep -qw x11 ||
  skip "the gnuplot on the PATH has no x11 terminal (Debian: gnuplot-x11)"

# 20 GB in 64 MiB blocks at about 40x the simulated disk's speed: ~9 s.
readonly DEV='sim:hdd?size=20G&pace=40'
readonly ARGS=(--block-size 64M --passes 1)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/zcav-live-XXXXXX")
XVFB_PID=""
SOCKET="zcav-live-$$"
cleanup() {
  local rc=$?
  set +e
  stop_started
  tmux -L "$SOCKET" kill-server 2>/dev/null
  [[ -n $XVFB_PID ]] && kill "$XVFB_PID" 2>/dev/null && wait "$XVFB_PID" 2>/dev/null
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A free display number of our own.
DISPLAY_NO=""
for n in $(seq 90 140); do
  [[ -e /tmp/.X$n-lock || -e /tmp/.X11-unix/X$n ]] && continue
  DISPLAY_NO=$n
  break
done
[[ -n $DISPLAY_NO ]] || fail "no free X display number between 90 and 140"
Xvfb ":$DISPLAY_NO" -screen 0 1024x768x24 -nolisten tcp >"$WORK/xvfb.log" 2>&1 &
XVFB_PID=$!
for _ in $(seq 50); do
  [[ -e /tmp/.X11-unix/X$DISPLAY_NO ]] && break
  sleep 0.1
done
[[ -e /tmp/.X11-unix/X$DISPLAY_NO ]] || fail "Xvfb did not start: $(cat "$WORK/xvfb.log")"

# colour_count FILE COLOUR: pixels of COLOUR in the dump.
colour_count() { python3 "$HERE/xwd_colours.py" "$1" "$2" | sed -n "s/^$2=//p"; }

# (a) The window.
DISPLAY=:$DISPLAY_NO "$ZCAV" sweep "$DEV" "${ARGS[@]}" --live -o "$WORK/window.dat" \
  2>"$WORK/window.err" &
STARTED_PID=$!
sleep 3
DISPLAY=:$DISPLAY_NO xwd -root -silent >"$WORK/shot1.xwd"
sleep 3
DISPLAY=:$DISPLAY_NO xwd -root -silent >"$WORK/shot2.xwd"
# The gnuplot this zcav started (under its shell): gone as a closed
# window's gnuplot would be.
GNUPLOT_PID=$(pgrep -P "$(pgrep -P "$STARTED_PID" -x sh || echo "$STARTED_PID")" -x gnuplot ||
  pgrep -P "$STARTED_PID" -x gnuplot || true)
[[ -n $GNUPLOT_PID ]] || fail "no gnuplot under the sweep (pid $STARTED_PID): $(cat "$WORK/window.err")"
kill "$GNUPLOT_PID"
RC=0
wait "$STARTED_PID" || RC=$?
STARTED_PID=""
[[ $RC -eq 0 ]] || fail "the sweep with --live exited $RC after its gnuplot went away: $(tail -n 3 "$WORK/window.err")"
grep -q '^# status: complete' "$WORK/window.dat" || fail "window.dat is not complete"
BLOCKS=$(grep -vc '^#' "$WORK/window.dat")
[[ $BLOCKS -eq 320 ]] || fail "window.dat has $BLOCKS blocks, expected 320"
COLOURS1=$(python3 "$HERE/xwd_colours.py" "$WORK/shot1.xwd" 000000 | sed -n 's/^colours=//p')
CURVE1=$(colour_count "$WORK/shot1.xwd" 08519c)
CURVE2=$(colour_count "$WORK/shot2.xwd" 08519c)
ZONES2=$(colour_count "$WORK/shot2.xwd" d94801)
echo "window: $COLOURS1 colours; curve pixels $CURVE1 then $CURVE2; zone pixels $ZONES2"
[[ $COLOURS1 -ge 3 ]] || fail "the first screenshot is blank ($COLOURS1 colours)"
[[ $CURVE1 -gt 20 ]] || fail "no curve in the first screenshot ($CURVE1 pixels of #08519c)"
[[ $CURVE2 -gt $CURVE1 ]] || fail "the curve did not grow: $CURVE1 then $CURVE2 pixels"
[[ $ZONES2 -gt 20 ]] || fail "no zones in the second screenshot ($ZONES2 pixels of #d94801)"
echo "ok - (a) a gnuplot window under Xvfb shows the curve growing; the sweep outlives its gnuplot"

# (b) The terminal, 100 x 30, under a tmux server of our own.
tmux -L "$SOCKET" new-session -d -x 100 -y 30 -s live \
  "env -u DISPLAY -u WAYLAND_DISPLAY '$ZCAV' sweep '$DEV' ${ARGS[*]} --live -o '$WORK/term.dat'; echo exit=\$? >'$WORK/term.rc'; sleep 60"
sleep 5
tmux -L "$SOCKET" capture-pane -p -t live >"$WORK/pane.txt"
for _ in $(seq 150); do
  [[ -s $WORK/term.rc ]] && break
  sleep 0.2
done
tmux -L "$SOCKET" kill-server
grep -q '^exit=0$' "$WORK/term.rc" 2>/dev/null || fail "the terminal sweep did not end with exit 0: $(cat "$WORK/term.rc" 2>/dev/null)"
grep -Eq '^ +[0-9]+ \+-{40,}\+ *$' "$WORK/pane.txt" || fail "no chart frame in the pane:
$(cat "$WORK/pane.txt")"
[[ $(grep -Ec '^ +[0-9]* *\|.*\| *$' "$WORK/pane.txt") -ge 15 ]] || fail "the chart has too few rows:
$(cat "$WORK/pane.txt")"
grep -Eq '#{5,}' "$WORK/pane.txt" || fail "no curve or zones drawn in the pane"
grep -Eq 'zones so far' "$WORK/pane.txt" || fail "no zones so far in the pane"
grep -Eq '^pass 1/1 +[0-9.]+ of 21\.47 GB \([0-9.]+ %\) +[0-9.]+ MB/s +ETA ' "$WORK/pane.txt" ||
  fail "no status line below the chart:
$(cat "$WORK/pane.txt")"
echo "ok - (b) the terminal chart under tmux: frame, curve, zones so far, status line"

# (c) Neither a display nor a terminal.
RC=0
env -u DISPLAY -u WAYLAND_DISPLAY "$ZCAV" sweep 'sim:hdd?size=2G' --block-size 64M --live \
  -o "$WORK/plain.dat" 2>"$WORK/plain.err" </dev/null || RC=$?
[[ $RC -eq 0 ]] || fail "--live without a terminal exited $RC"
[[ $(grep -c -- '--live' "$WORK/plain.err") -eq 1 ]] || fail "expected one note about --live: $(cat "$WORK/plain.err")"
grep -q '^zcav: note: --live ignored: there is no display (DISPLAY) and stderr is not a terminal$' \
  "$WORK/plain.err" || fail "unexpected note: $(grep -- '--live' "$WORK/plain.err")"
grep -q '^# status: complete' "$WORK/plain.dat" || fail "plain.dat is not complete"
echo "ok - (c) no display, no terminal: one note, the sweep as without --live"
echo "PASS"
