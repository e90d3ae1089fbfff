#!/usr/bin/env bash
# figures.sh CLI [RUNS]: the two headline speed figures of docs/benchmarks.md, measured with an mmscope-cli binary.
#
#   events   the madvise path's simulated events per second per host core: `run madv-free-swapin --variant madvfree
#            --scale 0.05 --threads 1`, RUNS times (default 7); the event count is the JSON's, the time is the
#            process's user CPU time (start-up and scenario loading included)
#   reproduce  full-scale `reproduce --threads 2`, RUNS times (default 1; minutes each): wall, user and sys seconds,
#            and the maximum resident set where /usr/bin/time exists
#   stream   the per-page read path with memory bandwidth: `run dd-sparse-read --threads 1` at full scale (40 runs,
#            26 M pages each), RUNS times (default 3; a minute or two each): the process's user CPU time
#   table    every built-in scenario, one `run ID --scale SCALE --threads 2` each (the third argument is the scale,
#            default 1: minutes): a markdown table of its runs, simulated events, events per second per thread (the
#            events over the process's user CPU time), wall time and peak resident set (docs/benchmarks.md)
#   firstframe  the app (the second argument is the `mmscope` binary, not the CLI): host milliseconds from Run to
#            the first live frame of `madv-free-swapin` at full scale under xvfb-run, RUNS times (default 3); each
#            app is stopped once it has said so (`--shots-during`)
#
# usage: tests/bench/figures.sh events|reproduce|stream CLI [RUNS]
#        tests/bench/figures.sh table CLI [SCALE]
#        tests/bench/figures.sh firstframe APP [RUNS]
# Each prints min / median / max over the runs. Wall time depends on what else the host runs: measure on an idle
# host and say when it was not.
set -euo pipefail
what=${1:?usage: figures.sh events|reproduce|stream CLI [RUNS]}
cli=${2:?usage: figures.sh events|reproduce|stream CLI [RUNS]}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TIMEFORMAT='%R %U %S'

# stats: min / median / max of the numbers on standard input
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f / %.3f / %.3f\n", v[1], (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[NR] }'; }

case $what in
events)
    runs=${3:-7}
    for ((i = 0; i < runs; i++)); do
        { time "$cli" run madv-free-swapin --variant madvfree --scale 0.05 --threads 1 --format json --out "$tmp/run.json"; } 2> "$tmp/time"
        events=$(awk -F: '/"events":/ { gsub(/[ ,]/, "", $2); s += $2 } END { print s }' "$tmp/run.json")
        read -r wall user sys < <(tail -1 "$tmp/time")
        echo "$events $wall $user" >> "$tmp/runs"
        awk -v e="$events" -v u="$user" -v w="$wall" 'BEGIN { printf "run: %d events, %.3f s user, %.3f s wall: %.1f M events/s per core\n", e, u, w, e / u / 1e6 }'
    done
    echo "events: $(awk 'NR == 1 { print $1 }' "$tmp/runs")"
    echo "user s (min / median / max): $(awk '{ print $3 }' "$tmp/runs" | stats)"
    echo "M events/s per core (min / median / max): $(awk '{ print $1 / $3 / 1e6 }' "$tmp/runs" | stats)"
    ;;
reproduce)
    runs=${3:-1}
    for ((i = 0; i < runs; i++)); do
        if [[ -x /usr/bin/time ]]; then
            /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$cli" reproduce --threads 2 > "$tmp/out.txt"
        else
            { time "$cli" reproduce --threads 2 > "$tmp/out.txt"; } 2> "$tmp/time"
        fi
        tail -1 "$tmp/time" >> "$tmp/runs"
        echo "run: $(tail -1 "$tmp/time") (wall s, user s, sys s, max RSS KiB)"
        sed -n '/^summary/,$p' "$tmp/out.txt"
    done
    echo "wall s (min / median / max): $(awk '{ print $1 }' "$tmp/runs" | stats)"
    echo "user s (min / median / max): $(awk '{ print $2 }' "$tmp/runs" | stats)"
    if awk 'NF < 4 { exit 1 }' "$tmp/runs"; then
        echo "max RSS GB (min / median / max): $(awk '{ print $4 * 1024 / 1e9 }' "$tmp/runs" | stats)"
    fi
    ;;
stream)
    runs=${3:-3}
    for ((i = 0; i < runs; i++)); do
        { time "$cli" run dd-sparse-read --scale 1 --threads 1 --format json --out "$tmp/run.json"; } 2> "$tmp/time"
        read -r wall user sys < <(tail -1 "$tmp/time")
        echo "$user" >> "$tmp/runs"
        echo "run: $user s user, $wall s wall"
    done
    echo "user s (min / median / max): $(stats < "$tmp/runs")"
    ;;
table)
    scale=${3:-1}
    echo "| scenario | runs | events | M events/s per thread | wall s | user s | peak RSS MB |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for id in $("$cli" list | awk '/^[a-z]/ { print $1 }'); do
        /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$cli" run "$id" --scale "$scale" --threads 2 --format json \
            --out "$tmp/run.json" 2> /dev/null
        runs=$(grep -c '"variant":' "$tmp/run.json")
        events=$(awk -F: '/"events":/ { gsub(/[ ,]/, "", $2); s += $2 } END { printf "%d", s }' "$tmp/run.json")
        read -r wall user sys rss < <(tail -1 "$tmp/time")
        awk -v id="$id" -v r="$runs" -v e="$events" -v w="$wall" -v u="$user" -v m="$rss" 'BEGIN {
            printf "| `%s` | %d | %.1f M | %.1f | %.1f | %.1f | %.0f |\n", id, r, e / 1e6, e / u / 1e6, w, u, m * 1024 / 1e6 }'
    done
    ;;
firstframe)
    runs=${3:-3}
    for ((i = 0; i < runs; i++)); do
        xvfb-run -a -s "-screen 0 1600x1000x24" "$cli" --scenario madv-free-swapin --scale 1 --shots-during 60000 \
            --screenshot "$tmp/shot.png" 2> "$tmp/err" &
        app=$!
        until grep -q 'first live frame' "$tmp/err" || ! kill -0 "$app" 2> /dev/null; do sleep 0.2; done
        pkill -P "$app" -f 'mmscope --scenario' 2> /dev/null || true
        pkill -f "$tmp/shot.png" 2> /dev/null || true
        wait "$app" 2> /dev/null || true
        line=$(grep "first live frame" "$tmp/err") || { echo "figures.sh: no live frame:" >&2; cat "$tmp/err" >&2; exit 1; }
        echo "run: ${line#mmscope: }"
        awk '{ for (i = 1; i <= NF; i++) if ($i == "ms") print $(i - 1) }' <<< "$line" | head -1 >> "$tmp/runs"
    done
    echo "ms from Run to the first live frame (min / median / max): $(stats < "$tmp/runs")"
    ;;
*)
    echo "figures.sh: $what: expected events, reproduce, stream, table or firstframe" >&2
    exit 2
    ;;
esac
