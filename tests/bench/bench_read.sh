#!/usr/bin/env bash
# Benchmark: zcav's sequential read against fio, dd and classic zcav, on one
# 4 GiB file on the machine's disk, on a loop device over that file, and on a
# loop device over a copy of it on tmpfs (RAM: a stable rate, where the
# disk's varies run to run on a shared machine).
#
# In one run, ROUNDS times, each target, and on it each tool, one after the
# other (so the runs compared on a target are seconds apart; the tool order
# reversed every other round, the target order too, so a slow drift of the
# machine falls on every tool alike):
#   zcav sweep T --quiet --format json -o X                  (default settings)
#   zcav sweep T --queue-depth Q ...     for each Q in ZCAV_QDS (when this zcav
#                                        has --queue-depth; else a note)
#   fio --rw=read --bs=1M --direct=1 --ioengine=psync    --iodepth=1
#   fio --rw=read --bs=1M --direct=1 --ioengine=libaio   --iodepth=16
#   fio --rw=read --bs=1M --direct=1 --ioengine=io_uring --iodepth=16
#   fio ... --ioengine=io_uring --bs=C --iodepth=D       zcav's default shape on
#                                        T (C bytes a read, D in flight, from
#                                        the header of an unrecorded warm-up
#                                        sweep of T): the same reads as zcav's
#                                        default, so the engines are compared
#   dd if=T of=/dev/null iflag=direct bs=16M
#   /usr/sbin/zcav -c 1 -b 64:1 T        (classic zcav, bonnie++; it reads
#                                        through the page cache, so the caches
#                                        are dropped before each of its runs)
# each under /usr/bin/time -v. Prints per target the median MB/s (10^6 B/s)
# as the tool reports it, the median wall MB/s (bytes / elapsed), the median
# whole-process CPU % ((user+sys)/elapsed) and zcav's ratio to each tool, then
# zcav (default, and at its best queue depth) against the best fio
# configuration of the three fixed ones (psync QD1, libaio QD16, io_uring
# QD16): the ratio of the medians and, since this machine's disk is shared
# and single runs vary 2-3x, the median of the per-round ratios and the
# rounds zcav won. Target: zcav >= 1.00x the best fio, with CPU % no higher.
# Finally runs bench_sim.sh (peak RSS of a 20 TB sim sweep, time of a 2 TB one).
#
# Usage: tests/bench/bench_read.sh [--cleanup] [--no-sim] [PATH/TO/zcav]
#   zcav defaults to $ZCAV, then the newest Release/RelWithDebInfo build*/zcav
#   of this repository (not a sanitizer or fuzzer build), then PATH.
#   --cleanup  remove the 4 GiB file at the end
#   --no-sim   skip bench_sim.sh
# Environment:
#   ROUNDS=5             rounds (at least 3)
#   READS=1              reads of the whole target per measurement, in one
#                        process (zcav --passes, fio --loops, dd run READS
#                        times; classic zcav always once: its later passes
#                        would read the page cache). More than 1 averages out
#                        a shared host's seconds-long swings within each run.
#   BENCH_DIR=/var/tmp   where the 4 GiB file lives (not tmpfs: it needs O_DIRECT)
#   BENCH_FILE=...       the file itself (default $BENCH_DIR/zcav-bench-4GiB.dat)
#   ZCAV_QDS="1 16 64"   queue depths tried with zcav sweep --queue-depth
#   BENCH_TOOLS="..."    only these tools besides zcav's default, by name:
#                        zcav-qd (the ZCAV_QDS rows), fio-psync, fio-libaio,
#                        fio-uring, fio-zshape, dd, classic. Fewer tools make
#                        rounds shorter and the pairs of a round closer in
#                        time: "fio-psync fio-libaio fio-uring" is the
#                        head-to-head with the issue's three fio configurations.
#   BENCH_RAM=1          0: no RAM-backed loop target (it needs 4.5 GiB of tmpfs)
#   CLASSIC_BLOCKS=64:1  classic zcav's -b: block MiB (one timed row each) :
#                        chunk MiB (the size of each read() call)
# The file is created once from /dev/urandom and kept for the next run. The
# loop device (losetup -f --show -r --direct-io=on FILE: direct I/O, so the
# loop does not read through the file's page cache) needs root; it is
# detached on exit, also on failure or Ctrl-C. Without root the loop target
# is skipped and the caches cannot be dropped (both said). Installs nothing:
# says what is missing and which Debian package has it.
# Not a ctest test (it takes minutes and depends on the machine).
set -euo pipefail

