#!/usr/bin/env bash
# test.sh -- install what is missing, configure with the `ci` preset (warnings as errors), build, run every test.
#
# Exits non-zero when configuring, building or any test fails. Tests run offscreen (no display needed).
# Jobs default to 2; override with MMSCOPE_JOBS=N. Extra ARGS go to ctest (e.g. `-R engine`).
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
