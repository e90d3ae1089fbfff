#!/bin/bash
# same-results.sh A_CLI B_CLI [SCALE] [THREADS]: run every built-in scenario with two mmscope-cli binaries and
# compare their JSON outside `host` (event counts, lock statistics and metrics included). Exit 1 if any differs.
# A speed change must leave every result byte-identical; this is how docs/benchmarks.md checks it.
set -u
A=$1 B=$2 S=${3:-0.05} T=${4:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
strip='import json, sys
def strip(o):
    if isinstance(o, dict): return {k: strip(v) for k, v in o.items() if k != "host"}
    if isinstance(o, list): return [strip(x) for x in o]
    return o
json.dump(strip(json.load(sys.stdin)), sys.stdout, sort_keys=True)'
rc=0
for id in $("$A" list | awk '/^[a-z]/ {print $1}'); do
    "$A" run "$id" --scale "$S" --threads "$T" --format json | python3 -c "$strip" > "$tmp/a.json"
    "$B" run "$id" --scale "$S" --threads "$T" --format json | python3 -c "$strip" > "$tmp/b.json"
    if cmp -s "$tmp/a.json" "$tmp/b.json"; then
        echo "$id: identical"
    else
        echo "$id: DIFFERENT"
        rc=1
    fi
done
exit $rc