readonly SIZE_MIB=4096
readonly SIZE_BYTES=$((SIZE_MIB * 1024 * 1024))
readonly CLASSIC_ZCAV=/usr/sbin/zcav
ROUNDS=${ROUNDS:-5}
READS=${READS:-1}
BENCH_DIR=${BENCH_DIR:-/var/tmp}
BENCH_FILE=${BENCH_FILE:-$BENCH_DIR/zcav-bench-4GiB.dat}
ZCAV_QDS=${ZCAV_QDS-1 16 64}
CLASSIC_BLOCKS=${CLASSIC_BLOCKS:-64:1}
CLEANUP=0
RUN_SIM=1
ZCAV_BIN=${ZCAV:-}

die() { echo "bench_read: $*" >&2; exit 1; }
note() { echo "bench_read: $*" >&2; }

for arg in "$@"; do
  case $arg in
    --cleanup) CLEANUP=1 ;;
    --no-sim) RUN_SIM=0 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$arg' (usage: bench_read.sh [--cleanup] [--no-sim] [PATH/TO/zcav])" ;;
    *) ZCAV_BIN=$arg ;;
  esac
done
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -ge 3 ]] || die "ROUNDS must be a whole number >= 3 (got '$ROUNDS')"
[[ $READS =~ ^[0-9]+$ && $READS -ge 1 ]] || die "READS must be a whole number >= 1 (got '$READS')"
[[ $ZCAV_QDS =~ ^[0-9\ ]*$ ]] || die "ZCAV_QDS must be whole numbers >= 1 separated by spaces (got '$ZCAV_QDS')"
for q in $ZCAV_QDS; do [[ $q -ge 1 ]] || die "ZCAV_QDS: queue depth $q is not >= 1"; done
readonly ALL_TOOLS="zcav-qd fio-psync fio-libaio fio-uring fio-zshape dd classic"
BENCH_TOOLS=${BENCH_TOOLS-$ALL_TOOLS}
for t in $BENCH_TOOLS; do
  [[ " $ALL_TOOLS " == *" $t "* ]] || die "BENCH_TOOLS: unknown tool '$t' (known: $ALL_TOOLS)"
done
wanted() { [[ " $BENCH_TOOLS " == *" $1 "* ]]; }
wanted zcav-qd || ZCAV_QDS=""
[[ $CLASSIC_BLOCKS =~ ^([0-9]+):([0-9]+)$ && ${BASH_REMATCH[1]} -ge ${BASH_REMATCH[2]} && ${BASH_REMATCH[2]} -ge 1 ]] ||
  die "CLASSIC_BLOCKS must be BLOCK_MiB:CHUNK_MiB with BLOCK >= CHUNK >= 1 (got '$CLASSIC_BLOCKS')"
readonly CLASSIC_BLOCK_MIB=${BASH_REMATCH[1]}

