#!/usr/bin/env bash
# build.sh [PRESET] -- install what is missing, configure and build mmscope with a CMake preset.
#
# PRESET is one of the configure presets in CMakePresets.json (dev, release, asan, tsan, ci, engine); default dev.
# The build directory is build/PRESET. Jobs default to 2; override with MMSCOPE_JOBS=N.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

preset=${1:-dev}
jobs=${MMSCOPE_JOBS:-2}

"$root/scripts/setup.sh"
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$jobs"
