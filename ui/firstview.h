#pragma once
// What the app shows first after a run: the scenario's most telling point and moment, derived from the run's own
// results and recordings.
//  - The headline metric: the first of the scenario's metrics that measures the whole job's speed (a rate, or the
//    elapsed time), else its first metric.
//  - The point: for a sweep, the point where the variants differ most in the headline metric (the largest
//    |log(variant / baseline)| over the variants); the only point otherwise.
//  - The run: at that point, the variant farthest from the baseline (the one the post is about), repetition 0; the
//    A/B panel sets it against the baseline at the same point.
//  - The moment: an event of interest the recording found in that run (or, with none, in the next farthest
//    variant's): its first swap-in, else its first lock contention, else where reclaim starts, else its first OOM
//    kill, else its first event of any kind; the costliest to a task first (a swap-in waits for I/O, a contended
//    lock spins or sleeps). With no event at all, the frame where the most pages are in use.

#include "run/result.h"

#include <string>

namespace mms {

std::string headlineMetric(const Scenario& sc);

struct FirstView {
    int run = -1; // index into ResultSet::results; -1 when there is nothing to show
    int baselineRun = -1; // the baseline variant's run at the same point and repetition
    Time at = 0; // the time cursor
    std::string why; // "first swap-in", "most pages in use": what the cursor points at
};

FirstView chooseFirstView(const Scenario& sc, const ResultSet& rs);

} // namespace mms