# --- What we need, and which Debian package provides it. zcav, time and
# python3 are required; every other tool is skipped with a note when absent.
missing=()
[[ -x /usr/bin/time ]] || missing+=("/usr/bin/time (Debian package: time)")
command -v python3 >/dev/null || missing+=("python3 (Debian package: python3)")
if [[ ${#missing[@]} -gt 0 ]]; then
  printf 'bench_read: missing: %s\n' "${missing[@]}" >&2
  die "install with apt-get (this script installs nothing)"
fi
NOTES=()  # said again under the table, so they are not lost in the progress lines
skip() { note "$*"; NOTES+=("$*"); }
HAVE_FIO=1 HAVE_DD=1 HAVE_CLASSIC=1
command -v fio >/dev/null || { HAVE_FIO=0; skip "fio not installed (Debian package: fio): no fio rows, no ratio to fio"; }
command -v dd >/dev/null || { HAVE_DD=0; skip "dd not installed (Debian package: coreutils): no dd row"; }
[[ -x $CLASSIC_ZCAV ]] || { HAVE_CLASSIC=0; skip "classic zcav ($CLASSIC_ZCAV) not installed (Debian package: bonnie++): no classic zcav row"; }
command -v hyperfine >/dev/null ||
  note "hyperfine not installed (Debian package: hyperfine): the sim timing uses /usr/bin/time instead"

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
resolve_zcav

# --queue-depth is new (the io_uring engine); an older zcav gets the default
# row only, and the table says why the QD rows are missing.
if [[ -n $ZCAV_QDS ]] && ! "$ZCAV_BIN" sweep --help 2>&1 | grep -q -- '--queue-depth'; then
  skip "$ZCAV_BIN has no 'zcav sweep --queue-depth': skipping the zcav QD rows ($ZCAV_QDS); rebuild zcav to get them"
  ZCAV_QDS=""
fi

# --- The file: on a real file system that supports O_DIRECT.
bench_dir=$(dirname "$BENCH_FILE")
[[ -d $bench_dir ]] || die "directory $bench_dir does not exist (set BENCH_DIR)"
# findmnt names ext4 as such (stat -f says "ext2/ext3"); stat for the tmpfs check if findmnt is absent.
fstype=$(findmnt -n -o FSTYPE --target "$bench_dir" 2>/dev/null || stat -f -c %T "$bench_dir")
case $fstype in
  tmpfs | ramfs) die "$bench_dir is on $fstype: O_DIRECT reads would measure RAM; set BENCH_DIR to a disk-backed directory" ;;
esac

if [[ -f $BENCH_FILE && $(stat -c %s "$BENCH_FILE") -ne $SIZE_BYTES ]]; then
  note "$BENCH_FILE is not $SIZE_BYTES bytes: recreating it"
  rm -f "$BENCH_FILE"
fi
if [[ ! -f $BENCH_FILE ]]; then
  avail_kib=$(df -Pk "$bench_dir" | awk 'NR == 2 { print $4 }')
  [[ $avail_kib -gt $((SIZE_MIB * 1024 + 512 * 1024)) ]] ||
    die "not enough space in $bench_dir for a 4 GiB file (+512 MiB margin)"
  note "creating $BENCH_FILE (4 GiB from /dev/urandom, once)..."
  dd if=/dev/urandom of="$BENCH_FILE.partial" bs=1M count=$SIZE_MIB conv=fsync status=none
  mv "$BENCH_FILE.partial" "$BENCH_FILE"
fi
python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT))' "$BENCH_FILE" 2>/dev/null ||
  die "$bench_dir ($fstype) refuses O_DIRECT; set BENCH_DIR to a file system that supports it"

