#pragma once
// Results as JSON: the shape `mmscope-cli run --format json` writes (README.md), which shards are merged from
// (run/shard.h) and results are read back from.

#include "run/result.h"

#include <string>

namespace mms {

// Without a baseline: the runs as they are (what shards and tests that compare runs use). With one (the scenario's,
// Scenario::baseline()): also "baseline" at the top and, per result, "ratio": {metric: this run's figure / the
// baseline's mean over its repetitions at the same point}, for every metric the baseline has and is not 0 in.
OJson resultsToJson(const ResultSet& rs);
OJson resultsToJson(const ResultSet& rs, const std::string& baseline);
// The inverse of resultsToJson, for merging and for reading results back (throws ScenarioError on bad input).
ResultSet resultsFromJson(const OJson& doc, const std::string& origin);

} // namespace mms
