#!/bin/bash
# faithful-scale.sh BUILD_DIR [SCENARIO...]: measure each built-in scenario's ratios (the ones its post is about,
# run/ratio.h) at a ladder of scales against scale 1, and check the faithful scale its JSON declares: the smallest
# scale at which every such ratio stays within 10 % of its value at scale 1 and none changes sides (a variant that
# wins by more than 1 % at scale 1 does not lose). Prints one line per scenario and scale (the largest drift and
# where) and the smallest faithful scale of the ladder; exit 1 if a declared faithful scale is not faithful.
# CI runs the same check for the scenarios that are cheap at scale 1 (tst_faithful); this covers all of them, and
# takes about 8 CPU-minutes (scale 1 of swap-free-sort and dd-sparse-read is a third of it).
#   LADDER="0.01 0.02 0.05 0.1 0.25 0.5"  the scales to measure besides the declared one
set -u
BUILD=${1:?usage: faithful-scale.sh BUILD_DIR [SCENARIO...]}
shift
IDS=${*:-all}
LADDER=${LADDER:-0.01 0.02 0.05 0.1 0.25 0.5}
# One test function runs a whole ladder: past Qt Test's 5-minute limit per function for the larger scenarios.
exec env MMSCOPE_FAITHFUL_SCENARIOS="$IDS" MMSCOPE_FAITHFUL_LADDER="$LADDER" QT_QPA_PLATFORM=offscreen QTEST_FUNCTION_TIMEOUT=7200000 \
    "$BUILD/tests/tst_faithful" -maxwarnings 0 ratiosAtTheFaithfulScale
