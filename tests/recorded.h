#pragma once
// A recorded run of a built-in scenario, as the desktop app makes one: the first repetition of a variant at its
// default point. The recorder's and the views' suites look at these.

#include "run/run.h"

#include <map>
#include <string>

namespace mms::test {

inline RunResult recordedRun(const std::string& scenario, const std::string& variant, double scale,
    std::size_t memoryBudget = RecordingOptions {}.memoryBudget)
{
    static std::map<std::string, Scenario> loaded; // a run's spec points at its scenario
    const Scenario& sc = loaded.try_emplace(scenario, loadScenario(scenario)).first->second;
    RunSpec spec;
    spec.scenario = &sc;
    spec.variant = variant;
    spec.scale = scale;
    spec.seed = runSeed(sc.seed(), spec.variant, spec.point, 0);
    spec.recording.enabled = true;
    spec.recording.memoryBudget = memoryBudget;
    return executeRun(spec);
}

} // namespace mms::test
