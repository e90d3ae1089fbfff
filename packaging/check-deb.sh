#!/usr/bin/env bash
# check-deb.sh -- build the .deb and prove it installs and runs, on a throwaway Debian 12 root (as root).
#
# Meant for a fresh Debian 12 root (a container or a throwaway VM), run from the repository root:
#   1. scripts/setup.sh, a release build of the two programs (no tests), cpack -G DEB;
#   2. purge the build dependencies (compilers, -dev packages) and everything they pulled in, so that what the
#      package needs at run time must come from its own Depends;
#   3. apt-get install ./mmscope_*.deb, then run both programs, the man page and a reduced-scale reproduce.
# Exits non-zero at the first failure. Do not run it on a machine you care about: step 2 removes packages.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
step() { printf '\n=== %s (%(%H:%M:%S)T)\n' "$*" -1; }

step "setup.sh"
scripts/setup.sh

step "release build (programs only)"
cmake --preset release -DMMSCOPE_BUILD_TESTS=OFF
cmake --build --preset release -j "${MMSCOPE_JOBS:-2}"

step "cpack -G DEB"
(cd build/release && cpack -G DEB)
deb=$(ls build/release/mmscope_*.deb)
cp "$deb" /tmp/
deb=/tmp/$(basename "$deb")
dpkg-deb --info "$deb"
dpkg-deb --contents "$deb"

step "purge the build dependencies"
export DEBIAN_FRONTEND=noninteractive
apt-get purge -y -q --autoremove g++ clang libclang-rt-14-dev cmake ninja-build pkg-config \
    qt6-base-dev qt6-svg-dev libqcustomplot-dev libtbb-dev nlohmann-json3-dev libcli11-dev libxkbcommon-dev libbenchmark-dev \
    dpkg-dev xvfb xauth imagemagick >/dev/null
dpkg -l | grep -E '^ii +(libqt6core6|libtbb12|libqcustomplot2.2) ' || echo "(runtime libraries gone, as intended)"

step "apt-get install ./$(basename "$deb")"
apt-get install -y -q man-db "$deb"

step "mmscope-cli --help"
mmscope-cli --help
for p in /usr/bin/mmscope /usr/bin/mmscope-cli; do
    if ldd "$p" | grep 'not found'; then
        echo "$p: missing libraries" >&2
        exit 1
    fi
done

step "man mmscope-cli | head"
man mmscope-cli | head -20

step "installed files"
ls -l /usr/share/mmscope/scenarios /usr/share/applications/mmscope.desktop /usr/share/bash-completion/completions/mmscope-cli \
    /usr/share/icons/hicolor/scalable/apps/mmscope.svg /usr/share/metainfo/io.github.mmscope.metainfo.xml

step "mmscope-cli reproduce --scale 0.05"
time mmscope-cli reproduce --scale 0.05

step "mmscope --screenshot (offscreen)"
QT_QPA_PLATFORM=offscreen mmscope --scenario madv-free-swapin --scale 0.02 --screenshot /tmp/x.png
ls -l /tmp/x.png
file /tmp/x.png 2>/dev/null || head -c 8 /tmp/x.png | od -c | head -1

step "apt-get remove mmscope"
apt-get remove -y -q mmscope >/dev/null
if [[ -e /usr/bin/mmscope-cli || -e /usr/bin/mmscope ]]; then echo "mmscope still installed" >&2; exit 1; fi
echo "check-deb.sh: all steps passed"
