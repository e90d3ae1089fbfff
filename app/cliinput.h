#pragma once
// mmscope-cli's command line: the error a bad one raises (exit 2), the options of run, report and reproduce, and
// how a number, a scale and a whole command line are read.

#include "run/render.h"
#include "run/run.h"
#include "scenario/scenario.h"

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
    Format format = Format::Text;
    std::string out;
    bool checkInvariants = false;
    std::uint64_t maxEvents = kDefaultMaxEvents;
    // --shard K/N, stored 0-based.
    std::size_t shardIndex = 0, shardCount = 0;
};

// --scale, in the range every front end accepts (scenario/scale.h).
double parseScale(const std::string& v);
// An integer in [lo, hi]; else BadInput naming the option, the value and the range.
long long parseInt(const std::string& opt, const std::string& v, long long lo, long long hi);
// The options of run and report from a[i] on; report needs --out.
RunArgs parseRunArgs(const std::vector<std::string>& a, std::size_t i, bool needOut);
// The scenario with the options applied: --set, --reps, --seed, --variant.
Scenario prepare(const RunArgs& r);

} // namespace mms::cli
