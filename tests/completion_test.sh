#!/usr/bin/env bash
# The shell completions offer what zcav itself accepts. The bash completion is
# driven in bash (COMP_WORDS/COMP_CWORD set, _zcav called, COMPREPLY read):
# commands after `zcav `, each command's options against `zcav CMD --help`,
# the values of --format/--bus/--media/--kind/--engine against the lists in
# zcav's own error messages, sim: models, and device paths. The zsh
# completion is driven in an interactive zsh on a pseudo-terminal
# (completion_zsh.zsh) for the same, where zsh is installed. Usage:
# completion_test.sh ZCAV COMPLETIONS_DIR.
set -uo pipefail
zcav=$1
dir=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
zcav=$(cd "$(dirname "$zcav")" && pwd)/$(basename "$zcav")
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# complete WORD... : the replies for the last word, sorted, one line.
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _zcav
    printf "%s\n" "${COMPREPLY[@]}"' _ "$dir/zcav.bash" "$@" | sort | tr '\n' ' ' | sed 's/ $//'
}
expect_eq() {  # what, got, want
  [[ $2 == "$3" ]] || fail "$1: got '$2', want '$3'"
}
sorted() { tr ', ' '\n\n' | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//'; }
# The list in an error message: "... (choose one of: a, b, c)" -> "a b c".
listed() { sed -E 's/.*(one of: |use )//; s/\)$//; s/ or /, /' | sorted; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zcav-complete.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1  # an empty directory: no file names among the replies

# Commands.
commands=$("$zcav" --help | sed -nE 's/^  zcav ([a-z]+) .*/\1/p' | sort -u | tr '\n' ' ' | sed 's/ $//')
[[ -n $commands ]] || fail "no commands in zcav --help"
got=$(complete_words zcav "" | tr ' ' '\n' | grep -E '^[a-z]+$' | grep -vx help | sorted)
expect_eq "commands after 'zcav '" "$got" "$commands"
expect_eq "'zcav sw'" "$(complete_words zcav sw)" "sweep"

# Options of each command, against its --help.
for cmd in $commands; do
  want=$("$zcav" "$cmd" --help | grep -oE '^  (-[a-zA-Z] \[ )?--?[a-z][a-z-]*' |
    sed -E 's/^ +//; s/.*\[ //' | sort -u | tr '\n' ' ' | sed 's/ $//')
  got=$(complete_words zcav "$cmd" - | tr ' ' '\n' | grep -E '^--|^-[a-z]$' | sort -u |
    tr '\n' ' ' | sed 's/ $//')
  # Short aliases (-o, -q, -h) are not offered beside their long names.
  want=$(tr ' ' '\n' <<<"$want" | grep -vxE -- '-[ohq]' | tr '\n' ' ' | sed 's/ $//')
  expect_eq "options of 'zcav $cmd -'" "$got" "$want"
  for opt in $want; do
    [[ $opt == --* ]] || continue
    grep -qF -- "$opt[" "$dir/_zcav" || grep -qF -- ",$opt}" "$dir/_zcav" ||
      fail "the zsh completion does not offer $opt (of zcav $cmd)"
  done
done
expect_eq "'zcav sweep --qu'" "$(complete_words zcav sweep --qu)" "--queue-depth --quick --quiet"

# Values, against the lists zcav's errors give.
want=$("$zcav" sweep sim:hdd --format x 2>&1 | listed)
expect_eq "'zcav sweep --format '" "$(complete_words zcav sweep --format "")" "$want"
expect_eq "'zcav sweep --format=' (split at =)" "$(complete_words zcav sweep --format = "")" "$want"
expect_eq "'zcav access --format '" "$(complete_words zcav access --format "")" "json text"
want=$("$zcav" zones --bus bogus x 2>&1 | listed | tr ' ' '\n' | grep -vx pcieGxW | sorted)
got=$(complete_words zcav sweep --bus "" | tr ' ' '\n' | grep -v '^pcie' | sorted)
expect_eq "'zcav sweep --bus '" "$got" "$want"
[[ " $(complete_words zcav sweep --bus pcie3) " == *" pcie3x4 "* ]] || fail "--bus pcie3 lacks pcie3x4"
"$zcav" zones --bus pcie3x4 /nonexistent 2>&1 | grep -q "unknown bus" && fail "zcav refuses pcie3x4"
expect_eq "'zcav sweep --bus usb'" "$(complete_words zcav sweep --bus usb)" \
  "usb1 usb2 usb3 usb3.1 usb3.2"
want=$("$zcav" zones --media x y 2>&1 | listed)
expect_eq "'zcav zones --media '" "$(complete_words zcav zones --media "")" "$want"
want=$("$zcav" plot --kind x y 2>&1 | listed)
expect_eq "'zcav plot --kind '" "$(complete_words zcav plot --kind "")" "$want"
want=$("$zcav" sweep sim:hdd --engine x 2>&1 | sed 's/.*: //; s/ or / /' | sorted)
expect_eq "'zcav sweep --engine '" "$(complete_words zcav sweep --engine "")" "$want"

# Devices: sim: models (bash splits sim:h at the colon), block devices, files.
want=$("$zcav" sweep sim:bogus 2>&1 | listed)
got=$(complete_words zcav sweep sim : "" | sorted)
expect_eq "'zcav sweep sim:'" "$got" "$want"
expect_eq "'zcav sweep sim:us'" "$(complete_words zcav sweep sim : us)" "usb2-hdd"
for prefix in /dev/loop /dev/sd /dev/nvme; do
  want=$(for d in "$prefix"*; do [[ -b $d ]] && echo "$d"; done | sorted)
  [[ $prefix == /dev/nvme ]] && want=$(for d in /dev/nvme*n*; do [[ -b $d ]] && echo "$d"; done | sorted)
  expect_eq "'zcav sweep $prefix'" "$(complete_words zcav sweep "$prefix")" "$want"
done
touch "$tmp/disk.img" "$tmp/data.json"
expect_eq "'zcav profile $tmp/di'" "$(complete_words zcav profile "$tmp/di")" "$tmp/disk.img"
expect_eq "'zcav zones $tmp/d'" "$(complete_words zcav zones "$tmp/d")" "$tmp/data.json $tmp/disk.img"
# Not a device after an option that takes a value.
expect_eq "'zcav sweep --passes '" "$(complete_words zcav sweep --passes "")" ""

# zsh: syntax, and the completion driven in an interactive zsh on a
# pseudo-terminal (completion_zsh.zsh: the line, a Tab, the candidates).
if command -v zsh >/dev/null; then
  zsh -n "$dir/_zcav" || fail "zsh -n $dir/_zcav"
  # zsh_complete LINE: the candidates zsh offers for LINE's last word, sorted.
  zsh_complete() {
    timeout 30 zsh -f "$here/completion_zsh.zsh" "$dir" "$tmp/zsh.out" "$1"
    sed '/^$/d' "$tmp/zsh.out" | sort -u | tr '\n' ' ' | sed 's/ $//'
  }
  # Commands, among the devices and files (zcav DEVICE is the classic form).
  got=$(zsh_complete 'zcav ' | tr ' ' '\n' | grep -E '^[a-z]+$' | sorted)
  expect_eq "zsh: commands after 'zcav '" "$got" "$commands"
  expect_eq "zsh: 'zcav sw'" "$(zsh_complete 'zcav sw')" "sweep"
  for cmd in $commands; do
    want=$("$zcav" "$cmd" --help | grep -oE '^  (-[a-zA-Z] \[ )?--[a-z][a-z-]*' |
      sed -E 's/^ +//; s/.*\[ //' | sort -u | tr '\n' ' ' | sed 's/ $//')
    got=$(zsh_complete "zcav $cmd --" | tr ' ' '\n' | grep -E '^--' | sort -u | tr '\n' ' ' |
      sed 's/ $//')
    expect_eq "zsh: options of 'zcav $cmd --'" "$got" "$want"
  done
  expect_eq "zsh: 'zcav sweep --qu'" "$(zsh_complete 'zcav sweep --qu')" \
    "--queue-depth --quick --quiet"
  want=$("$zcav" sweep sim:hdd --format x 2>&1 | listed)
  expect_eq "zsh: 'zcav sweep --format '" "$(zsh_complete 'zcav sweep --format ')" "$want"
  expect_eq "zsh: 'zcav sweep --bus usb'" "$(zsh_complete 'zcav sweep --bus usb')" \
    "usb1 usb2 usb3 usb3.1 usb3.2"
  want=$("$zcav" zones --media x y 2>&1 | listed)
  expect_eq "zsh: 'zcav zones --media '" "$(zsh_complete 'zcav zones --media ')" "$want"
  want=$("$zcav" plot --kind x y 2>&1 | listed)
  expect_eq "zsh: 'zcav plot --kind '" "$(zsh_complete 'zcav plot --kind ')" "$want"
  want=$("$zcav" sweep sim:bogus 2>&1 | listed | tr ' ' '\n' | sed 's/^/sim:/' | sorted)
  expect_eq "zsh: 'zcav sweep sim:'" "$(zsh_complete 'zcav sweep sim:')" "$want"
  expect_eq "zsh: 'zcav sweep sim:us'" "$(zsh_complete 'zcav sweep sim:us')" "sim:usb2-hdd"
  # Block devices among the candidates (with the file names _files adds).
  for d in /dev/loop[0-9]*; do
    [[ -b $d ]] || continue
    [[ " $(zsh_complete "zcav sweep /dev/loo") " == *" $d "* ]] ||
      fail "zsh: 'zcav sweep /dev/loo' does not offer $d"
    break
  done
  got=$(zsh_complete "zcav profile $tmp/di")
  [[ " $got " == *"disk.img "* ]] || fail "zsh: 'zcav profile $tmp/di' does not offer disk.img: '$got'"
  expect_eq "zsh: 'zcav sweep --passes '" "$(zsh_complete 'zcav sweep --passes ')" ""
else
  echo "note: zsh not installed: the zsh completion was not checked"
fi

((failures == 0)) || exit 1
echo "ok: the bash and zsh completions agree with zcav's help and value lists"
