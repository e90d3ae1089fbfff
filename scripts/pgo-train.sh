#!/usr/bin/env bash
# pgo-train.sh CLI -- the training run of a profile-guided build (scripts/build.sh PRESET --pgo): every built-in
# scenario, all its variants and sweep points, at a scale small enough for the instrumented binary to run them all
# in about a minute on two cores. Their profiles are what the optimised build is tuned for; a scenario left out
# would still run, only without that tuning.
set -euo pipefail
cli=${1:?usage: pgo-train.sh CLI}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The scale of each scenario: 0.05, as the tests run most of them; less where a run at 0.05 would take the
# instrumented binary more than a few seconds, more for the 2007 sweeps, whose runs at 0.05 last a few tens of
# simulated milliseconds.
scale_of() {
    case $1 in
    dd-sparse-read) echo 0.01 ;;
    migration-unmapped | lru-file-mmap-read) echo 0.02 ;;
    ebizzy | madv-free-tlb-batch) echo 0.2 ;;
    *) echo 0.05 ;;
    esac
}

for id in $("$cli" list | awk '/^[a-z]/ { print $1 }'); do
    echo "pgo-train.sh: $id at --scale $(scale_of "$id")"
    # Below a scenario's faithful scale the CLI warns on stderr: kept apart, and shown only if the run fails.
    "$cli" run "$id" --scale "$(scale_of "$id")" --format json --out "$tmp/$id.json" 2> "$tmp/$id.err" \
        || { cat "$tmp/$id.err" >&2; exit 1; }
done
