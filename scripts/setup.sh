#!/usr/bin/env bash
# setup.sh -- install the Debian 12 (bookworm) packages mmscope needs to build, test, run and package.
#
# Idempotent and quiet: when every package is already installed it prints nothing and touches no apt state.
# Otherwise it runs `apt-get update` and installs only what is missing. Works as root on a minimal Debian 12
# (no sudo); as another user it uses sudo when that exists.
#
# Set MMSCOPE_SKIP_SETUP=1 to skip this step (e.g. on a machine managed some other way).
set -euo pipefail

if [[ ${MMSCOPE_SKIP_SETUP:-0} == 1 ]]; then
    exit 0
fi

packages=(
    # compilers and build tools
    g++ cmake ninja-build pkg-config git
    # clang and its compiler-rt: libFuzzer and the sanitizer builds that scripts/test.sh runs (asan-engine, tsan-engine);
    # llvm-14 for llvm-symbolizer: TSan's suppressions (tests/tsan.supp) match function names, so without a symbolizer
    # the oneTBB races they suppress are reported
    clang libclang-rt-14-dev llvm-14
    # libraries
    qt6-base-dev qt6-svg-dev libqcustomplot-dev libtbb-dev nlohmann-json3-dev libcli11-dev libxkbcommon-dev libbenchmark-dev
    # packaging (cpack -G DEB with SHLIBDEPS needs dpkg-shlibdeps and file)
    dpkg-dev file
    # running the GUI headless, screenshots, readable labels
    xvfb xauth imagemagick fonts-dejavu-core
)

missing=()
for pkg in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    if [[ $status != "install ok installed" ]]; then
        missing+=("$pkg")
    fi
done

if ((${#missing[@]} == 0)); then
    exit 0
fi

echo "setup.sh: installing ${missing[*]}" >&2

as_root=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        as_root=(sudo)
    else
        echo "setup.sh: not root and no sudo; install these packages as root: ${missing[*]}" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
apt_opts=(-q -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=300)
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}"
