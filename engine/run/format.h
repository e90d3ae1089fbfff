#pragma once
// Result formats: text (the post's own table with the published figures beside), markdown, csv, json (the
// machine-readable shape of DESIGN.md) and mmtests (compare-kernels style).

#include "run/result.h"

#include <optional>
#include <string>

namespace mms {

enum class Format : std::uint8_t { Text, Markdown, Csv, Json, Mmtests };
std::optional<Format> parseFormat(const std::string& name);

std::string formatResults(const ResultSet& rs, const Scenario& sc, Format f);
// The text format's heading and table without the lockstat excerpt (mmscope-cli reproduce prints one per scenario).
std::string formatTable(const ResultSet& rs, const Scenario& sc);
// Without a baseline: the runs as they are (what shards and tests that compare runs use). With one (the scenario's,
// Scenario::baseline()): also "baseline" at the top and, per result, "ratio": {metric: this run's figure / the
// baseline's mean over its repetitions at the same point}, for every metric the baseline has and is not 0 in.
OJson resultsToJson(const ResultSet& rs);
OJson resultsToJson(const ResultSet& rs, const std::string& baseline);
// The inverse of resultsToJson, for merging and for reading results back (throws ScenarioError on bad input).
ResultSet resultsFromJson(const OJson& doc, const std::string& origin);

// One cell of a table: mean and standard deviation over repetitions, and the post's figure if it has one.
struct Cell {
    double mean = 0;
    double stddev = 0;
    int n = 0;
    std::optional<double> published;
    std::optional<double> publishedSd;
};
// Table access shared by the text formats and the desktop app's results view.
Cell tableCell(const ResultSet& rs, const Scenario& sc, const std::string& variant, const OJson& point, const std::string& metric);
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
bool lowerIsBetter(const std::string& metric);
std::string formatNumber(double v, const std::string& metric);

} // namespace mms
