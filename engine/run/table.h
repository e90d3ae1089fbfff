#pragma once
// The results as the post lays out its table: one cell per (variant, sweep point, metric) with the post's figure
// beside it, the absolute table and the table of ratios to the baseline (run/ratio.h), and how far both are from
// the post. Shared by the text formats (run/render.h) and the desktop app's results view.

#include "run/result.h"

#include <optional>
#include <string>
#include <vector>

namespace mms {

// One cell of a table: mean and standard deviation over repetitions, and the post's figure if it has one.
struct Cell {
    double mean = 0;
    double stddev = 0;
    int n = 0;
    std::optional<double> published;
    std::optional<double> publishedSd;
};
Cell tableCell(const ResultSet& rs, const Scenario& sc, const std::string& variant, const OJson& point, const std::string& metric);
// The sample standard deviation of `n` values from their sum and the sum of their squares (0 for fewer than two).
double sampleStddev(double sum, double sumSquares, int n);
std::optional<double> publishedValue(const Scenario& sc, const std::string& variant, const OJson& point, const std::string& metric);

// How far the table's cells are from the post's: over every cell the text table shows with a published figure and
// a "vs post" distance (at scale 1, or a scale-free metric; run/ratio.h).
struct PostDistance {
    int cells = 0;
    double meanAbsPercent = 0;
    double maxAbsPercent = 0;
    std::string worst; // "variant metric" or "variant point" of the largest distance
};
PostDistance distanceToPost(const ResultSet& rs, const Scenario& sc);
// Over every ratio the text table shows with the post's ratio beside it: how far they are (|distancePercent|).
PostDistance ratioDistanceToPost(const ResultSet& rs, const Scenario& sc);

bool lowerIsBetter(const std::string& metric);
std::string formatNumber(double v, const std::string& metric);
// A sweep point as "axis=value,axis=value" (string values unquoted).
std::string pointLabel(const OJson& point);

// A table as rows of cells, with a caption line above it when it has one; rendered as aligned text or as markdown
// (run/render.h).
struct Table {
    std::string caption;
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};
// The absolute figures. Rows: variants (no sweep) or points (with a sweep); columns: metric x (sim, post,
// distance) or variant x (sim, post). The distance to the post's absolute figure is shown only where the two
// compare (comparableToPost): at scale 1, or for a scale-free metric.
Table figureTable(const ResultSet& rs, const Scenario& sc);
// Each variant's ratio to the baseline beside the post's ratio and the distance between them. Rows: variants but
// the baseline (no sweep) or points (a sweep); columns: metric x (ratio, post, vs post) or variant x (ratio, post,
// vs post). Empty when the scenario has one variant.
Table ratioTable(const ResultSet& rs, const Scenario& sc);

} // namespace mms