# --- Scratch space, and the cleanup that also detaches our loop device.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/zcav-bench.XXXXXX")
LOOP_DEV=""  # set only once losetup has given us a device: the only one we detach
RAM_FILE="" RAM_LOOP=""  # the RAM-backed loop target's, set below
cleanup() {
  local dev
  for dev in "$LOOP_DEV" "$RAM_LOOP"; do
    [[ -n $dev ]] || continue
    losetup -d "$dev" 2>/dev/null || echo "bench_read: could not detach $dev: run losetup -d $dev" >&2
  done
  [[ -n $RAM_FILE ]] && rm -f "$RAM_FILE"
  rm -rf "$WORK"
  if [[ $CLEANUP -eq 1 ]]; then rm -f "$BENCH_FILE" "$BENCH_FILE.partial"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # exit runs the EXIT trap: Ctrl-C detaches the loop too

# --- The targets: "file" always, "loop" when we may create one.
declare -A TARGET_PATH TARGET_BYTES TARGET_DESC
TARGETS=(file)
TARGET_PATH[file]=$BENCH_FILE
TARGET_BYTES[file]=$SIZE_BYTES
TARGET_DESC[file]="file $BENCH_FILE ($fstype, $SIZE_BYTES B = $((SIZE_MIB / 1024)) GiB)"

IS_ROOT=0
[[ $(id -u) -eq 0 ]] && IS_ROOT=1
if [[ $IS_ROOT -eq 0 ]]; then
  skip "not root: no loop device target (losetup needs root); the file alone is measured"
elif ! command -v losetup >/dev/null; then
  skip "losetup not installed (Debian package: mount): no loop device target"
elif [[ ! -e /dev/loop-control ]]; then
  skip "no loop devices here (/dev/loop-control missing; modprobe loop): no loop device target"
elif ! LOOP_DEV=$(losetup -f --show -r --direct-io=on "$BENCH_FILE" 2>"$WORK/losetup.err"); then
  LOOP_DEV=""
  skip "losetup failed ($(head -n 1 "$WORK/losetup.err")): no loop device target"
else
  loop_dio=$(cat "/sys/block/${LOOP_DEV#/dev/}/loop/dio" 2>/dev/null || echo "?")
  TARGETS+=(loop)
  TARGET_PATH[loop]=$LOOP_DEV
  TARGET_BYTES[loop]=$(blockdev --getsize64 "$LOOP_DEV")
  if [[ $loop_dio == 1 ]]; then
    TARGET_DESC[loop]="loop $LOOP_DEV over that file (read-only, direct-io=on: the loop reads the file with O_DIRECT, not through its page cache)"
  else
    TARGET_DESC[loop]="loop $LOOP_DEV over that file (read-only; direct-io REFUSED, dio=$loop_dio: the loop reads through the file's page cache, so its rates may be RAM's)"
    skip "the kernel refused direct-io on $LOOP_DEV: loop figures may include the backing file's page cache"
  fi
fi

# "ramloop": a loop device over a copy of the file on tmpfs (RAM). Nothing of
# the host's disk is on its path, so its rate is stable run to run (within
# ~5 %, where the disk's vary 2-3x on a shared machine) and shows what each
# tool's engine costs at RAM speed. BENCH_RAM=0 skips it.
if [[ ${BENCH_RAM:-1} == 0 ]]; then
  skip "BENCH_RAM=0: no RAM-backed loop target"
elif [[ $IS_ROOT -eq 0 || ${#TARGETS[@]} -lt 2 ]]; then
  skip "no loop devices here (see above): no RAM-backed loop target"
elif [[ $(stat -f -c %T /dev/shm 2>/dev/null) != tmpfs ||
        $(df -Pk /dev/shm | awk 'NR == 2 { print $4 }') -lt $((SIZE_MIB * 1024 + 512 * 1024)) ]]; then
  skip "no tmpfs with 4.5 GiB free at /dev/shm: no RAM-backed loop target"
else
  RAM_FILE=$(mktemp /dev/shm/zcav-bench-XXXXXX)
  cp "$BENCH_FILE" "$RAM_FILE"
  if RAM_LOOP=$(losetup -f --show -r "$RAM_FILE" 2>"$WORK/losetup.err"); then
    TARGETS+=(ramloop)
    TARGET_PATH[ramloop]=$RAM_LOOP
    TARGET_BYTES[ramloop]=$(blockdev --getsize64 "$RAM_LOOP")
    TARGET_DESC[ramloop]="loop $RAM_LOOP over a copy of that file on tmpfs (read-only; RAM behind the loop, the same 4 GiB)"
  else
    RAM_LOOP=""
    skip "losetup of the tmpfs copy failed ($(head -n 1 "$WORK/losetup.err")): no RAM-backed loop target"
  fi
fi

# --- The tools, in the order of an odd round.
declare -A LABEL
TOOLS=(zcav)
LABEL[zcav]="zcav sweep (default)"
for q in $ZCAV_QDS; do
  TOOLS+=("zcav-qd$q")
  LABEL[zcav-qd$q]="zcav --queue-depth $q"
done
if [[ $HAVE_FIO -eq 1 ]]; then
  LABEL[fio-psync]="fio psync QD1"
  LABEL[fio-libaio]="fio libaio QD16"
  for t in fio-psync fio-libaio; do wanted $t && TOOLS+=("$t"); done
  # io_uring may be missing from fio's build or disabled by the kernel
  # (sysctl kernel.io_uring_disabled, seccomp): try 1 MiB first.
  if ! wanted fio-uring && ! wanted fio-zshape; then
    :
  elif fio --name=probe --filename="$BENCH_FILE" --rw=read --bs=1M --size=1M --direct=1 \
      --ioengine=io_uring --iodepth=1 --output-format=json >"$WORK/probe.out" 2>&1; then
    LABEL[fio-uring]="fio io_uring QD16"
    LABEL[fio-zshape]="fio io_uring, zcav's shape"
    for t in fio-uring fio-zshape; do wanted $t && TOOLS+=("$t"); done
  else
    skip "fio's io_uring engine does not work here ($(grep -m 1 -iE 'error|fail' "$WORK/probe.out" || echo 'fio failed')): no fio io_uring row"
  fi
fi
if [[ $HAVE_DD -eq 1 ]] && wanted dd; then
  TOOLS+=(dd)
  LABEL[dd]="dd iflag=direct bs=16M"
fi
if [[ $HAVE_CLASSIC -eq 1 ]] && wanted classic; then
  TOOLS+=(classic)
  LABEL[classic]="classic zcav -b $CLASSIC_BLOCKS"
fi

# --- Measuring. Each run appends "target<TAB>label<TAB>round<TAB>MB/s<TAB>
# wall MB/s<TAB>CPU %<TAB>elapsed s<TAB>CPU s" to results.tsv.

# timed TAG CMD...: runs CMD under /usr/bin/time -v; leaves
# $WORK/TAG.{out,err,time}; dies with CMD's stderr if it fails.
timed() {
  local tag=$1
  shift
  local rc=0
  /usr/bin/time -v -o "$WORK/$tag.time" "$@" >"$WORK/$tag.out" 2>"$WORK/$tag.err" || rc=$?
  [[ $rc -eq 0 ]] && return
  # Ctrl-C reaches the tool first; it exits 130 (or dies of the signal).
  [[ $rc -eq 130 || $rc -eq 143 ]] && { note "interrupted during $tag"; exit 130; }
  tail -n 20 "$WORK/$tag.err" >&2
  die "$tag failed (exit $rc): $*"
}

# record TAG TARGET LABEL ROUND MB_PER_S BYTES: appends a result row, with the
# CPU % and the wall MB/s (BYTES / elapsed) from TAG's /usr/bin/time -v report.
record() {
  python3 - "$WORK/$1.time" "$2" "$3" "$4" "$5" "$6" >>"$WORK/results.tsv" <<'EOF'
import sys
path, target, label, rnd, mbps, size = sys.argv[1:]
t = {}
for line in open(path):
    key, _, value = line.strip().rpartition(": ")
    t[key] = value
def seconds(text):
    s = 0.0
    for part in text.split(":"):
        s = s * 60 + float(part)
    return s
user = float(t["User time (seconds)"])
system = float(t["System time (seconds)"])
elapsed = seconds(t["Elapsed (wall clock) time (h:mm:ss or m:ss)"])
cpu = 100.0 * (user + system) / elapsed if elapsed > 0 else 0.0
wall = int(size) / elapsed / 1e6 if elapsed > 0 else 0.0
print(f"{target}\t{label}\t{rnd}\t{float(mbps):.1f}\t{wall:.1f}\t{cpu:.1f}\t{elapsed:.2f}\t{user + system:.2f}")
EOF
}

zcav_mb_per_s() {  # JSON BYTES: zcav's summary average (bytes / read time) in MB/s
  python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
if d.get("partial") or d.get("status") != "complete":
    sys.exit(f"zcav sweep not complete: {d.get('status')}")
if not d["device"].get("direct_io", False):
    print("bench_read: warning: zcav did not use O_DIRECT", file=sys.stderr)
if d["summary"]["bytes_read"] != int(sys.argv[2]):
    sys.exit(f"zcav read {d['summary']['bytes_read']} bytes, not {sys.argv[2]}")
print(d["summary"]["avg_mb_per_s"])
EOF
}

fio_mb_per_s() {  # JSON BYTES: fio's read bandwidth in MB/s; fails on a job error
  python3 - "$1" "$2" <<'EOF'
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
if job.get("error", 0):
    sys.exit(f"fio job error {job['error']}")
if job["read"]["io_bytes"] != int(sys.argv[2]):
    sys.exit(f"fio read {job['read']['io_bytes']} bytes, not {sys.argv[2]}")
print(job["read"]["bw_bytes"] / 1e6)
EOF
}

dd_mb_per_s() {  # STDERR BYTES: dd's own "N bytes ... copied, S s", summed over its runs, as N / S in MB/s
  python3 - "$1" "$2" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
runs = re.findall(r"^(\d+) bytes .* copied, ([0-9.]+) s", text, re.M)
if not runs:
    sys.exit("no 'bytes ... copied' line from dd")
copied = sum(int(n) for n, _ in runs)
if copied != int(sys.argv[2]):
    sys.exit(f"dd copied {copied} bytes, not {sys.argv[2]}")
print(copied / sum(float(t) for _, t in runs) / 1e6)
EOF
}

# classic_mb_per_s OUT BYTES BLOCK_MiB: classic zcav prints one row per block,
# "offset-GiB MiB/s seconds", with '#' and "++++" instead of the rate when the
# block took under a second: so the rate is rebuilt from the seconds column
# (ms resolution) as blocks * block bytes / sum of seconds. Its closing "Read N
# megs in S seconds" has whole seconds only.
classic_mb_per_s() {
  python3 - "$1" "$2" "$3" <<'EOF'
import re, sys
path, size, block_mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
secs = []
for line in open(path):
    m = re.match(r"^#?\s*([0-9.]+)\s+(\S+)\s+([0-9.]+)\s*$", line)
    if m:
        secs.append(float(m.group(3)))
got = len(secs) * block_mib * 1048576
if got != size:
    sys.exit(f"classic zcav timed {len(secs)} blocks of {block_mib} MiB = {got} bytes, not {size}")
print(got / sum(secs) / 1e6)
EOF
}

# drop_caches: classic zcav reads through the page cache; without this a
# second round would read RAM. Only root can; others get a note (once).
DROP_NOTED=0
drop_caches() {
  sync
  if [[ $IS_ROOT -eq 1 ]] && { echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null; then
    return
  fi
  if [[ $DROP_NOTED -eq 0 ]]; then
    skip "could not drop the page cache (needs root and a writable /proc/sys): classic zcav rounds after the first may read RAM"
    DROP_NOTED=1
  fi
}

# run_one TOOL TARGET ROUND: one run of TOOL over the whole TARGET, recorded.
run_one() {
  local tool=$1 target=$2 round=$3
  local path=${TARGET_PATH[$target]} bytes=$((TARGET_BYTES[$target] * READS))
  local tag=$target.$tool.$round mbps
  local fio_args=(--filename="$path" --rw=read --bs=1M --direct=1 --loops="$READS" --output-format=json)
  case $tool in
    zcav | zcav-qd*)
      local qd=()
      [[ $tool == zcav ]] || qd=(--queue-depth "${tool#zcav-qd}")
      timed "$tag" "$ZCAV_BIN" sweep "$path" "${qd[@]}" --passes "$READS" --quiet --format json \
        -o "$WORK/$tag.json"
      mbps=$(zcav_mb_per_s "$WORK/$tag.json" "$bytes") || die "$tag: no usable result"
      ;;
    fio-zshape)
      timed "$tag" fio --name=zshape --ioengine=io_uring --iodepth="${SHAPE_QD[$target]}" \
        --filename="$path" --rw=read --bs="${SHAPE_BS[$target]}" --direct=1 --loops="$READS" \
        --output-format=json
      mbps=$(fio_mb_per_s "$WORK/$tag.out" "$bytes") || die "$tag: no usable result"
      ;;
    fio-psync | fio-libaio | fio-uring)
      local engine=${tool#fio-} depth=16
      [[ $engine == uring ]] && engine=io_uring
      [[ $engine == psync ]] && depth=1
      timed "$tag" fio --name="$engine" --ioengine="$engine" --iodepth=$depth "${fio_args[@]}"
      mbps=$(fio_mb_per_s "$WORK/$tag.out" "$bytes") || die "$tag: no usable result"
      ;;
    dd)
      # shellcheck disable=SC2016  # expanded by the inner bash
      timed "$tag" bash -c 'for ((i = 0; i < $1; i++)); do dd if="$2" of=/dev/null iflag=direct bs=16M || exit; done' \
        dd "$READS" "$path"
      mbps=$(dd_mb_per_s "$WORK/$tag.err" "$bytes") || die "$tag: no usable result"
      ;;
    classic)
      drop_caches
      # One read always: its later passes would come from the page cache.
      bytes=${TARGET_BYTES[$target]}
      timed "$tag" "$CLASSIC_ZCAV" -c 1 -b "$CLASSIC_BLOCKS" "$path"
      mbps=$(classic_mb_per_s "$WORK/$tag.out" "$bytes" "$CLASSIC_BLOCK_MIB") || die "$tag: no usable result"
      ;;
    *) die "internal: unknown tool $tool" ;;
  esac
  record "$tag" "$target" "${LABEL[$tool]}" "$round" "$mbps" "$bytes"
}

