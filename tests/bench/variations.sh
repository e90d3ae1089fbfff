#!/bin/bash
# variations.sh CLI [TIMEOUT_S]: run each built-in scenario under the variations a new user tries -- tiny memory, no
# swap or a tiny swap device, 1 or 256 CPUs, every numeric workload parameter at 1 and at 8x its default -- and on
# other kernels and machines -- every release that brings a rule (spread over the scenarios: each release on one of
# them, in turn), every machine preset, a KVM guest, zram swap, each named kernel config, one node -- all at
# --scale 0.02 with one repetition and the kernel's invariants checked at the end of each run, and print one line per
# run: its exit code (0 ran, 2 refused or stopped with a message, anything else a failure), its wall time and the
# first line of its message (the warning that 0.02 is below a scenario's faithful scale left out). Exit 1 if any run
# crashed or timed out.
# Every run ends: docs/reliability.md lists what each ends with.
set -u
CLI=$1 LIMIT=${2:-300} # a run reaching the watchdog can take minutes of host time (docs/reliability.md)
fail=0
run() { # run ID ARGS...
    local id=$1 out rc start
    shift
    start=$(date +%s.%N)
    out=$(timeout "$LIMIT" "$CLI" run "$id" --scale 0.02 --reps 1 --threads 1 --check-invariants --format json "$@" \
        2>&1 >/dev/null)
    rc=$?
    printf '%-22s %-62s rc=%-3s %5.1fs %s\n' "$id" "$*" "$rc" "$(echo "$(date +%s.%N) - $start" | bc)" \
        "$(echo "$out" | grep -v ": warning: " | head -1 | cut -c1-100)"
    if ((rc != 0 && rc != 2)); then fail=1; fi
}
ids=($("$CLI" list | awk '/^[a-z]/ {print $1}'))
releases=($("$CLI" kernels | awk '$1 ~ /^[0-9]/ && /rule/ {print $1}'))
presets=($("$CLI" presets | awk '/^machine presets/ {m = 1; next} /^swap devices/ {m = 0} m && /^  [a-z]/ {print $1}'))
# kernel.config's values, as `toggles` lists what each toggle takes ("one of a|b|c").
configs=($("$CLI" toggles | awk '$1 == "kernel.config" {sub(/.*one of /, ""); print $1}' | tr '|' ' '))
for i in "${!ids[@]}"; do
    id=${ids[i]}
    run "$id"
    run "$id" --set machine.memory=16MiB
    run "$id" --set machine.memory=48MiB
    run "$id" --set 'machine.swap=[]'
    run "$id" --set 'machine.swap=[]' --set machine.memory=64MiB
    run "$id" --set 'machine.swap=[{"size":"4MiB","device":"ssd-2015"}]'
    run "$id" --set machine.cpus=1 --set machine.sockets=1
    run "$id" --set machine.cpus=256
    # Each numeric workload parameter at 1 and at 8x its default (a size at 4 KiB and 8x).
    while read -r name value; do
        run "$id" --set "workload.$name=$value"
    done < <("$CLI" show "$id" | python3 -c '
import json, re, sys
units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
for k, v in json.load(sys.stdin)["workload"].items():
    if isinstance(v, bool) or k == "kind":
        continue
    if isinstance(v, (int, float)):
        print(k, 1)
        print(k, json.dumps(v * 8))
    elif isinstance(v, str) and re.fullmatch(r"[0-9.]+(KiB|MiB|GiB|TiB)", v):
        n = float(v[:-3]) * units[v[-3:]]
        print(k, json.dumps("4KiB"))
        print(k, json.dumps("%dKiB" % (n * 8 / 1024)))
')
    # Other kernels and machines.
    for ((r = i; r < ${#releases[@]}; r += ${#ids[@]})); do
        run "$id" --set "kernel=${releases[r]}"
    done
    for p in "${presets[@]}"; do
        run "$id" --set "machine.preset=$p"
    done
    for c in "${configs[@]}"; do
        run "$id" --set "kernel.config=$c"
    done
    run "$id" --set machine.guest=kvm --set machine.guest_preempt=0.2
    run "$id" --set 'machine.swap=[{"size":"1GiB","device":"zram"}]'
    run "$id" --set machine.numa=false
done
exit $fail
