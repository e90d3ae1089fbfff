// libFuzzer target: `mmscope-cli run --set PATH=VALUE`. The input is one PATH=VALUE line; the first byte picks the
// built-in scenario it is applied to. Scenario::set() must either apply it (leaving a valid, normalised scenario
// whose runs resolve) or refuse it with a ScenarioError, never crash or leave the scenario half-changed.
#include "run/run.h"
#include "scenario/runsetup.h"
#include "scenario/scenario.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const std::vector<mms::ScenarioInfo> builtins = mms::builtinScenarios();
    if (size < 2 || builtins.empty())
        return 0;
    mms::Scenario sc = mms::loadScenario(builtins[data[0] % builtins.size()].id);
    std::string kv(reinterpret_cast<const char*>(data + 1), size - 1);
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
        return 0; // the CLI refuses these before Scenario::set() sees them
    const std::string before = sc.json().dump();
    try {
        sc.set(kv.substr(0, eq), kv.substr(eq + 1));
    } catch (const mms::ScenarioError&) {
        if (sc.json().dump() != before)
            __builtin_trap(); // a refused --set must leave the scenario as it was
        return 0;
    }
    // Accepted: the result must itself be a valid scenario, and its first runs must resolve.
    mms::Scenario again = mms::Scenario::fromJson(sc.json(), "fuzz-set");
    int budget = 8;
    for (const std::string& v : again.variantNames())
        for (const mms::OJson& p : again.points()) {
            if (budget-- == 0)
                return 0;
            mms::RunSetup setup = again.resolve(v, p, 0.01);
            (void)mms::estimateRunMemory(setup, mms::RecordingOptions {});
        }
    return 0;
}
