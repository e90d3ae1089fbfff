#!/usr/bin/env bash
# launch.sh [ARGS...] -- install what is missing, build (dev preset) and start the desktop app.
#
# Opens the default scenario (madv-free-swapin) unless ARGS contain their own --scenario, at the scenario's
# faithful scale, on its most telling run and at its first event of interest (see `mmscope --help`).
# ARGS are passed to mmscope, e.g. `scripts/launch.sh --variant madvfree` or
# `scripts/launch.sh --scenario ebizzy --screenshot /tmp/ebizzy.png`.
# Without a display ($DISPLAY unset) the app runs under a virtual X server (xvfb-run -a), so the command still
# works on a headless machine.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

"$root/scripts/build.sh" dev

app=$root/build/dev/app/mmscope
if [[ ! -x $app ]]; then
    echo "launch.sh: $app was not built" >&2
    exit 1
fi

args=("$@")
have_scenario=0
for arg in "${args[@]}"; do
    case $arg in
        --scenario | --scenario=*) have_scenario=1 ;;
    esac
done
if ((have_scenario == 0)); then
    args=(--scenario madv-free-swapin "${args[@]}")
fi

# Qt warns when XDG_RUNTIME_DIR is missing (minimal machines, su, containers).
if [[ -z ${XDG_RUNTIME_DIR:-} || ! -d ${XDG_RUNTIME_DIR:-} ]]; then
    XDG_RUNTIME_DIR=$(mktemp -d "${TMPDIR:-/tmp}/mmscope-runtime.XXXXXX")
    trap 'rm -rf "$XDG_RUNTIME_DIR"' EXIT
    export XDG_RUNTIME_DIR
fi

if [[ -z ${DISPLAY:-} ]]; then
    echo "launch.sh: no \$DISPLAY; running mmscope under a virtual X server (xvfb-run -a)." >&2
    echo "launch.sh: the window is not visible; use --screenshot FILE to see it, Ctrl-C to stop." >&2
    # An inherited QT_QPA_PLATFORM=offscreen would bypass Xvfb; let Qt use its real X11 (xcb) platform there.
    unset QT_QPA_PLATFORM
    xvfb-run -a -s "-screen 0 1600x1000x24" "$app" "${args[@]}"
else
    "$app" "${args[@]}"
fi
