#!/usr/bin/env bash
# Installs the Debian packages zcav needs to build and test, when missing.
# Non-interactive; needs root (or sudo) only when something is missing.
# clang, its sanitizer/libFuzzer runtimes (libclang-rt-dev) and llvm (for
# llvm-symbolizer) build and run the fuzz targets (-DZCAV_FUZZ=ON);
# clang-format checks the layout (scripts/check-format.sh). gnuplot-x11 is
# the gnuplot (it also renders PNG and SVG; it conflicts with gnuplot-nox,
# which it replaces) whose window --live draws in; xvfb, x11-apps (xwd) and
# tmux run the live view for real (tests/live/).
# chromium renders the HTML reports headless (tests/report_browser_test.sh;
# about 90 MB to download, 350 MB installed); zsh drives the zsh completion
# (tests/completion_test.sh); man-db and groff render the man page
# (tests/deb_package_test.sh); ansible-core runs the fleet playbook
# (examples/fleet/, tests/fleet_ansible_test.sh); stress-ng keeps the CPUs
# busy beside the real-I/O tests (tests/bench/busy_host.sh).
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libboost-program-options-dev libboost-dev libboost-iostreams-dev
  libboost-filesystem-dev libboost-system-dev
  libgnuplot-iostream-dev gnuplot-x11
  xvfb x11-apps tmux
  catch2 nlohmann-json3-dev liburing-dev libblkid-dev
  fuse3 libfuse3-dev
  util-linux python3 python3-jsonschema
  clang libclang-rt-dev llvm
  clang-format
  chromium zsh man-db groff-base
  ansible-core stress-ng
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
