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

# stage NAME CMD...: run one step and note its wall time and CPU time (user + system of everything it ran, which a
# loaded machine inflates far less than the wall time); the summary at the end says where CI's time went.
stage_times=()
# `times` must run in this shell (a subshell has no children of its own), so it writes to a file.
children_cpu() {
    times >"$XDG_RUNTIME_DIR/times"
    cpu_now=$(awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } printf "%d", s }'         "$XDG_RUNTIME_DIR/times")
}
stage() {
    local name=$1 start=$SECONDS cpu
    children_cpu
    cpu=$cpu_now
    shift
    "$@"
    children_cpu
    stage_times+=("$(printf '%-22s %4d s wall %5d s CPU' "$name" $((SECONDS - start)) $((cpu_now - cpu)))")
}
report_stages() {
    ((${#stage_times[@]})) || return 0
    printf 'test.sh: stage times (load %s)\n' "$(cut -d' ' -f1-3 /proc/loadavg)" >&2
    printf '  %s\n' "${stage_times[@]}" >&2
}

"$root/scripts/setup.sh"

# ccache, when installed and not chosen otherwise: CMake takes CMAKE_CXX_COMPILER_LAUNCHER from the environment when
# it first configures a build directory. A CI runner that keeps ~/.cache/ccache between jobs then recompiles only
# what changed in all three builds; paths are made relative to the checkout so that another clone hits too.
if [[ -z ${CMAKE_CXX_COMPILER_LAUNCHER:-} ]] && command -v ccache >/dev/null 2>&1; then
    export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
fi

XDG_RUNTIME_DIR=$(mktemp -d "${TMPDIR:-/tmp}/mmscope-test-runtime.XXXXXX")
chmod 700 "$XDG_RUNTIME_DIR"
trap 'rm -rf "$XDG_RUNTIME_DIR"; report_stages' EXIT
export XDG_RUNTIME_DIR
export QT_QPA_PLATFORM=offscreen

stage "ci configure" cmake --preset ci
stage "ci build" cmake --build --preset ci -j "$jobs"
stage "ci ctest" ctest --preset ci --output-on-failure -j "$jobs" "$@"

if [[ ${MMSCOPE_SANITIZERS:-1} == 1 ]]; then
    if command -v clang++ >/dev/null 2>&1; then
        stage "asan-engine configure" cmake --preset asan-engine
        stage "asan-engine build" cmake --build --preset asan-engine -j "$jobs"
        stage "asan-engine ctest" ctest --preset asan-engine --output-on-failure -j "$jobs"
        stage "tsan-engine configure" cmake --preset tsan-engine
        stage "tsan-engine build" cmake --build --preset tsan-engine -j "$jobs"
        stage "tsan-engine ctest" ctest --preset tsan-engine --output-on-failure
    else
        echo "test.sh: clang++ not found; skipping the ASan/UBSan, fuzz and TSan builds (scripts/setup.sh installs clang)" >&2
    fi
fi
