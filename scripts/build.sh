#!/usr/bin/env bash
# build.sh [PRESET] [--pgo] -- install what is missing, configure and build mmscope with a CMake preset.
#
# PRESET is one of the configure presets in CMakePresets.json (dev, release, asan, tsan, ci, engine); default dev.
# The build directory is build/PRESET. Jobs default to 2; override with MMSCOPE_JOBS=N.
#
# --pgo (GCC, the optimised presets: release, engine, dev): profile-guided optimisation in three steps. An
# instrumented mmscope-cli is built and runs every built-in scenario at a small scale (scripts/pgo-train.sh, about
# a minute on two cores), then everything is built again with the profiles it left, at -O2 whatever the preset's
# level (CMakeLists.txt says why). The engine's code is compiled twice, so the build takes about twice as long; the
# results are the same as without (docs/benchmarks.md says by how much faster).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

preset=dev
pgo=0
for arg in "$@"; do
    case $arg in
    --pgo) pgo=1 ;;
    -*) echo "build.sh: unknown option $arg (expected --pgo)" >&2; exit 2 ;;
    *) preset=$arg ;;
    esac
done
jobs=${MMSCOPE_JOBS:-2}

"$root/scripts/setup.sh"
if ((pgo)); then
    cmake --preset "$preset" -DMMSCOPE_PGO=generate
    find "build/$preset" -name '*.gcda' -delete # profiles of an older build would not match its objects
    cmake --build --preset "$preset" -j "$jobs" --target mmscope-cli
    "$root/scripts/pgo-train.sh" "build/$preset/app/mmscope-cli"
    cmake --preset "$preset" -DMMSCOPE_PGO=use
else
    cmake --preset "$preset" -DMMSCOPE_PGO=
fi
cmake --build --preset "$preset" -j "$jobs"
