#!/usr/bin/env bash
# test.sh -- install what is missing, configure with the `ci` preset (warnings as errors), build, run every test;
# then, when clang is installed (setup.sh installs it), the sanitizer builds:
#   asan-engine  engine + CLI suites and the libFuzzer targets (scenario loader, --set) under ASan+UBSan
#   tsan-engine  the runner's parallel tests (tst_runner) under TSan
# Both leave out the Qt UI so CI stays within its time (docs/reliability.md has the timings).
#
# Exits non-zero when configuring, building or any test fails. Tests run offscreen (no display needed).
# Jobs default to 2; override with MMSCOPE_JOBS=N. Extra ARGS go to ctest of the ci build (e.g. `-R engine`).
# MMSCOPE_SANITIZERS=0 skips the sanitizer builds (a quick local run).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

jobs=${MMSCOPE_JOBS:-2}

"$root/scripts/setup.sh"

XDG_RUNTIME_DIR=$(mktemp -d "${TMPDIR:-/tmp}/mmscope-test-runtime.XXXXXX")
chmod 700 "$XDG_RUNTIME_DIR"
trap 'rm -rf "$XDG_RUNTIME_DIR"' EXIT
export XDG_RUNTIME_DIR
export QT_QPA_PLATFORM=offscreen

cmake --preset ci
cmake --build --preset ci -j "$jobs"
ctest --preset ci --output-on-failure -j "$jobs" "$@"

if [[ ${MMSCOPE_SANITIZERS:-1} == 1 ]]; then
    if command -v clang++ >/dev/null 2>&1; then
        cmake --preset asan-engine
        cmake --build --preset asan-engine -j "$jobs"
        ctest --preset asan-engine --output-on-failure -j "$jobs"
        cmake --preset tsan-engine
        cmake --build --preset tsan-engine -j "$jobs"
        ctest --preset tsan-engine --output-on-failure
    else
        echo "test.sh: clang++ not found; skipping the ASan/UBSan, fuzz and TSan builds (scripts/setup.sh installs clang)" >&2
    fi
fi
