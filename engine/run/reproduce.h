#pragma once
// What mmscope-cli reproduce prints: each built-in scenario's table beside the post's with the distance to it and
// the wall time, then a summary of all of them.

#include "run/ratio.h"
#include "run/table.h"

#include <cstddef>
#include <string>
#include <vector>

namespace mms {

// One scenario's line of the summary.
struct ReproduceRow {
    std::string id;
    std::size_t runs = 0; // planned
    double wall = 0; // host seconds: the span from its first run's start to its last run's end
    PostDistance d; // absolute figures (where they compare with the post's: run/ratio.h)
    PostDistance ratios; // ratios to the baseline against the post's same ratios
    std::string failed; // why it did not run (an invalid scenario, too little host memory); empty if it ran
};

// The scenario's text table (formatTable) with its distance to the post (row.d, row.ratios) and its wall time
// (row.wall, row.runs, rs.threads), and a blank line.
std::string formatReproduced(const ReproduceRow& row, const ResultSet& rs, const Scenario& sc);
// "ID: not run: WHY" and a blank line, for a scenario that failed.
std::string formatNotRun(const ReproduceRow& row);
// The summary table: per scenario its runs, wall time and distances to the post, absolute and of the ratios (or
// "failed"), then the total wall time of `totalWallSeconds` and how many failed.
std::string formatReproduceSummary(const std::vector<ReproduceRow>& rows, double scale, double totalWallSeconds);

} // namespace mms
