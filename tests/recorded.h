#pragma once
// A recorded run of a built-in scenario, as the desktop app makes one: the first repetition of a variant at its
// default point. The recorder's and the views' suites look at these. unrecordedRun() is the same run as
// `mmscope-cli run` makes it, without a recording: the results must be the same.

#include "run/run.h"

#include <map>
#include <string>

namespace mms::test {

inline RunResult runWith(
    const std::string& scenario, const std::string& variant, double scale, const RecordingOptions& recording)
{
    static std::map<std::string, Scenario> loaded; // a run's spec points at its scenario
    const Scenario& sc = loaded.try_emplace(scenario, loadScenario(scenario)).first->second;
    RunSpec spec;
    spec.scenario = &sc;
    spec.variant = variant;
    spec.scale = scale;
    spec.seed = runSeed(sc.seed(), spec.variant, spec.point, 0);
    spec.recording = recording;
    return executeRun(spec);
}

inline RunResult recordedRun(const std::string& scenario, const std::string& variant, double scale,
    std::size_t memoryBudget = RecordingOptions {}.memoryBudget)
{
    RecordingOptions o;
    o.enabled = true;
    o.memoryBudget = memoryBudget;
    return runWith(scenario, variant, scale, o);
}

inline RunResult unrecordedRun(const std::string& scenario, const std::string& variant, double scale)
{
    return runWith(scenario, variant, scale, RecordingOptions {});
}

} // namespace mms::test
