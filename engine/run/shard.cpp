#include "run/shard.h"

#include "run/json.h"
#include "run/runner.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace mms {

std::string shardJson(const ResultSet& rs, const Scenario& sc, std::size_t index, std::size_t count)
{
    OJson j = resultsToJson(rs);
    j["shard"] = OJson { { "index", index + 1 }, { "count", count }, { "runs", planRuns(sc).size() } };
    j["scenario_doc"] = sc.json();
    return j.dump(2) + "\n";
}

namespace {
    std::string readFile(const std::string& path)
    {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            throw ScenarioError(path + ": cannot read (" + std::string(std::strerror(errno)) + ")");
        std::stringstream ss;
        ss << in.rdbuf();
        if (in.bad())
            throw ScenarioError(path + ": read failed (" + std::string(std::strerror(errno)) + ")");
        return ss.str();
    }

    struct Shard {
        std::string file;
        OJson doc;
        ResultSet rs;
        std::size_t index = 0, count = 0, runs = 0;
    };

    Shard readShard(const std::string& f)
    {
        Shard sh;
        sh.file = f;
        try {
            sh.doc = OJson::parse(readFile(f));
        } catch (const nlohmann::json::parse_error& e) {
            throw ScenarioError(f + ": not valid JSON: " + e.what());
        }
        const OJson* s = sh.doc.is_object() && sh.doc.contains("shard") ? &sh.doc["shard"] : nullptr;
        auto positive = [&](const char* k) {
            return s && s->is_object() && s->contains(k) && (*s)[k].is_number_unsigned() && (*s)[k].get<std::uint64_t>() > 0;
        };
        if (!positive("index") || !positive("count") || !positive("runs"))
            throw ScenarioError(f + ": shard: expected {\"index\": K, \"count\": N, \"runs\": R} with 1 <= K <= N (a file written by mmscope-cli run --shard K/N)");
        sh.index = (*s)["index"];
        sh.count = (*s)["count"];
        sh.runs = (*s)["runs"];
        if (sh.index > sh.count)
            throw ScenarioError(f + ": shard: index " + std::to_string(sh.index) + " is past count " + std::to_string(sh.count));
        if (!sh.doc.contains("scenario_doc") || !sh.doc["scenario_doc"].is_object())
            throw ScenarioError(f + ": scenario_doc: expected the scenario object the shard ran");
        if (sh.doc.value("cancelled", false))
            throw ScenarioError(f + ": cancelled: the shard was interrupted; run it again");
        sh.rs = resultsFromJson(sh.doc, f);
        return sh;
    }
} // namespace

MergedShards mergeShards(const std::vector<std::string>& files)
{
    if (files.empty())
        throw ScenarioError("merge: expected the shard files (written by mmscope-cli run SCENARIO --shard K/N --out FILE)");
    std::vector<Shard> shards;
    for (const std::string& f : files)
        shards.push_back(readShard(f));

    const Shard& first = shards.front();
    for (const Shard& sh : shards) {
        auto differs = [&](const std::string& what, const std::string& mine, const std::string& theirs) {
            if (mine != theirs)
                throw ScenarioError(sh.file + ": " + what + " " + mine + ", expected " + theirs + " as in " + first.file + " (shards of one run only)");
        };
        differs("scenario", sh.rs.scenario, first.rs.scenario);
        differs("engine_version", sh.rs.engineVersion, first.rs.engineVersion);
        differs("seed", std::to_string(sh.rs.seed), std::to_string(first.rs.seed));
        differs("scale", OJson(sh.rs.scale).dump(), OJson(first.rs.scale).dump());
        differs("shard count", std::to_string(sh.count), std::to_string(first.count));
        if (sh.doc["scenario_doc"] != first.doc["scenario_doc"])
            throw ScenarioError(sh.file + ": scenario_doc: differs from " + first.file + " (different --set, --reps, --variant or scenario file)");
    }
    MergedShards out;
    out.scenario = Scenario::fromJson(first.doc["scenario_doc"], first.file + ": scenario_doc");
    std::vector<PlannedRun> plan = planRuns(out.scenario);
    if (plan.size() != first.runs)
        throw ScenarioError(first.file + ": shard.runs: " + std::to_string(first.runs) + ", but its scenario plans " + std::to_string(plan.size()) + " runs");

    // Each planned run must come from the shard it belongs to, exactly once.
    std::vector<const Shard*> byIndex(first.count, nullptr);
    for (const Shard& sh : shards) {
        if (byIndex[sh.index - 1])
            throw ScenarioError(sh.file + ": shard " + std::to_string(sh.index) + "/" + std::to_string(sh.count) + " is also given as " + byIndex[sh.index - 1]->file);
        byIndex[sh.index - 1] = &sh;
    }
    std::string missing;
    for (std::size_t k = 0; k < byIndex.size(); ++k)
        if (!byIndex[k])
            missing += (missing.empty() ? "" : ", ") + std::to_string(k + 1);
    if (!missing.empty())
        throw ScenarioError("merge: missing shard " + missing + " of " + std::to_string(first.count));

    ResultSet& merged = out.results;
    merged.scenario = first.rs.scenario;
    merged.engineVersion = first.rs.engineVersion;
    merged.seed = first.rs.seed;
    merged.scale = first.rs.scale;
    std::vector<std::size_t> next(first.count, 0);
    for (std::size_t i = 0; i < plan.size(); ++i) {
        std::size_t k = i % first.count;
        const Shard& sh = *byIndex[k];
        auto label = [&] { return plan[i].variant + " " + plan[i].point.dump() + " rep " + std::to_string(plan[i].rep); };
        if (next[k] >= sh.rs.results.size())
            throw ScenarioError(sh.file + ": results: expected run " + label() + ", but the shard ends early");
        const RunResult& got = sh.rs.results[next[k]++];
        if (got.variant != plan[i].variant || got.point != plan[i].point || got.rep != plan[i].rep)
            throw ScenarioError(sh.file + ": results[" + std::to_string(next[k] - 1) + "]: expected run " + label() + ", got " + got.variant + " "
                + got.point.dump() + " rep " + std::to_string(got.rep));
        merged.results.push_back(got);
    }
    for (std::size_t k = 0; k < first.count; ++k)
        if (next[k] != byIndex[k]->rs.results.size())
            throw ScenarioError(byIndex[k]->file + ": results: " + std::to_string(byIndex[k]->rs.results.size() - next[k]) + " runs more than shard "
                + std::to_string(k + 1) + "/" + std::to_string(first.count) + " plans");
    for (const Shard& sh : shards) {
        merged.wallSeconds += sh.rs.wallSeconds;
        merged.threads = std::max(merged.threads, sh.rs.threads);
    }
    return out;
}

} // namespace mms
