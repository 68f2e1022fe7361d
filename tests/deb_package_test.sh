#!/usr/bin/env bash
# The Debian package: `cpack -G DEB` from the build directory, its control
# fields and contents (dpkg-deb -I/-c), then a real install into a clean root.
#
# The clean root: an empty directory with an empty dpkg database, plus the
# files and status entries of exactly the packages the .deb's Depends names
# (and what they depend on), copied from this machine's own installation
# (dpkg -L, /var/lib/dpkg/status). `dpkg --root` then installs zcav.deb
# without --force-depends: its Depends must be satisfiable by those packages,
# and `chroot ROOT zcav ...` must run on their libraries alone, so a missing
# dependency fails here. (Downloading the packages would need the network;
# dpkg -x with the host's libraries would not test Depends.)
# Runs zcav --version and zcav profile inside, and renders the installed man
# page with man -l (warnings are failures).
# Usage: deb_package_test.sh BUILD_DIR. Skips (77) without root, cpack,
# dpkg-deb or chroot, and in a sanitizer or fuzz build.
set -euo pipefail
build=$(cd "$1" && pwd)

skip() {
  echo "SKIP: $*"
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
[[ $(id -u) == 0 ]] || skip "not root (dpkg --root and chroot need it)"
for tool in cpack dpkg-deb dpkg chroot dpkg-query man; do
  command -v "$tool" >/dev/null || skip "$tool not installed"
done

# A sanitized build (ASan links libasan, which wants /proc) is not what ships.
if grep -qE '^ZCAV_(SANITIZE|FUZZ):BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  skip "a sanitizer or fuzz build is not packaged (ZCAV_SANITIZE/ZCAV_FUZZ=ON)"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zcav-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# 1. Build the package (into $tmp, not the build directory).
(cd "$build" && cpack -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) ||
  { cat "$tmp/cpack.log"; fail "cpack -G DEB failed"; }
debs=("$tmp"/pkg/zcav_*.deb)
[[ -f ${debs[0]} && ${#debs[@]} == 1 ]] || fail "cpack wrote no single zcav_*.deb"
deb=${debs[0]}

# 2. Control fields.
field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == zcav ]] || fail "Package: $(field Package)"
[[ $(field Section) == utils ]] || fail "Section: $(field Section), not utils"
[[ $(field Maintainer) =~ ^[^\<]+\ \<[^@]+@[^\>]+\>$ ]] || fail "Maintainer: '$(field Maintainer)'"
[[ -n $(field Description) ]] || fail "no Description"
depends=$(field Depends)
for lib in libc6 libstdc++6 liburing2 libboost-program-options; do
  [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
recommends=$(field Recommends)
[[ $recommends == *"gnuplot-nox | gnuplot-x11 | gnuplot-qt"* && $recommends == *smartmontools* ]] ||
  fail "Recommends: $recommends"
[[ $depends != *gnuplot* ]] || fail "gnuplot must be recommended, not a dependency: $depends"
dpkg-deb -I "$deb" >/dev/null

# 3. Contents.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$tmp/contents"
for f in /usr/bin/zcav /usr/share/man/man1/zcav.1.gz /usr/share/zcav/plots/falloff.gp \
  /usr/share/zcav/plots/map.gp /usr/share/bash-completion/completions/zcav \
  /usr/share/zsh/vendor-completions/_zcav /usr/share/doc/zcav/examples/README.md \
  /usr/share/doc/zcav/examples/report.html /usr/share/doc/zcav/examples/sim-hdd.dat; do
  grep -qx -- "$f" "$tmp/contents" || fail "the package lacks $f"
done
gp=$(grep -c "^/usr/share/zcav/plots/.*\.gp$" "$tmp/contents")
[[ $gp == "$(ls "$(dirname "$0")"/../plots/*.gp | wc -l)" ]] ||
  fail "$gp templates in the package, not every plots/*.gp"

# 4. The clean root: the dependency closure's files and dpkg status entries.
root=$tmp/root
mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{tmp,dev,proc} \
  "$root"/var/lib/dpkg/{info,updates,triggers}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done
touch "$root"/var/lib/dpkg/{status,available}
# The first installed alternative of each dependency, recursively.
declare -A seen=()
queue=("$depends")
while ((${#queue[@]})); do
  list=${queue[0]}
  queue=("${queue[@]:1}")
  IFS=',' read -ra items <<<"$list"
  for item in "${items[@]}"; do
    IFS='|' read -ra alts <<<"$item"
    for alt in "${alts[@]}"; do
      pkg=$(sed -E 's/\(.*\)//; s/:any//; s/[[:space:]]//g' <<<"$alt")
      [[ -n $pkg ]] || continue
      dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || continue
      if [[ -z ${seen[$pkg]:-} ]]; then
        seen[$pkg]=1
        queue+=("$(dpkg-query -W -f='${Pre-Depends},${Depends}' "$pkg")")
      fi
      break
    done
  done
done
for pkg in "${!seen[@]}"; do
  while IFS= read -r f; do
    [[ -d $f && ! -L $f ]] && continue
    [[ -e $f || -L $f ]] || continue
    cp -a --parents "$f" "$root" 2>/dev/null || cp -a "$f" "$root$f"
  done < <(dpkg-query -L "$pkg")
  { dpkg-query -s "$pkg"; echo; } >>"$root/var/lib/dpkg/status"
done
echo "clean root with: ${!seen[*]}"

# 5. Install: dependencies checked against the root's database only.
dpkg --root="$root" --force-script-chrootless -i "$deb" >"$tmp/dpkg.log" 2>&1 ||
  { cat "$tmp/dpkg.log"; fail "dpkg --root -i failed"; }
dpkg --root="$root" -s zcav | grep -q "install ok installed" || fail "zcav not installed in the root"
[[ -x $root/usr/bin/zcav ]] || fail "no /usr/bin/zcav in the root"

# 6. Run it there, on the dependencies' libraries alone.
version=$(chroot "$root" /usr/bin/zcav --version) || fail "zcav --version failed in the root"
[[ $version == "zcav "[0-9]* ]] || fail "zcav --version printed '$version'"
chroot "$root" /usr/bin/zcav profile 'sim:hdd?size=1G' -o /tmp/prof -q 2>"$tmp/profile.err" ||
  { cat "$tmp/profile.err"; fail "zcav profile failed in the root"; }
for f in profile.json summary.txt zones.txt report.html; do
  [[ -s $root/tmp/prof/$f ]] || fail "zcav profile in the root wrote no $f"
done
grep -q '"status": *"complete"' "$root/tmp/prof/profile.json" ||
  fail "the profile in the root is not complete"

# 7. The installed man page renders without warnings.
MANWIDTH=80 man --warnings -l "$root/usr/share/man/man1/zcav.1.gz" >"$tmp/man.txt" 2>"$tmp/man.err" ||
  fail "man -l failed: $(cat "$tmp/man.err")"
[[ ! -s $tmp/man.err ]] || fail "man -l warned: $(head -5 "$tmp/man.err")"
grep -q 'EXIT STATUS' "$tmp/man.txt" || fail "the rendered man page has no EXIT STATUS section"
echo "ok: $(basename "$deb") ($(field Depends)) installs into a clean root and runs"
