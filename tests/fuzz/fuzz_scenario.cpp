// libFuzzer target: the scenario loader and the engine behind it. Any bytes must either load as a scenario or be
// refused with a ScenarioError naming the file and field; a scenario that loads must also resolve every variant and
// sweep point (the setup each run is built from), give a memory estimate, and run -- its first variant at its first
// point, at a tiny scale and within a small event budget -- to an end or a ScenarioError (a refusal, a program that
// gave up, the watchdog, the budget), without crashing or tripping ASan/UBSan.
//
// Seed corpus: resources/scenarios/*.json. Run: tests/fuzz/README.md.
#include "run/run.h"
#include "scenario/runsetup.h"
#include "scenario/scenario.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {
constexpr double kScale = 0.001;
} // namespace

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
                    break;
                mms::RunSetup setup = sc.resolve(v, p, kScale);
                (void)mms::estimateRunMemory(setup, mms::RecordingOptions {});
            }
        mms::RunSpec spec;
        spec.scenario = &sc;
        spec.variant = sc.variantNames().front();
        spec.point = sc.points().front();
        spec.scale = kScale;
        spec.maxEvents = 200'000; // a few milliseconds of host time: libFuzzer wants many inputs a second
        spec.checkInvariants = true;
        if (mms::estimateRunMemory(sc.resolve(spec.variant, spec.point, kScale), {}).bytes < (256u << 20))
            (void)mms::executeRun(spec);
    } catch (const mms::ScenarioError&) {
        // Refused with a message: the expected outcome for most inputs.
    }
    return 0;
}
