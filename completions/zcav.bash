# bash completion for zcav: commands, each command's options, the values of
# enumerated options (--format, --bus, --media, --kind, --engine, --expect)
# and device paths (block devices, files, sim: models) for device arguments.
# Installed as /usr/share/bash-completion/completions/zcav. Works without the
# bash-completion package too (source this file). Keep the option lists in
# step with 'zcav COMMAND --help': tests/completion_test.sh compares them.

_zcav_commands="profile sweep access burst verify zones plot report merge"
_zcav_sim_models="hdd usb2-hdd cd dvd ssd nvme-throttle ssd-dips banded-hdd"
_zcav_buses="usb1 usb2 usb3 usb3.1 usb3.2 fw400 fw800 udma33 udma66 udma100 udma133
  sata1 sata2 sata3 sas3 sas6 sas12"
_zcav_zone_opts="--sensitivity --min-zone --media --bus"
_zcav_gate_opts="--expect --max-errors --max-time"
_zcav_opts_profile="--help --output --full --quick --adaptive -b -c --label --quiet --live --events
  $_zcav_gate_opts
  $_zcav_zone_opts"
_zcav_opts_sweep="--help --output --format --block-size --chunk-size --passes --queue-depth
  --engine --start --end --skip --quick --adaptive --budget --grid --no-warmup --no-zones --smart --live --events --resume
  --stop-on-error --slow-factor --plot --label --alone-and-together --quiet --write
  --destroy-data --force-in-use --create-size --fill --discard --idle-probe $_zcav_zone_opts $_zcav_gate_opts"
_zcav_classic_opts="-b -c -r -s -l -f -u -g -w"
_zcav_opts_access="--help --output --format --quiet --samples --read-size --seed --sizes --queue-depth --cell-time --write --destroy-data --force-in-use --create-size"
_zcav_opts_burst="--help --output --format --quiet --region --chunk-size --repetitions"
_zcav_opts_verify="--help --destroy-data --quick --keep-data --cache-flush --output --format --plot --badblocks --resume --chunk-size
  --block-size --queue-depth --create-size --force-in-use --expect --quiet"
_zcav_opts_zones="--help --format --output $_zcav_zone_opts"
_zcav_opts_plot="--help --output --label --kind --quiet $_zcav_zone_opts"
_zcav_opts_report="--help --output --label --quiet $_zcav_zone_opts"
_zcav_opts_merge="--help --output --quiet"

