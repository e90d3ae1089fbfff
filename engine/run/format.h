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
OJson resultsToJson(const ResultSet& rs);
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
bool lowerIsBetter(const std::string& metric);
std::string formatNumber(double v, const std::string& metric);

} // namespace mms
