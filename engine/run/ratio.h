#pragma once
// Ratios between variants: the comparison that holds at any --scale.
//
// The baseline of a scenario is its first variant (Scenario::baseline()), as the first column is the baseline in
// mmtests' compare-kernels; with --variant it is the first one selected. A variant's ratio at a sweep point is its
// mean over repetitions divided by the baseline's mean at the same point and for the same metric; the post's ratio
// is the same quotient of the post's published figures, when the post gives both; the distance is how far the
// simulated ratio is from the post's, in % of the post's (sim / post - 1).
//
// A ratio compares two runs on the same machine at the same scale, so the scale divides out of it as far as the
// mechanisms behind it grow linearly with the work; Scenario::faithfulScale() is the smallest scale at which the
// ratios the post is about stay within 10 % of their value at scale 1. An absolute figure is compared with the
// post's only when it is scale-free or the scale is 1 (comparableToPost()).

#include "run/table.h"

#include <optional>
#include <string>
#include <vector>

namespace mms {

struct Ratio {
    std::string baseline; // the variant it is relative to
    std::optional<double> sim; // variant mean / baseline mean; none when either has no run or the baseline's is 0
    std::optional<double> post; // the post's variant figure / its baseline figure, when it publishes both
    std::optional<double> distancePercent; // (sim / post - 1) x 100, when both exist
};

// The ratio of `variant` to the scenario's baseline at `point` for `metric` (see above).
Ratio tableRatio(const ResultSet& rs, const Scenario& sc, const std::string& variant, const OJson& point, const std::string& metric);

// A metric whose value does not grow with --scale: rates (throughput, throughput_mbps, records_per_s,
// jobs_per_min), per-call and per-unit times and counts (free_entries_call_us, free_entry_us, ns_per_page,
// i_mmap_wait_us_per_test), shares and ratios (lru_lock_busy, unmapped_rmap_share, cpu_busy_max, cpu_busy_mean).
// Counts (swapins, transactions, vm.* counters) and total times (elapsed_s, user_s, sys_s, kthread_sys_s,
// free_time_s) are not.
bool scaleFree(const std::string& metric);
// Whether an absolute figure at `scale` can be set against the post's (scale 1): at scale 1, or when scale-free.
bool comparableToPost(const std::string& metric, double scale);

// "2.92", "545.6", "0.875": three significant digits at least.
std::string formatRatio(double ratio);
// "+5.6%", "-12.0%".
std::string formatPercent(double percent);

// One ratio: `variant` over the baseline at `point` for `metric`.
struct RatioKey {
    std::string variant;
    OJson point;
    std::string metric;
};
// The ratios the post is about: every variant's but the baseline's, at every sweep point, for every metric of the
// scenario that the post publishes a figure for (the later variants and the points the post did not measure
// included: the table shows them beside the post's); where it publishes none, the scenario's first metric.
std::vector<RatioKey> postRatios(const Scenario& sc);

// How far the ratios the post is about move between a run at a smaller scale and one at scale 1: the largest
// |ratio(scaled) / ratio(full) - 1| in %, infinite when a ratio exists in one and not the other; and how many
// changed sides, a variant that wins at scale 1 by more than 1 % losing at the smaller scale or the other way
// round (a ratio near 1, such as a 2 % gain, can move its 10 % and more and still turn the story over). The
// faithful scale is the smallest at which the drift stays within 10 % and no ratio changes sides.
struct RatioDrift {
    int ratios = 0;
    double maxAbsPercent = 0;
    std::string worst; // "variant point metric" of the largest
    int changedSides = 0;
    bool faithful() const { return maxAbsPercent <= 10.0 && changedSides == 0; }
};
RatioDrift ratioDrift(const ResultSet& scaled, const ResultSet& full, const Scenario& sc);

} // namespace mms
