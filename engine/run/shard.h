#pragma once
// Sharded runs (mmscope-cli run --shard K/N, then merge): a shard's JSON, and the merge of all N shards back into
// the result of one unsharded run. Which runs shard K holds is inShard() (run/runner.h).

#include "run/result.h"

#include <cstddef>
#include <string>
#include <vector>

namespace mms {

// A shard's JSON: resultsToJson() plus what mergeShards() needs to check and rebuild the whole: which slice it is
// ("shard": 1-based index, count, the runs the whole plan holds) and the scenario as run (after --set, --reps,
// --seed, --variant; "scenario_doc"), so the merged tables need no other input. `index` is 0-based.
std::string shardJson(const ResultSet& rs, const Scenario& sc, std::size_t index, std::size_t count);

struct MergedShards {
    Scenario scenario; // as the shards ran it
    // The plan's runs in the unsharded order. Host fields: wallSeconds is the shards' sum (the work done, wherever
    // it ran), threads the widest shard's.
    ResultSet results;
};

// Reads the shard files written by shardJson() and merges them. Every shard must come from the same scenario
// document (so the same seed, variants and overrides), scale and engine version; together they must hold each
// planned run exactly once. Throws ScenarioError naming the file and what was expected (or that no file was given).
MergedShards mergeShards(const std::vector<std::string>& files);

} // namespace mms
