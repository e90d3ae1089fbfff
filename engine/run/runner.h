#pragma once
// Runs a scenario's runs (variant x sweep point x repetition) in parallel with oneTBB. Results come back in a
// fixed order (variants in the scenario's order, then points, then repetitions) whatever the thread count, and
// every run is seeded from (scenario seed, variant, point, repetition) only, so they are byte-identical.

#include "run/run.h"

#include <functional>

namespace mms {

struct RunnerOptions {
    int threads = 0; // 0 = all host cores
    double scale = 1.0;
    Interrupter* interrupter = nullptr;
    // Called after each run completes (from a worker thread; must be thread-safe): runs done, runs in total.
    std::function<void(std::size_t, std::size_t)> progress;
    // The share of all the work done, 0..1: finished runs plus the running ones' own progress (their workloads'
    // work done of planned). Called from worker threads (must be thread-safe), only when the share has grown by
    // at least 0.1 %; concurrent calls may arrive out of order, so keep the largest.
    std::function<void(double)> progressFraction;
    bool checkInvariants = false;
    RecordingOptions recording;
};

struct PlannedRun {
    std::string variant;
    OJson point;
    int rep;
};
std::vector<PlannedRun> planRuns(const Scenario& sc);

ResultSet runScenario(const Scenario& sc, const RunnerOptions& opts);

std::string engineVersion();

} // namespace mms