reversed() { local i; for ((i = $# ; i >= 1; i--)); do echo "${!i}"; done; }

# Warm-up, not recorded: one default zcav sweep of each target, so the first
# tool of round 1 does not meet a cold device alone; its header gives zcav's
# default shape there (bytes a read, reads in flight) for fio-zshape.
declare -A SHAPE_BS SHAPE_QD
for target in "${TARGETS[@]}"; do
  note "warm-up: zcav sweep (default) on $target"
  timed "$target.warmup" "$ZCAV_BIN" sweep "${TARGET_PATH[$target]}" --quiet --format json \
    -o "$WORK/$target.warmup.json"
  read -r SHAPE_BS[$target] SHAPE_QD[$target] < <(python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))["options"]
print(o["chunk_bytes"], o.get("queue_depth", 1))' "$WORK/$target.warmup.json")
  NOTES+=("zcav's default shape on $target: ${SHAPE_QD[$target]} reads of ${SHAPE_BS[$target]} bytes in flight (the fio-zshape row uses the same)")
done

: >"$WORK/results.tsv"
note "$ROUNDS rounds; zcav = $ZCAV_BIN ($("$ZCAV_BIN" --version))$([[ $HAVE_FIO -eq 1 ]] && echo ", $(fio --version)")"
for target in "${TARGETS[@]}"; do note "target: ${TARGET_DESC[$target]}"; done
note "${#TOOLS[@]} tools x ${#TARGETS[@]} targets x $ROUNDS rounds = $((${#TOOLS[@]} * ${#TARGETS[@]} * ROUNDS)) reads of 4 GiB"
for ((round = 1; round <= ROUNDS; round++)); do
  # ABBA: odd rounds go forward, even rounds backward (tools and targets).
  if ((round % 2)); then
    mapfile -t order < <(printf '%s\n' "${TOOLS[@]}")
    mapfile -t torder < <(printf '%s\n' "${TARGETS[@]}")
  else
    mapfile -t order < <(reversed "${TOOLS[@]}")
    mapfile -t torder < <(reversed "${TARGETS[@]}")
  fi
  for target in "${torder[@]}"; do
    for tool in "${order[@]}"; do
      note "round $round/$ROUNDS: ${LABEL[$tool]} on $target"
      run_one "$tool" "$target" "$round"
    done
  done
done

# --- The tables, one per target.
{
  for target in "${TARGETS[@]}"; do
    printf 'target\t%s\t%s\t%s\n' "$target" "${TARGET_DESC[$target]}" "${TARGET_BYTES[$target]}"
  done
  printf 'classic\t%s\n' "${LABEL[classic]:-}"
  if [[ $IS_ROOT -eq 1 && $DROP_NOTED -eq 0 ]]; then echo "dropped	yes"; else echo "dropped	no"; fi
  for n in "${NOTES[@]}"; do printf 'note\t%s\n' "$n"; done
} >"$WORK/meta.tsv"
echo
python3 - "$WORK/results.tsv" "$WORK/meta.tsv" "$ROUNDS" "$READS" <<'EOF'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
meta = [l.rstrip("\n").split("\t") for l in open(sys.argv[2]) if l.strip()]
rounds = int(sys.argv[3])
reads = int(sys.argv[4])
targets = [(m[1], m[2], int(m[3])) for m in meta if m[0] == "target"]
classic = next(m[1] for m in meta if m[0] == "classic")
dropped = next(m[1] for m in meta if m[0] == "dropped") == "yes"
notes = [m[1] for m in meta if m[0] == "note"]
DEFAULT = "zcav sweep (default)"
CLASSIC_SLEEP_S = 2.0

def fmt_ratio(a, b):
    return f"{a / b:.3f}" if b > 0 else "n/a"

for target, desc, size in targets:
    trows = [r for r in rows if r[0] == target]
    tools = []
    for r in trows:
        if r[1] not in tools:
            tools.append(r[1])
    col = lambda tool, i: [float(r[i]) for r in trows if r[1] == tool]
    med = {t: tuple(statistics.median(col(t, i)) for i in (3, 4, 5)) for t in tools}
    qds = [t for t in tools if t.startswith("zcav --queue-depth")]
    best_qd = max(qds, key=lambda t: med[t][0]) if qds else None
    ZSHAPE = "fio io_uring, zcav's shape"
    fios = [t for t in tools if t.startswith("fio ") and t != ZSHAPE]  # the issue's three
    best_fio = max(fios, key=lambda t: med[t][0]) if fios else None
    z = med[DEFAULT]

    print(f"=== {desc}")
    print(f"per round, rounds 1..{rounds} (MB/s as reported / wall MB/s / CPU %):")
    for t in tools:
        print(f"  {t:<26}" + "   ".join(
            f"{m:.0f}/{w:.0f}/{c:.1f}%" for m, w, c in zip(col(t, 3), col(t, 4), col(t, 5))))
    print()
    head = f"{'tool':<34} {'MB/s':>8} {'wall MB/s':>10} {'CPU %':>7} {'zcav/tool':>10}"
    if best_qd:
        head += f" {'zcav QD' + best_qd.split()[-1] + '/tool':>15}"
    print(head)
    for t in tools:
        m, w, c = med[t]
        name = t + (" (best QD)" if t == best_qd else "") + (" (best fio)" if t == best_fio else "")
        line = f"{name:<34} {m:>8.1f} {w:>10.1f} {c:>7.1f} {fmt_ratio(z[0], m):>10}"
        if best_qd:
            line += f" {fmt_ratio(med[best_qd][0], m):>15}"
        print(line)
    print()
    if best_fio:
        f = med[best_fio]
        contenders = [("zcav default", DEFAULT)]
        if best_qd:
            contenders.append((f"zcav at best QD ({best_qd.split()[-1]})", best_qd))
        per_round = lambda tool: {int(r[2]): float(r[3]) for r in trows if r[1] == tool}
        for label, tool in contenders:
            zz = med[tool]
            ok = zz[0] >= f[0] and zz[2] <= f[2]
            print(f"{label} vs best fio ({best_fio}): {zz[0] / f[0]:.2f}x MB/s, "
                  f"CPU {zz[2]:.1f} % vs {f[2]:.1f} %   -> target (>= 1.00x, CPU no higher) "
                  f"{'met' if ok else 'NOT met'}")
            zr, fr = per_round(tool), per_round(best_fio)
            ratios = sorted(zr[k] / fr[k] for k in zr if k in fr and fr[k] > 0)
            if ratios:
                won = sum(1 for x in ratios if x >= 1.0)
                print(f"  per round: median ratio {statistics.median(ratios):.2f}x "
                      f"(range {ratios[0]:.2f}-{ratios[-1]:.2f}), zcav ahead in {won} of {len(ratios)} rounds")
        if ZSHAPE in med:
            zs = med[ZSHAPE]
            print(f"zcav default vs {ZSHAPE} (the same reads in flight): {z[0] / zs[0]:.2f}x MB/s, "
                  f"CPU {z[2]:.1f} % vs {zs[2]:.1f} %")
    else:
        print("no fio rows: no ratio to the best fio")
    if classic in tools:
        # Classic zcav's parent process sleeps 2 s after its reader is done
        # (strace: clock_nanosleep 2 s before exit), which its whole-process
        # figures include; the same figures without it:
        el = [float(r[6]) - CLASSIC_SLEEP_S for r in trows if r[1] == classic]
        cs = [float(r[7]) for r in trows if r[1] == classic]
        if min(el) > 0:
            print(f"{classic} without the {CLASSIC_SLEEP_S:.0f} s it sleeps before exiting: "
                  f"wall {statistics.median(size / e / 1e6 for e in el):.1f} MB/s, "
                  f"CPU {statistics.median(100 * c / e for c, e in zip(cs, el)):.1f} %")
    print()

print(f"Medians over {rounds} rounds; each measurement read the whole target {reads} time(s) in one process"
      + (" (classic zcav once)." if reads > 1 else "."))
print("MB = 10^6 B; MB/s as each tool reports it: zcav summary.avg_mb_per_s")
print("(bytes / read time), fio read.bw_bytes, dd its 'N bytes copied, S s' as N/S, classic zcav")
print("blocks x block size / sum of its per-block seconds; wall MB/s = target bytes / elapsed of the")
print("whole process; CPU % = whole-process (user+sys)/elapsed, from /usr/bin/time -v (100 % = one core).")
print("zcav/tool = zcav default's median MB/s / the tool's; zcav QDn/tool likewise for zcav at its best QD.")
print("All reads are O_DIRECT except classic zcav" + (f" ({classic}: block MiB:read() MiB), which reads "
      "through the page cache: " + ("caches dropped (sync; echo 3 > /proc/sys/vm/drop_caches) before each of its runs."
      if dropped else "the caches were NOT dropped (not root), so its later rounds may read RAM.") if classic else "."))
for n in notes:
    print(f"note: {n}")
EOF

# --- The simulated-device part.
if [[ $RUN_SIM -eq 1 ]]; then
  "$(dirname "$0")/bench_sim.sh" "$ZCAV_BIN"
fi
