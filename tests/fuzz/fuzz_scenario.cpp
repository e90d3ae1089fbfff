// libFuzzer target: the scenario loader. Any bytes must either load as a scenario or be refused with a
// ScenarioError naming the file and field; a scenario that loads must also resolve every variant and sweep point
// (the setup each run is built from) and give a memory estimate, without crashing or tripping ASan/UBSan.
//
// Seed corpus: resources/scenarios/*.json. Run: tests/fuzz/README.md.
#include "run/run.h"
#include "scenario/runsetup.h"
#include "scenario/scenario.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::string text(reinterpret_cast<const char*>(data), size);
    try {
        mms::Scenario sc = mms::Scenario::fromText(text, "fuzz.json");
        // Resolve a bounded number of runs: a fuzzed sweep can have very many points.
        int budget = 16;
        for (const std::string& v : sc.variantNames())
            for (const mms::OJson& p : sc.points()) {
                if (budget-- == 0)
                    return 0;
                mms::RunSetup setup = sc.resolve(v, p, 0.01);
                (void)mms::estimateRunMemory(setup, mms::RecordingOptions {});
            }
    } catch (const mms::ScenarioError&) {
        // Refused with a message: the expected outcome for most inputs.
    }
    return 0;
}
