#pragma once
// mmscope-cli's command line: the error a bad one raises (exit 2), the options of run, report and reproduce as
// read (text) and as checked (RunArgs), and how a number and a scale are read.

#include "run/render.h"
#include "run/run.h"
#include "scenario/scenario.h"

#include <CLI/App.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mms::cli {

struct BadInput : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct RunArgs {
    std::string scenario;
    std::vector<std::string> variants;
    std::vector<std::pair<std::string, std::string>> sets;
    // --scale; when not given, `run` and `report` take the scenario's faithful scale and `reproduce` takes 1.
    std::optional<double> scale;
    std::optional<int> reps;
    std::optional<std::uint64_t> seed;
    int threads = 0;
    std::uint64_t memoryBudget = 0; // --memory-budget; 0: the runner's default
    Format format = Format::Text;
    std::string out;
    bool checkInvariants = false;
    std::uint64_t maxEvents = kDefaultMaxEvents;
    // --shard K/N, stored 0-based.
    std::size_t shardIndex = 0, shardCount = 0;
};

// The options of run and report as the command line gave them; check() turns them into RunArgs.
struct RunOptionText {
    std::vector<std::string> positionals;
    std::vector<std::string> variants, sets;
    std::string scale, reps, seed, threads, memoryBudget, format, out, maxEvents, shard;
    bool checkInvariants = false;
    CLI::App* app = nullptr; // the command they were added to: which options were given

    // Adds the options to a command. `shard` only for run.
    void addTo(CLI::App* app, bool shard);
    // Every value checked, in the order of the old parser's messages; report needs --out.
    RunArgs check(bool needOut) const;
};

// --scale, in the range every front end accepts (scenario/scale.h).
double parseScale(const std::string& v);
// An integer in [lo, hi]; else BadInput naming the option, the value and the range.
long long parseInt(const std::string& opt, const std::string& v, long long lo, long long hi);
// --format's value; else BadInput listing the formats.
Format parseFormatOption(const std::string& v);
// --memory-budget SIZE (run, report, reproduce): the option on a command, and its value in bytes.
void addMemoryBudget(CLI::App* app, std::string& text);
std::uint64_t parseMemoryBudget(const std::string& v);
// --set's value: PATH=VALUE.
std::pair<std::string, std::string> parseSet(const std::string& kv);
// The scenario with the options applied: every --set together, then --reps, --seed, --variant.
Scenario prepare(const RunArgs& r);

} // namespace mms::cli
