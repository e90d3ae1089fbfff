#pragma once
// Result formats: text (the post's own table with the published figures beside), markdown, csv, json (run/json.h)
// and mmtests (compare-kernels style).

#include "run/result.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mms {

enum class Format : std::uint8_t { Text, Markdown, Csv, Json, Mmtests };
std::optional<Format> parseFormat(const std::string& name);

std::string formatResults(const ResultSet& rs, const Scenario& sc, Format f);
// The text format's heading and table without the lockstat excerpt (mmscope-cli reproduce prints one per scenario).
std::string formatTable(const ResultSet& rs, const Scenario& sc);

} // namespace mms