# Block devices, the files and directories under the prefix, and sim: models.
_zcav_devices() {
  local cur=$1 d
  if [[ $cur == sim:* ]]; then
    compgen -P sim: -W "$_zcav_sim_models" -- "${cur#sim:}"
    return
  fi
  if [[ -z $cur || sim: == "$cur"* ]]; then
    compgen -P sim: -W "$_zcav_sim_models" -- ""
  fi
  if [[ -z $cur || $cur == /* ]]; then
    for d in /dev/sd* /dev/nvme*n* /dev/loop[0-9]* /dev/sr* /dev/vd* /dev/md* /dev/mmcblk*; do
      [[ -b $d && $d == "$cur"* ]] && printf '%s\n' "$d"
    done
  fi
  [[ $cur == /dev/* ]] || compgen -f -- "$cur"
}

# The value list of an option, or nothing when it takes a free value.
_zcav_values() {
  local cmd=$1 opt=$2 cur=$3 g w
  case $opt in
    --format)
      case $cmd in
        access | burst | verify) compgen -W "text json" -- "$cur" ;;
        zones) compgen -W "text csv json" -- "$cur" ;;
        *) compgen -W "raw csv json" -- "$cur" ;;
      esac ;;
    --bus)
      local pcie=""
      for g in 1 2 3 4 5; do for w in 1 2 4 8 16; do pcie+=" pcie${g}x$w"; done; done
      compgen -W "$_zcav_buses $pcie" -- "$cur" ;;
    --media) compgen -W "cd dvd bd none" -- "$cur" ;;
    --kind) compgen -W "falloff comparison access histogram concurrent map random verify" -- "$cur" ;;
    --engine) compgen -W "auto io_uring pread" -- "$cur" ;;
    --expect) compgen -W "min= avg= max-slow= max-unreadable= health=good health=suspect" \
      -- "${cur##*,}" | sed "s/^/${cur%"${cur##*,}"}/" ;;
    -o | --output)
      if [[ $cmd == profile ]]; then compgen -d -- "$cur"; else compgen -f -- "$cur"; fi ;;
    --plot) if [[ $cmd == verify ]]; then compgen -f -- "$cur"; else compgen -d -- "$cur"; fi ;;
    --resume | --events | --badblocks | -l) compgen -f -- "$cur" ;;
    -f) _zcav_devices "$cur" ;;
    *) return 1 ;;
  esac
  return 0
}

# Options that take a value (the next word is not a device or an option).
_zcav_takes_value() {
  case $1 in
    -o | --output | --format | --block-size | --chunk-size | --passes | --queue-depth | \
      --engine | --start | --end | --skip | --resume | --slow-factor | --plot | --label | --events | \
      --create-size | --fill | --idle-probe | --sensitivity | --min-zone | --media | --bus | --expect | --max-errors | \
      --max-time | --badblocks | --cache-flush | --samples | --read-size | --seed | --sizes | --cell-time | --region | --repetitions | --kind | \
      -b | -c | -r | -s | -l | -f | -u | -g) return 0 ;;
  esac
  return 1
}

_zcav() {
  # COMP_WORDS splits at COMP_WORDBREAKS (':' and '='): glue sim:hdd and
  # --format=json back together, then give bash the part after the break.
  local -a words=()
  local cword=0 i w glue=0
  for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
    w=${COMP_WORDS[i]}
    if ((i > 0)) && [[ -n $w && -z ${w//[:=]/} ]]; then
      words[${#words[@]} - 1]+=$w
      glue=1
    elif ((glue)); then
      words[${#words[@]} - 1]+=$w
      glue=0
    else
      words+=("$w")
    fi
    ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
  done
  local cur=${words[cword]} prev=${words[cword - 1]:-} cmd="" word
  for ((i = 1; i < cword; i++)); do
    if [[ " $_zcav_commands " == *" ${words[i]} "* ]]; then
      cmd=${words[i]}
      break
    fi
  done
  local -a replies=()
  if ((cword == 1)) && [[ $cur != -* ]]; then
    mapfile -t replies < <(compgen -W "$_zcav_commands help" -- "$cur"; _zcav_devices "$cur")
  elif [[ $cur == --*=* ]]; then
    mapfile -t replies < <(_zcav_values "$cmd" "${cur%%=*}" "${cur#*=}" | sed "s/^/${cur%%=*}=/")
  elif _zcav_takes_value "$prev"; then
    mapfile -t replies < <(_zcav_values "$cmd" "$prev" "$cur")
  elif [[ $cur == -* ]]; then
    local opts_var=_zcav_opts_${cmd:-sweep}
    local opts=${!opts_var}
    [[ $cmd == "" || $cmd == sweep ]] && opts+=" $_zcav_classic_opts"
    [[ $cmd == "" ]] && opts+=" --version"
    mapfile -t replies < <(compgen -W "$opts" -- "$cur")
  else
    case $cmd in
      zones | plot | report | merge) mapfile -t replies < <(compgen -f -- "$cur") ;;
      *) mapfile -t replies < <(_zcav_devices "$cur") ;;
    esac
  fi
  # bash replaces only the text after the last ':' or '=' it broke at.
  local broken=${cur%"${cur##*[:=]}"}
  if [[ -n $broken ]]; then
    for i in "${!replies[@]}"; do replies[i]=${replies[i]#"$broken"}; done
  fi
  COMPREPLY=("${replies[@]}")
  compopt -o filenames 2>/dev/null
  return 0
}
complete -F _zcav zcav
